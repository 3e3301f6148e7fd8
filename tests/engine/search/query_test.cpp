// The search query syntax: what each construct becomes in FTS5, and the errors a malformed
// query gets (position, what was expected). The expected strings are written by hand.
#include <doctest/doctest.h>

#include "engine/search/query.hpp"

using omgdb::engine::search::parse_query;

namespace {
const std::vector<std::string> k_fields{"title", "body.text"};

std::string match_of(const std::string& q) {
  auto r = parse_query(q, k_fields);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r->match;
}

std::string error_of(const std::string& q) {
  auto r = parse_query(q, k_fields);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}
}  // namespace

TEST_CASE("a plain list of words matches any of them") {
  CHECK(match_of("open a file") == R"(("open" OR "a" OR "file"))");
  CHECK(match_of("how do I open a file?") == R"(("how" OR "do" OR "I" OR "open" OR "a" OR "file?"))");
}

TEST_CASE("AND binds tighter than the implicit OR and NOT excludes") {
  CHECK(match_of("socket AND bind listen") == R"((("socket" AND "bind") OR "listen"))");
  CHECK(match_of("socket NOT udp") == R"(("socket" NOT "udp"))");
  CHECK(match_of("(a OR b) AND c") == R"((("a" OR "b") AND "c"))");
}

TEST_CASE("phrases, prefixes and fields become quoted FTS5 strings and columns") {
  CHECK(match_of("\"open file\"") == R"("open file")");
  CHECK(match_of("conn*") == R"("conn" *)");
  CHECK(match_of("title:socket body.text:(bind OR listen)") == R"(({f0} : ("socket") OR {f1} : (("bind" OR "listen"))))");
  // Characters FTS5 would parse are only ever inside a quoted string.
  CHECK(match_of("a+b NEAR(x) ^c") == R"(("a+b" OR "NEAR" OR "x" OR "^c"))");
}

TEST_CASE("punctuation alone and a colon before a space are not operators") {
  CHECK(match_of("error: not found - again") == R"(("error:" OR "not" OR "found" OR "again"))");
  CHECK(match_of("title:") == R"("title:")");
  // Not a field of the index: text, as natural language has it.
  CHECK(match_of("Note:see std::move") == R"(("Note:see" OR "std::move"))");
  CHECK(match_of("and or not") == R"(("and" OR "or" OR "not"))");
  CHECK(match_of("fcntl() and open( )") == R"(("fcntl" OR "and" OR "open"))");
}

TEST_CASE("malformed queries name the position and what was expected") {
  CHECK(error_of("") == "query syntax: the query has no term (expected words, \"a phrase\", prefix* or field:term) (docs/search.md, Query syntax)");
  CHECK(error_of("open AND") .find("expected a term after `AND` at position 5, got the end of the query at position 8") != std::string::npos);
  CHECK(error_of("NOT x").find("`NOT` at position 0 needs a term before it") != std::string::npos);
  CHECK(error_of("a \"open file").find("the phrase opened at position 2 is never closed (expected `\"`)") != std::string::npos);
  CHECK(error_of("(a OR b").find("the `(` at position 0 is never closed (expected `)` at position 7)") != std::string::npos);
  CHECK(error_of("a b)").find("unexpected `)` at position 3") != std::string::npos);
  CHECK(error_of("co*nn").find("`*` at position 2 marks a prefix") != std::string::npos);
  CHECK(error_of("a OR OR b").find("expected a term after `OR` at position 2, got `OR` at position 5") != std::string::npos);
  CHECK(error_of("say \"\" hi").find("the phrase at position 4 has no letter or digit") != std::string::npos);
  CHECK(error_of("title:(").find("expected a term after `(` at position 6, got the end of the query") != std::string::npos);
}

TEST_CASE("a NUL in a query separates words like a space and never reaches FTS5") {
  CHECK(match_of(std::string("open\0file", 9)) == R"(("open" OR "file"))");
  CHECK(match_of(std::string("\"open\0file\"", 11)) == R"("open file")");
  CHECK(match_of(std::string("\0\0x", 3)) == R"("x")");
}

TEST_CASE("parentheses nest at most 32 deep, and a query of 4096 of them is an error, not a crash") {
  const auto nested = [](std::size_t n) { return std::string(n, '(') + "a" + std::string(n, ')'); };
  CHECK(match_of(nested(32)) == R"("a")");
  CHECK(match_of("title:" + nested(32)) == R"({f0} : ("a"))");
  CHECK(error_of(nested(33)).find("parentheses nest deeper than 32 levels at position 32") != std::string::npos);
  CHECK(error_of(std::string(4096, '(')).find("parentheses nest deeper than 32 levels") != std::string::npos);
  // Side by side is not nesting: 40 groups of one level each.
  std::string side;
  for (int i = 0; i < 40; ++i) side += "(w" + std::to_string(i) + ") ";
  CHECK(parse_query(side, k_fields).ok());
}
