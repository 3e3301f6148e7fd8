// omgdb sql — PostgreSQL schema summary and indexes from pg_catalog. Run by the adapter inside
// a read-only transaction that it rolls back. Internal to sql/.
#pragma once

#include <cstddef>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "sql/postgres/postgres_session.hpp"

namespace omgdb::sql::detail {

// Tables, partitioned tables, views, materialized views and foreign tables ordered by schema
// and name; without a schema filter the system schemas (pg_catalog, information_schema,
// pg_toast, temp) are left out.
result<boost::json::object> pg_schema_summary(pg_session& s, const deadline& dl, std::string_view schema,
                                              std::string_view table, std::size_t offset, std::size_t limit);

// Indexes of a table; without a schema the table is looked up on the search_path.
result<boost::json::object> pg_table_indexes(pg_session& s, const deadline& dl, std::string_view schema,
                                             std::string_view table);

}  // namespace omgdb::sql::detail
