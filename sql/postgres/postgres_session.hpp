// omgdb sql — one libpq connection, driven without blocking waits.
//
// Everything goes through the extended query protocol (PQsendQueryParams), which accepts
// exactly one statement per call — agent text is never sent with PQexec or the simple
// protocol. Every wait polls the socket in ~50 ms slices; when the call's deadline passes or
// its cancel flag is set, the session sends a PQcancel and keeps draining for a short grace
// period, after which it gives up and marks itself broken (the pool then closes it).
// Notices are swallowed (libpq would print them to stderr).
//
// Internal to sql/. Used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <libpq-fe.h>

#include "common/result.hpp"
#include "config/connection.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

struct pg_result_deleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using pg_result_ptr = std::unique_ptr<PGresult, pg_result_deleter>;

// One query of ours with text parameters (null = SQL NULL).
struct pg_command {
  std::string sql;
  std::vector<std::optional<std::string>> params;
};

// What one statement produced.
struct pg_outcome {
  pg_result_ptr final;          // the last non-row result (TUPLES_OK, COMMAND_OK or an error)
  pg_result_ptr shape;          // the first result that carried the columns (for metadata)
  bool cancel_sent = false;     // we sent PQcancel (deadline, cancel flag or row budget)
  bool stopped = false;         // the deadline passed or the call was cancelled
  bool budget_cancel = false;   // cancelled only because the caller had enough rows
};

class pg_session {
 public:
  static result<std::unique_ptr<pg_session>> connect(const config::connection& conn, const deadline& dl);
  ~pg_session();
  pg_session(const pg_session&) = delete;
  pg_session& operator=(const pg_session&) = delete;

  PGconn* conn() const noexcept { return conn_; }
  bool broken() const noexcept { return broken_ || PQstatus(conn_) != CONNECTION_OK; }
  PGTransactionStatusType txn() const noexcept { return PQtransactionStatus(conn_); }

  // Runs one statement with text parameters (null = SQL NULL) in single-row mode. `on_row`
  // receives each row; when it returns false the remaining rows are drained without being
  // kept, or — with `cancel_when_full` (reads only) — the statement is cancelled.
  // `preamble`: commands of ours sent ahead of the statement in the same round trip (pipeline
  // mode, one Sync at the end); if one fails, the statement does not run and the error says so.
  using row_fn = std::function<bool(const PGresult* row)>;
  result<pg_outcome> run(std::string_view sql, const std::vector<std::optional<std::string>>& params,
                         const deadline& dl, const row_fn& on_row, bool cancel_when_full,
                         const std::vector<pg_command>& preamble = {});

  // False when the idle session was closed by the server (it left an error and EOF on the
  // socket) or has anything else unread: a zero-timeout poll, no round trip. Marks the session
  // broken then (the pool closes it and opens another).
  bool alive();

  // Our own commands and catalog queries: the whole result, or an error with the server's
  // message (a failed command is an error, unlike `run`).
  result<pg_result_ptr> query(std::string_view sql, const std::vector<std::optional<std::string>>& params,
                              const deadline& dl);

  // Our own fixed text, sent with the simple protocol because it holds several commands
  // ("BEGIN READ ONLY; SELECT …"): one round trip. Never agent text. The last result, or the
  // first failure as an error.
  result<pg_result_ptr> own_commands(const std::string& sql, const deadline& dl);

  // Rolls back any open transaction and runs DISCARD ALL (session settings, prepared
  // statements, temp tables, advisory locks, LISTEN), in one round trip (pipeline mode).
  // `first`, when given, is one more query of ours sent ahead of them (still inside the
  // transaction); the results holding its rows land in `first_rows` (none if it failed).
  // False if the session is unusable.
  bool reset(const pg_command* first = nullptr, std::vector<pg_result_ptr>* first_rows = nullptr);

 private:
  result<pg_result_ptr> collect_command(const deadline& dl);
  explicit pg_session(PGconn* c) : conn_(c) {}
  bool send_cancel();
  // Waits until a result can be read without blocking. Sends PQcancel once the deadline
  // passes (unless `out` already did); gives up 5 s after the cancel.
  status wait_readable(const deadline& dl, pg_outcome& out);

  PGconn* conn_;
  bool broken_ = false;
};

// The server's message for a failed result: "ERROR:  … (SQLSTATE 42P01)".
std::string pg_error_message(const PGresult* r, PGconn* conn);
// Its kind, from the SQLSTATE class: 42P01/42883/3F000 (undefined table, function, schema)
// not_found; 23 (integrity) and 40 (serialization, deadlock) conflict/busy; 42501 and 25006
// (privilege, read-only transaction) permission_denied; 08 (connection) unavailable; 53
// (resources) limit_exceeded; 57014 cancelled; XX (internal) corrupt; else invalid_argument.
failure_kind pg_error_kind(const PGresult* r);

}  // namespace omgdb::sql::detail
