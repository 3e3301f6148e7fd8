// omgdb tests — what only the ODBC adapter does (issue 35), against the servers run.sh --odbc
// started: read-only as the text check alone, SQLCancel from the watcher thread, the same rows
// and types as the native adapters, secrets kept out of messages, and an expired approval that
// starts no SQL. Run only in ODBC mode (run.sh excludes `odbc*` from the native run).
#include <filesystem>
#include <thread>

#include "sql/service.hpp"
#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

namespace {

std::vector<target> odbc_targets() { return all_targets(); }

bool has_driver(sql_dialect d) {
  return env("OMGDB_TEST_ODBC_DRIVERS").find(std::string(config::to_string(d))) != std::string::npos;
}

std::string slow_sql(sql_dialect d) {
  return d == sql_dialect::postgres ? "SELECT pg_sleep(10)"
         : d == sql_dialect::mysql  ? "SELECT SLEEP(10)"
                                    : "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r";
}

}  // namespace

TEST_CASE("odbc: every server's driver is registered") {
  if (env("OMGDB_TEST_ALLOW_MISSING") == "1") return;
  CHECK(odbc_targets().size() == 3);
}

TEST_CASE("odbc: the same SQL gives the same rows and column types natively and through the driver") {
  struct query {
    sql_dialect d;
    std::string sql;
  };
  const std::vector<query> queries = {
      {sql_dialect::postgres, "SELECT id, name, price, big, ratio, flag, data, note FROM items ORDER BY id LIMIT 5"},
      {sql_dialect::postgres, "SELECT true, 12345678901234::int8, 1.5::numeric, E'a\\'b', 'héllo €', 0.1::float4, "
                              "'NaN'::float8, 7::int2, DATE '2026-11-30', NULL::text"},
      {sql_dialect::mysql, "SELECT id, name, price, big, ratio, flag, data, note FROM items ORDER BY id LIMIT 5"},
      {sql_dialect::mysql, "SELECT CAST(18446744073709551615 AS UNSIGNED), 1.25, 'a\\'b', 'héllo €', DATE '2026-11-30', "
                           "0.5e0, CAST(1.5 AS FLOAT), SUM(1), NULL"},
      {sql_dialect::sqlite, "SELECT id, name, price, big, ratio, flag, data, note FROM items ORDER BY id LIMIT 5"},
      {sql_dialect::sqlite, "SELECT count(*), sum(big), 'héllo €', x'00ff', NULL FROM items WHERE id < 3"},
  };
  int compared = 0;
  for (const auto& q : queries) {
    if (!has_driver(q.d)) continue;
    CAPTURE(q.sql);
    auto native = open(target{q.d, false, q.d});
    auto odbc = open(target{q.d, true, q.d});
    auto a = run(*native, q.sql, ro());
    auto b = run(*odbc, q.sql, ro());
    CHECK(a.rows_json() == b.rows_json());
    REQUIRE(a.columns.size() == b.columns.size());
    for (std::size_t i = 0; i < a.columns.size(); ++i) {
      CAPTURE(i);
      CHECK(a.columns[i].name == b.columns[i].name);
      // Expressions in SQLite have no declared type: the native adapter names the first value's
      // storage class, the driver says varchar (docs/sql-adapters.md).
      if (q.d == sql_dialect::sqlite && b.columns[i].type == "varchar") continue;
      CHECK(a.columns[i].type == b.columns[i].type);
    }
    ++compared;
  }
  CHECK(compared == static_cast<int>(2 * odbc_targets().size()));
}

TEST_CASE("odbc: read-only is the text check: writes, side effects and stacked statements never reach the driver") {
  for (const auto& t : odbc_targets()) {
    CAPTURE(t.name());
    auto a = open(t);
    auto before = fingerprint(*a);
    for (std::string_view sql : {"DELETE FROM scratch", "INSERT INTO scratch VALUES ('ro', 1)",
                                 "SELECT 1; DELETE FROM items", "SELECT 1; INSERT INTO scratch VALUES ('x', 1)",
                                 "SELECT {fn NOW()}", "CREATE TABLE evil (a int)"}) {
      CAPTURE(sql);
      auto start = std::chrono::steady_clock::now();
      std::string msg = refuse(*a, sql, ro());
      CHECK(contains(msg, "refused"));
      CHECK(contains(msg, "Nothing ran"));
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
    }
    // psqlODBC would run both statements of a stacked text: refused for writes too.
    CHECK(contains(refuse(*a, "INSERT INTO scratch VALUES ('a', 1); DELETE FROM items", rw()), "more than one statement"));
    // A side-effect function is refused before it can sleep.
    if (t.dialect != sql_dialect::sqlite) {
      auto start = std::chrono::steady_clock::now();
      CHECK(contains(refuse(*a, slow_sql(t.dialect), ro()), "Nothing ran"));
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
    }
    CHECK(fingerprint(*a) == before);
  }
}

TEST_CASE("odbc: a running statement is cancelled through SQLCancel within a bound") {
  for (const auto& t : odbc_targets()) {
    CAPTURE(t.name());
    auto a = open(t, 1);
    std::atomic<bool> cancel{false};
    auto o = rw(std::chrono::milliseconds(20000));  // pg_sleep/SLEEP are writes to the text check
    if (t.dialect == sql_dialect::sqlite) o.read_only = true;
    o.cancelled = &cancel;
    std::thread flip([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      cancel = true;
    });
    auto start = std::chrono::steady_clock::now();
    std::string msg = refuse(*a, slow_sql(t.dialect), o);
    auto took = std::chrono::steady_clock::now() - start;
    flip.join();
    CHECK(contains(msg, "cancelled"));
    CHECK(took < std::chrono::milliseconds(2500));
    CHECK(took >= std::chrono::milliseconds(450));
    CHECK(scalar(*a, "SELECT 1") == "1");  // a new session replaces the cancelled one
    if (t.dialect == sql_dialect::postgres) {
      auto watcher = open(sql_dialect::postgres, 1);
      CHECK(scalar(*watcher, "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(10)' AND state = "
                             "'active'") == "0");
    }
  }
}

