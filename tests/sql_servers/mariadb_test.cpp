// omgdb tests — the MariaDB adapter against a real server: read-only session and transaction,
// what they do and do not stop, timeouts and KILL QUERY, session reset, values.
#include <filesystem>
#include <thread>

#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

namespace {
auto my() { return open(sql_dialect::mysql, 1); }
}  // namespace

TEST_CASE("mariadb: DDL cannot escape the read-only transaction through its implicit commit") {
  auto a = my();
  auto before = fingerprint(*a);
  CHECK(contains(refuse(*a, "CREATE TABLE evil (a int)", ro()), "READ ONLY"));
  CHECK(!refuse(*a, "RENAME TABLE scratch TO evil", ro()).empty());
  // COMMIT ends our transaction; the session stays read-only and nothing else runs.
  run(*a, "COMMIT", ro());
  run(*a, "SET SESSION TRANSACTION READ WRITE", ro());  // applies to later transactions only...
  CHECK(!refuse(*a, "DELETE FROM scratch", ro()).empty());  // ...and the reset undoes it anyway
  CHECK(!refuse(*a, "SELECT 1 /*!50000 ; DELETE FROM items */", ro()).empty());
  CHECK(!refuse(*a, "SELECT 1 /*!50000 ; DELETE FROM items */", rw()).empty());
  CHECK(fingerprint(*a) == before);
}

TEST_CASE("mariadb: user locks taken by a read are released before the session is reused") {
  auto a = my();
  run(*a, "SELECT GET_LOCK('omgdb-test', 0)", ro());  // outlives a rollback...
  auto other = open(sql_dialect::mysql, 1);
  CHECK(scalar(*other, "SELECT IS_FREE_LOCK('omgdb-test')") == "1");  // ...not the reset
}

TEST_CASE("mariadb: files stay out of reach (privileges, no LOCAL INFILE)") {
  auto a = my();
  std::string marker = "/tmp/omgdb-outfile-" + std::to_string(::getpid());
  std::filesystem::remove(marker);
  // SELECT … INTO OUTFILE is not a write to the database: a READ ONLY transaction allows it.
  // Here the FILE privilege is missing; the classifier refuses INTO OUTFILE in any case.
  CHECK(!refuse(*a, "SELECT 1 INTO OUTFILE '" + marker + "'", ro()).empty());
  CHECK(!std::filesystem::exists(marker));
  CHECK(!refuse(*a, "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE scratch", rw()).empty());
  CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "0");
}

TEST_CASE("mariadb: the statement timeout stops SLEEP, even when the statement lifts max_statement_time") {
  auto a = my();
  for (std::string_view sql : {"SELECT SLEEP(10)", "SET STATEMENT max_statement_time = 0 FOR SELECT SLEEP(10)"}) {
    CAPTURE(sql);
    auto start = std::chrono::steady_clock::now();
    auto r = a->execute(sql, ro(std::chrono::milliseconds(500)));
    auto took = std::chrono::steady_clock::now() - start;
    CHECK(took < std::chrono::seconds(4));
    // An interrupted SLEEP() may return 1 instead of failing; either way it stopped early.
    if (!r.ok()) CHECK_MESSAGE(contains(r.error().message, "statement timeout of 500 ms"), r.error().message);
    else CHECK(r->rows_json() == "[[1]]");
  }
  auto start = std::chrono::steady_clock::now();
  std::string msg = refuse(*a,
                           "INSERT INTO scratch (k, v) SELECT 'slow', SLEEP(10)",
                           rw(std::chrono::milliseconds(500)));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_MESSAGE(contains(msg, "statement timeout"), msg);
  CHECK(contains(msg, "nothing was committed"));
  CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "0");
}

TEST_CASE("mariadb: the cancel flag reaches the server as KILL QUERY") {
  auto a = my();
  auto watcher = open(sql_dialect::mysql, 1);
  std::atomic<bool> cancel{false};
  auto o = ro(std::chrono::milliseconds(20000));
  o.cancelled = &cancel;
  std::string seen;
  const char* probe =
      "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(10) AS omgdb_cancel_probe'";
  std::thread t([&] {
    for (int i = 0; i < 40 && seen != "1"; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      seen = scalar(*watcher, probe);
    }
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto r = a->execute("SELECT SLEEP(10) AS omgdb_cancel_probe", o);
  t.join();
  CHECK(seen == "1");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(6));
  if (!r.ok()) CHECK_MESSAGE(contains(r.error().message, "cancelled"), r.error().message);
  CHECK(scalar(*watcher, probe) == "0");
}

TEST_CASE("mariadb: a SET by one use does not leak into the next (COM_RESET_CONNECTION)") {
  auto a = my();
  run(*a, "SET @leak = 42", rw());
  CHECK(scalar(*a, "SELECT @leak") == "null");
  run(*a, "SET SESSION sql_mode = 'ANSI_QUOTES'", rw());
  CHECK(!contains(scalar(*a, "SELECT @@SESSION.sql_mode"), "ANSI_QUOTES"));
  run(*a, "SET SESSION TRANSACTION READ ONLY", rw());
  CHECK(run(*a, "INSERT INTO scratch VALUES ('after-ro', 1)", rw()).committed);
  run(*a, "START TRANSACTION", rw());  // an open transaction is rolled back, never carried over
  CHECK(run(*a, "DELETE FROM scratch WHERE k = 'after-ro'", rw()).affected == 1);
  CHECK(scalar(*a, "SELECT COUNT(*) FROM scratch") == "0");
}

TEST_CASE("mariadb: values keep their types; SHOW and DESCRIBE read") {
  auto a = my();
  auto out = run(*a, "SELECT CAST(18446744073709551615 AS UNSIGNED), 1.25, 'a\\'b', DATE '2026-11-30', 0.5e0, NULL", ro());
  auto row = parsed_rows(out)[0].as_array();
  CHECK(row[0] == json::value("18446744073709551615"));
  CHECK(row[1] == json::value("1.25"));
  CHECK(row[2] == json::value("a'b"));
  CHECK(row[3] == json::value("2026-11-30"));
  CHECK(row[4] == json::value(0.5));
  CHECK(row[5].is_null());
  CHECK(out.columns[0].type == "bigint unsigned");
  CHECK(parsed_rows(run(*a, "SHOW TABLES", ro())).size() == 3);
  CHECK(parsed_rows(run(*a, "DESCRIBE items", ro())).size() == 8);
  CHECK(parsed_rows(run(*a, "SHOW CREATE TABLE items", ro())).size() == 1);
  CHECK(parsed_rows(run(*a, "VALUES (1), (2)", ro())).size() == 2);
}

TEST_CASE("mariadb: a failed login names no password") {
  auto c = connection_for(sql_dialect::mysql);
  c.password = "wrong-secret-4711";
  auto a = sql::make_adapter(c);
  REQUIRE(a.ok());
  auto r = (*a)->execute("SELECT 1", ro());
  REQUIRE(!r.ok());
  CHECK(!contains(r.error().message, "wrong-secret-4711"));
  CHECK(contains(r.error().message, "Access denied"));
}

}  // namespace omgdb::test
