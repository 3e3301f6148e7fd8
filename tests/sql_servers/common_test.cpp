// omgdb tests — every adapter method against every dialect (the same fixture in each): the
// native adapters (run.sh) and the ODBC adapter through each server's ODBC driver
// (run.sh --odbc), with the same SQL and the same expected results.
#include <thread>

#include <boost/json/parse.hpp>

#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

namespace {
std::string_view pick(sql_dialect d, std::string_view sqlite, std::string_view pg, std::string_view my) {
  return d == sql_dialect::sqlite ? sqlite : d == sql_dialect::postgres ? pg : my;
}
}  // namespace

TEST_CASE("all three servers are there") {
  if (env("OMGDB_TEST_ALLOW_MISSING") == "1") return;
  CHECK(all_targets().size() == 3);
}

TEST_CASE("execute returns columns with types and nullability, and exact JSON values") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto out = run(*a, "SELECT id, name, price, big, ratio, data, note FROM items WHERE id <= 3 ORDER BY id", ro());
    REQUIRE(out.columns.size() == 7);
    CHECK(out.columns[0].name == "id");
    CHECK(!out.columns[1].type.empty());
    if (out.columns[1].nullable) CHECK(*out.columns[1].nullable == false);
    if (out.columns[6].nullable) CHECK(*out.columns[6].nullable == true);
    if (d != sql_dialect::sqlite) {
      REQUIRE(out.columns[1].nullable.has_value());
      REQUIRE(out.columns[6].nullable.has_value());
    }
    REQUIRE(parsed_rows(out).size() == 3);
    auto row0 = parsed_rows(out)[0].as_array();
    CHECK(row0[0] == json::value(1));
    CHECK(row0[1] == json::value("apple"));
    CHECK(row0[3] == json::value("9007199254740993"));  // beyond 2^53: a string, exactly
    CHECK(row0[4] == json::value(0.5));
    CHECK(json::serialize(row0[5]) == R"({"$binary":{"base64":"AP8Q","subType":"00"}})");
    CHECK(row0[6].is_null());
    CHECK(parsed_rows(out)[1].as_array()[3] == json::value(42));
    if (d != sql_dialect::sqlite) CHECK(row0[2] == json::value("1.50"));  // decimals as strings
    CHECK(!out.rows_more_available);
    CHECK(!out.truncated);
    CHECK(!out.affected.has_value());
    CHECK(!out.committed);
    CHECK(out.elapsed_ms >= 0);
  }
}

TEST_CASE("max_rows stops at a row count and says more rows are available") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto o = ro();
    o.max_rows = 10;
    auto out = run(*a, "SELECT id, note FROM items ORDER BY id", o);
    CHECK(parsed_rows(out).size() == 10);
    CHECK(out.rows_more_available);
    CHECK(!out.truncated);
    o.max_rows = 3;
    out = run(*a, "SELECT id FROM items WHERE id <= 3", o);
    CHECK(parsed_rows(out).size() == 3);
    CHECK(!out.rows_more_available);
  }
}

TEST_CASE("max_bytes cuts the rows at a row boundary and says so") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto o = ro();
    o.max_rows = 1000;
    o.max_bytes = 2000;
    auto out = run(*a, "SELECT id, note FROM items WHERE id >= 100 ORDER BY id", o);
    CHECK(out.truncated);
    CHECK(out.rows_more_available);
    CHECK(parsed_rows(out).size() > 5);
    CHECK(out.rows_json().size() <= 2000);
  }
}