TEST_CASE("odbc: the statement timeout stops a read on the server through SQLCancel") {
  for (const auto& t : odbc_targets()) {
    CAPTURE(t.name());
    auto a = open(t, 1);
    const std::string endless = t.dialect == sql_dialect::mysql
                                    ? "SELECT COUNT(*) FROM items a, items b, items c, items d"
                                    : "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r";
    auto start = std::chrono::steady_clock::now();
    std::string msg = refuse(*a, endless, ro(std::chrono::milliseconds(500)));
    CHECK(contains(msg, "statement timeout of 500 ms"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
    CHECK(scalar(*a, "SELECT 1") == "1");
  }
}

TEST_CASE("odbc: a failed login names no password") {
  for (const auto& t : odbc_targets()) {
    if (t.dialect == sql_dialect::sqlite) continue;
    CAPTURE(t.name());
    auto c = connection_for(t);
    c.password = "wrong-secret-4711";
    auto a = sql::make_adapter(c);
    REQUIRE(a.ok());
    auto r = (*a)->execute("SELECT 1", ro());
    REQUIRE(!r.ok());
    CHECK(!contains(r.error().message, "wrong-secret-4711"));
    CHECK(contains(r.error().message, "cannot connect through ODBC"));
  }
}

TEST_CASE("odbc: a connection declared ansi reads only what every dialect reads, and explains nothing") {
  if (!has_driver(sql_dialect::postgres)) return;
  auto a = open(target{sql_dialect::postgres, true, sql_dialect::ansi});
  CHECK(scalar(*a, "SELECT COUNT(*) FROM items") == "1003");
  CHECK(contains(refuse(*a, "SELECT 1 DELETE FROM items", ro()), "read as T-SQL"));
  CHECK(contains(refuse(*a, "SELECT * FROM items WITH (UPDLOCK)", ro()), "locks"));
  auto plan = a->explain("SELECT 1", ro());
  REQUIRE(!plan.ok());
  CHECK(contains(plan.error().message, "explain is not available"));
}

namespace {

// Counts the statements the service hands the adapter.
class counting_adapter final : public sql::adapter {
 public:
  counting_adapter(std::unique_ptr<sql::adapter> inner, std::atomic<int>& calls) : inner_(std::move(inner)), calls_(calls) {}
  config::sql_dialect dialect() const noexcept override { return inner_->dialect(); }
  result<sql::exec_outcome> execute(std::string_view sql, const sql::exec_options& o) override {
    ++calls_;
    return inner_->execute(sql, o);
  }
  result<boost::json::object> explain(std::string_view sql, const sql::exec_options& o) override {
    ++calls_;
    return inner_->explain(sql, o);
  }
  result<boost::json::object> schema_summary(std::string_view s, std::string_view t, std::size_t off, std::size_t lim,
                                             const sql::exec_options& o) override {
    return inner_->schema_summary(s, t, off, lim, o);
  }
  result<boost::json::object> table_indexes(std::string_view s, std::string_view t, const sql::exec_options& o) override {
    return inner_->table_indexes(s, t, o);
  }
  result<std::string> ping(const sql::exec_options& o) override { return inner_->ping(o); }

 private:
  std::unique_ptr<sql::adapter> inner_;
  std::atomic<int>& calls_;
};

}  // namespace

TEST_CASE("odbc: an approval that expires starts no SQL") {
  if (!has_driver(sql_dialect::postgres)) return;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("omgdb-odbc-approval-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto conn = connection_for(target{sql_dialect::postgres, true, sql_dialect::postgres});
  conn.access = config::mcp_access::read_write;
  conn.approve = config::approve_mode::all;
  std::atomic<int> calls{0};
  sql::service_options opts;
  opts.state_dir = dir / "state";
  opts.approval_timeout = std::chrono::seconds(1);
  opts.make_adapter = [&calls](const config::connection& c) -> result<std::unique_ptr<sql::adapter>> {
    auto a = sql::make_adapter(c);
    if (!a) return std::move(a).error();
    return std::unique_ptr<sql::adapter>(new counting_adapter(std::move(*a), calls));
  };
  {
    sql::service svc({conn}, opts);
    REQUIRE(svc.open_admin_channel(dir / "admin").ok());
    sql::caller who;
    who.may_write = true;
    who.tool = "executeSql";
    for (std::string_view sql : {"INSERT INTO scratch VALUES ('expired', 1)", "SELECT COUNT(*) FROM items"}) {
      CAPTURE(sql);
      auto r = svc.execute("", sql, 10, 256 * 1024, who);
      REQUIRE(!r.ok());
      CHECK(contains(r.error().message, "expired; nothing ran"));
    }
    CHECK(calls == 0);
    // The notice an agent sees for this kind of connection.
    auto ctx = svc.connection_context("", who);
    REQUIRE(ctx.ok());
    CHECK(ctx->at("readOnlyEnforcement") == "text check only");
    CHECK(contains(json::serialize(*ctx), "use a database user without write rights"));
  }
  CHECK(scalar(*open(sql_dialect::postgres), "SELECT COUNT(*) FROM scratch WHERE k = 'expired'") == "0");
  fs::remove_all(dir);
}

}  // namespace omgdb::test
