// omgdb tests — the SQLite adapter's own guards: read-only handle, authorizer, progress handler.
#include <thread>

#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

TEST_CASE("sqlite: writes are refused on the read-only handle, whatever their disguise") {
  auto a = open(sql_dialect::sqlite);
  std::string before = fingerprint(*a);
  for (std::string_view sql : {
           "DELETE FROM items",
           "WITH x AS (SELECT 1) DELETE FROM items",
           "INSERT INTO scratch VALUES ('a', 1) RETURNING k",
           "CREATE TABLE evil (a)",
           "DROP VIEW cheap_items",
           "ATTACH DATABASE '/tmp/omgdb-sqlite-attach.db' AS evil",
           "VACUUM INTO '/tmp/omgdb-sqlite-vacuum.db'",
           "PRAGMA query_only = 0",
           "PRAGMA writable_schema = 1",
           "PRAGMA journal_mode = DELETE",
           "SELECT load_extension('/nonexistent')",
           "BEGIN",
           "SAVEPOINT s",
           "ANALYZE",
           "REINDEX items",
       }) {
    std::string msg = refuse(*a, sql, ro());
    CAPTURE(sql);
    CHECK(!msg.empty());
  }
  CHECK(fingerprint(*a) == before);
  // The pool's handle is still query-only and in autocommit after the refusals.
  CHECK(scalar(*a, "PRAGMA query_only") == "1");
}

TEST_CASE("sqlite: read-only pragmas and table functions still read") {
  auto a = open(sql_dialect::sqlite);
  auto out = run(*a, "PRAGMA table_info(items)", ro());
  CHECK(parsed_rows(out).size() == 8);
  CHECK(parsed_rows(run(*a, "SELECT name FROM pragma_index_list('items') ORDER BY name", ro())).size() == 2);
  CHECK(parsed_rows(run(*a, "VALUES (1, 'a'), (2, 'b')", ro())).size() == 2);
}

TEST_CASE("sqlite: an infinite recursive CTE stops at the statement timeout") {
  auto a = open(sql_dialect::sqlite);
  auto start = std::chrono::steady_clock::now();
  std::string msg = refuse(*a, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
                           ro(std::chrono::milliseconds(300)));
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(contains(msg, "statement timeout of 300 ms"));
  CHECK(took < std::chrono::seconds(3));
  // The handle is usable again afterwards.
  CHECK(scalar(*a, "SELECT 1") == "1");
}

TEST_CASE("sqlite: the cancel flag interrupts a running statement") {
  auto a = open(sql_dialect::sqlite);
  std::atomic<bool> cancel{false};
  auto o = ro(std::chrono::milliseconds(20000));
  o.cancelled = &cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  std::string msg =
      refuse(*a, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", o);
  t.join();
  CHECK(contains(msg, "cancelled"));
  CHECK(contains(msg, "nothing was committed"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
}

TEST_CASE("sqlite: a write runs on its own read-write handle and leaves no session state behind") {
  auto a = open(sql_dialect::sqlite, 1);
  auto out = run(*a, "INSERT INTO scratch VALUES ('sqlite-w', 7)", rw());
  CHECK(out.affected == 1);
  CHECK(out.committed);
  CHECK(scalar(*a, "SELECT v FROM scratch WHERE k = 'sqlite-w'") == "7");
  // BEGIN on the write handle is rolled back with the handle, never left open.
  auto begun = run(*a, "BEGIN", rw());
  CHECK_FALSE(begun.committed);
  CHECK(run(*a, "DELETE FROM scratch WHERE k = 'sqlite-w'", rw()).affected == 1);
  // ATTACH stays refused even for writes.
  CHECK(!refuse(*a, "ATTACH DATABASE '/tmp/omgdb-sqlite-attach.db' AS evil", rw()).empty());
}

}  // namespace omgdb::test
