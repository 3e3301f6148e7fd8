#include <doctest/doctest.h>

#include <string>

#include "sql/classifier/classifier.hpp"

using omgdb::config::sql_dialect;
using omgdb::sql::classify;
using omgdb::sql::verdict;

namespace {

constexpr sql_dialect pg = sql_dialect::postgres;
constexpr sql_dialect my = sql_dialect::mysql;
constexpr sql_dialect lite = sql_dialect::sqlite;

verdict v(std::string_view sql, sql_dialect d) { return classify(sql, d).kind; }
std::string why(std::string_view sql, sql_dialect d) { return classify(sql, d).reason; }

}  // namespace

TEST_CASE("a plain SELECT is read-only in every dialect and reports its keyword") {
  for (auto d : {pg, my, lite}) {
    auto c = classify("select * from t where id = 1", d);
    CHECK(c.kind == verdict::read_only);
    CHECK(c.keyword == "SELECT");
    CHECK(c.reason.empty());
  }
}

TEST_CASE("TABLE and VALUES statements are read-only where the dialect has them") {
  CHECK(v("TABLE t", pg) == verdict::read_only);
  CHECK(v("TABLE t", my) == verdict::read_only);
  CHECK(v("TABLE t", lite) == verdict::refused);
  CHECK(v("VALUES (1), (2)", pg) == verdict::read_only);
  CHECK(v("VALUES (1)", lite) == verdict::read_only);
}

TEST_CASE("empty text and text of only comments are refused") {
  for (auto d : {pg, my, lite}) {
    CHECK(v("", d) == verdict::refused);
    CHECK(v("  \n\t ", d) == verdict::refused);
    CHECK(v("/* nothing */ -- here\n", d) == verdict::refused);
    CHECK(v(";", d) == verdict::refused);
  }
  CHECK(why("", pg).find("empty") != std::string::npos);
}

TEST_CASE("one trailing semicolon is fine and a second statement is refused with a reason") {
  CHECK(v("SELECT 1;", pg) == verdict::read_only);
  CHECK(v("SELECT 1; -- done\n  ", pg) == verdict::read_only);
  auto c = classify("SELECT 1; DELETE FROM t", pg);
  CHECK(c.kind == verdict::refused);
  CHECK(c.reason.find("more than one statement") != std::string::npos);
  CHECK(c.reason.find("line 1, column 9") != std::string::npos);
  CHECK(v("SELECT 1;;", lite) == verdict::refused);
}

TEST_CASE("COMMIT followed by a write is two statements and is refused") {
  for (auto d : {pg, my, lite}) CHECK(v("COMMIT; DROP TABLE t", d) == verdict::refused);
  CHECK(v("END; INSERT INTO t VALUES (1)", pg) == verdict::refused);
}

TEST_CASE("keywords inside strings, comments and quoted identifiers do not count") {
  CHECK(v("SELECT 'DROP TABLE x'", pg) == verdict::read_only);
  CHECK(v("SELECT \"delete\" FROM t", pg) == verdict::read_only);
  CHECK(v("SELECT `delete` FROM t", my) == verdict::read_only);
  CHECK(v("SELECT [delete] FROM t", lite) == verdict::read_only);
  CHECK(v("SELECT 1 -- ; DELETE FROM t", pg) == verdict::read_only);
  CHECK(v("SELECT 1 /* ; DELETE FROM t */", my) == verdict::read_only);
  CHECK(v("SELECT 1 # ; DELETE FROM t", my) == verdict::read_only);
  CHECK(v("SELECT $$ ; DELETE FROM t $$", pg) == verdict::read_only);
  CHECK(v("SELECT $body$ it's; $$ DROP $body$", pg) == verdict::read_only);
}

TEST_CASE("column names that contain keywords are not writes") {
  CHECK(v("SELECT updated_at, set_id, lock_level, insert_count FROM t", pg) == verdict::read_only);
  CHECK(v("SELECT t.lock, t.update FROM t", pg) == verdict::read_only);
}

