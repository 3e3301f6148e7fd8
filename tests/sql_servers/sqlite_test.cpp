// omgdb tests — the SQLite adapter's own guards: read-only handle, authorizer, progress handler.
#include <thread>

#include "sql/classifier/classifier.hpp"
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

// The classifier (layer 1) and the read-only handle (layer 2) must agree on PRAGMA: what the
// classifier lets through as read-only runs on the read-only handle, and every form that sets
// something is refused by both. Listed here by hand, not taken from either layer.
TEST_CASE("sqlite: every PRAGMA the classifier calls read-only runs on the read-only handle") {
  auto a = open(sql_dialect::sqlite);
  for (std::string_view sql : {
           "PRAGMA journal_mode", "PRAGMA main.journal_mode", "PRAGMA integrity_check",
           "PRAGMA integrity_check(items)", "PRAGMA quick_check", "PRAGMA foreign_key_check",
           "PRAGMA foreign_key_check(items)", "PRAGMA user_version", "PRAGMA application_id",
           "PRAGMA schema_version", "PRAGMA data_version", "PRAGMA page_size", "PRAGMA page_count",
           "PRAGMA max_page_count", "PRAGMA freelist_count", "PRAGMA encoding", "PRAGMA foreign_keys",
           "PRAGMA auto_vacuum", "PRAGMA cache_size", "PRAGMA busy_timeout", "PRAGMA synchronous",
           "PRAGMA temp_store", "PRAGMA query_only", "PRAGMA recursive_triggers", "PRAGMA secure_delete",
           "PRAGMA mmap_size", "PRAGMA locking_mode", "PRAGMA legacy_alter_table", "PRAGMA trusted_schema",
           "PRAGMA cell_size_check", "PRAGMA defer_foreign_keys", "PRAGMA automatic_index",
           "PRAGMA journal_size_limit", "PRAGMA wal_autocheckpoint", "PRAGMA database_list",
           "PRAGMA collation_list", "PRAGMA function_list", "PRAGMA module_list", "PRAGMA pragma_list",
           "PRAGMA compile_options", "PRAGMA table_list", "PRAGMA table_list(items)", "PRAGMA table_info(items)",
           "PRAGMA table_xinfo(items)", "PRAGMA index_list(items)", "PRAGMA foreign_key_list(items)",
           "SELECT * FROM pragma_journal_mode", "SELECT * FROM pragma_integrity_check",
       }) {
    CAPTURE(sql);
    auto verdict = sql::classify(sql, sql_dialect::sqlite);
    CHECK_MESSAGE(verdict.kind == sql::verdict::read_only, verdict.reason);
    auto r = a->execute(sql, ro());
    CHECK_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  }
  // The answers are the database's: the fixture file is in rollback-journal mode and sound.
  CHECK(scalar(*a, "PRAGMA journal_mode") == R"("delete")");
  CHECK(scalar(*a, "PRAGMA integrity_check") == R"("ok")");
  CHECK(scalar(*a, "PRAGMA quick_check") == R"("ok")");
}

TEST_CASE("sqlite: every PRAGMA that sets something is refused by the classifier and the read-only handle") {
  auto a = open(sql_dialect::sqlite);
  std::string before = fingerprint(*a);
  for (std::string_view sql : {
           "PRAGMA journal_mode = WAL", "PRAGMA journal_mode(WAL)", "PRAGMA main.journal_mode = MEMORY",
           "PRAGMA user_version = 7", "PRAGMA application_id(9)", "PRAGMA cache_size = 10",
           "PRAGMA query_only = 0", "PRAGMA query_only(false)", "PRAGMA foreign_keys = ON",
           "PRAGMA locking_mode = EXCLUSIVE", "PRAGMA writable_schema = 1", "PRAGMA wal_checkpoint",
           "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA optimize", "PRAGMA incremental_vacuum",
           "PRAGMA shrink_memory", "PRAGMA schema_version = 1", "PRAGMA case_sensitive_like = 1",
       }) {
    CAPTURE(sql);
    auto verdict = sql::classify(sql, sql_dialect::sqlite);
    CHECK(verdict.kind != sql::verdict::read_only);
    CHECK(!refuse(*a, sql, ro()).empty());
  }
  CHECK(fingerprint(*a) == before);
  // Nothing changed on the file or on the pooled handles.
  CHECK(scalar(*a, "PRAGMA journal_mode") == R"("delete")");
  CHECK(scalar(*a, "PRAGMA user_version") == "0");
  CHECK(scalar(*a, "PRAGMA query_only") == "1");
  CHECK(scalar(*a, "PRAGMA cache_size") == scalar(*open(sql_dialect::sqlite), "PRAGMA cache_size"));
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
