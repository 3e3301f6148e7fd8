// omgdb sql — the ODBC adapter: SQL Server (`mssql`) and any ODBC data source (`odbc`, its SQL
// declared as postgres, mysql, sqlite, mssql or ansi) through unixODBC.
//
// Read-only here is the text check alone (seed 003: "SQL Server, Oracle, JDBC and ODBC rely on
// the text check alone"): ODBC has no portable read-only transaction, and drivers run several
// statements in one call (psqlODBC does). So the adapter classifies every text itself, with the
// declared dialect, before anything reaches the driver — even when the caller (sql/service)
// already did: refused never runs, a write never runs read-only, and ODBC escapes `{…}` (which
// drivers rewrite) are refused. What the text check lets through as read-only additionally runs
// in a transaction that is always rolled back (autocommit off; not for SQLite, whose driver
// then buffers whole results) — an extra that undoes a transactional write the check missed,
// not a guarantee (MariaDB's DDL commits implicitly, and a driver may ignore it).
// Writes run in autocommit, and the session that ran one is closed rather than reused (ODBC has
// no portable session reset). Deadlines and cancellation reach the driver as SQLCancel from the
// watcher thread (odbc_session.hpp).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <mutex>

#include "common/json.hpp"
#include "sql/adapter_factories.hpp"
#include "sql/classifier/classifier.hpp"
#include "sql/classifier/sql_lexer.hpp"
#include "sql/odbc/odbc_results.hpp"
#include "sql/odbc/odbc_schema.hpp"
#include "sql/pool.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;
using config::sql_dialect;

namespace {

// An ODBC escape sequence `{…}` outside strings, comments and quoted names, as the declared
// dialect (every dialect for ansi) reads the text: its offset, or npos.
std::size_t escape_at(std::string_view sql, sql_dialect d) {
  std::vector<sql_dialect> readings;
  if (d == sql_dialect::ansi) readings = {sql_dialect::postgres, sql_dialect::mysql, sql_dialect::sqlite, sql_dialect::mssql};
  else readings = {d};
  for (auto r : readings) {
    auto lexed = lex(sql, r, default_mode(r));
    for (const auto& t : lexed.tokens)
      if (t.kind == token_kind::other && sql.substr(t.offset, 1) == "{") return t.offset;
  }
  return std::string_view::npos;
}

// The text up to and including its one `;` (only blanks and comments follow it, the classifier
// checked): SQLite's driver calls a trailing comment a second statement, and T-SQL's MERGE
// needs its `;`.
std::string_view without_tail(std::string_view sql, sql_dialect d) {
  const sql_dialect r = d == sql_dialect::ansi ? sql_dialect::postgres : d;
  auto lexed = lex(sql, r, default_mode(r));
  if (lexed.error != lex_error_kind::none || lexed.tokens.empty()) return sql;
  const auto& last = lexed.tokens.back();
  return sql.substr(0, last.offset + last.size);
}

bool is_dml(std::string_view k) {
  return k == "INSERT" || k == "UPDATE" || k == "DELETE" || k == "MERGE" || k == "REPLACE" || k == "UPSERT";
}

class odbc_adapter final : public adapter {
 public:
  explicit odbc_adapter(const config::connection& conn)
      : conn_(conn), pool_(conn.pool_size, [this](const deadline& dl) { return open(dl); }) {}

  sql_dialect dialect() const noexcept override { return conn_.dialect; }

  result<exec_outcome> execute(std::string_view sql, const exec_options& opts) override {
    deadline dl(opts);
    auto verdict = text_check(sql, opts.read_only);
    if (!verdict) return std::move(verdict).error();
    const bool reads = verdict->kind == verdict::read_only;
    auto lease = ready_session(dl, reads);
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    exec_outcome out;
    auto st = run(s, without_tail(sql, conn_.dialect), opts, dl, reads, verdict->keyword, out);
    if (reads && !s.broken()) (void)s.rollback();
    lease->reusable(reads && !s.broken());
    if (!st) return std::move(st).error();
    out.elapsed_ms = dl.elapsed_ms();
    return out;
  }

  result<json::object> explain(std::string_view sql, const exec_options& opts) override {
    if (conn_.dialect == sql_dialect::ansi)
      return make_error("explain is not available for this connection: its SQL is declared `ansi`, and no plan "
                        "statement is common to every database");
    deadline dl(opts);
    auto verdict = text_check(sql, opts.read_only);
    if (!verdict) return std::move(verdict).error();
    const std::string& k = verdict->keyword;
    if (k != "SELECT" && k != "WITH" && k != "VALUES" && k != "TABLE" && !is_dml(k))
      return make_error("explain plans a query or an INSERT, UPDATE, DELETE or MERGE, not " + k +
                        " (pass the statement without EXPLAIN; ANALYZE is never used)");
    auto lease = ready_session(dl, true);
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    const auto statement = without_tail(sql, conn_.dialect);
    auto plan = conn_.dialect == sql_dialect::mssql ? showplan(s, statement, dl) : plan_rows(s, statement, dl);
    if (!s.broken()) (void)s.rollback();
    // SHOWPLAN is session state: that session is never reused, whatever happened.
    lease->reusable(!s.broken() && conn_.dialect != sql_dialect::mssql);
    return plan;
  }

