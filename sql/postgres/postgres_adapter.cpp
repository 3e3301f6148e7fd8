// omgdb sql — the PostgreSQL adapter.
//
// Reads: BEGIN READ ONLY, SET LOCAL statement_timeout, then the statement alone in its own
// extended-protocol message — three messages pipelined in one round trip (if either of ours
// fails the server skips the statement) — then ROLLBACK: the transaction is always rolled
// back (never committed, so even large objects created by lo_import or set_config changes
// vanish). Writes: SET statement_timeout = N, then the
// statement alone in autocommit. After every use the session is reset (ROLLBACK if needed,
// DISCARD ALL, in one pipelined round trip that also reads the columns' nullability) before it
// returns to the pool; a session in doubt is closed instead.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "common/json.hpp"
#include "sql/adapter_factories.hpp"
#include "sql/json_text.hpp"
#include "sql/pool.hpp"
#include "sql/postgres/postgres_schema.hpp"
#include "sql/postgres/postgres_values.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

bool is_cancel_error(const PGresult* r) {
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return state && std::string_view(state) == "57014";
}

bool changes_rows(const PGresult* r) {
  std::string_view tag = PQcmdStatus(const_cast<PGresult*>(r));
  for (std::string_view w : {"INSERT", "UPDATE", "DELETE", "MERGE", "COPY"})
    if (tag.substr(0, w.size()) == w) return true;
  return false;
}

// Inside our read-only transaction this is a SELECT on purpose: it takes the transaction's
// first snapshot, after which PostgreSQL refuses `SET transaction_read_only = off`.
std::string timeout_command(const deadline& dl, bool local) {
  return "SELECT pg_catalog.set_config('statement_timeout', '" + std::to_string(dl.timeout().count()) + "', " +
         (local ? "true" : "false") + ")";
}

class postgres_adapter final : public adapter {
 public:
  explicit postgres_adapter(const config::connection& conn)
      : conn_(conn), pool_(conn.pool_size, [this](const deadline& dl) { return pg_session::connect(conn_, dl); }) {}

  config::sql_dialect dialect() const noexcept override { return config::sql_dialect::postgres; }

  result<exec_outcome> execute(std::string_view sql, const exec_options& opts) override {
    deadline dl(opts);
    auto lease = pool_.acquire_ready(dl, [&](pg_session& s) -> status {
      types_.load(s, dl);
      // Reads: BEGIN and the timeout travel with the statement (collect); a session the
      // server closed is found here, before anything is sent, and replaced.
      if (opts.read_only) return s.alive() ? status{} : make_error("the pooled PostgreSQL session was closed");
      if (auto t = s.query(timeout_command(dl, false), {}, dl); !t) return std::move(t).error();
      return {};
    });
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    pg_result_ptr shape;
    auto out = collect(s, sql, opts, dl, opts.read_only, shape);
    if (!out && !opts.read_only && s.broken())
      out = make_error(out.error().message +
                       " — the connection was lost while the write ran: whether it was committed is unknown", failure_kind::unavailable);
    // The columns' nullability is read in the reset's round trip (for reads still inside the
    // read-only transaction), unless the transaction is aborted.
    std::optional<pg_command> nullability;
    if (out && s.txn() != PQTRANS_INERROR) nullability = pg_nullability_query(shape.get());
    std::vector<pg_result_ptr> attributes;
    lease->reusable(s.reset(nullability ? &*nullability : nullptr, &attributes));  // reads: the ROLLBACK
    if (out) {
      pg_apply_nullability(attributes, shape.get(), out->columns);
      out->elapsed_ms = dl.elapsed_ms();
    }
    return out;
  }

  result<json::object> explain(std::string_view sql, const exec_options& opts) override {
    // EXPLAIN without ANALYZE plans and never executes; it still runs in a read-only
    // transaction that is rolled back, whatever the statement.
    return in_read_only_txn(opts, [&](pg_session& s, const deadline& dl) -> result<json::object> {
      std::string plan_text;
      auto r = s.run("EXPLAIN (FORMAT JSON) " + std::string(sql), {}, dl,
                     [&](const PGresult* row) {
                       plan_text += PQgetvalue(row, 0, 0);
                       return true;
                     },
                     false);
      if (!r) return std::move(r).error();
      if (auto e = statement_error(s.conn(), *r, dl, "")) return std::move(*e);
      auto plan = omgdb::json::parse_strict(plan_text);
      if (!plan) return make_error("PostgreSQL returned a plan that is not JSON");
      return json::object{{"plan", std::move(plan).value()}};
    });
  }

  result<json::object> schema_summary(std::string_view schema, std::string_view table, std::size_t offset,
                                      std::size_t limit, const exec_options& opts) override {
    return in_read_only_txn(opts, [&](pg_session& s, const deadline& dl) {
      return pg_schema_summary(s, dl, schema, table, offset, limit);
    });
  }

  result<json::object> table_indexes(std::string_view schema, std::string_view table,
                                     const exec_options& opts) override {
    return in_read_only_txn(opts, [&](pg_session& s, const deadline& dl) {
      return pg_table_indexes(s, dl, schema, table);
    });
  }

