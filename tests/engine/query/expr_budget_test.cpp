// Issue 29, items 1–3: what expressions build is charged to the call's budget as it is built
// (refused before it passes the bound, at bounded memory), nesting stops at 200 levels, and
// the loops an argument controls poll the call's flag.
#include <string>

#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::budget_test;
using namespace omgdb::engine::expr_test;

namespace {

// Evaluates `expr_json` against `d` under the thread's current budget.
result<expr_value> eval_on(std::string_view expr_json, const document& d) {
  expression_options o;
  o.system_variables = true;
  auto e = expression::compile(json_value(expr_json), o);
  REQUIRE_MESSAGE(e.ok(), expr_json);
  return e->evaluate(d);
}

failure eval_error(std::string_view expr_json, const document& d = {}) {
  auto r = eval_on(expr_json, d);
  REQUIRE_MESSAGE(!r.ok(), "expected an error from ", expr_json);
  return r.error();
}

}  // namespace

TEST_CASE("a $range of a billion elements is refused before it is built") {
  installed_budget b(8 << 20);
  failure f;
  const double s = cpu_seconds([&] { f = eval_error(R"({"$range": [0, 1000000000]})"); });
  CHECK(f.kind == failure_kind::limit_exceeded);
  CHECK(f.message.find("10000000") != std::string::npos);
  CHECK(s < 0.5);
  // Under the element bound but past the call's: refused before the array is allocated.
  double grew = peak_growth_mib([&] { f = eval_error(R"({"$range": [0, 9000000]})"); });
  check_memory_bound(f, "8 MiB");
  CHECK(f.message.find("$range") != std::string::npos);
  CHECK(grew < 64);
}

TEST_CASE("$concatArrays of twelve ten-million ranges is refused at the bound with bounded memory") {
  installed_budget b(32 << 20);
  std::string spec = R"({"$concatArrays": [)";
  for (int i = 0; i < 12; ++i) spec += std::string(i ? "," : "") + R"({"$range": [0, 9999999]})";
  spec += "]}";
  failure f;
  const double grew = peak_growth_mib([&] { f = eval_error(spec); });
  check_memory_bound(f, "32 MiB");
  CHECK(grew < 96);
}

TEST_CASE("a $reduce that doubles its array with $concatArrays is refused as it passes the bound") {
  installed_budget b(32 << 20);
  failure f;
  const double grew = peak_growth_mib([&] {
    f = eval_error(R"({"$reduce": {"input": {"$range": [0, 40]}, "initialValue": [1],
                                   "in": {"$concatArrays": ["$$value", "$$value"]}}})");
  });
  check_memory_bound(f, "32 MiB");
  // Refused before the doubled array is built: the peak stays near the bound (building the
  // array and refusing it afterwards peaked about 14 MiB higher).
  CHECK(grew < 40);
}

TEST_CASE("a $reduce nesting its value 30,000 deep is refused at depth 200 without crashing") {
  installed_budget b(128 << 20);
  const failure f = eval_error(R"({"$reduce": {"input": {"$range": [0, 30000]}, "initialValue": [], "in": ["$$value"]}})");
  CHECK(f.kind == failure_kind::limit_exceeded);
  CHECK(f.message.find("deeper than 200 levels") != std::string::npos);
}

TEST_CASE("$split of a 16 MiB string into single characters is refused at the call's bound") {
  installed_budget b(64 << 20);
  std::string text;
  text.reserve(16 << 20);
  while (text.size() < (16u << 20)) text += "a,";
  const document d{{"s", value(std::move(text))}};
  failure f;
  const double grew = peak_growth_mib([&] { f = eval_error(R"({"$split": ["$s", ","]})", d); });
  check_memory_bound(f, "64 MiB");
  CHECK(f.message.find("$split") != std::string::npos);
  CHECK(grew < 160);
}

TEST_CASE("$replaceAll replaces every occurrence, or fails naming the 16 MiB bound, never a partial answer") {
  installed_budget b(256 << 20);
  const document small{{"s", value(std::string(7 << 20, 'a'))}};
  auto r = eval_on(R"({"$replaceAll": {"input": "$s", "find": "a", "replacement": "bb"}})", small);
  REQUIRE(r.ok());
  REQUIRE(*r);
  CHECK((*r)->as_string().size() == (std::size_t{14} << 20));
  CHECK((*r)->as_string().find('a') == std::string::npos);
  const document big{{"s", value(std::string(10 << 20, 'a'))}};
  const failure f = eval_error(R"({"$replaceAll": {"input": "$s", "find": "a", "replacement": "bb"}})", big);
  CHECK(f.kind == failure_kind::limit_exceeded);
  CHECK(f.message.find("$replaceAll") != std::string::npos);
  CHECK(f.message.find("16 MiB") != std::string::npos);
}

