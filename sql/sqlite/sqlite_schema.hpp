// omgdb sql — SQLite schema queries (sqlite_schema + pragma table functions), run on a
// read-only session. Internal to sql/.
#pragma once

#include <cstddef>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "sql/sqlite/sqlite_session.hpp"

namespace omgdb::sql::detail {

// Tables and views of `main` ordered by name, paged (offset/limit over relations). A schema
// other than "" or "main" has no relations.
result<boost::json::object> sqlite_schema_summary(sqlite_session& s, std::string_view schema,
                                                  std::string_view table, std::size_t offset,
                                                  std::size_t limit);

// Indexes of one table (an INTEGER PRIMARY KEY appears as the `rowid` primary index).
result<boost::json::object> sqlite_table_indexes(sqlite_session& s, std::string_view schema,
                                                 std::string_view table);

}  // namespace omgdb::sql::detail