  result<json::object> schema_summary(std::string_view schema, std::string_view table, std::size_t offset,
                                      std::size_t limit, const exec_options& opts) override {
    return in_read(opts, [&](odbc_session& s, const deadline& dl) {
      return odbc_schema_summary(s, conn_.dialect, dl, schema, table, offset, limit);
    });
  }

  result<json::object> table_indexes(std::string_view schema, std::string_view table, const exec_options& opts) override {
    return in_read(opts, [&](odbc_session& s, const deadline& dl) {
      return odbc_table_indexes(s, conn_.dialect, dl, schema, table);
    });
  }

  result<std::string> ping(const exec_options& opts) override {
    auto r = in_read(opts, [&](odbc_session& s, const deadline& dl) -> result<json::object> {
      if (!s.alive(conn_.dialect, dl)) return make_error("the server did not answer: " + s.dbc_message());
      auto info = [&](SQLUSMALLINT what) {
        char buf[256] = {0};
        SQLSMALLINT len = 0;
        SQLGetInfo(s.dbc(), what, buf, sizeof buf, &len);
        return std::string(buf);
      };
      return json::object{{"version", info(SQL_DBMS_NAME) + " " + info(SQL_DBMS_VER) + " through ODBC driver " +
                                          info(SQL_DRIVER_NAME) + " " + info(SQL_DRIVER_VER)}};
    });
    if (!r) return std::move(r).error();
    return std::string(r->at("version").as_string());
  }

 private:
  // Layer 1 and the only one: the classifier with the declared dialect.
  result<classification> text_check(std::string_view sql, bool read_only) const {
    auto v = classify(sql, conn_.dialect);
    if (v.kind == verdict::refused) return make_error("refused: " + v.reason + ". Nothing ran");
    if (v.kind == verdict::write && read_only)
      return make_error("refused: read-only on this connection is a text check, and " + v.reason + ". Nothing ran");
    if (const auto at = escape_at(sql, conn_.dialect); at != std::string_view::npos)
      return make_error("refused: an ODBC escape sequence { … } (at byte " + std::to_string(at + 1) +
                        ") is rewritten by the driver before the server reads it; write the statement without it. "
                        "Nothing ran");
    return v;
  }

  result<std::unique_ptr<odbc_session>> open(const deadline& dl) {
    std::string extra;
    bool decided = false;
    {
      std::lock_guard lock(mu_);
      extra = extra_;
      decided = decided_;
    }
    auto s = odbc_session::connect(conn_, extra, dl);
    if (!s || decided) return s;
    std::string missing = (*s)->missing_options(conn_);
    {
      std::lock_guard lock(mu_);
      decided_ = true;
      extra_ = missing;
    }
    if (missing.empty()) return s;
    s->reset();  // once: connect again with the driver options it needs
    return odbc_session::connect(conn_, missing, dl);
  }

  // Reads run with autocommit off (rolled back) except on the SQLite driver; writes in
  // autocommit. A pooled session is probed first (a closed one is replaced once).
  result<pool<odbc_session>::lease> ready_session(const deadline& dl, bool reads) {
    return pool_.acquire_ready(dl, [&](odbc_session& s) -> status {
      if (s.used() && !s.alive(conn_.dialect, dl)) return make_error("the pooled ODBC session was closed: " + s.dbc_message());
      return s.set_autocommit(!reads || s.driver() == odbc_driver::sqlite);
    });
  }

  template <class Fn>
  result<json::object> in_read(const exec_options& opts, Fn&& fn) {
    deadline dl(opts);
    auto lease = ready_session(dl, true);
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    s.mark_used();
    result<json::object> out = fn(s, dl);
    if (!s.broken()) (void)s.rollback();
    lease->reusable(!s.broken());
    return out;
  }

