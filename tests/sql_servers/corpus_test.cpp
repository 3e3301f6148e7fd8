// omgdb tests — the bypass corpus (tests/sql/corpus/bypass.tsv, format at its top) replayed
// against the database layer alone: no classifier, every line sent read-only through the
// adapter on the corpus fixture, connected as a role that owns the fixture but is not a
// superuser (PostgreSQL) / has no global privileges (MariaDB). The call may succeed or fail;
// the line's `check` must hold afterwards. Lines whose effect layer 2 cannot stop are listed
// in `needs_classifier` with the reason and only reported; any other line that breaks its
// check fails the test.
//
// Skipped (with a message) when run.sh found no corpus.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

namespace {

struct corpus_line {
  int number = 0;
  std::vector<sql_dialect> dialects;
  std::string sql, note, check;
};

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n') out += '\n';
    else if (c == 'r') out += '\r';
    else if (c == 't') out += '\t';
    else if (c == '\\') out += '\\';
    else if (c == 'x' && i + 2 < s.size() + 1) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::size_t start = 0;
  for (;;) {
    auto tab = line.find('\t', start);
    f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return f;
}

std::vector<corpus_line> load(const std::string& path) {
  std::vector<corpus_line> lines;
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    auto f = split_tabs(line);
    if (f.size() < 5) continue;
    corpus_line c;
    c.number = n;
    for (auto d : {sql_dialect::postgres, sql_dialect::mysql, sql_dialect::sqlite})
      if (f[0] == "all" || f[0].find(std::string(config::to_string(d))) != std::string::npos) c.dialects.push_back(d);
    c.sql = unescape(f[2]);
    c.note = f[3];
    c.check = f[4];
    lines.push_back(std::move(c));
  }
  return lines;
}

config::connection corpus_connection(sql_dialect d) {
  auto c = connection_for(d, 1);
  if (d == sql_dialect::sqlite) c.file = env("OMGDB_TEST_SQLITE_CORPUS_FILE");
  if (d == sql_dialect::postgres) {
    c.database = env("OMGDB_TEST_PG_CORPUS_DB");
    c.user = env("OMGDB_TEST_PG_CORPUS_USER");
    c.password = env("OMGDB_TEST_PG_CORPUS_PASSWORD");
  }
  if (d == sql_dialect::mysql) c.database = env("OMGDB_TEST_MARIADB_CORPUS_DB");
  return c;
}

std::unique_ptr<sql::adapter> corpus_adapter(sql_dialect d) {
  auto a = sql::make_adapter(corpus_connection(d));
  REQUIRE(a.ok());
  return std::move(a).value();
}

std::string rows_of(sql::adapter& a, std::string_view sql) {
  auto r = a.execute(sql, ro());
  return r.ok() ? r->rows_json() : "error: " + r.error().message;
}

// Data and schema of the corpus fixture, plus what a bypass could leave behind on the server.
std::string state(sql::adapter& a, sql_dialect d) {
  std::string s = rows_of(a, "SELECT * FROM t ORDER BY id") + rows_of(a, "SELECT * FROM users ORDER BY id");
  auto schema = a.schema_summary("", "", 0, 100, ro());
  s += schema.ok() ? json::serialize(schema.value()) : "error";
  for (auto table : {"t", "users"}) {
    auto ix = a.table_indexes("", table, ro());
    s += ix.ok() ? json::serialize(ix.value()) : "error";
  }
  if (d == sql_dialect::postgres)
    s += rows_of(a, "SELECT last_value, is_called FROM s") +
         rows_of(a, "SELECT count(*) FROM pg_largeobject_metadata") +
         rows_of(a, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") +
         rows_of(a, "SELECT pg_conf_load_time()::text");
  return s;
}

// The settings a fresh call on the pooled session sees.
std::string session(sql::adapter& a, sql_dialect d) {
  switch (d) {
    case sql_dialect::postgres:
      return rows_of(a, "SELECT current_user, session_user, current_setting('search_path'), "
                        "current_setting('application_name'), current_setting('default_transaction_read_only'), "
                        "current_setting('DateStyle'), current_setting('role'), "
                        "(SELECT count(*) FROM pg_prepared_statements), (SELECT count(*) FROM pg_cursors)");
    case sql_dialect::mysql:
      return rows_of(a, "SELECT CURRENT_USER(), DATABASE(), @@SESSION.sql_mode, @@SESSION.autocommit, "
                        "@@SESSION.time_zone, @@SESSION.character_set_client, @@SESSION.max_statement_time");
    default:
      return rows_of(a, "SELECT * FROM pragma_database_list") + rows_of(a, "PRAGMA query_only") +
             rows_of(a, "PRAGMA foreign_keys");
  }
}

// Another connection can take write locks on every fixture row at once.
bool lockable(sql_dialect d) {
  auto other = corpus_adapter(d);
  auto r = other->execute("UPDATE t SET b = b", rw(std::chrono::milliseconds(2000)));
  if (!r.ok()) return false;
  if (d == sql_dialect::mysql) {
    auto free = other->execute("SELECT IS_FREE_LOCK('x')", ro());
    return free.ok() && free->rows_json() == "[[1]]";
  }
  return true;
}

std::vector<std::string> server_paths(const std::string& sql) {
  std::vector<std::string> paths;
  static const std::regex quoted("'(/tmp/[^']*)'");
  for (std::sregex_iterator it(sql.begin(), sql.end(), quoted), end; it != end; ++it) paths.push_back((*it)[1]);
  return paths;
}

}  // namespace

