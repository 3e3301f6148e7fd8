// omgdb sql — libmariadb sessions: connect options, our own commands, reset, KILL QUERY watchdog.
#include "sql/mysql/mysql_session.hpp"

#include <mysqld_error.h>

#include <algorithm>
#include <mutex>
#include <system_error>

namespace omgdb::sql::detail {

namespace {

std::once_flag library_once;

std::string format_error(unsigned no, const char* state, const char* text) {
  std::string msg = "Error " + std::to_string(no);
  if (state && *state && std::string_view(state) != "00000") msg += " (" + std::string(state) + ")";
  msg += ": " + clean_message(text ? text : "");
  return msg;
}

struct stmt_closer {
  void operator()(MYSQL_STMT* s) const noexcept { mysql_stmt_close(s); }
};

}  // namespace

result<MYSQL*> my_open(const config::connection& conn, std::chrono::milliseconds connect_budget) {
  std::call_once(library_once, [] { mysql_library_init(0, nullptr, nullptr); });
  MYSQL* m = mysql_init(nullptr);
  if (!m) return make_error("cannot connect to MariaDB: out of memory", failure_kind::unavailable);
  unsigned connect_s = static_cast<unsigned>(std::max<long long>(
      2, std::chrono::duration_cast<std::chrono::seconds>(connect_budget).count()));
  // A last-resort bound on every blocking read: the watchdog normally stops statements first.
  unsigned read_s = static_cast<unsigned>(
      std::chrono::duration_cast<std::chrono::seconds>(conn.statement_timeout).count() + 30);
  unsigned no = 0;
  mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
  mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &read_s);
  mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &read_s);
  mysql_optionsv(m, MYSQL_OPT_LOCAL_INFILE, &no);
  mysql_optionsv(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  bool socket = !conn.host.empty() && conn.host.front() == '/';
  const char* host = conn.host.empty() ? "localhost" : socket ? "localhost" : conn.host.c_str();
  // No CLIENT_MULTI_STATEMENTS: one statement per query, enforced by the server.
  if (!mysql_real_connect(m, host, conn.user.empty() ? nullptr : conn.user.c_str(),
                          conn.password.c_str(), conn.database.empty() ? nullptr : conn.database.c_str(),
                          conn.port, socket ? conn.host.c_str() : nullptr, 0)) {
    std::string msg = format_error(mysql_errno(m), mysql_sqlstate(m), mysql_error(m));
    mysql_close(m);
    return make_error("cannot connect to MariaDB/MySQL: " + msg, failure_kind::unavailable);
  }
  mysql_set_server_option(m, MYSQL_OPTION_MULTI_STATEMENTS_OFF);
  return m;
}

result<std::unique_ptr<my_session>> my_session::connect(const config::connection& conn, const deadline& dl) {
  if (dl.expired()) {
    return make_error("cannot connect to MariaDB/MySQL: " + dl.stop_message("no statement ran"), dl.stop_kind());
  }
  auto m = my_open(conn, dl.remaining());
  if (!m) return std::move(m).error();
  return std::unique_ptr<my_session>(new my_session(*m));
}

my_session::~my_session() { mysql_close(m_); }

bool my_session::in_transaction() const noexcept { return (m_->server_status & SERVER_STATUS_IN_TRANS) != 0; }

std::string my_session::error_message() const { return format_error(mysql_errno(m_), mysql_sqlstate(m_), mysql_error(m_)); }

std::string my_session::stmt_error_message(MYSQL_STMT* st) const {
  return format_error(mysql_stmt_errno(st), mysql_stmt_sqlstate(st), mysql_stmt_error(st));
}

failure my_session::error() const { return make_error(error_message(), sqlstate_kind(mysql_sqlstate(m_))); }

failure my_session::stmt_error(MYSQL_STMT* st) const {
  return make_error(stmt_error_message(st), sqlstate_kind(mysql_stmt_sqlstate(st)));
}

