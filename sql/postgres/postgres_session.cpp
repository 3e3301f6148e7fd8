// omgdb sql — libpq sessions: non-blocking connect, single-statement commands, cancellation.
#include "sql/postgres/postgres_session.hpp"

#include <poll.h>

#include <algorithm>
#include <chrono>

namespace omgdb::sql::detail {

namespace {

constexpr auto slice = std::chrono::milliseconds(50);
constexpr auto cancel_grace = std::chrono::seconds(5);

void ignore_notice(void*, const char*) {}

// Waits for the socket; false on a poll error.
bool poll_socket(PGconn* c, short events) {
  pollfd p{PQsocket(c), events, 0};
  if (p.fd < 0) return false;
  int rc = ::poll(&p, 1, static_cast<int>(slice.count()));
  return rc >= 0 || errno == EINTR;
}

}  // namespace

failure_kind pg_error_kind(const PGresult* r) {
  const char* raw = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string_view state = raw ? raw : "";
  if (state == "42P01" || state == "42883" || state == "3F000" || state == "42704") return failure_kind::not_found;
  if (state == "42501" || state == "25006") return failure_kind::permission_denied;
  if (state == "57014") return failure_kind::cancelled;
  if (state == "40001" || state == "40P01" || state == "55P03") return failure_kind::busy;
  const std::string_view cls = state.substr(0, 2);
  if (cls == "23") return failure_kind::conflict;
  if (cls == "08") return failure_kind::unavailable;
  if (cls == "53" || cls == "54") return failure_kind::limit_exceeded;
  if (cls == "XX") return failure_kind::corrupt;
  return failure_kind::invalid_argument;
}

std::string pg_error_message(const PGresult* r, PGconn* conn) {
  std::string msg = r ? PQresultErrorMessage(r) : "";
  if (msg.empty()) msg = PQerrorMessage(conn);
  msg = clean_message(msg);
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  if (state && *state) msg += " (SQLSTATE " + std::string(state) + ")";
  return msg;
}

result<std::unique_ptr<pg_session>> pg_session::connect(const config::connection& conn, const deadline& dl) {
  std::string port = conn.port ? std::to_string(conn.port) : std::string();
  auto secs = std::max<long long>(2, std::chrono::duration_cast<std::chrono::seconds>(dl.remaining()).count());
  std::string timeout = std::to_string(secs);
  std::vector<const char*> keys, values;
  auto add = [&](const char* k, const std::string& v) {
    if (v.empty()) return;
    keys.push_back(k);
    values.push_back(v.c_str());
  };
  add("host", conn.host);
  add("port", port);
  add("user", conn.user);
  add("password", conn.password);
  add("dbname", conn.database);
  add("connect_timeout", timeout);
  static const std::string app = "omgdb", utf8 = "UTF8";
  add("application_name", app);
  add("client_encoding", utf8);
  keys.push_back(nullptr);
  values.push_back(nullptr);

  PGconn* c = PQconnectStartParams(keys.data(), values.data(), 0);
  if (!c) return make_error("cannot connect to PostgreSQL: out of memory", failure_kind::unavailable);
  std::unique_ptr<pg_session> s(new pg_session(c));
  PQsetNoticeProcessor(c, ignore_notice, nullptr);
  if (PQstatus(c) == CONNECTION_BAD)
    return make_error("cannot connect to PostgreSQL: " + clean_message(PQerrorMessage(c)), failure_kind::unavailable);
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK) {
    if (st == PGRES_POLLING_FAILED)
      return make_error("cannot connect to PostgreSQL: " + clean_message(PQerrorMessage(c)), failure_kind::unavailable);
    if (dl.expired()) {
      return make_error("cannot connect to PostgreSQL: " + dl.stop_message("no statement ran"), dl.stop_kind());
    }
    poll_socket(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT);
    st = PQconnectPoll(c);
  }
  if (PQsetnonblocking(c, 0) != 0) return make_error("cannot configure the PostgreSQL connection");
  return s;
}

pg_session::~pg_session() { PQfinish(conn_); }

bool pg_session::send_cancel() {
  PGcancel* cancel = PQgetCancel(conn_);
  if (!cancel) return false;
  char err[256];
  bool ok = PQcancel(cancel, err, sizeof err) == 1;
  PQfreeCancel(cancel);
  return ok;
}

