// Fuzz target 6: the SQL classifier, each dialect, and SQLite as a second judge.
//
// Input: SQL text. Every dialect classifies it without throwing, the same way twice, with a
// reason exactly when the verdict is not read_only. Differential mode (SQLite): a text the
// classifier calls read-only, prepared by SQLite over the corpus's fixture schema as exactly
// one statement, must be one SQLite calls read-only too (sqlite3_stmt_readonly). SQLite cannot
// judge what it cannot prepare, nor pragmas (it calls some reads writes); the classifier may refuse what SQLite would read — it is
// conservative on purpose — but never the other way round.
#include <sqlite3.h>

#include "config/connection.hpp"
#include "fuzz/fuzz_target.hpp"
#include "sql/classifier/classifier.hpp"

using namespace omgdb;

namespace {

constexpr const char* k_name = "sql_classify";

// tests/sql/corpus/fixture-sqlite.sql's objects, in an in-memory database.
constexpr const char* k_fixture = R"(
CREATE TABLE t (id integer PRIMARY KEY, a text, b integer, updated_at text,
                set_id integer, lock_level integer, "delete" text);
CREATE TABLE users (id integer PRIMARY KEY, name text, email text, active integer);
CREATE VIEW v AS SELECT id, a FROM t;
INSERT INTO t VALUES (1, 'x', 1, '2026-01-01', 1, 0, 'd1'), (2, 'y', 2, '2026-01-02', 1, 1, 'd2');
)";

sqlite3* fixture_db() {
  static sqlite3* db = [] {
    sqlite3* d = nullptr;
    if (sqlite3_open_v2(":memory:", &d, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) std::abort();
    if (sqlite3_exec(d, k_fixture, nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
    return d;
  }();
  return db;
}

}  // namespace

OMGDB_FUZZ_TARGET(sql_classify) {
  const auto text = fuzz::text_of(data, size);
  for (auto dialect : {config::sql_dialect::postgres, config::sql_dialect::mysql, config::sql_dialect::sqlite}) {
    const auto c = sql::classify(text, dialect);
    const auto again = sql::classify(text, dialect);
    OMGDB_FUZZ_CHECK(k_name, c.kind == again.kind && c.reason == again.reason, std::string(text));
    OMGDB_FUZZ_CHECK(k_name, (c.kind == sql::verdict::read_only) == c.reason.empty(), c.reason);
    if (dialect != config::sql_dialect::sqlite || c.kind != sql::verdict::read_only) continue;
    // SQLite flags some pragma reads as writes (`PRAGMA journal_mode` without a value): it
    // cannot judge pragmas, so the allow-list alone decides them.
    if (c.keyword == "PRAGMA") continue;
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    const int rc = sqlite3_prepare_v2(fixture_db(), text.data(), static_cast<int>(text.size()), &stmt, &tail);
    if (rc == SQLITE_OK && stmt != nullptr) {
      std::string_view rest(tail, static_cast<std::size_t>(text.data() + text.size() - tail));
      bool only_space = rest.find_first_not_of(" \t\r\n\f;") == std::string_view::npos;
      if (only_space) {
        OMGDB_FUZZ_CHECK(k_name, sqlite3_stmt_readonly(stmt) != 0,
                         "classified read-only, SQLite says it writes: " + std::string(text));
      }
    }
    sqlite3_finalize(stmt);
  }
  return 0;
}
