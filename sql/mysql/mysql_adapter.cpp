// omgdb sql — the MariaDB/MySQL adapter.
//
// Reads: SET SESSION max_statement_time; SET SESSION TRANSACTION READ ONLY (so even a statement
// that implicitly commits, like DDL, starts its next transaction read-only); START TRANSACTION
// READ ONLY; <statement>; ROLLBACK — each a separate command, the statement alone. Writes: the
// timeout, then the statement alone in autocommit. A watchdog sends KILL QUERY from a second
// connection at the deadline or on cancellation. After every use the session is reset
// (ROLLBACK if needed, COM_RESET_CONNECTION); a session in doubt is closed instead.
#include <mysqld_error.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "common/json.hpp"
#include "sql/adapter_factories.hpp"
#include "sql/mysql/mysql_results.hpp"
#include "sql/mysql/mysql_schema.hpp"
#include "sql/pool.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

class mysql_adapter final : public adapter {
 public:
  explicit mysql_adapter(const config::connection& conn)
      : conn_(conn), pool_(conn.pool_size, [this](const deadline& dl) { return my_session::connect(conn_, dl); }) {}

  config::sql_dialect dialect() const noexcept override { return config::sql_dialect::mysql; }

  result<exec_outcome> execute(std::string_view sql, const exec_options& opts) override {
    deadline dl(opts);
    auto lease = pool_.acquire_ready(
        dl, [&](my_session& s) { return opts.read_only ? begin_read_only(s, dl) : set_timeout(s, dl); });
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    auto out = opts.read_only ? read(s, sql, opts, dl) : write(s, sql, opts, dl);
    lease->reusable(s.reset());  // reads: this is the ROLLBACK
    return out;
  }

  result<json::object> explain(std::string_view sql, const exec_options& opts) override {
    // EXPLAIN without ANALYZE does not execute the statement, but the optimizer may evaluate
    // constant subqueries (and the functions in them): it runs inside a transaction that is
    // rolled back — read-only for reads; MariaDB refuses to plan a write in a read-only
    // transaction, so a write's plan (asked only when the connection allows writes) uses a
    // read-write one, rolled back all the same.
    std::string text = "EXPLAIN FORMAT=JSON " + std::string(sql);
    auto plan = in_txn(opts, opts.read_only, [&](my_session& s, const deadline& dl) -> result<json::object> {
      exec_options o = opts;
      o.max_rows = 1;
      o.max_bytes = std::size_t(16) << 20;
      exec_outcome out;
      if (auto st = statement(s, text, o, dl, true, out); !st) return std::move(st).error();
      auto rows = omgdb::json::parse_strict(out.rows_json());
      if (!rows || rows->as_array().empty() || !rows->as_array()[0].as_array()[0].is_string())
        return make_error("the server returned no plan");
      auto parsed = omgdb::json::parse_strict(rows->as_array()[0].as_array()[0].as_string());
      if (!parsed) return make_error("the server returned a plan that is not JSON");
      return json::object{{"plan", std::move(parsed).value()}};
    });
    return plan;
  }

  result<json::object> schema_summary(std::string_view schema, std::string_view table, std::size_t offset,
                                      std::size_t limit, const exec_options& opts) override {
    return in_read_only_txn(opts, [&](my_session& s, const deadline&) {
      return my_schema_summary(s, schema, table, offset, limit);
    });
  }

  result<json::object> table_indexes(std::string_view schema, std::string_view table,
                                     const exec_options& opts) override {
    return in_read_only_txn(opts, [&](my_session& s, const deadline&) { return my_table_indexes(s, schema, table); });
  }

  result<std::string> ping(const exec_options& opts) override {
    auto r = in_read_only_txn(opts, [&](my_session& s, const deadline&) -> result<json::object> {
      auto v = s.query("SELECT VERSION()", {});
      if (!v) return std::move(v).error();
      if (v->empty() || !(*v)[0][0]) return make_error("the server did not report its version");
      return json::object{{"version", *(*v)[0][0]}};
    });
    if (!r) return std::move(r).error();
    return std::string(r->at("version").as_string());
  }

