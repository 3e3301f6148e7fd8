// A regex that reaches PCRE2's match limit is an error naming the pattern, the path and the
// limit — never a silent "no match" (which under $not or $nin would become a match).
#include <chrono>
#include <string>

#include "engine/query/expr.hpp"
#include "engine/query/validation.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

// The issue's example: exponential backtracking before the `a+b` branch matches.
const char* const k_catastrophic = R"({"s": "aaaaaaaaaaaaaaaaaaaaaaaaab"})";

// What matches() throws for `filter_json` on `doc_json`, or "" when it returns.
std::string match_error(std::string_view filter_json, std::string_view doc_json) {
  const filter f = compile(filter_json);
  try {
    (void)f.matches(doc(doc_json));
  } catch (const expression_error& e) {
    return e.what();
  }
  return {};
}

// The same for the matcher over stored bytes.
std::string raw_match_error(std::string_view filter_json, std::string_view doc_json) {
  const filter f = compile(filter_json);
  auto bytes = to_bson(doc(doc_json));
  REQUIRE(bytes.ok());
  try {
    (void)f.matches_bson(*bytes);
  } catch (const expression_error& e) {
    return e.what();
  }
  return {};
}

const std::string k_limit_text = "reached the regex match limit (100000 backtracking steps) on one value";

}  // namespace

TEST_CASE("a $regex that reaches the match limit is an error naming the pattern, the path and the limit") {
  const std::string e = match_error(R"({"s": {"$regex": "^(?:(a+)+x|a+b)$"}})", k_catastrophic);
  CHECK(e.find("regex `^(?:(a+)+x|a+b)$` at `s` " + k_limit_text) == 0);
  CHECK(raw_match_error(R"({"s": {"$regex": "^(?:(a+)+x|a+b)$"}})", k_catastrophic) == e);
}

TEST_CASE("a regex at the match limit is an error under $not, $nin, $in, $all and as a value") {
  for (const char* q : {R"({"s": {"$not": {"$regex": "^(?:(a+)+x|a+b)$"}}})",
                        R"({"s": {"$not": {"$regularExpression": {"pattern": "^(?:(a+)+x|a+b)$", "options": ""}}}})",
                        R"({"s": {"$in": [1, {"$regularExpression": {"pattern": "^(?:(a+)+x|a+b)$", "options": ""}}]}})",
                        R"({"s": {"$nin": [{"$regularExpression": {"pattern": "^(?:(a+)+x|a+b)$", "options": ""}}]}})",
                        R"({"s": {"$all": [{"$regularExpression": {"pattern": "^(?:(a+)+x|a+b)$", "options": ""}}]}})",
                        R"({"s": {"$regularExpression": {"pattern": "^(?:(a+)+x|a+b)$", "options": ""}}})",
                        R"({"$nor": [{"s": {"$regex": "^(?:(a+)+x|a+b)$"}}]})",
                        R"({"t": {"$elemMatch": {"$regex": "^(?:(a+)+x|a+b)$"}}})"}) {
    CAPTURE(q);
    const std::string d = R"({"s": "aaaaaaaaaaaaaaaaaaaaaaaaab", "t": ["aaaaaaaaaaaaaaaaaaaaaaaaab"]})";
    CHECK(match_error(q, d).find(k_limit_text) != std::string::npos);
    CHECK(raw_match_error(q, d).find(k_limit_text) != std::string::npos);
  }
}

TEST_CASE("a regex below the match limit still answers true and false") {
  const filter f = compile(R"({"s": {"$regex": "^(?:(a+)+x|a+b)$"}})");
  CHECK(decoded_and_raw_match(f, doc(R"({"s": "aaab"})")));
  CHECK(decoded_and_raw_match(f, doc(R"({"s": "aaax"})")));
  CHECK_FALSE(decoded_and_raw_match(f, doc(R"({"s": "bbb"})")));
  const filter not_f = compile(R"({"s": {"$not": {"$regex": "^a+b$"}}})");
  CHECK(decoded_and_raw_match(not_f, doc(R"({"s": "ccc"})")));
}

TEST_CASE("one value at the match limit takes about a millisecond at most") {
  const filter f = compile(R"({"r": {"$regex": "^(a+)+$"}})");
  const document d = doc(R"({"r": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"})");
  const auto start = std::chrono::steady_clock::now();
  constexpr int rounds = 20;
  for (int i = 0; i < rounds; ++i) CHECK_THROWS_AS((void)f.matches(d), expression_error);
  const auto per = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / rounds;
  MESSAGE("ms per match at the limit: " << per);
  CHECK(per < 20.0);  // generous for a loaded machine; ~0.5 ms with the JIT
}

TEST_CASE("a validation pattern at the match limit fails the check instead of calling the document invalid") {
  auto r = validation::rules::compile(doc(R"({"properties": {"s": {"pattern": "^(?:(a+)+x|a+b)$"}}})"));
  REQUIRE(r.ok());
  auto v = r->check(doc(k_catastrophic), 10);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message.find("regex `^(?:(a+)+x|a+b)$` at `spec.properties.s.pattern` " + k_limit_text) == 0);
  auto first = r->first_violation(doc(k_catastrophic));
  CHECK_FALSE(first.ok());
  auto fine = r->check(doc(R"({"s": "aab"})"), 10);
  REQUIRE(fine.ok());
  CHECK(fine->empty());
}
