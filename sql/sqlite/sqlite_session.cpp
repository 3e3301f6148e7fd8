// omgdb sql — sqlite3 handles with the read-only guards (authorizer, progress handler).
#include "sql/sqlite/sqlite_session.hpp"

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "sql/classifier/classifier_functions.hpp"
#include "sql/json_text.hpp"

namespace omgdb::sql::detail {

namespace {

bool equals_nocase(const char* a, std::string_view b) {
  return a && std::strlen(a) == b.size() && sqlite3_strnicmp(a, b.data(), static_cast<int>(b.size())) == 0;
}

bool in_list(const char* name, std::initializer_list<std::string_view> list) {
  for (auto n : list)
    if (equals_nocase(name, n)) return true;
  return false;
}

// Functions that reach outside the database whatever the access level. The library does not
// define readfile/writefile/edit (the shell does), but an application could: deny by name.
bool dangerous_function(const char* name) {
  return in_list(name, {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"});
}

// Pragmas that only read: the classifier's allow-list (sql/classifier/classifier_functions.hpp), so that
// a PRAGMA the classifier lets through as read-only runs here and nothing else does. The
// reporting pragmas that take a table, index or check argument are allowed with it; every
// other one only without a value (`PRAGMA x`, never `PRAGMA x=1` or `PRAGMA x(1)`).
bool read_pragma(const char* name, const char* arg) {
  if (!name) return false;
  std::string upper(name);
  if (upper.size() > 64) return false;
  for (auto& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  if (!pragma_reads(upper)) return false;
  return !arg || pragma_takes_argument(upper);
}

int read_only_authorizer(void* self, int code, const char* a1, const char* a2, const char*, const char*) {
  switch (code) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      return dangerous_function(a2) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA:
      if (!read_pragma(a1, a2)) return SQLITE_DENY;
      if (!a2 && equals_nocase(a1, "journal_mode")) static_cast<sqlite_session*>(self)->note_journal_mode_query();
      return SQLITE_OK;
    case SQLITE_UPDATE:
      // Preparing a SELECT over a table-valued pragma (pragma_table_info(…)) reports column
      // "updates" of sqlite_master while SQLite builds the eponymous table. A real UPDATE of
      // the schema table still fails four times over: read-only open, query_only, defensive
      // mode and sqlite3_stmt_readonly.
      return equals_nocase(a1, "sqlite_master") ? SQLITE_OK : SQLITE_DENY;
    default:  // writes, DDL, ATTACH/DETACH, transactions, savepoints, ANALYZE, REINDEX, …
      return SQLITE_DENY;
  }
}

int read_write_authorizer(void*, int code, const char*, const char* a2, const char*, const char*) {
  switch (code) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
      return SQLITE_DENY;
    case SQLITE_FUNCTION:
      return dangerous_function(a2) ? SQLITE_DENY : SQLITE_OK;
    default:
      return SQLITE_OK;
  }
}

int progress(void* self) {
  auto* dl = static_cast<sqlite_session*>(self)->watching();
  return dl && dl->expired() ? 1 : 0;
}

int busy(void* self, int) {
  auto* dl = static_cast<sqlite_session*>(self)->watching();
  if (!dl || dl->expired()) return 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 1;
}

bool is_blank_tail(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    char c = t[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ';') {
      ++i;
    } else if (t.substr(i, 2) == "--") {
      auto e = t.find('\n', i);
      i = e == std::string_view::npos ? t.size() : e + 1;
    } else if (t.substr(i, 2) == "/*") {
      auto e = t.find("*/", i + 2);
      i = e == std::string_view::npos ? t.size() : e + 2;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

result<std::unique_ptr<sqlite_session>> sqlite_session::open(const std::string& file, bool read_only) {
  if (file.empty()) return make_error("the SQLite connection has no database file configured");
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE |
              (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return make_error("cannot open the SQLite database" + std::string(read_only ? " read-only" : "") + ": " +
                      clean_message(msg));
  }
  std::unique_ptr<sqlite_session> s(new sqlite_session(db, read_only));
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
  if (read_only) {
    char* err = nullptr;
    if (sqlite3_exec(db, "PRAGMA query_only=1", nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      return make_error("cannot make the SQLite handle query-only: " + clean_message(msg));
    }
  }
  sqlite3_set_authorizer(db, read_only ? read_only_authorizer : read_write_authorizer, s.get());
  sqlite3_progress_handler(db, 1000, progress, s.get());
  sqlite3_busy_handler(db, busy, s.get());
  return s;
}

sqlite_session::~sqlite_session() { sqlite3_close_v2(db_); }

result<sqlite3_stmt*> sqlite_session::prepare_one(std::string_view sql) {
  journal_mode_query_ = false;  // set again by the authorizer while this statement is prepared
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), 0, &stmt, &tail);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return error(rc);
  }
  if (!stmt) return make_error("the SQL text contains no statement");
  std::string_view rest(tail ? tail : "", tail ? static_cast<std::size_t>(sql.data() + sql.size() - tail) : 0);
  if (!is_blank_tail(rest)) {
    sqlite3_finalize(stmt);
    return make_error("more than one statement: only one statement may run per call");
  }
  return stmt;
}

std::string sqlite_session::error_message(int rc) const {
  if ((rc & 0xff) == SQLITE_INTERRUPT && watching_ && watching_->expired()) return watching_->stop_message();
  std::string msg = clean_message(sqlite3_errmsg(db_));
  if ((rc & 0xff) == SQLITE_AUTH || msg == "not authorized")
    return read_only_ ? "not authorized: the statement writes, changes the session or reaches outside the "
                        "database, and this call only reads"
                      : "not authorized: the statement reaches outside the database (ATTACH or a file "
                        "function)";
  return "SQLite error: " + msg;
}

failure_kind sqlite_session::error_kind(int rc) const {
  switch (rc & 0xff) {
    case SQLITE_INTERRUPT:
      return watching_ && watching_->expired() ? watching_->stop_kind() : failure_kind::cancelled;
    case SQLITE_AUTH: return failure_kind::permission_denied;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return failure_kind::busy;
    case SQLITE_CONSTRAINT: return failure_kind::conflict;
    case SQLITE_READONLY:
    case SQLITE_PERM: return failure_kind::permission_denied;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return failure_kind::corrupt;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN: return failure_kind::io;
    default: return failure_kind::invalid_argument;
  }
}

boost::json::value sqlite_column_value(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      return exact_int(sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT:
      return double_value(sqlite3_column_double(stmt, i));
    case SQLITE_TEXT: {
      auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      return text_value(std::string_view(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i))));
    }
    case SQLITE_BLOB: {
      auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      return binary_value(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
    }
    default:
      return nullptr;
  }
}

void sqlite_put_value(std::string& out, sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      return put_int(out, sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT:
      return put_double(out, sqlite3_column_double(stmt, i));
    case SQLITE_TEXT: {
      auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      return put_text(out, std::string_view(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i))));
    }
    case SQLITE_BLOB: {
      auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      return put_binary(out, p, static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
    }
    default:
      return put_null(out);
  }
}

}  // namespace omgdb::sql::detail
