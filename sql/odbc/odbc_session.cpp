// omgdb sql — unixODBC connections, diagnostics and the cancel watcher (odbc_session.hpp).
#include "sql/odbc/odbc_session.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace omgdb::sql::detail {

namespace {

// The process's one ODBC environment (ODBC 3 behaviour). Never freed: connections may be
// closed by pool destructors during static destruction.
SQLHENV odbc_env() {
  static SQLHENV env = [] {
    SQLHENV h = SQL_NULL_HENV;
    if (SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &h)))
      SQLSetEnvAttr(h, SQL_ATTR_ODBC_VERSION, reinterpret_cast<SQLPOINTER>(SQL_OV_ODBC3), 0);
    return h;
  }();
  return env;
}

// A connection-string value: as it is when plain, else {value} with `}` doubled (any byte may
// stand in a braced value). Plain when possible: psqlODBC keeps the braces of a braced UID.
std::string braced(std::string_view v) {
  const bool plain = !v.empty() && v.find_first_of(";{}=") == std::string_view::npos && v.front() != ' ' &&
                     v.back() != ' ';
  if (plain) return std::string(v);
  std::string out = "{";
  for (char c : v) {
    out += c;
    if (c == '}') out += '}';
  }
  return out + "}";
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return out;
}

// True when the connection string sets `key` (case-insensitive, at the start of a pair).
bool sets_key(std::string_view conn_string, std::string_view key) {
  const std::string s = upper(conn_string), k = upper(key) + "=";
  for (std::size_t at = s.find(k); at != std::string::npos; at = s.find(k, at + 1)) {
    std::size_t b = at;
    while (b > 0 && s[b - 1] == ' ') --b;
    if (b == 0 || s[b - 1] == ';') return true;
  }
  return false;
}

// The shared watcher: one thread, woken every 20 ms while statements run.
struct watcher {
  std::mutex mu;
  std::condition_variable wake, done;
  std::vector<std::shared_ptr<cancel_watch::entry>> list;
  bool running = false;

  static watcher& get() {
    static auto* w = new watcher;  // never destroyed: the thread outlives static destruction
    return *w;
  }
  void loop();
};

}  // namespace

struct cancel_watch::entry {
  SQLHSTMT stmt = SQL_NULL_HSTMT;
  const deadline* dl = nullptr;
  std::atomic<bool> fired{false};
  bool cancelling = false;  // guarded by watcher::mu
};

namespace {

void watcher::loop() {
  std::unique_lock lock(mu);
  for (;;) {
    std::vector<std::shared_ptr<cancel_watch::entry>> due;
    for (auto& e : list) {
      if (!e->fired.load() && e->dl->expired()) {
        e->fired = true;
        e->cancelling = true;
        due.push_back(e);
      }
    }
    if (!due.empty()) {
      lock.unlock();  // SQLCancel may take a round trip to the server
      for (auto& e : due) SQLCancel(e->stmt);
      lock.lock();
      for (auto& e : due) e->cancelling = false;
      done.notify_all();
    }
    wake.wait_for(lock, list.empty() ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(20));
  }
}

}  // namespace

cancel_watch::cancel_watch(SQLHSTMT stmt, const deadline& dl) : entry_(std::make_shared<entry>()) {
  entry_->stmt = stmt;
  entry_->dl = &dl;
  auto& w = watcher::get();
  std::lock_guard lock(w.mu);
  w.list.push_back(entry_);
  if (!w.running) {
    w.running = true;
    std::thread([&w] { w.loop(); }).detach();
  }
  w.wake.notify_one();
}

cancel_watch::~cancel_watch() {
  auto& w = watcher::get();
  std::unique_lock lock(w.mu);
  w.done.wait(lock, [this] { return !entry_->cancelling; });
  w.list.erase(std::remove(w.list.begin(), w.list.end(), entry_), w.list.end());
}

bool cancel_watch::fired() const noexcept { return entry_->fired.load(); }

std::string odbc_message(SQLSMALLINT type, SQLHANDLE handle, std::string_view secret, std::string* sqlstate) {
  std::string out;
  for (SQLSMALLINT i = 1; i <= 3; ++i) {
    SQLCHAR state[6] = {0};
    SQLCHAR text[1024] = {0};
    SQLINTEGER native = 0;
    SQLSMALLINT len = 0;
    if (!SQL_SUCCEEDED(SQLGetDiagRec(type, handle, i, state, &native, text, sizeof text, &len))) break;
    std::string msg = clean_message(reinterpret_cast<const char*>(text));
    std::string st(reinterpret_cast<const char*>(state));
    if (i == 1 && sqlstate) *sqlstate = st;
    if (msg.empty() || out.find(msg) != std::string::npos) continue;
    if (!out.empty()) out += "; ";
    out += msg + " (SQLSTATE " + st + ")";
  }
  if (!secret.empty()) {
    for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at))
      out.replace(at, secret.size(), "***");
  }
  if (out.empty()) out = "the ODBC driver gave no message";
  return clean_message(out);
}