 private:
  // The server-side statement timeout: max_statement_time (MariaDB, seconds) or
  // max_execution_time (MySQL, milliseconds, SELECT only). The watchdog backs both.
  status set_timeout(my_session& s, const deadline& dl) {
    auto ms = dl.timeout().count();
    std::string secs = std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
    if (s.command("SET SESSION max_statement_time = " + secs)) return {};
    if (mysql_errno(s.handle()) != ER_UNKNOWN_SYSTEM_VARIABLE) return s.error();
    if (s.command("SET SESSION max_execution_time = " + std::to_string(ms))) return {};
    return s.error();
  }

  status begin_read_only(my_session& s, const deadline& dl) {
    if (auto t = set_timeout(s, dl); !t) return t;
    if (auto r = s.command("SET SESSION TRANSACTION READ ONLY"); !r) return r;
    return s.command("START TRANSACTION READ ONLY");
  }

  // Runs the statement under the watchdog and turns a kill into the deadline's message.
  status statement(my_session& s, std::string_view sql, const exec_options& opts, const deadline& dl, bool reads_only,
                   exec_outcome& out) {
    bool fired = false;
    unsigned no = 0;
    status st;
    {
      my_watchdog dog(conn_, mysql_thread_id(s.handle()), dl);
      st = my_run_statement(s, sql, opts, reads_only, out, no);
      fired = dog.fired();
    }
    if (st) return st;
    bool killed = no == ER_QUERY_INTERRUPTED || no == ER_STATEMENT_TIMEOUT || no == 3024 /* MySQL timeout */;
    if ((killed && (fired || dl.expired())) || no == ER_STATEMENT_TIMEOUT || (fired && s.broken()))
      return make_error(dl.stop_message(), dl.cancelled() ? failure_kind::cancelled : failure_kind::limit_exceeded);
    return st;
  }

  template <class Fn>
  result<json::object> in_read_only_txn(const exec_options& opts, Fn&& fn) {
    return in_txn(opts, true, std::forward<Fn>(fn));
  }

  template <class Fn>
  result<json::object> in_txn(const exec_options& opts, bool read_only, Fn&& fn) {
    deadline dl(opts);
    auto lease = pool_.acquire_ready(dl, [&](my_session& s) -> status {
      if (read_only) return begin_read_only(s, dl);
      if (auto t = set_timeout(s, dl); !t) return t;
      return s.command("START TRANSACTION");
    });
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    result<json::object> out = fn(s, dl);
    lease->reusable(s.reset());  // ROLLBACK, COM_RESET_CONNECTION
    return out;
  }

  result<exec_outcome> read(my_session& s, std::string_view sql, const exec_options& opts, const deadline& dl) {
    exec_outcome out;
    if (auto st = statement(s, sql, opts, dl, true, out); !st) return std::move(st).error();
    out.affected.reset();  // nothing a read-only transaction did survives the rollback
    out.elapsed_ms = dl.elapsed_ms();
    return out;  // the caller's reset rolls back
  }

  result<exec_outcome> write(my_session& s, std::string_view sql, const exec_options& opts, const deadline& dl) {
    exec_outcome out;
    if (auto st = statement(s, sql, opts, dl, false, out); !st) {
      // A failed or stopped statement is rolled back on transactional engines (InnoDB); a
      // non-transactional one keeps the rows it changed before the failure.
      static constexpr std::string_view note =
          "nothing was committed (except on non-transactional tables such as MyISAM, which keep rows changed "
          "before the stop)";
      const failure_kind kind = st.error().kind;
      if (kind == failure_kind::cancelled || kind == failure_kind::limit_exceeded) {
        return make_error(dl.stop_message(note), kind);
      }
      if (s.broken())
        return make_error(st.error().message +
                          " — the connection was lost while the write ran: whether it was committed is unknown", failure_kind::unavailable);
      return make_error(st.error().message + " (" + std::string(note) + ")", st.error().kind);
    }
    if (!out.columns.empty()) out.affected.reset();
    out.committed = !s.in_transaction();
    out.elapsed_ms = dl.elapsed_ms();
    return out;
  }

  config::connection conn_;
  pool<my_session> pool_;
};

}  // namespace

std::unique_ptr<adapter> make_mysql_adapter(const config::connection& conn) {
  return std::make_unique<mysql_adapter>(conn);
}

}  // namespace omgdb::sql::detail
