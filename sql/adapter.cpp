// omgdb sql — make_adapter: the dialect's adapter for a configured connection.
#include "sql/adapter.hpp"

#include "sql/adapter_factories.hpp"

namespace omgdb::sql {

result<std::unique_ptr<adapter>> make_adapter(const config::connection& conn) {
  switch (conn.dialect) {
    case config::sql_dialect::sqlite:
      if (conn.file.empty()) return make_error("connection `" + conn.name + "`: a SQLite connection needs a file");
      return detail::make_sqlite_adapter(conn);
    case config::sql_dialect::postgres:
      return detail::make_postgres_adapter(conn);
    case config::sql_dialect::mysql:
      return detail::make_mysql_adapter(conn);
  }
  return make_error("connection `" + conn.name + "`: unknown dialect");
}

}  // namespace omgdb::sql
