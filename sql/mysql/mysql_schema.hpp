// omgdb sql — MariaDB/MySQL schema summary and indexes from information_schema. Run by the
// adapter inside a read-only transaction that it rolls back. Internal to sql/.
#pragma once

#include <cstddef>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "sql/mysql/mysql_session.hpp"

namespace omgdb::sql::detail {

// Tables and views ordered by schema and name. Without a schema filter: the connection's
// database (a MariaDB database is what PostgreSQL calls a database, not a schema), or, when the
// connection names none, every schema the user can see but the system ones (mysql,
// information_schema, performance_schema, sys).
result<boost::json::object> my_schema_summary(my_session& s, std::string_view schema, std::string_view table,
                                              std::size_t offset, std::size_t limit);

// Indexes of a table; without a schema the table is looked up in the current database.
result<boost::json::object> my_table_indexes(my_session& s, std::string_view schema, std::string_view table);

}  // namespace omgdb::sql::detail