  result<std::string> ping(const exec_options& opts) override {
    auto r = in_read_only_txn(opts, [&](pg_session& s, const deadline& dl) -> result<json::object> {
      auto v = s.query("SELECT version()", {}, dl);
      if (!v) return std::move(v).error();
      return json::object{{"version", PQgetvalue(v->get(), 0, 0)}};
    });
    if (!r) return std::move(r).error();
    return std::string(r->at("version").as_string());
  }

 private:
  template <class Fn>
  result<json::object> in_read_only_txn(const exec_options& opts, Fn&& fn) {
    deadline dl(opts);
    auto lease = pool_.acquire_ready(dl, [&](pg_session& s) { return begin_read_only(s, dl); });
    if (!lease) return std::move(lease).error();
    auto& s = *lease.value();
    result<json::object> out = fn(s, dl);
    lease->reusable(s.reset());  // ROLLBACK, DISCARD ALL
    return out;
  }

  // BEGIN READ ONLY, then the local timeout as a SELECT (it takes the snapshot, see above):
  // sent ahead of a read in the same round trip.
  static std::vector<pg_command> read_only_preamble(const deadline& dl) {
    return {pg_command{"BEGIN READ ONLY", {}}, pg_command{timeout_command(dl, true), {}}};
  }

  status begin_read_only(pg_session& s, const deadline& dl) {
    // Our own two commands in one round trip; the SELECT takes the snapshot (see above).
    if (auto b = s.own_commands("BEGIN READ ONLY; " + timeout_command(dl, true), dl); !b) return std::move(b).error();
    return {};
  }

  // Nothing when the statement succeeded (or was cancelled only because we had enough rows).
  std::optional<failure> statement_error(PGconn* conn, const pg_outcome& r, const deadline& dl,
                                         std::string_view write_note) {
    if (!r.final) {
      if (r.stopped) return make_error(dl.stop_message(), dl.stop_kind());
      return make_error("PostgreSQL returned no result", failure_kind::internal);
    }
    auto st = PQresultStatus(r.final.get());
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) return std::nullopt;
    if (r.budget_cancel && is_cancel_error(r.final.get())) return std::nullopt;
    if (r.stopped || (is_cancel_error(r.final.get()) && dl.expired())) return make_error(dl.stop_message(), dl.stop_kind());
    if (is_cancel_error(r.final.get()) && !r.cancel_sent)  // the server's statement_timeout
      return make_error(dl.stop_message(), failure_kind::limit_exceeded);
    return make_error(pg_error_message(r.final.get(), conn) + std::string(write_note), pg_error_kind(r.final.get()));
  }

  result<exec_outcome> collect(pg_session& s, std::string_view sql, const exec_options& opts, const deadline& dl,
                               bool read_only, pg_result_ptr& shape) {
    exec_outcome out;
    row_writer rows(out, opts);
    std::vector<Oid> types;  // of the first row; every row of one result has the same shape
    const bool shortest_floats = PQserverVersion(s.conn()) >= 120000;
    std::vector<pg_command> preamble;
    if (read_only) preamble = read_only_preamble(dl);
    auto r = s.run(sql, {}, dl,
                   [&](const PGresult* row) {
                     int n = PQnfields(row);
                     if (types.empty())
                       for (int c = 0; c < n; ++c) types.push_back(PQftype(row, c));
                     if (!rows.begin_row()) return false;
                     std::string& text = rows.text();
                     for (int c = 0; c < n; ++c) {
                       auto size = static_cast<std::size_t>(PQgetlength(row, 0, c));
                       if (size > opts.max_bytes) {  // a value longer than the whole budget
                         rows.oversized();
                         return false;
                       }
                       if (c > 0) text.push_back(',');
                       if (size == 0 && PQgetisnull(row, 0, c)) put_null(text);  // NULL has length 0
                       else pg_put_value(text, std::string_view(PQgetvalue(row, 0, c), size),
                                         types[static_cast<std::size_t>(c)], shortest_floats);
                     }
                     return rows.end_row();
                   },
                   read_only, preamble);
    if (!r) return std::move(r).error();
    if (auto err = statement_error(s.conn(), *r, dl, read_only ? "" : " (nothing was committed)")) {
      return std::move(*err);
    }
    if (PQresultStatus(r->final.get()) == PGRES_EMPTY_QUERY) return make_error("the SQL text contains no statement");
    out.columns = pg_columns(r->shape.get(), types_);
    if (!r->budget_cancel && changes_rows(r->final.get())) {
      std::string_view n = PQcmdTuples(r->final.get());
      if (auto count = parse_int(n)) out.affected = *count;
    }
    if (!read_only) out.committed = s.txn() == PQTRANS_IDLE;
    shape = std::move(r->shape);
    return out;
  }

  config::connection conn_;
  pg_type_names types_;
  pool<pg_session> pool_;
};

}  // namespace

std::unique_ptr<adapter> make_postgres_adapter(const config::connection& conn) {
  return std::make_unique<postgres_adapter>(conn);
}

}  // namespace omgdb::sql::detail