TEST_CASE("set operators keep first-occurrence order and answer 60,000-element sets in well under a second") {
  CHECK(ev(R"({"$setUnion": [[3, 1, 3, 2], [2, 4, 1.0, 5]]})") == "[3,1,2,4,5]");
  CHECK(ev(R"({"$setIntersection": [[5, 3, 1, 3], [1, 5, 9]]})") == "[5,1]");
  CHECK(ev(R"({"$setDifference": [[5, 3, 1, 3], [1]]})") == "[5,3]");
  CHECK(ev(R"({"$setEquals": [[1, 2, 2], [2, 1.0], [1, 1, 2]]})") == "true");
  CHECK(ev(R"({"$setIsSubset": [[2, 2], [1, 2]]})") == "true");
  installed_budget b(128 << 20);
  const char* spec = R"({"$size": {"$setUnion": [{"$range": [0, 60000]}, {"$range": [30000, 90000]},
                                                  {"$reverseArray": {"$range": [0, 60000]}}]}})";
  expr_value out;
  const double s = cpu_seconds([&] {
    auto r = eval_on(spec, document{});
    REQUIRE(r.ok());
    out = *r;
  });
  CHECK(to_json(*out) == "90000");
  CHECK(s < 1.5);
  const double s2 = cpu_seconds([&] {
    auto r = eval_on(R"({"$setIsSubset": [{"$range": [0, 60000]}, {"$reverseArray": {"$range": [0, 60000]}}]})", document{});
    REQUIRE(r.ok());
    CHECK(to_json(**r) == "true");
  });
  CHECK(s2 < 1.5);
}

TEST_CASE("$regexFindAll over a 128 KiB string counts each match's index from the last, in linear time") {
  installed_budget b(256 << 20);
  const document d{{"s", value("é" + std::string(128 << 10, 'a'))}};
  expr_value out;
  const double s = cpu_seconds([&] {
    auto r = eval_on(R"({"$regexFindAll": {"input": "$s", "regex": "a"}})", d);
    REQUIRE(r.ok());
    out = *r;
  });
  REQUIRE(out->as_array().size() == (std::size_t{128} << 10));
  CHECK(to_json(out->as_array()[0]) == R"({"match":"a","idx":1,"captures":[]})");
  CHECK(to_json(out->as_array().back().as_document()[1].val) == std::to_string((128 << 10)));
  CHECK(s < 2.0);
}

TEST_CASE("$arrayToObject and $mergeObjects of 200,000 fields answer in linear time") {
  installed_budget b(512 << 20);
  const char* spec = R"({"$size": {"$objectToArray": {"$mergeObjects": [
      {"$arrayToObject": {"$map": {"input": {"$range": [0, 200000]}, "in": {"k": {"$toString": "$$this"}, "v": 1}}}},
      {"$arrayToObject": [[["7", 2]]]}]}}})";
  const double s = cpu_seconds([&] {
    auto r = eval_on(spec, document{});
    REQUIRE(r.ok());
    CHECK(to_json(**r) == "200000");
  });
  CHECK(s < 3.0);
  CHECK(ev(R"({"$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]})") == R"({"a":3,"b":2})");
}

TEST_CASE("$trim of 200,000 code points with a 20,000-character set is not quadratic") {
  std::string chars;
  for (std::uint32_t cp = 0x4E00; cp < 0x4E00 + 20000; ++cp) {  // CJK ideographs: three bytes each
    chars += static_cast<char>(0xE0 | (cp >> 12));
    chars += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    chars += static_cast<char>(0x80 | (cp & 0x3F));
  }
  std::string input;
  for (int i = 0; i < 5; ++i) input += chars;
  input += "x";
  for (int i = 0; i < 5; ++i) input += chars;
  const document d{{"s", value(input)}, {"c", value(chars)}};
  installed_budget b(128 << 20);
  const double s = cpu_seconds([&] {
    auto r = eval_on(R"({"$trim": {"input": "$s", "chars": "$c"}})", d);
    REQUIRE(r.ok());
    CHECK(to_json(**r) == R"("x")");
  });
  CHECK(s < 1.5);
  CHECK(ev(R"({"$trim": {"input": "  \u00a0ab c\u3000 "}})") == R"("ab c")");
  CHECK(ev(R"({"$ltrim": {"input": "xxaxx", "chars": "x"}})") == R"("axx")");
}