TEST_CASE("schema_summary lists relations in order, with columns, paged") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto all = a->schema_summary("", "", 0, 50, ro());
    REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
    auto& rels = all->at("relations").as_array();
    REQUIRE(rels.size() == 3);
    CHECK(rels[0].at("name") == "cheap_items");
    CHECK(rels[0].at("kind").as_string().find("view") != json::string::npos);
    CHECK(rels[1].at("name") == "items");
    CHECK(rels[2].at("name") == "scratch");
    CHECK(!all->contains("nextOffset"));
    auto& cols = rels[1].at("columns").as_array();
    REQUIRE(cols.size() == 8);
    CHECK(cols[0].at("name") == "id");
    CHECK(cols[0].at("nullable") == false);
    CHECK(cols[1].at("name") == "name");
    CHECK(cols[1].at("nullable") == false);
    CHECK(cols[7].at("nullable") == true);
    CHECK(!cols[3].at("type").as_string().empty());

    auto page = a->schema_summary("", "", 0, 2, ro());
    REQUIRE(page.ok());
    CHECK(page->at("relations").as_array().size() == 2);
    CHECK(page->at("nextOffset") == 2);
    auto next = a->schema_summary("", "", 2, 2, ro());
    REQUIRE(next.ok());
    CHECK(next->at("relations").as_array().size() == 1);
    CHECK(next->at("relations").as_array()[0].at("name") == "scratch");
    CHECK(!next->contains("nextOffset"));

    auto one = a->schema_summary("", "items", 0, 50, ro());
    REQUIRE(one.ok());
    CHECK(one->at("relations").as_array().size() == 1);
    auto none = a->schema_summary("no_such_schema", "", 0, 50, ro());
    REQUIRE(none.ok());
    CHECK(none->at("relations").as_array().empty());
  }
}

TEST_CASE("table_indexes names each index with its columns; an unknown table is an error naming it") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto ix = a->table_indexes("", "items", ro());
    REQUIRE_MESSAGE(ix.ok(), (ix.ok() ? "" : ix.error().message));
    CHECK(ix->at("table") == "items");
    bool primary = false, name_idx = false, unique_big = false;
    for (auto& v : ix->at("indexes").as_array()) {
      auto& i = v.as_object();
      if (i.at("primary").as_bool()) {
        primary = true;
        CHECK(i.at("columns").as_array()[0] == "id");
      }
      if (i.at("name") == "items_name_idx") {
        name_idx = true;
        CHECK(i.at("unique") == false);
        CHECK(i.at("columns").as_array()[0] == "name");
      }
      if (i.at("name") == "items_big_uq") {
        unique_big = true;
        CHECK(i.at("unique") == true);
      }
    }
    CHECK(primary);
    CHECK(name_idx);
    CHECK(unique_big);
    auto missing = a->table_indexes("", "no_such_table", ro());
    REQUIRE(!missing.ok());
    CHECK(contains(missing.error().message, "no_such_table"));
  }
}

TEST_CASE("explain returns the plan without running the statement, writes included") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto before = fingerprint(*a);
    auto plan = a->explain("SELECT * FROM items WHERE name = 'apple'", ro());
    REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
    CHECK(plan->contains("plan"));
    CHECK(json::serialize(plan.value()).size() > 10);
    // A write's plan (explainSql only asks when the connection allows writes): never executed.
    auto wplan = a->explain("DELETE FROM items", rw());
    REQUIRE_MESSAGE(wplan.ok(), (wplan.ok() ? "" : wplan.error().message));
    CHECK(fingerprint(*a) == before);
    // Read-only explain of a write is refused or at least never runs it.
    (void)a->explain("DELETE FROM items", ro());
    CHECK(fingerprint(*a) == before);
    CHECK(!a->explain("SELECT 1; DELETE FROM items", ro()).ok());
    CHECK(!a->explain("SELECT 1; DELETE FROM items", rw()).ok());
    CHECK(fingerprint(*a) == before);
    CHECK(!a->explain("SELECT * FROM no_such_table", ro()).ok());
  }
}

TEST_CASE("ping answers") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto p = a->ping(ro());
    REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
    CHECK(!p->empty());
  }
}

TEST_CASE("more than one statement is refused at the protocol level, read-only or not") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto before = fingerprint(*a);
    for (std::string_view sql : {"SELECT 1; DELETE FROM scratch", "COMMIT; DELETE FROM items",
                                 "SELECT 1; INSERT INTO scratch VALUES ('multi', 1)"}) {
      CAPTURE(sql);
      CHECK(!refuse(*a, sql, ro()).empty());
      CHECK(!refuse(*a, sql, rw()).empty());
    }
    CHECK(fingerprint(*a) == before);
    // A trailing semicolon and comment are one statement.
    CHECK(parsed_rows(run(*a, "SELECT 1; -- done", ro())).size() == 1);
  }
}

