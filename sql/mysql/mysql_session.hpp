// omgdb sql — one libmariadb connection (MariaDB and MySQL servers).
//
// Connected without CLIENT_MULTI_STATEMENTS (the server then refuses a second statement in
// one query, text or prepared) and without LOCAL INFILE. The blocking client calls are bounded
// by a watchdog: while a statement runs, a second thread waits for the call's deadline or cancel
// flag and then sends `KILL QUERY <thread id>` over a separate connection, so the server stops
// the statement and the blocked call returns. The read timeout of the socket is a last resort.
//
// Internal to sql/. Used by one thread at a time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <mysql.h>

#include "common/result.hpp"
#include "config/connection.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

using my_row = std::vector<std::optional<std::string>>;

class my_session {
 public:
  static result<std::unique_ptr<my_session>> connect(const config::connection& conn, const deadline& dl);
  ~my_session();
  my_session(const my_session&) = delete;
  my_session& operator=(const my_session&) = delete;

  MYSQL* handle() const noexcept { return m_; }
  bool broken() const noexcept { return broken_; }
  void mark_broken() noexcept { broken_ = true; }
  bool in_transaction() const noexcept;

  // One of our own commands (text protocol, no result set expected).
  status command(std::string_view sql);
  // One of our own queries with string parameters (prepared statement), all rows as text.
  result<std::vector<my_row>> query(std::string_view sql, const std::vector<std::string>& params);

  // Rolls back, then COM_RESET_CONNECTION (session variables, transaction characteristics,
  // temporary tables, user variables, prepared statements). False if the session is unusable.
  bool reset();

  // "Error 1146 (42S02): Table 'x.y' doesn't exist"
  std::string error_message() const;
  std::string stmt_error_message(MYSQL_STMT* st) const;
  // The same as failures, with the kind of their SQLSTATE (sqlstate_kind).
  failure error() const;
  failure stmt_error(MYSQL_STMT* st) const;

 private:
  explicit my_session(MYSQL* m) : m_(m) {}
  MYSQL* m_;
  bool broken_ = false;
};

// Kills the running statement of `thread_id` from a second connection once the deadline passes
// or the call is cancelled. Stops watching on destruction.
class my_watchdog {
 public:
  my_watchdog(const config::connection& conn, unsigned long thread_id, const deadline& dl);
  ~my_watchdog();
  bool fired() const noexcept { return fired_; }

 private:
  void watch(config::connection conn, unsigned long thread_id, const deadline* dl);
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

// Opens a MYSQL handle with omgdb's options (used by sessions and the watchdog).
result<MYSQL*> my_open(const config::connection& conn, std::chrono::milliseconds connect_budget);

}  // namespace omgdb::sql::detail