status my_session::command(std::string_view sql) {
  if (mysql_real_query(m_, sql.data(), sql.size()) != 0) {
    if (mysql_errno(m_) >= 2000) broken_ = true;  // client errors: the connection is in doubt
    return error();
  }
  // Our commands return no rows; drain defensively.
  if (MYSQL_RES* res = mysql_store_result(m_)) mysql_free_result(res);
  return {};
}

result<std::vector<my_row>> my_session::query(std::string_view sql, const std::vector<std::string>& params) {
  std::unique_ptr<MYSQL_STMT, stmt_closer> st(mysql_stmt_init(m_));
  if (!st) return make_error("cannot prepare a MariaDB statement: out of memory");
  if (mysql_stmt_prepare(st.get(), sql.data(), sql.size()) != 0) return stmt_error(st.get());
  std::vector<MYSQL_BIND> in(params.size());
  std::vector<unsigned long> in_len(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    in[i] = MYSQL_BIND{};
    in[i].buffer_type = MYSQL_TYPE_STRING;
    in[i].buffer = const_cast<char*>(params[i].data());
    in_len[i] = params[i].size();
    in[i].buffer_length = in_len[i];
    in[i].length = &in_len[i];
  }
  if (!params.empty() && mysql_stmt_bind_param(st.get(), in.data()) != 0) return stmt_error(st.get());
  if (mysql_stmt_execute(st.get()) != 0) return stmt_error(st.get());
  std::vector<my_row> rows;
  unsigned n = mysql_stmt_field_count(st.get());
  if (n == 0) return rows;
  std::vector<MYSQL_BIND> out(n);
  std::vector<unsigned long> len(n);
  std::vector<char> nulls(n);
  for (unsigned i = 0; i < n; ++i) {
    out[i] = MYSQL_BIND{};
    out[i].buffer_type = MYSQL_TYPE_STRING;
    out[i].buffer = nullptr;
    out[i].buffer_length = 0;
    out[i].length = &len[i];
    out[i].is_null = reinterpret_cast<my_bool*>(&nulls[i]);
  }
  if (mysql_stmt_bind_result(st.get(), out.data()) != 0) return stmt_error(st.get());
  for (;;) {
    int rc = mysql_stmt_fetch(st.get());
    if (rc == MYSQL_NO_DATA) break;
    if (rc == 1) return stmt_error(st.get());
    my_row row(n);
    for (unsigned i = 0; i < n; ++i) {
      if (nulls[i]) continue;
      std::string v(len[i], '\0');
      if (len[i] > 0) {
        MYSQL_BIND b{};
        b.buffer_type = MYSQL_TYPE_STRING;
        b.buffer = v.data();
        b.buffer_length = len[i];
        if (mysql_stmt_fetch_column(st.get(), &b, i, 0) != 0) return stmt_error(st.get());
      }
      row[i] = std::move(v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

bool my_session::reset() {
  if (broken_) return false;
  if (in_transaction() && mysql_real_query(m_, "ROLLBACK", 8) != 0) return false;
  return mysql_reset_connection(m_) == 0 && !in_transaction();
}

my_watchdog::my_watchdog(const config::connection& conn, unsigned long thread_id, const deadline& dl) {
  try {
    thread_ = std::thread([this, conn, thread_id, &dl] { watch(conn, thread_id, &dl); });
  } catch (const std::system_error&) {
    // No thread to spare: the server's max_statement_time and the socket read timeout remain.
  }
}

my_watchdog::~my_watchdog() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  done_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void my_watchdog::watch(config::connection conn, unsigned long thread_id, const deadline* dl) {
  {
    std::unique_lock lock(mutex_);
    while (!done_ && !dl->expired()) done_cv_.wait_for(lock, std::chrono::milliseconds(50));
    if (done_) return;
  }
  fired_ = true;
  auto killer = my_open(conn, std::chrono::seconds(5));
  if (!killer) return;  // the socket read timeout remains the bound
  std::string kill = "KILL QUERY " + std::to_string(thread_id);
  mysql_real_query(*killer, kill.data(), kill.size());
  mysql_close(*killer);
}

}  // namespace omgdb::sql::detail
