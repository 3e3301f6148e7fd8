// omgdb sql — one SQL connection's adapter: a small pool of client-library sessions
// (libpq, libmariadb, sqlite3, or unixODBC for `mssql` and `odbc` connections) that runs
// statements off the event loop.
//
// Layers 2 and 3 of read-only enforcement live here: with `read_only` set, PostgreSQL and
// MariaDB run the statement inside a READ ONLY transaction that is always rolled back (never
// committed), SQLite uses a separate read-only handle plus sqlite3_stmt_readonly and an
// authorizer; every adapter executes exactly one statement at the protocol level (extended
// query protocol / prepared statements, no multi-statements). The native adapters do NOT
// classify text — the caller (sql/service) does that first; they must be safe even if it
// didn't. The ODBC adapter has no database layer to lean on (read-only there is the text check
// alone, seed 003): it classifies every text itself with the declared dialect.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "config/connection.hpp"

namespace omgdb::sql {

struct column_info {
  std::string name;
  std::string type;               // the server's type name, e.g. "int4", "varchar", "INTEGER"
  std::optional<bool> nullable;   // when the client library knows it
};

struct exec_options {
  bool read_only = true;          // run under the database's read-only enforcement
  std::size_t max_rows = 100;     // rows returned at most (1..1000); more → rows_more_available
  std::size_t max_bytes = 256 * 1024;  // size of rows_json() at most; more → truncated
  std::chrono::milliseconds timeout{30000};  // statement timeout; reaches the server
  const std::atomic<bool>* cancelled = nullptr;  // polled; cancellation reaches the server
};

struct exec_outcome {
  std::vector<column_info> columns;
  // The rows as compact JSON text, written once by the adapter: each row a JSON array, rows
  // joined by ',' WITHOUT the enclosing brackets (rows_json() adds them). Values: numbers
  // exact (integers beyond 2^53 and decimals as strings), bytea/blob as
  // {"$binary":{"base64":…,"subType":"00"}}, text as valid UTF-8 (U+FFFD for invalid bytes).
  std::string rows_text;
  std::size_t row_count = 0;
  std::optional<std::int64_t> affected;  // rows changed, when the statement changes rows
  bool rows_more_available = false;  // at least one row was not returned (max_rows or max_bytes)
  bool truncated = false;         // cut at max_bytes (a whole row boundary); implies the above
  double elapsed_ms = 0;          // the whole call: waiting for a session, setup, statement
  bool committed = false;         // true only when a write succeeded in autocommit and left no
                                  // transaction open (never for read_only executions)

  std::string rows_json() const { return "[" + rows_text + "]"; }
};

// Failures carry a message fit for an agent (server's error text, SQLSTATE when known);
// a cancelled or timed-out statement says so and says whether anything was committed.
//
// Thread-safe: one adapter may serve many threads; each call borrows a pooled session. Calls
// block (run them off the event loop) but every wait is bounded by `exec_options::timeout` and
// ends early when `cancelled` is set. docs/sql-adapters.md lists what each dialect guarantees.
class adapter {
 public:
  virtual ~adapter() = default;
  virtual config::sql_dialect dialect() const noexcept = 0;

  virtual result<exec_outcome> execute(std::string_view sql, const exec_options& opts) = 0;

  // The plan without executing the statement (never EXPLAIN ANALYZE), run read-only and rolled
  // back. {"plan": <server's plan as JSON or text lines>}.
  virtual result<boost::json::object> explain(std::string_view sql, const exec_options& opts) = 0;

  // Schemas, relations and columns, ordered by schema, relation name; `schema`/`table` filter
  // (empty = all); paged over relations. {"relations":[{"schema","name","kind","columns":[
  // {"name","type","nullable","default"?}]}], "nextOffset"?: n}.
  virtual result<boost::json::object> schema_summary(std::string_view schema, std::string_view table,
                                                     std::size_t offset, std::size_t limit,
                                                     const exec_options& opts) = 0;

  // {"table","schema","indexes":[{"name","columns":[…],"unique","primary","method"?,"definition"?}]}
  // An unknown table is an error naming it.
  virtual result<boost::json::object> table_indexes(std::string_view schema, std::string_view table,
                                                    const exec_options& opts) = 0;

  // Checks that the server answers (for `omgdb doctor`); never returns secrets.
  virtual result<std::string> ping(const exec_options& opts) = 0;
};

// Creates the adapter for a configured connection. Does not connect yet (connections are
// opened lazily, pooled up to conn.pool_size, and reset between uses).
result<std::unique_ptr<adapter>> make_adapter(const config::connection& conn);

}  // namespace omgdb::sql
