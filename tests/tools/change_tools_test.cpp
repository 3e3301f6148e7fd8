// The change tools end to end through their tool handlers: plan_update → apply → rollback
// with tokens and change ids read from the results, across a restart of the store.
#include <doctest/doctest.h>

#include "common/json.hpp"
#include "tests/tools/tool_bench.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

class tool_bench : public test::tool_bench {
 public:
  tool_bench() : test::tool_bench("omgdb-change-tools-") {}

  // Calls `name` with `args_json` (without `path`), returning (is_error, first text).
  std::pair<bool, std::string> call(const std::string& name, const std::string& args_json) {
    auto r = test::tool_bench::call(name, args_json);
    REQUIRE(!r.texts.empty());
    return {r.is_error, r.texts.front()};
  }
  // Calls a tool that must succeed and returns its JSON result.
  bj::object ok(const std::string& name, const std::string& args_json) {
    auto [failed, text] = call(name, args_json);
    REQUIRE_MESSAGE(!failed, text);
    auto parsed = json::parse_strict(text);
    REQUIRE(parsed.ok());
    return parsed->as_object();
  }
  std::string dump() { return call("dump", "{}").second; }
};

std::string text_of(const bj::value& v) { return std::string(v.as_string()); }

}  // namespace

TEST_CASE("a planned change applies once and rolls back once through the tools, across restarts") {
  tool_bench b;
  b.ok("insert_many", R"({"collection":"users","documents":[{"_id":1,"age":30},{"_id":2,"age":17},{"_id":3,"age":40}]})");
  const std::string original = b.dump();

  auto plan = b.ok("plan_update", R"({"collection":"users","filter":{"age":{"$gte":18}},"update":{"$inc":{"age":1}}})");
  CHECK(plan.at("matchedCount").as_int64() == 2);
  const std::string token = text_of(plan.at("token"));
  CHECK(b.dump() == original);

  b.restart();
  auto applied = b.ok("apply", R"({"token":")" + token + R"("})");
  CHECK(applied.at("modified").as_int64() == 2);
  const std::string change = text_of(applied.at("change_id"));
  CHECK(b.dump() != original);
  auto again = b.call("apply", R"({"token":")" + token + R"("})");
  CHECK(again.first);
  CHECK(again.second == "Error: plan `" + token + "` was already applied as change `" + change +
                            "`; a plan applies exactly once");

  b.restart();
  auto rolled = b.ok("rollback", R"({"change_id":")" + change + R"("})");
  CHECK(rolled.at("restored").as_int64() == 2);
  CHECK(b.dump() == original);
  auto twice = b.call("rollback", R"({"change_id":")" + change + R"("})");
  CHECK(twice.first);
  CHECK(twice.second.find("was already rolled back") != std::string::npos);
  CHECK(b.dump() == original);

  auto report = b.ok("verify", "{}");
  CHECK(report.at("ok").as_bool());
  CHECK(report.at("oplog").at("records").as_int64() == 8);  // create, 3 inserts, 2 updates, 2 undos
}

TEST_CASE("a stale plan is refused through the tools and the dump is unchanged") {
  tool_bench b;
  b.ok("insert_many", R"({"collection":"users","documents":[{"_id":1,"age":30},{"_id":2,"age":40}]})");
  auto plan = b.ok("plan_update", R"({"collection":"users","filter":{},"update":{"$set":{"x":1}}})");
  b.ok("replace", R"({"collection":"users","id":2,"document":{"age":41}})");
  const std::string before = b.dump();
  auto refused = b.call("apply", R"({"token":")" + text_of(plan.at("token")) + R"("})");
  CHECK(refused.first);
  CHECK(refused.second.find("is stale, nothing was applied: changed since the plan: _id 2.") != std::string::npos);
  CHECK(b.dump() == before);
}
