// omgdb sql — the SQLite adapter: a pool of read-only handles for reads, a fresh read-write
// handle per write. See sql/sqlite/sqlite_session.hpp for the guards each handle carries.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "common/json.hpp"
#include "sql/adapter_factories.hpp"
#include "sql/json_text.hpp"
#include "sql/pool.hpp"
#include "sql/sqlite/sqlite_schema.hpp"
#include "sql/sqlite/sqlite_session.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

// Binds the deadline to the session's handlers for the length of one call.
struct watch_guard {
  sqlite_session& s;
  watch_guard(sqlite_session& session, const deadline& dl) : s(session) { s.watch(&dl); }
  ~watch_guard() { s.watch(nullptr); }
};

std::string first_value_type(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "";
  }
}

std::vector<column_info> describe_columns(sqlite3* db, sqlite3_stmt* stmt) {
  std::vector<column_info> cols;
  int n = sqlite3_column_count(stmt);
  for (int i = 0; i < n; ++i) {
    column_info c;
    const char* name = sqlite3_column_name(stmt, i);
    c.name = name ? text_value(name).as_string().c_str() : "";
    const char* decl = sqlite3_column_decltype(stmt, i);
    if (decl) c.type = decl;
    const char* dbname = sqlite3_column_database_name(stmt, i);
    const char* table = sqlite3_column_table_name(stmt, i);
    const char* origin = sqlite3_column_origin_name(stmt, i);
    if (dbname && table && origin) {
      int not_null = 0, pk = 0, autoinc = 0;
      if (sqlite3_table_column_metadata(db, dbname, table, origin, nullptr, nullptr, &not_null, &pk, &autoinc) ==
          SQLITE_OK)
        c.nullable = !not_null && !autoinc;  // AUTOINCREMENT only exists on the rowid alias
    }
    cols.push_back(std::move(c));
  }
  return cols;
}

class sqlite_adapter final : public adapter {
 public:
  explicit sqlite_adapter(const config::connection& conn)
      : file_(conn.file),
        readers_(conn.pool_size, [this](const deadline&) { return sqlite_session::open(file_, true); }) {}

  config::sql_dialect dialect() const noexcept override { return config::sql_dialect::sqlite; }

  result<exec_outcome> execute(std::string_view sql, const exec_options& opts) override {
    deadline dl(opts);
    if (opts.read_only) {
      auto lease = readers_.acquire(dl);
      if (!lease) return std::move(lease).error();
      auto& l = lease.value();
      auto out = run(*l, sql, opts, dl);
      l.reusable(sqlite3_get_autocommit(l->db()) != 0);
      return out;
    }
    // Writes get their own handle, closed afterwards: no session state (pragmas, temp
    // tables, an open transaction) survives into the next call.
    auto s = sqlite_session::open(file_, false);
    if (!s) return std::move(s).error();
    auto out = run(**s, sql, opts, dl);
    if (!sqlite3_get_autocommit((*s)->db())) {
      sqlite3_exec((*s)->db(), "ROLLBACK", nullptr, nullptr, nullptr);
      if (out) out->committed = false;
    }
    return out;
  }

