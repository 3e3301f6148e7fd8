// The T-SQL (mssql) and ANSI readings of the read-only classifier (issue 35). SQL Server needs
// no `;` between statements, so a read must hold no place where a second statement could
// start; locks are writes; the lexer must read [brackets], N'…' and nested comments as SQL
// Server does. The corpus (tests/sql/corpus, replayed in classifier_corpus_test.cpp) holds the
// bypasses and their twins; these are the rules one by one.
#include <doctest/doctest.h>

#include "sql/classifier/classifier.hpp"

using omgdb::config::sql_dialect;
using omgdb::sql::classify;
using omgdb::sql::verdict;

namespace {

constexpr sql_dialect ms = sql_dialect::mssql;

verdict v(std::string_view sql, sql_dialect d = ms) { return classify(sql, d).kind; }
bool says(std::string_view sql, std::string_view part, sql_dialect d = ms) {
  return classify(sql, d).reason.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("T-SQL: a statement after a read without `;` is refused as a second statement") {
  for (std::string_view sql : {"SELECT 1 DELETE FROM t", "SELECT * FROM t UPDATE t SET a = 1", "SELECT 1 SELECT 2",
                               "SELECT 1 EXEC sp_who", "SELECT 1 WAITFOR DELAY '0:0:10'", "SELECT 1 DBCC CHECKDB",
                               "SELECT 1 USE master", "SELECT 1 SET NOCOUNT ON", "SELECT 1 DECLARE @x int",
                               "SELECT 1 IF 1 = 1 PRINT 'x'", "SELECT 1 BULK INSERT t FROM 'x'", "SELECT 1 KILL 1"}) {
    CAPTURE(sql);
    CHECK(v(sql) == verdict::refused);
    CHECK(says(sql, "starts another statement"));
  }
  // The same texts on a dialect that needs `;` are writes or reads, as before.
  CHECK(v("SELECT 1 DELETE FROM t", sql_dialect::postgres) == verdict::write);
}

TEST_CASE("T-SQL: the reads of a query keep running: set operations, subqueries, CTEs, CASE, paging") {
  for (std::string_view sql : {
           "SELECT id FROM t UNION ALL SELECT id FROM u",
           "SELECT * FROM t WHERE id IN (SELECT id FROM u)",
           "WITH a AS (SELECT 1 AS x), b (y) AS (SELECT x FROM a) SELECT * FROM b",
           "SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t",
           "SELECT * FROM t ORDER BY id OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY",
           "SELECT TOP (3) WITH TIES * FROM t ORDER BY b",
           "SELECT * FROM t FOR JSON PATH",
           "SELECT * FROM t WITH (NOLOCK)",
           "SELECT * FROM (VALUES (1), (2)) AS v(n)",
       }) {
    CAPTURE(sql);
    auto c = classify(sql, ms);
    CHECK_MESSAGE(c.kind == verdict::read_only, c.reason);
  }
}

TEST_CASE("T-SQL: EXEC, procedure calls without EXEC and SET are never read-only") {
  CHECK(v("EXEC sp_who") == verdict::write);
  CHECK(v("EXECUTE ('SELECT 1')") == verdict::write);
  CHECK(v("sp_who") == verdict::refused);        // a procedure needs no EXEC as the first statement
  CHECK(v("sp_configure 'x', 1") == verdict::refused);
  CHECK(v("SET SHOWPLAN_XML ON") == verdict::write);
  CHECK(v("SET NOCOUNT ON") == verdict::write);
  CHECK(v("VALUES (1)") == verdict::refused);    // not a T-SQL statement
  CHECK(v("EXPLAIN SELECT 1") == verdict::refused);
}

TEST_CASE("T-SQL: lock hints are writes; NOLOCK and READUNCOMMITTED read") {
  for (std::string_view hint : {"UPDLOCK", "XLOCK", "HOLDLOCK", "TABLOCK", "TABLOCKX", "PAGLOCK", "ROWLOCK",
                                "SERIALIZABLE", "REPEATABLEREAD", "READCOMMITTEDLOCK"}) {
    const std::string sql = "SELECT * FROM t WITH (" + std::string(hint) + ")";
    CAPTURE(sql);
    CHECK(v(sql) == verdict::write);
    CHECK(says(sql, "locks"));
  }
  CHECK(v("SELECT * FROM t WITH (NOLOCK)") == verdict::read_only);
  CHECK(v("SELECT * FROM t WITH (READUNCOMMITTED)") == verdict::read_only);
}

TEST_CASE("T-SQL: SELECT INTO, OPENQUERY, OPENROWSET and OPENDATASOURCE are not read-only") {
  CHECK(v("SELECT * INTO t2 FROM t") == verdict::write);
  CHECK(v("SELECT * FROM OPENQUERY(srv, 'SELECT 1')") == verdict::write);
  CHECK(v("SELECT * FROM OPENROWSET(BULK '/etc/passwd', SINGLE_CLOB) x") == verdict::write);
  CHECK(v("SELECT * FROM OPENDATASOURCE('x', 'y').d.s.t") == verdict::write);
  // The same words in strings and bracketed names are data.
  CHECK(v("SELECT 'OPENQUERY(a, ''b'')', [openrowset] FROM t") == verdict::read_only);
}

TEST_CASE("T-SQL lexing: ]] stays inside a bracketed name, N'…' is a string, comments nest") {
  CHECK(v("SELECT [a]]; DELETE FROM t --] FROM t") == verdict::read_only);   // one name
  CHECK(v("SELECT [a'] DELETE FROM t --']") == verdict::refused);            // a quote in a name hides nothing
  CHECK(v("SELECT N'x'' DELETE FROM t' AS s") == verdict::read_only);
  CHECK(v("SELECT N'x' DELETE FROM t") == verdict::refused);
  CHECK(v("SELECT 1 /* /* */ ; DELETE FROM t */") == verdict::read_only);  // nested: all comment
  CHECK(v("SELECT 1 /* /* */ DELETE FROM t") == verdict::refused);         // never closed
  CHECK(v("SELECT `x` FROM t") == verdict::read_only);  // a backtick is not a quote in T-SQL…
  CHECK(v("SELECT `x; DELETE FROM t` FROM t") == verdict::refused);  // …so what it "quotes" is code
  CHECK(v("SELECT @@VERSION, @x") == verdict::read_only);
  CHECK(v("SELECT * FROM #tmp") == verdict::read_only);
}

TEST_CASE("T-SQL: GO is refused as a separator and as a name, [GO] is a name") {
  CHECK(v("SELECT 1\nGO\nSELECT 2") == verdict::refused);
  CHECK(v("SELECT 1 GO") == verdict::refused);
  CHECK(says("SELECT 1 GO", "GO separates batches"));
  CHECK(v("SELECT 1 AS [GO]") == verdict::read_only);
  CHECK(v("SELECT 1 -- GO") == verdict::read_only);
}

TEST_CASE("T-SQL writes stay one statement: a second statement after DML is refused, INSERT … EXEC is one") {
  CHECK(v("UPDATE t SET a = 1 OUTPUT inserted.id") == verdict::write);
  CHECK(v("MERGE t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET a = 1 WHEN NOT MATCHED THEN INSERT (id) "
          "VALUES (u.id);") == verdict::write);
  CHECK(v("INSERT INTO t (id) EXEC sp_who") == verdict::write);
  CHECK(v("UPDATE t SET a = 1 DELETE FROM u") == verdict::refused);
  CHECK(v("DELETE FROM t DROP TABLE u") == verdict::refused);
  CHECK(v("WITH c AS (SELECT * FROM t) DELETE FROM c") == verdict::write);
}

TEST_CASE("T-SQL: ODBC escape sequences are refused (drivers rewrite them)") {
  CHECK(v("{call sp_who}") == verdict::refused);
  CHECK(v("SELECT {fn NOW()}") == verdict::refused);
  CHECK(v("SELECT '{fn NOW()}'") == verdict::read_only);
}

TEST_CASE("ansi: read-only only when every dialect reads the text as read-only") {
  CHECK(v("SELECT a, b FROM t WHERE b > 1", sql_dialect::ansi) == verdict::read_only);
  CHECK(v("SELECT 1 DELETE FROM t", sql_dialect::ansi) != verdict::read_only);  // T-SQL: two statements
  CHECK(v("SELECT * FROM t WITH (UPDLOCK)", sql_dialect::ansi) != verdict::read_only);
  CHECK(v("SELECT 'a\\' ; DELETE FROM t; --'", sql_dialect::ansi) == verdict::refused);  // MySQL escapes
  CHECK(v("SELECT 1--1;DROP TABLE t", sql_dialect::ansi) == verdict::refused);  // MySQL: two statements
  CHECK(v("VALUES (1)", sql_dialect::ansi) == verdict::refused);  // not T-SQL
  CHECK(says("SELECT 1 DELETE FROM t", "read as T-SQL", sql_dialect::ansi));
}