status pg_session::wait_readable(const deadline& dl, pg_outcome& out) {
  std::chrono::steady_clock::time_point cancelled_at{};
  bool sent_here = false;
  while (PQisBusy(conn_)) {
    if (!out.cancel_sent && dl.expired()) {
      out.stopped = true;
      out.cancel_sent = true;
      send_cancel();
    }
    if (out.cancel_sent && !sent_here) {
      sent_here = true;
      cancelled_at = std::chrono::steady_clock::now();
    }
    if (sent_here && std::chrono::steady_clock::now() - cancelled_at > cancel_grace) {
      broken_ = true;
      return make_error("the server did not answer within 5 s of the cancel request; the connection was closed",
                        dl.expired() ? dl.stop_kind() : failure_kind::unavailable);
    }
    if (!poll_socket(conn_, POLLIN) || !PQconsumeInput(conn_)) {
      broken_ = true;
      return make_error("lost the connection to PostgreSQL: " + clean_message(PQerrorMessage(conn_)),
                        failure_kind::unavailable);
    }
  }
  return {};
}

namespace {

bool send_params(PGconn* c, const std::string& text, const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  for (auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  return PQsendQueryParams(c, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                           nullptr, 0) == 1;
}

}  // namespace

bool pg_session::alive() {
  if (broken()) return false;
  pollfd p{PQsocket(conn_), POLLIN, 0};
  // An idle session has nothing to read; a server that closed it left an error and EOF.
  // Anything unexpected there (even a notice) retires the session: a new one costs a connect.
  if (p.fd < 0 || ::poll(&p, 1, 0) != 0) {
    broken_ = true;
    return false;
  }
  return true;
}

result<pg_outcome> pg_session::run(std::string_view sql, const std::vector<std::optional<std::string>>& params,
                                   const deadline& dl, const row_fn& on_row, bool cancel_when_full,
                                   const std::vector<pg_command>& preamble) {
  std::string text(sql);  // NUL-terminated copy; an embedded NUL ends the text for libpq
  if (text.find('\0') != std::string::npos) return make_error("the SQL text contains a NUL character");
  const bool pipelined = !preamble.empty();
  auto send_failed = [&] {
    broken_ = true;
    return make_error("cannot send the statement to PostgreSQL: " + clean_message(PQerrorMessage(conn_)));
  };
  if (pipelined) {
    // One round trip: our commands, then the statement, then one Sync. If one of ours fails,
    // the server skips everything after it up to the Sync: the statement never runs.
    if (!PQenterPipelineMode(conn_)) return send_failed();
    for (const auto& c : preamble)
      if (!send_params(conn_, c.sql, c.params)) return send_failed();
    if (!send_params(conn_, text, params) || !PQpipelineSync(conn_) || PQflush(conn_) != 0) return send_failed();
  } else if (!send_params(conn_, text, params)) {
    return send_failed();
  }
  pg_outcome out;
  // The pipeline's end: the Sync's result, then back to normal mode. A session that cannot get
  // there is out of step with the server and is closed.
  auto end_pipeline = [&]() -> status {
    if (!pipelined) return {};
    for (;;) {
      if (auto w = wait_readable(dl, out); !w) return std::move(w).error();
      pg_result_ptr r(PQgetResult(conn_));
      if (r && PQresultStatus(r.get()) == PGRES_PIPELINE_SYNC) break;
    }
    if (!PQexitPipelineMode(conn_)) {
      broken_ = true;
      return make_error("PostgreSQL left the pipeline in an unexpected state; the connection was closed");
    }
    return {};
  };
  for (std::size_t i = 0; i < preamble.size(); ++i) {
    pg_result_ptr last;
    for (;;) {
      if (auto w = wait_readable(dl, out); !w) return std::move(w).error();
      PGresult* raw = PQgetResult(conn_);
      if (!raw) break;
      last.reset(raw);
    }
    auto st = last ? PQresultStatus(last.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      std::string msg = out.stopped ? dl.stop_message()
                                    : "setting up the transaction failed, so the statement did not run: " +
                                          pg_error_message(last.get(), conn_);
      const failure_kind kind = out.stopped ? dl.stop_kind() : pg_error_kind(last.get());
      if (auto e = end_pipeline(); !e) return std::move(e).error();
      return make_error(std::move(msg), kind);
    }
  }
  if (!PQsetSingleRowMode(conn_)) {
    // Without single-row mode libpq would hold every row at once: never read that way.
    send_cancel();
    broken_ = true;
    return make_error("could not read the statement's rows one at a time; the connection was closed");
  }
  bool keeping = true;
  for (;;) {
    if (auto w = wait_readable(dl, out); !w) return std::move(w).error();
    PGresult* raw = PQgetResult(conn_);
    if (!raw) break;
    pg_result_ptr r(raw);
    switch (PQresultStatus(raw)) {
      case PGRES_SINGLE_TUPLE:
        if (!out.shape) out.shape.reset(PQcopyResult(raw, PG_COPYRES_ATTRS));
        if (keeping && !on_row(raw)) {
          keeping = false;
          if (cancel_when_full && !out.cancel_sent) {
            out.cancel_sent = out.budget_cancel = true;
            send_cancel();
          }
        }
        break;
      case PGRES_COPY_IN:
      case PGRES_COPY_OUT:
      case PGRES_COPY_BOTH:
        // COPY to or from the client is not supported; closing the connection ends it.
        broken_ = true;
        return make_error("COPY to or from the client is not supported; use SELECT to read data");
      default:
        if (!out.shape && PQnfields(raw) > 0) out.shape.reset(PQcopyResult(raw, PG_COPYRES_ATTRS));
        out.final = std::move(r);
        break;
    }
  }
  if (auto e = end_pipeline(); !e) return std::move(e).error();
  return out;
}

result<pg_result_ptr> pg_session::query(std::string_view sql, const std::vector<std::optional<std::string>>& params,
                                        const deadline& dl) {
  std::string text(sql);
  std::vector<const char*> values;
  for (auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  if (!PQsendQueryParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                         nullptr, 0)) {
    broken_ = true;
    return make_error("cannot send a command to PostgreSQL: " + clean_message(PQerrorMessage(conn_)));
  }
  return collect_command(dl);
}

result<pg_result_ptr> pg_session::own_commands(const std::string& sql, const deadline& dl) {
  if (!PQsendQuery(conn_, sql.c_str())) {
    broken_ = true;
    return make_error("cannot send a command to PostgreSQL: " + clean_message(PQerrorMessage(conn_)));
  }
  return collect_command(dl);
}

result<pg_result_ptr> pg_session::collect_command(const deadline& dl) {
  pg_outcome out;
  pg_result_ptr last;
  pg_result_ptr failed;  // the first failure of a multi-command text
  for (;;) {
    if (auto w = wait_readable(dl, out); !w) return std::move(w).error();
    PGresult* raw = PQgetResult(conn_);
    if (!raw) break;
    auto st = PQresultStatus(raw);
    if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
      PQclear(raw);
      broken_ = true;
      return make_error("unexpected COPY from PostgreSQL");
    }
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !failed) failed.reset(raw);
    else last.reset(raw);
  }
  if (failed) {
    if (out.stopped) return make_error(dl.stop_message(), dl.stop_kind());
    return make_error(pg_error_message(failed.get(), conn_), pg_error_kind(failed.get()));
  }
  if (!last) return make_error("PostgreSQL returned no result");
  return last;
}

