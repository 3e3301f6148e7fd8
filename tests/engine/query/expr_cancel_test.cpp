// Issue 29, item 3: a call told to stop (its deadline, a hang-up, SIGTERM all set its flag)
// stops inside one long expression — a set operator's sort, $regexFindAll's matches,
// $reduce's steps — within 100 ms, with the kind `cancelled`.
#include <string>

#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::budget_test;
using namespace omgdb::engine::expr_test;

namespace {

// Evaluates `expr_json` against `d` with the flag set after 50 ms; checks that it stopped as
// cancelled within 100 ms of that.
void check_stops(std::string_view expr_json, const document& d = {}) {
  installed_budget b(std::uint64_t{1} << 30);
  expression_options o;
  o.system_variables = true;
  auto e = expression::compile(json_value(expr_json), o);
  REQUIRE(e.ok());
  delayed_stop stop(b.stop, std::chrono::milliseconds(50));
  auto r = e->evaluate(d);
  const double late = stop.ms_since_set();
  CAPTURE(expr_json);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == failure_kind::cancelled);
  CHECK(late < 100);
}

}  // namespace

TEST_CASE("a $setUnion of 1,200,000 elements stops within 100 ms of its call's flag") {
  check_stops(R"({"$size": {"$setUnion": [{"$range": [0, 600000]}, {"$range": [600000, 0, -1]}]}})");
}

TEST_CASE("a $regexFindAll over two million matches stops within 100 ms of its call's flag") {
  const document d{{"s", value(std::string(2 << 20, 'a'))}};
  check_stops(R"({"$size": {"$regexFindAll": {"input": "$s", "regex": "a"}}})", d);
}

TEST_CASE("four million $reduce steps stop within 100 ms of their call's flag") {
  check_stops(R"({"$map": {"input": {"$range": [0, 2000]},
                  "in": {"$reduce": {"input": {"$range": [0, 2000]}, "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}}}})");
}