TEST_CASE("backslash-escaped quotes are read-only where the server reads them so") {
  CHECK(v("SELECT E'it\\'s'", pg) == verdict::read_only);
  CHECK(v("SELECT 'a\\'b'", my) == verdict::read_only);
  CHECK(v("SELECT \"a\\\"b\"", my) == verdict::read_only);
  CHECK(v("SELECT 'C:\\path\\'", pg) == verdict::read_only);
}

TEST_CASE("a text that is a read on a default server but a write under another mode is refused") {
  // NO_BACKSLASH_ESCAPES: the string ends at \' and FOR UPDATE becomes code.
  auto c = classify("SELECT 'a\\' FROM t FOR UPDATE -- '", my);
  CHECK(c.kind == verdict::refused);
  CHECK(c.reason.find("NO_BACKSLASH_ESCAPES") != std::string::npos);
  // standard_conforming_strings = off: the string swallows the semicolon instead.
  CHECK(v("SELECT 'a\\'; DELETE FROM t; -- '", pg) == verdict::refused);
  CHECK(v("SELECT 'x\\'' , pg_sleep(10) -- '", pg) == verdict::refused);
}

TEST_CASE("MySQL needs a space after -- for a comment") {
  CHECK(v("SELECT 1--1", my) == verdict::read_only);
  CHECK(v("SELECT 1--1;DROP TABLE t", my) == verdict::refused);
  CHECK(v("SELECT 1 -- x;DROP TABLE t", my) == verdict::read_only);
  CHECK(v("SELECT 1 # x\n; DROP TABLE t", my) == verdict::refused);
}

TEST_CASE("PostgreSQL block comments nest") {
  CHECK(v("SELECT 1 /* a /* b */ ; DELETE FROM t */", pg) == verdict::read_only);
  CHECK(v("SELECT 1 /* a /* b */ ; DELETE FROM t", pg) == verdict::refused);
  // MySQL and SQLite do not nest: the first */ ends the comment.
  CHECK(v("SELECT 1 /* a /* b */ ; DELETE FROM t */", my) == verdict::refused);
}

TEST_CASE("MySQL executable comments and optimizer hints are refused") {
  CHECK(v("SELECT /*!50000 SLEEP(5) */ 1", my) == verdict::refused);
  CHECK(v("SELECT /*M! 1 */ 1", my) == verdict::refused);
  CHECK(v("SELECT /*+ MAX_EXECUTION_TIME(1) */ 1", my) == verdict::refused);
  CHECK(why("SELECT /*!1*/ 1", my).find("executable comment") != std::string::npos);
  CHECK(v("SELECT /*! 1 */ 1", pg) == verdict::read_only);  // an ordinary comment there
}

TEST_CASE("unterminated strings, identifiers and comments are refused") {
  CHECK(v("SELECT 'abc", pg) == verdict::refused);
  CHECK(v("SELECT \"abc", pg) == verdict::refused);
  CHECK(v("SELECT `abc", my) == verdict::refused);
  CHECK(v("SELECT [abc", lite) == verdict::refused);
  CHECK(v("SELECT 1 /* abc", lite) == verdict::refused);
  CHECK(v("SELECT $q$ abc $Q$", pg) == verdict::refused);
  CHECK(why("SELECT 'abc", pg).find("never closed") != std::string::npos);
}

TEST_CASE("data-modifying CTEs are writes") {
  auto c = classify("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", pg);
  CHECK(c.kind == verdict::write);
  CHECK(c.keyword == "WITH");
  CHECK(c.reason.find("data-modifying CTE (DELETE inside WITH)") != std::string::npos);
  CHECK(v("WITH x AS (SELECT 1) DELETE FROM t", lite) == verdict::write);
  CHECK(v("WITH x AS (SELECT 1) UPDATE t SET a = 1", my) == verdict::write);
}

