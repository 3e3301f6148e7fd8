// omgdb sql — running one statement on a libmariadb session and reading its rows as JSON.
//
// The statement is prepared (the binary protocol: one statement, never more); statements the
// server cannot prepare (ER_UNSUPPORTED_PS, e.g. some SHOW forms) fall back to the text
// protocol, where the connection's lack of CLIENT_MULTI_STATEMENTS still makes the server
// refuse a second statement. Values: integers as numbers (beyond ±2^53 as strings), FLOAT/
// DOUBLE as numbers, DECIMAL as strings, binary strings and BLOBs as {"$binary":…}, the rest
// as text. Internal to sql/.
#pragma once

#include <string_view>

#include "common/result.hpp"
#include "sql/adapter.hpp"
#include "sql/mysql/mysql_session.hpp"

namespace omgdb::sql::detail {

// Runs `sql` and fills `out` (columns, rows within the budget, affected). With `reads_only`
// the remaining rows are abandoned once the budget is full; otherwise they are drained.
// Errors carry the server's message and set `error_no` (the server's or client's error number);
// the caller decides what a kill by the watchdog means.
status my_run_statement(my_session& s, std::string_view sql, const exec_options& opts, bool reads_only,
                        exec_outcome& out, unsigned& error_no);

}  // namespace omgdb::sql::detail
