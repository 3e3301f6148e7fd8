// omgdb sql — ODBC result sets as the JSON rows every adapter returns (sql/adapter.hpp).
//
// Columns: the name, the driver's type name (SQL_DESC_TYPE_NAME, " unsigned" added for
// unsigned integers), and `nullable` only for columns read straight from a table
// (SQL_DESC_BASE_TABLE_NAME) of a driver that reports NOT NULL. Values by ODBC SQL type, each
// read with SQLGetData in chunks and never longer than the byte budget: integers as exact
// numbers (or decimal strings past 2^53), DECIMAL/NUMERIC as strings, floats as numbers (NaN
// and infinities as strings), SQL_BIT as true/false, binary as {"$binary":…}, everything else
// (text, dates, times, GUIDs, XML) as UTF-8 text. SQLite's values keep their storage class (an
// integer in a NUMERIC column stays an integer), as the native SQLite adapter returns them.
//
// Internal to sql/.
#pragma once

#include <vector>

#include "sql/adapter.hpp"
#include "sql/odbc/odbc_session.hpp"

namespace omgdb::sql::detail {

enum class odbc_value { boolean, integer, decimal, floating, binary, text, sqlite_number };

// Describes the current result's columns into `out.columns`; the kind of each column's values.
std::vector<odbc_value> odbc_describe(odbc_session& s, const odbc_stmt& stmt, SQLSMALLINT columns, exec_outcome& out);

// Fetches the rows of the current result under the row and byte budgets of `opts`. Reads
// (`stop_when_full`) stop fetching when the budget is spent; writes fetch to the end and drop
// the surplus.
status odbc_fetch(odbc_session& s, const odbc_stmt& stmt, const std::vector<odbc_value>& kinds,
                  const exec_options& opts, bool stop_when_full, exec_outcome& out);

// One value as text or bytes (`c_type` SQL_C_CHAR or SQL_C_BINARY), at most `limit` bytes:
// false in `fits` when it is longer (nothing more is read then). nullopt for NULL.
result<std::optional<std::string>> odbc_get(odbc_session& s, const odbc_stmt& stmt, SQLUSMALLINT column,
                                            SQLSMALLINT c_type, std::size_t limit, bool& fits);

// Every row of the current result as text (catalog functions): at most `max_rows` rows and
// 64 KiB a value, or an error saying the answer is too large.
result<std::vector<std::vector<std::optional<std::string>>>> odbc_fetch_all(odbc_session& s, const odbc_stmt& stmt,
                                                                            std::size_t max_rows);

}  // namespace omgdb::sql::detail
