// omgdb sql — getSchemaSummary and getTableIndexes over ODBC catalog functions (SQLTables,
// SQLColumns, SQLStatistics, SQLPrimaryKeys), so they work with any driver.
//
// A relation's schema is the driver's TABLE_SCHEM, else its TABLE_CAT (MariaDB names the
// database there), else "main" (SQLite). Relations are the driver's TABLE and VIEW kinds,
// ordered by schema and name and paged like the native adapters'; the system schemas of the
// declared dialect are left out unless asked for. Types are the driver's TYPE_NAME (with
// precision and scale for DECIMAL/NUMERIC), which may spell a type differently from the native
// adapter (int8 for bigint). At most `k_max_relations` relations are listed before paging.
//
// Internal to sql/.
#pragma once

#include <boost/json/object.hpp>

#include "sql/odbc/odbc_session.hpp"

namespace omgdb::sql::detail {

inline constexpr std::size_t k_max_relations = 100000;

result<boost::json::object> odbc_schema_summary(odbc_session& s, config::sql_dialect dialect, const deadline& dl,
                                                std::string_view schema, std::string_view table, std::size_t offset,
                                                std::size_t limit);

result<boost::json::object> odbc_table_indexes(odbc_session& s, config::sql_dialect dialect, const deadline& dl,
                                               std::string_view schema, std::string_view table);

}  // namespace omgdb::sql::detail
