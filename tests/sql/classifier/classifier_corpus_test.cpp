// Replays tests/sql/corpus/{bypass,benign}.tsv against the classifier alone. The format is
// documented at the top of each file and in docs/sql-safety.md.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "sql/classifier/classifier.hpp"

using omgdb::config::sql_dialect;
using omgdb::sql::classify;
using omgdb::sql::verdict;

namespace {

std::filesystem::path corpus_dir() {
#ifdef OMGDB_SQL_CORPUS_DIR
  return OMGDB_SQL_CORPUS_DIR;
#else
  return std::filesystem::path(__FILE__).parent_path() / "corpus";
#endif
}

struct corpus_line {
  int number = 0;
  std::vector<sql_dialect> dialects;
  std::string expected;
  std::string sql;
  std::string note;
  std::string check;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') out.emplace_back(); else out.back().push_back(c);
  }
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// \n \r \t \\ and \xHH; any other backslash sequence makes the line invalid.
std::optional<std::string> unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') { out.push_back(s[i]); continue; }
    if (i + 1 >= s.size()) return std::nullopt;
    const char e = s[++i];
    if (e == 'n') out.push_back('\n');
    else if (e == 'r') out.push_back('\r');
    else if (e == 't') out.push_back('\t');
    else if (e == '\\') out.push_back('\\');
    else if (e == 'x' && i + 2 < s.size() + 0 && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::vector<sql_dialect> parse_dialects(const std::string& field) {
  if (field == "all") return {sql_dialect::postgres, sql_dialect::mysql, sql_dialect::sqlite};
  std::vector<sql_dialect> out;
  std::size_t start = 0;
  while (start <= field.size()) {
    const std::size_t comma = field.find(',', start);
    const std::string name = field.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name == "postgres") out.push_back(sql_dialect::postgres);
    else if (name == "mysql") out.push_back(sql_dialect::mysql);
    else if (name == "sqlite") out.push_back(sql_dialect::sqlite);
    else if (name == "mssql") out.push_back(sql_dialect::mssql);
    else return {};
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<corpus_line> load(const std::string& file) {
  std::ifstream in(corpus_dir() / file, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open corpus file " << (corpus_dir() / file).string());
  std::vector<corpus_line> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    auto f = split_tabs(line);
    INFO(file << ":" << number << ": " << line);
    REQUIRE_MESSAGE(f.size() == 5, "a corpus line has 5 tab-separated fields");
    auto sql = unescape(f[2]);
    REQUIRE_MESSAGE(sql.has_value(), "the SQL field has an invalid backslash escape");
    corpus_line c{number, parse_dialects(f[0]), f[1], *sql, f[3], f[4]};
    REQUIRE_MESSAGE(!c.dialects.empty(), "the dialect field is all or a list of postgres,mysql,sqlite,mssql");
    REQUIRE_MESSAGE(!c.note.empty(), "every line names its technique");
    out.push_back(std::move(c));
  }
  return out;
}

std::string_view name(verdict v) {
  switch (v) {
    case verdict::read_only: return "read_only";
    case verdict::write: return "write";
    case verdict::refused: return "refused";
  }
  return "?";
}

std::size_t replay(const std::string& file, std::initializer_list<std::string_view> allowed) {
  std::size_t cases = 0;
  for (const auto& c : load(file)) {
    bool known = false;
    for (auto a : allowed) known = known || c.expected == a;
    INFO(file << ":" << c.number << " [" << c.note << "]");
    REQUIRE_MESSAGE(known, "unexpected verdict column " << c.expected);
    for (auto d : c.dialects) {
      const auto got = classify(c.sql, d);
      INFO("dialect " << omgdb::config::to_string(d) << ", reason: " << got.reason);
      CHECK(name(got.kind) == c.expected);
      if (got.kind != verdict::read_only) CHECK_FALSE(got.reason.empty());
      ++cases;
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("every bypass in the corpus is refused or classified as a write") {
  const auto lines = load("bypass.tsv");
  CHECK(lines.size() >= 120);
  CHECK(replay("bypass.tsv", {"refused", "write"}) >= lines.size());
}

TEST_CASE("every benign query in the corpus is read-only") {
  const auto lines = load("benign.tsv");
  CHECK(lines.size() >= 60);
  CHECK(replay("benign.tsv", {"read_only"}) >= lines.size());
}

std::size_t count_for(const std::vector<corpus_line>& lines, sql_dialect d) {
  std::size_t n = 0;
  for (const auto& c : lines)
    for (auto x : c.dialects) n += x == d ? 1 : 0;
  return n;
}

TEST_CASE("the T-SQL corpus: every bypass is refused or a write, every benign twin reads (no server needed)") {
  const auto bypass = load("bypass.tsv");
  const auto benign = load("benign.tsv");
  // The T-SQL items of issue 35 and docs/sql-safety.md: at least this many lines each.
  CHECK(count_for(bypass, sql_dialect::mssql) >= 120);
  CHECK(count_for(benign, sql_dialect::mssql) >= 50);
  std::size_t bypasses = 0, refused_twins = 0;
  for (const auto& c : bypass) {
    for (auto d : c.dialects) {
      if (d != sql_dialect::mssql) continue;
      const auto got = classify(c.sql, d);
      INFO("bypass.tsv:" << c.number << " " << c.sql << " → " << got.reason);
      if (got.kind == verdict::read_only) ++bypasses;
      CHECK(name(got.kind) == c.expected);
    }
  }
  for (const auto& c : benign) {
    for (auto d : c.dialects) {
      if (d != sql_dialect::mssql) continue;
      const auto got = classify(c.sql, d);
      INFO("benign.tsv:" << c.number << " " << c.sql << " → " << got.reason);
      if (got.kind != verdict::read_only) ++refused_twins;
      CHECK(got.kind == verdict::read_only);
    }
  }
  CHECK(bypasses == 0);
  CHECK(refused_twins == 0);
  MESSAGE("T-SQL corpus: " << count_for(bypass, sql_dialect::mssql) << " bypass lines, " << bypasses << " read as read-only; "
                           << count_for(benign, sql_dialect::mssql) << " benign twins, " << refused_twins << " refused");
}

// `ansi` (a data source none of the dialects describes) is read-only only where every dialect
// agrees, so no bypass line of any dialect is read-only under it. (The T-SQL reading alone may
// call a MySQL-only bypass a read: SQL Server reads `--1;DROP` as a comment, and rightly so.)
TEST_CASE("no bypass line of any dialect reads as read-only under ansi") {
  std::size_t lines = 0;
  for (const auto& c : load("bypass.tsv")) {
    INFO("bypass.tsv:" << c.number << " " << c.sql);
    CHECK(classify(c.sql, sql_dialect::ansi).kind != verdict::read_only);
    ++lines;
  }
  CHECK(lines >= 390);
}

TEST_CASE("the corpus escape format round-trips backslashes, tabs and raw bytes") {
  CHECK(unescape("E'it\\\\'s'") == std::optional<std::string>("E'it\\'s'"));
  CHECK(unescape("a\\tb\\nc\\x00") == std::optional<std::string>(std::string("a\tb\nc\0", 6)));
  CHECK_FALSE(unescape("bad \\q").has_value());
}
