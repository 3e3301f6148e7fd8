// omgdb sql — one unixODBC connection (SQLHDBC) for the ODBC adapter (sql/odbc/odbc_adapter.cpp).
//
// Connects with SQLDriverConnect to the connection string of the config, the password added as
// PWD={…} (never logged, never in a message: driver messages are scrubbed of it). For drivers
// omgdb knows it adds the options that keep results streamed and typed like the native
// adapters' (psqlODBC: UseDeclareFetch, BoolsAsChar=0; SQLite ODBC: StepAPI; MariaDB: CHARSET;
// FreeTDS: ClientCharset) unless the connection string sets them itself.
//
// Every statement runs under a cancel watch: a shared watcher thread calls SQLCancel on it once
// the call's deadline passes or its cancel flag is set (the documented way to stop a statement
// running on another thread). A session whose statement was cancelled, that lost its server,
// or that ran an agent's write is not reused.
//
// Internal to sql/. Used by one thread at a time (the watcher only calls SQLCancel).
#pragma once

#include <sql.h>
#include <sqlext.h>

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "config/connection.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

// What the connected driver is, for the few places its behaviour differs.
enum class odbc_driver { other, psqlodbc, mariadb, sqlite, freetds };

// The diagnostic records of a handle as one line: "message (SQLSTATE 42000)", first record
// first, without `secret`, at most 1000 bytes. `sqlstate` receives the first record's state.
std::string odbc_message(SQLSMALLINT type, SQLHANDLE handle, std::string_view secret, std::string* sqlstate = nullptr);

// The connection string to hand the driver manager, with the password; the config's string
// when given, else (mssql) one built from host, port, user and database. `extra` is appended.
std::string odbc_connection_string(const config::connection& conn, std::string_view extra);

// Statement handle, freed on destruction.
class odbc_stmt {
 public:
  odbc_stmt() = default;
  explicit odbc_stmt(SQLHSTMT h) : h_(h) {}
  odbc_stmt(odbc_stmt&& o) noexcept : h_(o.h_) { o.h_ = SQL_NULL_HSTMT; }
  odbc_stmt& operator=(odbc_stmt&&) = delete;
  ~odbc_stmt();
  SQLHSTMT get() const noexcept { return h_; }

 private:
  SQLHSTMT h_ = SQL_NULL_HSTMT;
};

class odbc_session {
 public:
  // `extra`: driver options decided by the adapter (see above); "" the first time.
  static result<std::unique_ptr<odbc_session>> connect(const config::connection& conn, std::string_view extra,
                                                       const deadline& dl);
  ~odbc_session();
  odbc_session(const odbc_session&) = delete;
  odbc_session& operator=(const odbc_session&) = delete;

  SQLHDBC dbc() const noexcept { return dbc_; }
  odbc_driver driver() const noexcept { return driver_; }
  const std::string& driver_file() const noexcept { return driver_file_; }
  // The options this driver needs that the connection string does not set ("" when none).
  std::string missing_options(const config::connection& conn) const;

  bool broken() const noexcept { return broken_; }
  void mark_broken() noexcept { broken_ = true; }
  bool used() const noexcept { return used_; }
  void mark_used() noexcept { used_ = true; }

  // Autocommit on (writes) or off (reads, rolled back at the end). Only changed when needed.
  status set_autocommit(bool on);
  bool autocommit() const noexcept { return autocommit_; }
  status rollback();

  // A statement handle with NOSCAN on (drivers do not rewrite { } escapes).
  result<odbc_stmt> statement();

  // Runs `sql` on `stmt` under the cancel watch. SQL_NO_DATA (a statement without rows) is
  // success. On failure the message is the driver's (or the deadline's when it fired).
  // `cancelled` says whether SQLCancel was sent; the session is then marked broken.
  status exec(const odbc_stmt& stmt, std::string_view sql, const deadline& dl, bool* cancelled = nullptr);

  // The message of the last failure on a statement (SQLSTATE kept for the caller).
  std::string stmt_message(const odbc_stmt& stmt, std::string* sqlstate = nullptr) const;
  std::string dbc_message(std::string* sqlstate = nullptr) const;
  const std::string& secret() const noexcept { return secret_; }

  // A cheap round trip ("SELECT 1") to find a pooled session the server closed; false (and
  // broken) when it fails. No-op for dialects without a known probe.
  bool alive(config::sql_dialect dialect, const deadline& dl);

 private:
  odbc_session() = default;

  SQLHDBC dbc_ = SQL_NULL_HDBC;
  bool connected_ = false;
  bool broken_ = false;
  bool used_ = false;
  bool autocommit_ = true;
  odbc_driver driver_ = odbc_driver::other;
  std::string driver_file_;
  std::string secret_;
};

// While alive, the shared watcher calls SQLCancel(stmt) once `dl` expires. Destruction waits
// for a cancel in progress, so the handle outlives every SQLCancel on it.
class cancel_watch {
 public:
  cancel_watch(SQLHSTMT stmt, const deadline& dl);
  ~cancel_watch();
  cancel_watch(const cancel_watch&) = delete;
  cancel_watch& operator=(const cancel_watch&) = delete;
  bool fired() const noexcept;

  struct entry;

 private:
  std::shared_ptr<entry> entry_;
};

}  // namespace omgdb::sql::detail