TEST_CASE("locking reads are writes") {
  CHECK(v("SELECT * FROM t FOR UPDATE", pg) == verdict::write);
  CHECK(v("SELECT * FROM t FOR NO KEY UPDATE", pg) == verdict::write);
  CHECK(v("SELECT * FROM t FOR KEY SHARE", pg) == verdict::write);
  CHECK(v("SELECT * FROM t FOR SHARE", my) == verdict::write);
  CHECK(v("SELECT * FROM t LOCK IN SHARE MODE", my) == verdict::write);
  CHECK(why("SELECT * FROM t FOR /* x */ UPDATE", pg).find("FOR UPDATE locks rows") != std::string::npos);
  CHECK(v("SELECT substring('abc' FROM 1 FOR 2)", pg) == verdict::read_only);
}

TEST_CASE("SELECT INTO and INTO OUTFILE are writes") {
  CHECK(v("SELECT * INTO new_t FROM t", pg) == verdict::write);
  CHECK(v("SELECT * FROM t INTO OUTFILE '/tmp/x'", my) == verdict::write);
  CHECK(v("SELECT 1 INTO @x", my) == verdict::write);
  CHECK(why("SELECT * FROM t INTO/**/DUMPFILE '/tmp/x'", my).find("DUMPFILE") != std::string::npos);
}

TEST_CASE("EXPLAIN is read-only but EXPLAIN ANALYZE executes and is a write") {
  CHECK(v("EXPLAIN SELECT * FROM t", pg) == verdict::read_only);
  CHECK(v("EXPLAIN (FORMAT JSON, VERBOSE) SELECT * FROM t", pg) == verdict::read_only);
  CHECK(v("EXPLAIN QUERY PLAN SELECT * FROM t", lite) == verdict::read_only);
  CHECK(v("EXPLAIN ANALYZE SELECT * FROM t", pg) == verdict::write);
  CHECK(v("EXPLAIN (ANALYZE) SELECT 1", pg) == verdict::write);
  CHECK(v("EXPLAIN (ANALYZE true, BUFFERS) SELECT 1", pg) == verdict::write);
  CHECK(v("EXPLAIN ANALYZE SELECT 1", my) == verdict::write);
  CHECK(why("EXPLAIN ANALYZE SELECT 1", my).find("executes") != std::string::npos);
  // Issue 15 #10 changed this one: EXPLAIN without ANALYZE of a write plans it and executes
  // nothing (the second seed lists it as read-only); it was asserted a write before.
  CHECK(v("EXPLAIN DELETE FROM t", pg) == verdict::read_only);
  CHECK(v("EXPLAIN QUERY PLAN DELETE FROM t", lite) == verdict::write);  // SQLite keeps the write level
}

TEST_CASE("EXPLAIN of a write without ANALYZE is read-only on PostgreSQL and MariaDB") {
  for (const char* q : {"EXPLAIN DELETE FROM users", "EXPLAIN (ANALYZE false) DELETE FROM users",
                        "EXPLAIN (ANALYZE off) DELETE FROM users", "EXPLAIN (ANALYZE 0) DELETE FROM users",
                        "EXPLAIN (FORMAT JSON, ANALYZE FALSE) UPDATE t SET a = 1 WHERE id = 2",
                        "EXPLAIN VERBOSE INSERT INTO t (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 'x'",
                        "EXPLAIN MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE",
                        "EXPLAIN (ANALYZE false) SELECT 1"}) {
    CAPTURE(q);
    CHECK(v(q, pg) == verdict::read_only);
  }
  for (const char* q : {"EXPLAIN DELETE FROM users", "EXPLAIN UPDATE t SET a = 1", "EXPLAIN FORMAT=JSON DELETE FROM t",
                        "EXPLAIN EXTENDED REPLACE INTO t (id) VALUES (1)",
                        "EXPLAIN INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE a = 'x'"}) {
    CAPTURE(q);
    CHECK(v(q, my) == verdict::read_only);
  }
}