  status run(odbc_session& s, std::string_view sql, const exec_options& opts, const deadline& dl, bool reads,
             const std::string& keyword, exec_outcome& out) {
    auto stmt = s.statement();
    if (!stmt) return std::move(stmt).error();
    status st;
    bool extra_result = false;
    bool fired = false;
    {
      cancel_watch watch(stmt->get(), dl);
      st = s.exec(*stmt, sql, dl);
      SQLSMALLINT columns = 0;
      if (st) SQLNumResultCols(stmt->get(), &columns);
      if (st && columns > 0) {
        auto kinds = odbc_describe(s, *stmt, columns, out);
        st = odbc_fetch(s, *stmt, kinds, opts, reads, out);
      } else if (st && is_dml(keyword)) {
        SQLLEN n = -1;
        if (SQL_SUCCEEDED(SQLRowCount(stmt->get(), &n)) && n >= 0) out.affected = n;
      }
      if (st && !(reads && out.rows_more_available)) {
        for (SQLRETURN rc = SQLMoreResults(stmt->get()); SQL_SUCCEEDED(rc); rc = SQLMoreResults(stmt->get())) {
          SQLSMALLINT more = 0;
          SQLNumResultCols(stmt->get(), &more);
          extra_result = extra_result || more > 0;
        }
      }
      SQLFreeStmt(stmt->get(), SQL_CLOSE);
      fired = watch.fired();
    }
    if (fired) {
      s.mark_broken();
      return make_error(dl.stop_message(), dl.stop_kind());
    }
    if (!st) {
      if (!reads && s.broken())
        return make_error(st.error().message + " — the connection was lost while the write ran: whether it was "
                                               "committed is unknown", failure_kind::unavailable);
      return st;
    }
    if (reads && extra_result)
      return make_error("the driver returned more than one result set: the text held more than one statement; it was "
                        "rolled back");
    out.committed = !reads && keyword != "BEGIN" && keyword != "START";
    return {};
  }

  // PostgreSQL, MariaDB/MySQL and SQLite plan with EXPLAIN inside the rolled-back transaction.
  result<json::object> plan_rows(odbc_session& s, std::string_view sql, const deadline& dl) {
    const sql_dialect d = conn_.dialect;
    const std::string text = (d == sql_dialect::postgres ? "EXPLAIN (FORMAT JSON) "
                              : d == sql_dialect::mysql  ? "EXPLAIN FORMAT=JSON "
                                                         : "EXPLAIN QUERY PLAN ") +
                             std::string(sql);
    exec_options o;
    o.max_rows = d == sql_dialect::sqlite ? 1000 : 1;
    o.max_bytes = std::size_t(16) << 20;
    o.timeout = dl.remaining();
    exec_outcome out;
    if (auto st = run(s, text, o, dl, true, "EXPLAIN", out); !st) return std::move(st).error();
    auto rows = omgdb::json::parse_strict(out.rows_json());
    if (!rows || (rows->as_array().empty() && d != sql_dialect::sqlite)) return make_error("the server returned no plan");
    if (d == sql_dialect::sqlite) {  // no rows: nothing to plan (DELETE without WHERE)
      json::array plan;
      for (auto& r : rows->as_array()) {
        const auto& row = r.as_array();
        if (row.size() < 4) return make_error("the server returned a plan of an unexpected shape");
        plan.push_back(json::object{{"id", row[0]}, {"parent", row[1]}, {"detail", row[3]}});
      }
      return json::object{{"plan", std::move(plan)}};
    }
    const auto& cell = rows->as_array()[0].as_array()[0];
    if (!cell.is_string()) return make_error("the server returned no plan");
    auto parsed = omgdb::json::parse_strict(cell.as_string());
    if (!parsed) return make_error("the server returned a plan that is not JSON");
    return json::object{{"plan", std::move(parsed).value()}};
  }

  // T-SQL: SET SHOWPLAN_XML ON on this session (never reused afterwards), the statement (which
  // then is compiled, not run), SET SHOWPLAN_XML OFF.
  result<json::object> showplan(odbc_session& s, std::string_view sql, const deadline& dl) {
    if (auto st = s.set_autocommit(true); !st) return std::move(st).error();
    auto own = [&](std::string_view text) -> status {
      auto stmt = s.statement();
      if (!stmt) return std::move(stmt).error();
      cancel_watch watch(stmt->get(), dl);
      auto st = s.exec(*stmt, text, dl);
      SQLFreeStmt(stmt->get(), SQL_CLOSE);
      return st;
    };
    if (auto st = own("SET SHOWPLAN_XML ON"); !st) {
      s.mark_broken();
      return std::move(st).error();
    }
    exec_options o;
    o.max_rows = 1;
    o.max_bytes = std::size_t(16) << 20;
    o.timeout = dl.remaining();
    exec_outcome out;
    auto st = run(s, sql, o, dl, true, "EXPLAIN", out);
    if (auto off = own("SET SHOWPLAN_XML OFF"); !off) s.mark_broken();
    if (!st) return std::move(st).error();
    auto rows = omgdb::json::parse_strict(out.rows_json());
    if (!rows || rows->as_array().empty() || !rows->as_array()[0].as_array()[0].is_string())
      return make_error("the server returned no plan");
    return json::object{{"plan", rows->as_array()[0].as_array()[0]}, {"format", "showplan_xml"}};
  }

  config::connection conn_;
  std::mutex mu_;
  std::string extra_;
  bool decided_ = false;
  pool<odbc_session> pool_;
};

}  // namespace

std::unique_ptr<adapter> make_odbc_adapter(const config::connection& conn) {
  return std::make_unique<odbc_adapter>(conn);
}

}  // namespace omgdb::sql::detail