  result<json::object> explain(std::string_view sql, const exec_options& opts) override {
    deadline dl(opts);
    std::string text = "EXPLAIN QUERY PLAN " + std::string(sql);
    auto plan = [&](sqlite_session& s) -> result<json::object> {
      watch_guard w(s, dl);
      auto prepared = s.prepare_one(text);
      if (!prepared) return std::move(prepared).error();
      stmt_ptr stmt(*prepared);
      if (sqlite3_stmt_isexplain(stmt.get()) != 2) return make_error("the statement cannot be explained");
      json::array rows;
      int rc;
      while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
        rows.push_back(json::object{{"id", sqlite3_column_int64(stmt.get(), 0)},
                                    {"parent", sqlite3_column_int64(stmt.get(), 1)},
                                    {"detail", sqlite_column_value(stmt.get(), 3)}});
      }
      if (rc != SQLITE_DONE) return s.error(rc);
      return json::object{{"plan", std::move(rows)}};
    };
    if (opts.read_only) {
      auto lease = readers_.acquire(dl);
      if (!lease) return std::move(lease).error();
      auto out = plan(*lease.value());
      lease->reusable(sqlite3_get_autocommit(lease.value()->db()) != 0);
      return out;
    }
    auto s = sqlite_session::open(file_, false);
    if (!s) return std::move(s).error();
    return plan(**s);
  }

  result<json::object> schema_summary(std::string_view schema, std::string_view table, std::size_t offset,
                                      std::size_t limit, const exec_options& opts) override {
    deadline dl(opts);
    auto lease = readers_.acquire(dl);
    if (!lease) return std::move(lease).error();
    watch_guard w(*lease.value(), dl);
    auto out = sqlite_schema_summary(*lease.value(), schema, table, offset, limit);
    lease->reusable(true);
    return out;
  }

  result<json::object> table_indexes(std::string_view schema, std::string_view table,
                                     const exec_options& opts) override {
    deadline dl(opts);
    auto lease = readers_.acquire(dl);
    if (!lease) return std::move(lease).error();
    watch_guard w(*lease.value(), dl);
    auto out = sqlite_table_indexes(*lease.value(), schema, table);
    lease->reusable(true);
    return out;
  }

  result<std::string> ping(const exec_options& opts) override {
    exec_options o = opts;
    o.read_only = true;
    auto r = execute("SELECT sqlite_version()", o);
    if (!r) return std::move(r).error();
    std::string version;
    auto rows = omgdb::json::parse_strict(r->rows_json());
    if (rows && !rows->as_array().empty() && rows->as_array()[0].as_array()[0].is_string())
      version = rows->as_array()[0].as_array()[0].as_string();
    return "SQLite " + version + ", database file readable";
  }

 private:
  result<exec_outcome> run(sqlite_session& s, std::string_view sql, const exec_options& opts, const deadline& dl) {
    watch_guard w(s, dl);
    auto prepared = s.prepare_one(sql);
    if (!prepared) return std::move(prepared).error();
    stmt_ptr stmt(*prepared);
    bool reads_only = sqlite3_stmt_readonly(stmt.get()) != 0;
    // `PRAGMA journal_mode` without a value only reports the mode; on a read-only handle (whose
    // authorizer let through nothing else, opened SQLITE_OPEN_READONLY and query_only) it
    // cannot change it either.
    if (!reads_only && s.read_only() && s.journal_mode_query()) reads_only = true;
    if (opts.read_only && !reads_only)
      return make_error("the statement is not read-only (SQLite reports that it writes); this call only reads");
    exec_outcome out;
    out.columns = describe_columns(s.db(), stmt.get());
    row_writer rows(out, opts);
    int n = sqlite3_column_count(stmt.get());
    bool first = true;
    int rc;
    while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
      if (first) {
        for (int i = 0; i < n; ++i)
          if (out.columns[i].type.empty()) out.columns[i].type = first_value_type(stmt.get(), i);
        first = false;
      }
      if (rows.full()) {
        if (reads_only) break;  // a read stops here; a write runs to completion
        continue;
      }
      // A row past max_rows is what sets rows_more_available.
      if (!rows.begin_row()) {
        if (reads_only) break;
        continue;
      }
      std::string& text = rows.text();
      for (int i = 0; i < n; ++i) {
        if (i > 0) text.push_back(',');
        sqlite_put_value(text, stmt.get(), i);
      }
      if (!rows.end_row() && reads_only) break;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      bool stopped = (rc & 0xff) == SQLITE_INTERRUPT && dl.expired();
      std::string msg = s.error_message(rc);
      if (!stopped && !reads_only && !opts.read_only) msg += " (nothing was committed)";
      return make_error(std::move(msg), s.error_kind(rc));
    }
    if (!reads_only) {
      out.affected = sqlite3_changes64(s.db());
      out.committed = sqlite3_get_autocommit(s.db()) != 0;
    }
    out.elapsed_ms = dl.elapsed_ms();
    return out;
  }

  std::string file_;
  pool<sqlite_session> readers_;
};

}  // namespace

std::unique_ptr<adapter> make_sqlite_adapter(const config::connection& conn) {
  return std::make_unique<sqlite_adapter>(conn);
}

}  // namespace omgdb::sql::detail
