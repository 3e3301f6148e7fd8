// The caps on filter size and expression operands: a filter or an expression past its limit
// is a compile error naming the limit, not a query that holds a worker for minutes.
#include <string>

#include "engine/query/expr.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

// {"$or": [{"a": 0}, {"a": 1}, …]} with `n` branches.
std::string or_of(std::size_t n) {
  std::string out = R"({"$or": [)";
  for (std::size_t i = 0; i < n; ++i) out += (i ? "," : "") + std::string(R"({"a": )") + std::to_string(i) + "}";
  return out + "]}";
}

// {"$expr": {"$add": [1, 1, …]}} with `n` operands.
std::string add_of(std::size_t n) {
  std::string out = R"({"$expr": {"$gt": [{"$add": [)";
  for (std::size_t i = 0; i < n; ++i) out += i ? ",1" : "1";
  return out + "]}, 0]}}";
}

}  // namespace

TEST_CASE("a 50,000-branch $or is refused with an error naming the clause limit") {
  const std::string e = compile_error(or_of(50'000));
  CHECK(e.find("the filter has more than 10000 clauses") == 0);
}

TEST_CASE("a filter just under the clause limit compiles and matches") {
  const filter f = compile(or_of(4'999));  // 4,999 branches + 4,999 conditions + the $or
  CHECK(f.matches(doc(R"({"a": 4998})")));
  CHECK_FALSE(f.matches(doc(R"({"a": 5000})")));
}

TEST_CASE("clauses count across $and, operators, $all items and $in regexes") {
  std::string all = R"({"a": {"$all": [)";
  for (int i = 0; i < 10'001; ++i) all += (i ? "," : "") + std::to_string(i);
  all += "]}}";
  CHECK(compile_error(all).find("more than 10000 clauses") != std::string::npos);
  // $in values are binary-searched and do not count.
  std::string in = R"({"a": {"$in": [)";
  for (int i = 0; i < 20'000; ++i) in += (i ? "," : "") + std::to_string(i);
  in += "]}}";
  CHECK(compile(in).matches(doc(R"({"a": 19999})")));
}

TEST_CASE("an $expr $add of 100,000 operands is refused with an error naming the operand limit") {
  const std::string e = compile_error(add_of(100'000));
  CHECK(e == "`$expr`: `$add` has 100000 operands; an expression may hold at most 10000 operators and operands");
}

TEST_CASE("an expression past the node limit through nesting is refused too") {
  // 4 × 3,000 operands in four $add calls: each call is under the limit, the whole is not.
  std::string spec = R"({"$expr": {"$and": [)";
  for (int k = 0; k < 4; ++k) {
    spec += k ? "," : "";
    spec += R"({"$add": [)";
    for (int i = 0; i < 3'000; ++i) spec += i ? ",1" : "1";
    spec += "]}";
  }
  spec += "]}}";
  CHECK(compile_error(spec) == "`$expr`: the expression has more than 10000 operators and operands (field paths, "
                               "literals and array items count too)");
  CHECK(compile(add_of(9'000)).matches(doc("{}")));
}