TEST_CASE("EXPLAIN that runs the write, or explains more than a write, stays refused") {
  for (const char* q : {"EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN (ANALYZE) DELETE FROM t",
                        "EXPLAIN (ANALYZE true) DELETE FROM t", "EXPLAIN (ANALYZE on) DELETE FROM t",
                        "EXPLAIN (ANALYZE 1) DELETE FROM t", "EXPLAIN (ANALYZE 'false') DELETE FROM t",
                        "EXPLAIN (ANALYZE false, ANALYZE) DELETE FROM t", "EXPLAIN ANALYSE DELETE FROM t",
                        "EXPLAIN (ANALYZE false) DELETE FROM t RETURNING nextval('s')",
                        "EXPLAIN (ANALYZE false) CREATE TABLE z AS SELECT 1",
                        "EXPLAIN WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x"}) {
    CAPTURE(q);
    CHECK(v(q, pg) == verdict::write);
  }
  CHECK(why("EXPLAIN (ANALYZE true) DELETE FROM t", pg).find("executes the statement") != std::string::npos);
  for (const char* q : {"ANALYZE DELETE FROM t", "EXPLAIN ANALYZE DELETE FROM t",
                        "EXPLAIN DELETE FROM t INTO OUTFILE '/tmp/x'", "EXPLAIN FORMAT=JSON INTO @p DELETE FROM t",
                        "DESCRIBE ANALYZE DELETE FROM t"}) {
    CAPTURE(q);
    CHECK(v(q, my) == verdict::write);
  }
}

TEST_CASE("a CTE named by a data-modifying keyword is not a data-modifying CTE") {
  for (auto d : {pg, my}) {
    CAPTURE(static_cast<int>(d));
    CHECK(v("WITH replace AS (SELECT 1) SELECT * FROM replace", d) == verdict::read_only);
    CHECK(v("WITH replace AS (SELECT 1) DELETE FROM t", d) == verdict::write);
  }
  CHECK(v("WITH delete AS (SELECT 1 AS n) SELECT delete.n FROM delete", pg) == verdict::read_only);
  CHECK(v("WITH RECURSIVE update(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM update WHERE n < 3) SELECT n FROM update",
          pg) == verdict::read_only);
  CHECK(v("WITH x AS (SELECT 1 AS n), insert (m) AS (SELECT n FROM x) SELECT m FROM insert JOIN x ON true", pg) ==
        verdict::read_only);
  CHECK(v("WITH delete AS (DELETE FROM t RETURNING *) SELECT * FROM delete", pg) == verdict::write);
  CHECK(v("WITH x AS (SELECT 1), update AS (UPDATE t SET a = 'x' RETURNING *) SELECT * FROM update", pg) ==
        verdict::write);
  CHECK(v("WITH replace AS (SELECT 1) REPLACE INTO t (id) VALUES (99)", my) == verdict::write);
  CHECK(v("WITH x AS MATERIALIZED (DELETE FROM t RETURNING *) SELECT * FROM x", pg) == verdict::write);
}

TEST_CASE("side-effect functions are writes, also schema-qualified or quoted") {
  CHECK(v("SELECT set_config('a.b', 'c', false)", pg) == verdict::write);
  CHECK(v("SELECT pg_catalog.set_config('a.b', 'c', false)", pg) == verdict::write);
  CHECK(v("SELECT \"pg_terminate_backend\"(42)", pg) == verdict::write);
  CHECK(v("SELECT * FROM pg_read_file('/etc/passwd')", pg) == verdict::write);
  CHECK(v("SELECT pg_advisory_lock(1)", pg) == verdict::write);
  CHECK(v("SELECT SLEEP (5)", my) == verdict::write);
  CHECK(v("SELECT `sleep`(5)", my) == verdict::write);
  CHECK(v("SELECT load_extension('x')", lite) == verdict::write);
  CHECK(why("SELECT lo_import('/etc/passwd')", pg).find("lo_import() creates") != std::string::npos);
}

