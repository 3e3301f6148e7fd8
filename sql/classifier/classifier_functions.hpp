// omgdb sql — lookup tables for the classifier: side-effect functions and the SQLite PRAGMA
// allow-list. Names are compared upper-cased. Internal to sql/.
#pragma once

#include <optional>
#include <string_view>

namespace omgdb::sql::detail {

// What calling the function does ("takes or releases a lock …"), or nullopt for a function
// the classifier lets through (`current_setting`, `now`, `randomblob`, …).
std::optional<std::string_view> side_effect_of(std::string_view upper_name) noexcept;

// SQLite: a pragma that only reports state when given no value (or a table/index argument).
bool pragma_reads(std::string_view upper_name) noexcept;

// SQLite: a reporting pragma whose parenthesised argument names what to report on
// (`PRAGMA table_info(t)`), as opposed to a setter (`PRAGMA journal_mode(WAL)`).
bool pragma_takes_argument(std::string_view upper_name) noexcept;

}  // namespace omgdb::sql::detail
