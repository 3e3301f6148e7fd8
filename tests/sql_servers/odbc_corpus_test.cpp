// omgdb tests — the read-only corpus (tests/sql/corpus) replayed through ODBC connections
// declared as each server's dialect (issue 35). Read-only there is the text check alone, so
// this is the whole defence: every bypass line is sent read-only through the ODBC adapter on the
// corpus fixture, and afterwards the line's check must hold (data and schema, files, locks,
// time) — a failure is a bypass — and the pooled session must look as it did before — a
// difference is a leak. The benign lines marked `runs` must run. The state is read with the
// native adapters, which do not share the ODBC sessions.
#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/sql_servers/fixture.hpp"

namespace omgdb::test {

namespace {

struct line {
  int number = 0;
  std::string dialects, sql, check;
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
    }
  }
  return out;
}

std::vector<line> load(const std::string& path) {
  std::vector<line> out;
  std::ifstream in(path);
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> f(1);
    for (char c : text) {
      if (c == '\t') f.emplace_back();
      else f.back() += c;
    }
    if (f.size() < 5) continue;
    out.push_back(line{n, f[0], unescape(f[2]), f[4]});
  }
  return out;
}

bool for_dialect(const line& l, sql_dialect d) {
  if (l.dialects == "all") return d != sql_dialect::mssql;
  std::size_t start = 0;
  while (start <= l.dialects.size()) {
    auto comma = l.dialects.find(',', start);
    if (l.dialects.substr(start, comma - start) == config::to_string(d)) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

config::connection corpus_native(sql_dialect d) {
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

std::unique_ptr<sql::adapter> make(const config::connection& c) {
  auto a = sql::make_adapter(c);
  REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
  return std::move(a).value();
}

std::string rows_of(sql::adapter& a, std::string_view sql) {
  auto r = a.execute(sql, ro());
  return r.ok() ? r->rows_json() : "error: " + r.error().message;
}

std::string state(sql::adapter& native, sql_dialect d) {
  std::string s = rows_of(native, "SELECT * FROM t ORDER BY id") + rows_of(native, "SELECT * FROM users ORDER BY id");
  auto schema = native.schema_summary("", "", 0, 100, ro());
  s += schema.ok() ? json::serialize(schema.value()) : "error";
  if (d == sql_dialect::postgres)
    s += rows_of(native, "SELECT last_value, is_called FROM s") +
         rows_of(native, "SELECT count(*) FROM pg_largeobject_metadata") +
         rows_of(native, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'");
  return s;
}

// What a fresh call on the ODBC adapter's one pooled session sees.
std::string session(sql::adapter& odbc, sql_dialect d) {
  switch (d) {
    case sql_dialect::postgres:
      return rows_of(odbc, "SELECT current_user, current_setting('search_path'), current_setting('DateStyle'), "
                           "current_setting('default_transaction_read_only'), (SELECT count(*) FROM pg_prepared_statements)");
    case sql_dialect::mysql:
      return rows_of(odbc, "SELECT CURRENT_USER(), DATABASE(), @@SESSION.sql_mode, @@SESSION.time_zone, "
                           "@@SESSION.max_statement_time");
    default: return rows_of(odbc, "SELECT * FROM pragma_database_list") + rows_of(odbc, "PRAGMA foreign_keys");
  }
}

bool lockable(sql_dialect d) {
  auto other = make(corpus_native(d));
  return other->execute("UPDATE t SET b = b", rw(std::chrono::milliseconds(2000))).ok();
}

}  // namespace

TEST_CASE("odbc: the corpus through ODBC connections declared as each dialect: 0 bypasses, 0 leaks") {
  const std::string path = env("OMGDB_TEST_CORPUS");
  REQUIRE_MESSAGE(std::filesystem::exists(path), "run.sh exports OMGDB_TEST_CORPUS (tests/sql/corpus/bypass.tsv)");
  const auto bypass = load(path);
  const auto benign = load((std::filesystem::path(path).parent_path() / "benign.tsv").string());
  REQUIRE(bypass.size() > 300);
  static const std::regex tmp_path("'(/tmp/[^']*)'");
  for (const auto& t : all_targets()) {
    const sql_dialect d = t.dialect;
    CAPTURE(t.name());
    auto native = make(corpus_native(d));
    auto odbc = make(odbc_connection(corpus_native(d), d));
    const std::string baseline = session(*odbc, d);
    REQUIRE(baseline.rfind("error", 0) != 0);
    int replayed = 0, bypasses = 0, leaks = 0, refused = 0;
    for (const auto& l : bypass) {
      if (!for_dialect(l, d)) continue;
      CAPTURE(l.number);
      CAPTURE(l.sql);
      std::vector<std::string> files;
      for (std::sregex_iterator it(l.sql.begin(), l.sql.end(), tmp_path), end; it != end; ++it) files.push_back((*it)[1]);
      for (auto& f : files) std::filesystem::remove(f);
      const std::string before = state(*native, d);
      auto start = std::chrono::steady_clock::now();
      auto r = odbc->execute(l.sql, ro(std::chrono::milliseconds(1000)));
      bool held = std::chrono::steady_clock::now() - start < std::chrono::seconds(4) && state(*native, d) == before;
      for (auto& f : files) held = held && !std::filesystem::exists(f);
      if (l.check == "lock") held = held && lockable(d);
      if (!r.ok() && contains(r.error().message, "refused")) ++refused;
      ++replayed;
      if (!held) ++bypasses;
      CHECK_MESSAGE(held, (r.ok() ? "the call succeeded" : "the call failed: " + r.error().message));
      const bool same_session = session(*odbc, d) == baseline;
      if (!same_session) ++leaks;
      CHECK(same_session);
    }
    int runs = 0, ran = 0, markers = 0;
    for (const auto& l : benign) {
      if (!for_dialect(l, d) || l.check != "runs") continue;
      CAPTURE(l.number);
      CAPTURE(l.sql);
      ++runs;
      auto r = odbc->execute(l.sql, ro(std::chrono::milliseconds(5000)));
      // psqlODBC reads every `?` outside strings as a parameter marker, even PostgreSQL's jsonb
      // operator (docs/sql-adapters.md): that line fails there with the driver's message.
      if (!r.ok() && d == sql_dialect::postgres && l.sql.find('?') != std::string::npos &&
          contains(r.error().message, "parameter markers")) {
        ++markers;
        continue;
      }
      CHECK_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
      if (r.ok()) ++ran;
    }
    CHECK(bypasses == 0);
    CHECK(leaks == 0);
    CHECK(ran + markers == runs);
    CHECK(markers <= 1);
    MESSAGE(t.name() << ": " << replayed << " bypass lines replayed, " << refused << " refused by the text check, "
                     << bypasses << " bypasses, " << leaks << " leaks; " << ran << " of " << runs << " benign lines ran"
                     << (markers ? " (" + std::to_string(markers) + " stopped by the driver's `?` parameter markers)" : ""));
  }
}

}  // namespace omgdb::test