TEST_CASE("function names in strings, quoted identifiers or without a call are harmless") {
  CHECK(v("SELECT 'set_config(1)'", pg) == verdict::read_only);
  CHECK(v("SELECT \"pg_sleep\" FROM t", pg) == verdict::read_only);
  CHECK(v("SELECT current_setting('work_mem')", pg) == verdict::read_only);
  CHECK(v("SELECT randomblob(16)", lite) == verdict::read_only);
  CHECK(v("SELECT REPLACE(a, 'x', 'y'), INSERT(a, 1, 1, 'z'), TRUNCATE(1.5, 0) FROM t", my) ==
        verdict::read_only);
}

TEST_CASE("MySQL user-variable assignment is a write but reading variables is not") {
  CHECK(v("SELECT @x := 1", my) == verdict::write);
  CHECK(v("SELECT @x, @@version", my) == verdict::read_only);
  CHECK(v("SELECT LAST_INSERT_ID(5)", my) == verdict::write);
  CHECK(v("SELECT LAST_INSERT_ID()", my) == verdict::read_only);
}

TEST_CASE("only read-only SQLite pragmas without a value are read-only") {
  CHECK(v("PRAGMA table_info(t)", lite) == verdict::read_only);
  CHECK(v("PRAGMA main.index_list('t')", lite) == verdict::read_only);
  CHECK(v("PRAGMA user_version", lite) == verdict::read_only);
  CHECK(v("PRAGMA user_version = 3", lite) == verdict::write);
  CHECK(v("PRAGMA journal_mode(WAL)", lite) == verdict::write);
  CHECK(v("PRAGMA writable_schema", lite) == verdict::write);
  CHECK(v("PRAGMA wal_checkpoint", lite) == verdict::write);
  CHECK(v("PRAGMA table_info(t)", pg) == verdict::refused);
  CHECK(v("SELECT * FROM pragma_table_info('t')", lite) == verdict::read_only);
  CHECK(v("SELECT * FROM pragma_optimize", lite) == verdict::write);
}

TEST_CASE("statements that write are writes with a reason naming what they do") {
  auto c = classify("insert into t values (1)", pg);
  CHECK(c.kind == verdict::write);
  CHECK(c.keyword == "INSERT");
  CHECK(c.reason == "INSERT changes data: it is not read-only");
  CHECK(v("SET search_path = x", pg) == verdict::write);
  CHECK(v("COPY t TO PROGRAM 'id'", pg) == verdict::write);
  CHECK(v("ATTACH DATABASE '/tmp/x' AS x", lite) == verdict::write);
  CHECK(v("BEGIN READ WRITE", pg) == verdict::write);
  CHECK(v("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", my) == verdict::write);
}

TEST_CASE("unknown leading words and garbage are refused") {
  CHECK(v("FROBNICATE t", pg) == verdict::refused);
  CHECK(v("'SELECT'", pg) == verdict::refused);
  CHECK(v("DESCRIBE t", pg) == verdict::refused);
  CHECK(v("DESCRIBE t", my) == verdict::read_only);
  CHECK(v("(SELECT 1) UNION (SELECT 2)", pg) == verdict::read_only);
}

TEST_CASE("NUL bytes, invalid UTF-8 and oversized text are refused") {
  CHECK(v(std::string_view("SELECT 1\0; DROP TABLE t", 23), pg) == verdict::refused);
  CHECK(v("SELECT '\xff'", pg) == verdict::refused);
  CHECK(v("SELECT '\xed\xa0\x80'", my) == verdict::refused);  // a UTF-16 surrogate
  CHECK(v("SELECT 'héllo wörld'", my) == verdict::read_only);
  CHECK(v(std::string(omgdb::sql::max_sql_bytes + 1, ' '), lite) == verdict::refused);
}

TEST_CASE("SQLite TCL-style parameters are read as one token, as SQLite does") {
  // SQLite reads $a(';DELETE) as one parameter; the quote inside does not open a string.
  CHECK(v("SELECT $a(') , x -- ')", lite) == verdict::read_only);
  CHECK(v("SELECT $a(';) FROM t", lite) == verdict::read_only);
  CHECK(v("SELECT $a(x", lite) == verdict::refused);
  CHECK(v("SELECT :name, @p, ?1, ?", lite) == verdict::read_only);
}

