// The classifier never crashes, never throws and always answers, on any bytes and any size.
#include <doctest/doctest.h>

#include <chrono>
#include <random>
#include <string>

#include "sql/classifier/classifier.hpp"

using omgdb::config::sql_dialect;
using omgdb::sql::classify;
using omgdb::sql::verdict;

namespace {

constexpr sql_dialect k_dialects[] = {sql_dialect::postgres, sql_dialect::mysql, sql_dialect::sqlite,
                                      sql_dialect::mssql, sql_dialect::ansi};

bool answered(const omgdb::sql::classification& c) {
  if (c.kind == verdict::read_only) return c.reason.empty();
  return !c.reason.empty();
}

}  // namespace

TEST_CASE("random byte strings always get a verdict with a reason") {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> len(0, 200), byte(0, 255);
  for (int n = 0; n < 3000; ++n) {
    std::string s(static_cast<std::size_t>(len(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    for (auto d : k_dialects) CHECK(answered(classify(s, d)));
  }
}

TEST_CASE("random SQL-shaped text always gets a verdict with a reason") {
  static const char* const pieces[] = {
      "SELECT", " ", "'", "\"", "`", "$$", "$a$", "E'", "\\", "--", "-- ", "#", "/*", "*/", "/*!",
      ";", "(", ")", "[", "]", ".", ":=", "$1", "?", ":x", "@v", "FOR", "UPDATE", "INTO", "WITH",
      "DELETE", "x", "1", "0x1F", "\n", "sleep(", "PRAGMA", "é", "\xff", "U&'", "X'", "N'",
      "]]", "#t", "@@x", "GO", "CASE", "END", "{", "OPENQUERY("};
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(pieces) - 1);
  std::uniform_int_distribution<int> len(0, 40);
  for (int n = 0; n < 5000; ++n) {
    std::string s;
    for (int k = len(rng); k > 0; --k) s += pieces[pick(rng)];
    for (auto d : k_dialects) CHECK(answered(classify(s, d)));
  }
}

TEST_CASE("a 1 MiB text is classified in linear time") {
  const std::size_t n = omgdb::sql::max_sql_bytes;
  const std::string long_string = "SELECT '" + std::string(n - 10, 'a') + "'";
  const std::string many_parens(n, '(');
  const std::string many_words = [&] {
    std::string s = "SELECT ";
    while (s.size() + 4 < n) s += "a, ";
    return s + "b";
  }();
  const std::string many_comments = [&] {
    std::string s = "SELECT 1 ";
    while (s.size() + 4 < n) s += "/**/";
    return s;
  }();
  const std::string dollar_bait = "SELECT " + std::string(n / 2 - 8, '$') + std::string(n / 2 - 8, 'a');
  const auto start = std::chrono::steady_clock::now();
  for (auto d : k_dialects) {
    CHECK(classify(long_string, d).kind == verdict::read_only);
    CHECK(classify(many_parens, d).kind == verdict::refused);
    CHECK(classify(many_words, d).kind == verdict::read_only);
    CHECK(classify(many_comments, d).kind == verdict::read_only);
    CHECK(answered(classify(dollar_bait, d)));
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed < std::chrono::seconds(30));  // generous for sanitizer builds on a shared box
}

TEST_CASE("deeply nested PostgreSQL comments and long dollar tags are bounded") {
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "/*";
  CHECK(classify("SELECT 1 " + nested, sql_dialect::postgres).kind == verdict::refused);
  const std::string tag = "$" + std::string(100, 't') + "$";
  CHECK(classify("SELECT " + tag + "x" + tag, sql_dialect::postgres).kind == verdict::refused);
}
