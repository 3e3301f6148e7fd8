// omgdb sql — one sqlite3 handle, opened read-only or read-write, with its guards.
//
// Read-only handles: SQLITE_OPEN_READONLY, `PRAGMA query_only=1`, no ATTACH (limit 0),
// defensive mode, no extension loading, and an authorizer that allows only reads (SELECT,
// READ, recursive CTEs, harmless functions and the pragmas on the classifier's read-only
// allow-list, in their reporting form). Read-write handles: the
// same minus READONLY/query_only, with an authorizer that still denies ATTACH/DETACH and
// extension or file functions. Both: a progress handler that stops the statement when the
// call's deadline passes or it is cancelled, and a busy handler bounded by the same deadline.
//
// Internal to sql/. A session is used by one thread at a time (the pool guarantees it).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <sqlite3.h>

#include "common/result.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

class sqlite_session {
 public:
  static result<std::unique_ptr<sqlite_session>> open(const std::string& file, bool read_only);
  ~sqlite_session();
  sqlite_session(const sqlite_session&) = delete;
  sqlite_session& operator=(const sqlite_session&) = delete;

  sqlite3* db() const noexcept { return db_; }
  bool read_only() const noexcept { return read_only_; }

  // The deadline consulted by the progress and busy handlers; null between calls.
  void watch(const deadline* dl) noexcept { watching_ = dl; }
  const deadline* watching() const noexcept { return watching_; }

  // Prepares exactly one statement: text after it other than blanks, `;` and comments is an
  // error (layer 3), as is text with no statement. The caller finalizes the statement.
  result<sqlite3_stmt*> prepare_one(std::string_view sql);

  // The handle's last error, or the deadline's stop message when the progress handler
  // interrupted the statement.
  std::string error_message(int rc) const;
  // The kind of that error: the deadline's stop kind after an interrupt it caused, then
  // permission_denied (the authorizer), busy (a lock), conflict (a constraint), else
  // invalid_argument.
  failure_kind error_kind(int rc) const;
  failure error(int rc) const { return make_error(error_message(rc), error_kind(rc)); }

  // True when the statement prepared last is `PRAGMA [schema.]journal_mode` without a value on
  // a read-only handle: it only reports the mode, but SQLite's sqlite3_stmt_readonly calls it a
  // writer (its opcode can also change the mode). Set by the read-only authorizer.
  bool journal_mode_query() const noexcept { return journal_mode_query_; }
  void note_journal_mode_query() noexcept { journal_mode_query_ = true; }

 private:
  sqlite_session(sqlite3* db, bool read_only) : db_(db), read_only_(read_only) {}
  sqlite3* db_;
  bool read_only_;
  const deadline* watching_ = nullptr;
  bool journal_mode_query_ = false;
};

// RAII for a prepared statement.
struct stmt_closer {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using stmt_ptr = std::unique_ptr<sqlite3_stmt, stmt_closer>;

// The JSON value of column `i` of the current row.
boost::json::value sqlite_column_value(sqlite3_stmt* stmt, int i);
// The same value appended as JSON text (sql/json_text.hpp).
void sqlite_put_value(std::string& out, sqlite3_stmt* stmt, int i);

}  // namespace omgdb::sql::detail
