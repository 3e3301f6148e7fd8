// omgdb sql — make_adapter: the adapter for a configured connection (native by dialect, or ODBC).
#include "sql/adapter.hpp"

#include "sql/adapter_factories.hpp"

namespace omgdb::sql {

result<std::unique_ptr<adapter>> make_adapter(const config::connection& conn) {
  if (conn.kind == config::connection_kind::odbc || conn.dialect == config::sql_dialect::mssql ||
      conn.dialect == config::sql_dialect::ansi) {
    if (conn.odbc.empty() && conn.host.empty())
      return make_error("connection `" + conn.name + "`: an ODBC connection needs `odbc` (a connection string) or, "
                        "for mssql, `host`");
    return detail::make_odbc_adapter(conn);
  }
  switch (conn.dialect) {
    case config::sql_dialect::sqlite:
      if (conn.file.empty()) return make_error("connection `" + conn.name + "`: a SQLite connection needs a file");
      return detail::make_sqlite_adapter(conn);
    case config::sql_dialect::postgres:
      return detail::make_postgres_adapter(conn);
    case config::sql_dialect::mysql:
      return detail::make_mysql_adapter(conn);
    case config::sql_dialect::mssql:
    case config::sql_dialect::ansi: break;  // through ODBC, above
  }
  return make_error("connection `" + conn.name + "`: unknown dialect");
}

}  // namespace omgdb::sql