TEST_CASE("bypass corpus: the database layer alone keeps every line's check") {
  std::string path = env("OMGDB_TEST_CORPUS");
  if (path.empty() || !std::filesystem::exists(path)) {
    MESSAGE("no tests/sql/corpus/bypass.tsv in this tree: replay skipped");
    return;
  }
  auto lines = load(path);
  REQUIRE(lines.size() > 50);
  // Lines whose effect the read-only transaction cannot stop; layer 1 refuses them.
  const std::set<std::string> needs_classifier = {
      // A role may terminate or cancel its own other sessions: our pooled neighbours.
      "postgres|SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
  };
  std::map<sql_dialect, std::unique_ptr<sql::adapter>> adapters, bystanders;
  std::map<sql_dialect, std::string> baseline;
  for (auto d : all_dialects()) {
    adapters[d] = corpus_adapter(d);
    bystanders[d] = corpus_adapter(d);
    baseline[d] = session(*adapters[d], d);
    REQUIRE(rows_of(*bystanders[d], "SELECT 1") == "[[1]]");
  }
  int replayed = 0, known = 0;
  for (auto& line : lines) {
    for (auto d : line.dialects) {
      if (!adapters.count(d)) continue;
      auto& a = *adapters[d];
      std::string key = std::string(config::to_string(d)) + "|" + line.sql;
      CAPTURE(line.number);
      CAPTURE(key);
      CAPTURE(line.check);
      auto paths = server_paths(line.sql);
      for (auto& p : paths) std::filesystem::remove(p);
      std::string before = state(a, d);
      auto start = std::chrono::steady_clock::now();
      auto r = a.execute(line.sql, ro(std::chrono::milliseconds(1000)));
      auto took = std::chrono::steady_clock::now() - start;
      ++replayed;
      bool ok = took < std::chrono::seconds(4);
      ok = ok && state(a, d) == before;
      for (auto& p : paths) ok = ok && !std::filesystem::exists(p);
      if (line.check == "session") ok = ok && session(a, d) == baseline[d];
      if (line.check == "lock") ok = ok && lockable(d);
      if (line.check == "signal" || line.check == "resource") {
        ok = ok && rows_of(*bystanders[d], "SELECT 1") == "[[1]]";
        if (!ok) bystanders[d] = corpus_adapter(d);
      }
      if (needs_classifier.count(key)) {
        ++known;
        std::string note = "needs layer 1: " + key + " → " + (ok ? "held this time" : "not stopped by layer 2");
        MESSAGE(note);
        continue;
      }
      CHECK_MESSAGE(ok, (r.ok() ? "call succeeded" : "call failed: " + r.error().message));
      for (auto& p : paths) std::filesystem::remove(p);
    }
  }
  std::string summary = "replayed " + std::to_string(replayed) + " (dialect, line) pairs; " +
                        std::to_string(known) + " need the classifier";
  MESSAGE(summary);
}

}  // namespace omgdb::test