std::string odbc_connection_string(const config::connection& conn, std::string_view extra) {
  std::string s = conn.odbc;
  if (s.empty()) {  // mssql from host, port, user, database
    s = "Driver=" + braced(conn.odbc_driver.empty() ? "FreeTDS" : conn.odbc_driver) + ";Server=" + braced(conn.host) +
        ";Port=" + std::to_string(conn.port ? conn.port : 1433);
    if (!conn.database.empty()) s += ";Database=" + braced(conn.database);
  }
  while (!s.empty() && (s.back() == ';' || s.back() == ' ')) s.pop_back();
  if (!conn.user.empty()) s += ";UID=" + braced(conn.user);
  if (!conn.password.empty()) s += ";PWD=" + braced(conn.password);
  if (!extra.empty()) s += ";" + std::string(extra);
  return s;
}

odbc_stmt::~odbc_stmt() {
  if (h_ != SQL_NULL_HSTMT) SQLFreeHandle(SQL_HANDLE_STMT, h_);
}

result<std::unique_ptr<odbc_session>> odbc_session::connect(const config::connection& conn, std::string_view extra,
                                                            const deadline& dl) {
  SQLHENV env = odbc_env();
  if (env == SQL_NULL_HENV) return make_error("cannot start ODBC: the driver manager (unixODBC) gave no environment");
  std::unique_ptr<odbc_session> s(new odbc_session());
  s->secret_ = conn.password;
  if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_DBC, env, &s->dbc_))) return make_error("cannot allocate an ODBC connection");
  const auto secs = std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(dl.remaining()).count());
  SQLSetConnectAttr(s->dbc_, SQL_ATTR_LOGIN_TIMEOUT, reinterpret_cast<SQLPOINTER>(static_cast<SQLULEN>(secs)), 0);
  std::string text = odbc_connection_string(conn, extra);
  SQLRETURN rc = SQLDriverConnect(s->dbc_, nullptr, reinterpret_cast<SQLCHAR*>(text.data()),
                                  static_cast<SQLSMALLINT>(std::min<std::size_t>(text.size(), 32000)), nullptr, 0, nullptr,
                                  SQL_DRIVER_NOPROMPT);
  std::fill(text.begin(), text.end(), '\0');
  if (!SQL_SUCCEEDED(rc)) {
    if (dl.expired()) {
      return make_error("cannot connect through ODBC: " + dl.stop_message("no statement ran"), dl.stop_kind());
    }
    return make_error("cannot connect through ODBC: " + odbc_message(SQL_HANDLE_DBC, s->dbc_, conn.password), failure_kind::unavailable);
  }
  s->connected_ = true;
  char name[256] = {0};
  SQLSMALLINT len = 0;
  if (SQL_SUCCEEDED(SQLGetInfo(s->dbc_, SQL_DRIVER_NAME, name, sizeof name, &len))) s->driver_file_ = name;
  const std::string f = upper(s->driver_file_);
  s->driver_ = f.find("PSQLODBC") != std::string::npos      ? odbc_driver::psqlodbc
               : f.find("MAODBC") != std::string::npos      ? odbc_driver::mariadb
               : f.find("SQLITE3ODBC") != std::string::npos ? odbc_driver::sqlite
               : f.find("TDSODBC") != std::string::npos     ? odbc_driver::freetds
                                                            : odbc_driver::other;
  return s;
}

std::string odbc_session::missing_options(const config::connection& conn) const {
  const std::string& given = conn.odbc;  // the string omgdb builds for mssql sets none of these
  std::string out;
  auto want = [&](std::string_view key, std::string_view value) {
    if (!sets_key(given, key)) out += std::string(out.empty() ? "" : ";") + std::string(key) + "=" + std::string(value);
  };
  switch (driver_) {
    case odbc_driver::psqlodbc:
      want("UseDeclareFetch", "1");  // rows in batches through a cursor, not the whole result in memory
      want("Fetch", "256");
      want("BoolsAsChar", "0");  // boolean as SQL_BIT: JSON true/false like the native adapter
      break;
    case odbc_driver::mariadb: want("CHARSET", "utf8mb4"); break;
    case odbc_driver::sqlite:
      want("StepAPI", "1");  // sqlite3_step row by row instead of the whole table in memory
      want("Timeout", std::to_string(std::max<long long>(1000, conn.statement_timeout.count())));
      break;
    case odbc_driver::freetds: want("ClientCharset", "UTF-8"); break;
    case odbc_driver::other: break;
  }
  return out;
}