TEST_CASE("read-only execution refuses plain writes, DDL and data-modifying CTEs") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto before = fingerprint(*a);
    for (std::string_view sql : {
             "DELETE FROM items",
             "UPDATE items SET name = 'x'",
             "INSERT INTO scratch VALUES ('ro', 1)",
             "CREATE TABLE evil (a int)",
             "DROP TABLE scratch",
             "ALTER TABLE items ADD COLUMN evil int",
             "TRUNCATE TABLE scratch",
             "CREATE INDEX evil_idx ON items (price)",
             "DROP VIEW cheap_items",
         }) {
      CAPTURE(sql);
      CHECK(!refuse(*a, sql, ro()).empty());
    }
    if (d != sql_dialect::mysql) CHECK(!refuse(*a, "WITH d AS (DELETE FROM items RETURNING id) SELECT count(*) FROM d", ro()).empty());
    CHECK(fingerprint(*a) == before);
  }
}

TEST_CASE("writes commit in one statement and report the affected count") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto ins = run(*a, "INSERT INTO scratch (k, v) VALUES ('w1', 1), ('w2', 2)", rw());
    CHECK(ins.affected == 2);
    CHECK(ins.committed);
    CHECK(scalar(*a, "SELECT SUM(v) FROM scratch WHERE k IN ('w1', 'w2')") ==
          std::string(pick(d, "3", "3", "\"3\"")));
    auto del = run(*a, "DELETE FROM scratch WHERE k IN ('w1', 'w2')", rw());
    CHECK(del.affected == 2);
    CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "0");
    // An error in a write commits nothing.
    CHECK(!refuse(*a, "INSERT INTO scratch (k, v) VALUES ('w3', 1), ('w3', 2)", rw()).empty());
    CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "0");
  }
}

}  // namespace omgdb::test

namespace omgdb::test {

TEST_CASE("locks taken by a read are gone when the call returns") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    if (d == sql_dialect::sqlite) continue;  // read handles cannot open a transaction at all
    CAPTURE(t.name());
    auto a = open(t, 1);
    auto other = open(t, 1);
    std::vector<std::string_view> locking;
    if (d == sql_dialect::postgres) locking = {"SELECT pg_advisory_lock(7)", "LOCK TABLE items IN ROW SHARE MODE"};
    else locking = {"SELECT * FROM items WHERE id = 1 FOR UPDATE", "LOCK TABLES items WRITE",
                    "SELECT * FROM items LOCK IN SHARE MODE"};
    for (auto sql : locking) {
      CAPTURE(sql);
      (void)a->execute(sql, ro());
      auto w = other->execute("UPDATE items SET name = name WHERE id = 1", rw(std::chrono::milliseconds(2000)));
      CHECK_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
    }
  }
}

TEST_CASE("a call waiting for a pooled session gives up at its deadline or when cancelled") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t, 1);
    std::string_view slow = d == sql_dialect::postgres ? "SELECT pg_sleep(1.5)"
                            : d == sql_dialect::mysql  ? "SELECT SLEEP(1.5)"
                                                       : "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
                                                         "FROM r) SELECT count(*) FROM r";
    CHECK(scalar(*a, "SELECT 1") == "1");  // the one session is open: the busy call starts at once
    // Through ODBC the text check refuses pg_sleep and SLEEP at read-only (side effects): there
    // the sleep runs as a write (the same pool); natively it runs read-only as always.
    const auto busy_opts = t.odbc ? rw(std::chrono::milliseconds(1500)) : ro(std::chrono::milliseconds(1500));
    std::thread busy([&] { (void)a->execute(slow, busy_opts); });
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    auto start = std::chrono::steady_clock::now();
    std::string msg = refuse(*a, "SELECT 1", ro(std::chrono::milliseconds(300)));
    CHECK(contains(msg, "no database session became free in time"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000));
    busy.join();
    CHECK(scalar(*a, "SELECT 1") == "1");  // the session came back
  }
}

}  // namespace omgdb::test