TEST_CASE("SHOW names what it shows, but a SHOW … WHERE may not call side-effect functions") {
  CHECK(v("SHOW CREATE TABLE t", my) == verdict::read_only);
  CHECK(v("SHOW FULL PROCESSLIST", my) == verdict::read_only);
  CHECK(v("SHOW TABLES WHERE SLEEP(5)", my) == verdict::write);
}

TEST_CASE("a PostgreSQL U&\"…\" function name is refused because escapes can spell any name") {
  CHECK(v("SELECT U&\"\\0070g_sleep\"(1)", pg) == verdict::refused);
  CHECK(v("SELECT * FROM U&\"\\0070g_read_file\"('/etc/passwd')", pg) == verdict::refused);
  CHECK(v("SELECT U&\"d\\0061t\\+000061\" FROM t", pg) == verdict::read_only);  // a column is fine
}

TEST_CASE("a bracket-quoted SQLite function name is still recognised") {
  CHECK(v("SELECT [load_extension]('x')", lite) == verdict::write);
  CHECK(v("SELECT `readfile`('/etc/passwd')", lite) == verdict::write);
}

TEST_CASE("EXPLAIN of a PRAGMA or a cursor declaration is not read-only") {
  CHECK(v("EXPLAIN PRAGMA writable_schema = ON", lite) == verdict::write);
  CHECK(v("EXPLAIN QUERY PLAN PRAGMA query_only = 0", lite) == verdict::write);
  CHECK(v("EXPLAIN DECLARE c CURSOR FOR SELECT 1", pg) == verdict::write);
}

TEST_CASE("SEARCH and CYCLE clauses of a recursive CTE may name a column with SET") {
  CHECK(v("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
          "CYCLE n SET is_cycle USING path SELECT n FROM r",
          pg) == verdict::read_only);
  CHECK(v("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
          "SEARCH DEPTH FIRST BY n SET ord SELECT n FROM r ORDER BY ord",
          pg) == verdict::read_only);
  CHECK(v("SELECT 1 SET x", pg) == verdict::write);
}

TEST_CASE("an Oracle-style sequence.nextval is a write") {
  CHECK(v("SELECT s.nextval", my) == verdict::write);
  CHECK(v("SELECT s.currval, t.a FROM t", my) == verdict::read_only);
}

TEST_CASE("a MySQL b'…' or x'…' after a dot or @ is an identifier and a string with escapes") {
  // MariaDB reads t.b as a column and '\'' as a string alias, then runs SLEEP (verified).
  CHECK(v("SELECT t.b'\\'' , SLEEP(1) AS s FROM t -- '", my) == verdict::write);
  CHECK(v("SELECT @b'\\'' , SLEEP(1) -- '", my) == verdict::write);
  CHECK(v("SELECT 1x'\\'' , SLEEP(1) -- '", my) == verdict::write);
  CHECK(v("SELECT x'41', b'101', N'abc'", my) == verdict::read_only);
}

TEST_CASE("a PostgreSQL E-string continued on the next line keeps its backslash escapes") {
  // PostgreSQL reads E'a' <newline> '\'' as one E-string: the \' is an escaped quote and the
  // second ' ends it, so pg_sleep is code.
  CHECK(v("SELECT E'a'\n'\\'' , pg_sleep(1) -- '", pg) == verdict::write);
  CHECK(v("SELECT E'a' -- note\n  '\\'' , pg_sleep(1) -- '", pg) == verdict::write);
  CHECK(v("SELECT E'a'\n'b\\'c'", pg) == verdict::read_only);
  CHECK(v("SELECT E'a' '\\'' , pg_sleep(1) -- '", pg) == verdict::refused);  // no newline: syntax error
}