odbc_session::~odbc_session() {
  if (connected_) {
    if (!autocommit_) SQLEndTran(SQL_HANDLE_DBC, dbc_, SQL_ROLLBACK);
    SQLDisconnect(dbc_);
  }
  if (dbc_ != SQL_NULL_HDBC) SQLFreeHandle(SQL_HANDLE_DBC, dbc_);
  std::fill(secret_.begin(), secret_.end(), '\0');
}

status odbc_session::set_autocommit(bool on) {
  if (autocommit_ == on) return {};
  SQLRETURN rc = SQLSetConnectAttr(dbc_, SQL_ATTR_AUTOCOMMIT,
                                   reinterpret_cast<SQLPOINTER>(static_cast<SQLULEN>(on ? SQL_AUTOCOMMIT_ON : SQL_AUTOCOMMIT_OFF)),
                                   SQL_IS_UINTEGER);
  if (!SQL_SUCCEEDED(rc)) {
    broken_ = true;
    return make_error("cannot switch autocommit " + std::string(on ? "on" : "off") + ": " + dbc_message());
  }
  autocommit_ = on;
  return {};
}

status odbc_session::rollback() {
  if (autocommit_) return {};
  if (!SQL_SUCCEEDED(SQLEndTran(SQL_HANDLE_DBC, dbc_, SQL_ROLLBACK))) {
    broken_ = true;
    return make_error("the rollback failed: " + dbc_message());
  }
  return {};
}

result<odbc_stmt> odbc_session::statement() {
  SQLHSTMT h = SQL_NULL_HSTMT;
  if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_STMT, dbc_, &h))) {
    broken_ = true;
    return make_error("cannot allocate an ODBC statement: " + dbc_message());
  }
  odbc_stmt s(h);
  SQLSetStmtAttr(h, SQL_ATTR_NOSCAN, reinterpret_cast<SQLPOINTER>(static_cast<SQLULEN>(SQL_NOSCAN_ON)), 0);
  return s;
}

status odbc_session::exec(const odbc_stmt& stmt, std::string_view sql, const deadline& dl, bool* cancelled) {
  used_ = true;
  std::string text(sql);  // some drivers read one byte past an explicit length
  SQLRETURN rc = SQLExecDirect(stmt.get(), reinterpret_cast<SQLCHAR*>(text.data()), static_cast<SQLINTEGER>(text.size()));
  if (rc == SQL_SUCCESS || rc == SQL_SUCCESS_WITH_INFO || rc == SQL_NO_DATA) return {};
  std::string state;
  std::string msg = stmt_message(stmt, &state);
  if (state.rfind("08", 0) == 0) broken_ = true;
  if (dl.expired() || (cancelled && *cancelled)) return make_error(dl.stop_message(), dl.stop_kind());
  // The kind from the SQLSTATE the driver reports (a driver that says only HY000, such as
  // SQLite's, leaves it invalid_argument).
  return make_error(msg, state == "HYT00" ? failure_kind::busy : sqlstate_kind(state));
}

std::string odbc_session::stmt_message(const odbc_stmt& stmt, std::string* sqlstate) const {
  return odbc_message(SQL_HANDLE_STMT, stmt.get(), secret_, sqlstate);
}

std::string odbc_session::dbc_message(std::string* sqlstate) const {
  return odbc_message(SQL_HANDLE_DBC, dbc_, secret_, sqlstate);
}

bool odbc_session::alive(config::sql_dialect dialect, const deadline& dl) {
  if (dialect == config::sql_dialect::sqlite || dialect == config::sql_dialect::ansi) return !broken_;
  auto stmt = statement();
  if (!stmt) return false;
  cancel_watch watch(stmt->get(), dl);
  if (!exec(*stmt, "SELECT 1", dl)) {
    broken_ = true;
    return false;
  }
  while (SQL_SUCCEEDED(SQLFetch(stmt->get()))) {
  }
  SQLFreeStmt(stmt->get(), SQL_CLOSE);
  return !broken_;
}

}  // namespace omgdb::sql::detail