namespace omgdb::test {

TEST_CASE("a pooled session closed by the server is replaced before the statement runs") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    if (d == sql_dialect::sqlite) continue;
    CAPTURE(t.name());
    auto a = open(t, 1);
    auto other = open(t, 1);
    bool pg = d == sql_dialect::postgres;
    std::string id = scalar(*a, pg ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()");
    if (pg) run(*other, "SELECT pg_terminate_backend(" + id + ")", rw());
    else run(*other, "KILL CONNECTION " + id, rw());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(scalar(*a, "SELECT 1") == "1");
    CHECK(scalar(*a, pg ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()") != id);
    // Writes too: the dead session is found by our own setup command, not by the write.
    id = scalar(*a, pg ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()");
    if (pg) run(*other, "SELECT pg_terminate_backend(" + id + ")", rw());
    else run(*other, "KILL CONNECTION " + id, rw());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto w = run(*a, "INSERT INTO scratch VALUES ('revived', 1)", rw());
    CHECK(w.committed);
    CHECK(run(*a, "DELETE FROM scratch WHERE k = 'revived'", rw()).affected == 1);
  }
}

}  // namespace omgdb::test

namespace omgdb::test {

TEST_CASE("many threads share one adapter and its small pool") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t, 2);
    std::atomic<int> ok{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 15; ++i) {
          auto r = (i % 3 == 2) ? a->execute("INSERT INTO scratch VALUES ('t" + std::to_string(t) + "-" +
                                                 std::to_string(i) + "', " + std::to_string(i) + ")",
                                             rw())
                                : a->execute("SELECT id, name FROM items WHERE id <= " + std::to_string(i + 1), ro());
          (r.ok() ? ok : failed)++;
        }
      });
    for (auto& t : threads) t.join();
    CHECK(failed == 0);
    CHECK(ok == 90);
    CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "30");
    CHECK(run(*a, "DELETE FROM scratch", rw()).affected == 30);
  }
}

}  // namespace omgdb::test

namespace omgdb::test {

TEST_CASE("explain never executes: no sleep, no ANALYZE smuggled in front of the statement") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto before = fingerprint(*a);
    std::string sleep = d == sql_dialect::postgres ? "SELECT pg_sleep(5)"
                        : d == sql_dialect::mysql  ? "SELECT SLEEP(5)"
                                                   : "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                                                     "SELECT count(*) FROM r";
    for (const std::string& sql : std::vector<std::string>{sleep, "ANALYZE " + sleep, "ANALYZE DELETE FROM scratch",
                                   "(ANALYZE) DELETE FROM items", "ANALYZE FORMAT=JSON DELETE FROM items"}) {
      CAPTURE(sql);
      auto start = std::chrono::steady_clock::now();
      (void)a->explain(sql, rw(std::chrono::milliseconds(8000)));
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
    }
    CHECK(fingerprint(*a) == before);
  }
}

}  // namespace omgdb::test

namespace omgdb::test {

TEST_CASE("a value longer than the byte budget ends the result as truncated") {
  for (const auto& t : all_targets()) {
    [[maybe_unused]] const auto d = t.dialect;
    CAPTURE(t.name());
    auto a = open(t);
    auto o = ro();
    o.max_bytes = 1000;
    std::string_view sql = pick(d, "SELECT 1, 'small' UNION ALL SELECT 2, printf('%.5000c', 'x')",
                                "SELECT 1, 'small' UNION ALL SELECT 2, repeat('x', 5000)",
                                "SELECT 1, 'small' UNION ALL SELECT 2, REPEAT('x', 5000)");
    auto out = run(*a, sql, o);
    CHECK(parsed_rows(out).size() == 1);
    CHECK(out.truncated);
    CHECK(out.rows_more_available);
  }
}

}  // namespace omgdb::test