bool pg_session::reset(const pg_command* first, std::vector<pg_result_ptr>* first_rows) {
  if (broken()) return false;
  exec_options o;
  o.timeout = std::chrono::milliseconds(5000);
  deadline dl(o);
  // One round trip: [first] Sync, [ROLLBACK] Sync, DISCARD ALL Sync. Each Sync ends its own
  // implicit transaction, so DISCARD ALL (which refuses to run inside a transaction block)
  // runs alone, and a failure of `first` skips nothing after it.
  if (!PQenterPipelineMode(conn_)) return false;
  const std::vector<std::optional<std::string>> none;
  auto send = [&](const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    return send_params(conn_, sql, params) && PQpipelineSync(conn_) == 1;
  };
  enum segment { ours, rollback, discard };
  std::vector<segment> segments;
  bool sent = true;
  if (first) {
    sent = send(first->sql, first->params);
    segments.push_back(ours);
  }
  if (sent && txn() != PQTRANS_IDLE) {
    sent = send("ROLLBACK", none);
    segments.push_back(rollback);
  }
  if (sent) {
    sent = send("DISCARD ALL", none);
    segments.push_back(discard);
  }
  auto fail = [this] {
    broken_ = true;  // mid-pipeline: the pool closes the session
    return false;
  };
  if (!sent || PQflush(conn_) != 0) return fail();
  bool ok = true;
  pg_outcome ignored;
  for (segment seg : segments) {
    pg_result_ptr last;
    for (;;) {  // the command's results up to NULL
      if (!wait_readable(dl, ignored)) return fail();
      PGresult* raw = PQgetResult(conn_);
      if (!raw) break;
      // libpq 15 may keep single-row mode from the previous statement for the first query of
      // a pipeline: rows then arrive one result each, before an empty TUPLES_OK.
      if (PQresultStatus(raw) == PGRES_SINGLE_TUPLE) {
        if (seg == ours && first_rows) first_rows->emplace_back(raw);
        else PQclear(raw);
        continue;
      }
      last.reset(raw);
    }
    if (!wait_readable(dl, ignored)) return fail();
    pg_result_ptr sync(PQgetResult(conn_));
    if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) return fail();
    auto st = last ? PQresultStatus(last.get()) : PGRES_FATAL_ERROR;
    if (seg == ours) {
      if (!first_rows) continue;
      if (st == PGRES_TUPLES_OK) first_rows->push_back(std::move(last));
      else first_rows->clear();  // failed: none of its rows count
    } else if (st != PGRES_COMMAND_OK) {
      ok = false;
    }
  }
  if (!PQexitPipelineMode(conn_)) return fail();
  return ok && txn() == PQTRANS_IDLE;
}

}  // namespace omgdb::sql::detail
