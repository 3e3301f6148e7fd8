// tools/sql_tools: the eight SQL tools through their handlers, as the dispatcher calls them.
#include <doctest/doctest.h>

#include "common/json.hpp"
#include "tests/sql/sql_fixture.hpp"
#include "tools/catalog.hpp"

using namespace omgdb;
namespace bj = boost::json;

namespace {

struct tool_caller {
  test::sql_bench bench;
  std::vector<mcp::tool> tools = tools::sql_tools(bench.svc);

  const mcp::tool& find(const std::string& name) {
    for (const auto& t : tools) {
      if (t.name == name) return t;
    }
    FAIL("no tool " << name);
    return tools.front();
  }
  // Checks the arguments as the dispatcher does, then calls the handler.
  mcp::tool_result call(const std::string& name, const std::string& args_json, auth::scope scope = auth::scope::read_write) {
    auto parsed = json::parse_strict(args_json);
    REQUIRE(parsed.ok());
    const auto& t = find(name);
    if (auto problem = mcp::check_arguments(t, parsed->as_object())) return mcp::tool_result::failure(*problem);
    mcp::call_context ctx;
    ctx.scope = scope;
    ctx.session_id = "mcp-test";
    ctx.request_id = "1";
    return t.handler(parsed->as_object(), ctx);
  }
};

bool has(const mcp::tool_result& r, std::string_view part) {
  for (const auto& t : r.texts) {
    if (t.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("no configured connection means no SQL tool is listed") {
  auto none = std::make_shared<sql::service>(std::vector<config::connection>{}, sql::service_options{});
  CHECK(tools::sql_tools(none).empty());
  CHECK(tools::sql_tools(nullptr).empty());
}

TEST_CASE("the eight tools are listed at read scope, in the seed's order, each taking `connection`") {
  tool_caller c;
  std::vector<std::string> names;
  for (const auto& t : c.tools) {
    names.push_back(t.name);
    CHECK(t.required_scope == auth::scope::read);
    bool takes_connection = false;
    for (const auto& p : t.params) takes_connection = takes_connection || (p.name == "connection" && !p.required);
    CHECK(takes_connection);
  }
  CHECK(names == std::vector<std::string>{"getActiveSql", "getActiveConnectionContext", "getSchemaSummary",
                                          "getTableIndexes", "explainSql", "getLatestSqlExecutionError",
                                          "proposeSqlEdit", "executeSql"});
  CHECK(c.find("executeSql").hints.destructive);
  CHECK(c.find("getSchemaSummary").hints.read_only);
}

TEST_CASE("inputs are strict: unknown fields, empty strings and out-of-range limits are refused") {
  tool_caller c;
  CHECK(c.call("getActiveSql", R"({"connection":"ro","extra":1})").is_error);
  auto empty = c.call("getActiveSql", R"({"connection":""})");
  CHECK(empty.is_error);
  CHECK(has(empty, "must not be empty"));
  CHECK(c.call("executeSql", R"({"connection":"auto","sql":"SELECT 1","limit":0})").is_error);
  CHECK(c.call("executeSql", R"({"connection":"auto","sql":"SELECT 1","limit":1001})").is_error);
  CHECK(c.call("getSchemaSummary", R"({"connection":"ro","limit":101})").is_error);
  CHECK(c.call("getSchemaSummary", R"({"connection":"ro","offset":-1})").is_error);
  std::string big(32 * 1024 + 1, ' ');
  auto huge = c.call("executeSql", R"({"connection":"auto","sql":"SELECT 1)" + big + R"("})");
  CHECK(huge.is_error);
  CHECK(has(huge, "at most 32768"));
}

TEST_CASE("executeSql at read scope runs a read and refuses a write on a read-write connection") {
  tool_caller c;
  auto read = c.call("executeSql", R"({"connection":"auto","sql":"SELECT name FROM people ORDER BY id","limit":1})",
                     auth::scope::read);
  REQUIRE_FALSE(read.is_error);
  auto v = json::parse_strict(read.texts.at(0));
  REQUIRE(v.ok());
  CHECK(v->at("rows").as_array().size() == 1);
  CHECK(v->at("rowsMoreAvailable").as_bool());
  auto write = c.call("executeSql", R"({"connection":"auto","sql":"DELETE FROM people"})", auth::scope::read);
  CHECK(write.is_error);
  CHECK(c.bench.count() == 5);
}

TEST_CASE("getActiveConnectionContext never shows the password") {
  tool_caller c;
  auto r = c.call("getActiveConnectionContext", R"({"connection":"rw"})");
  REQUIRE_FALSE(r.is_error);
  CHECK_FALSE(has(r, "never-show-this-password"));
  CHECK(has(r, "\"dialect\":\"sqlite\""));
}

TEST_CASE("an off connection gets an error from every tool") {
  tool_caller c;
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
           {"getActiveSql", R"({"connection":"off"})"},
           {"getActiveConnectionContext", R"({"connection":"off"})"},
           {"getSchemaSummary", R"({"connection":"off"})"},
           {"getTableIndexes", R"({"connection":"off","table":"people"})"},
           {"explainSql", R"({"connection":"off","sql":"SELECT 1"})"},
           {"getLatestSqlExecutionError", R"({"connection":"off"})"},
           {"proposeSqlEdit", R"({"connection":"off","sql":"SELECT 1","rationale":"r"})"},
           {"executeSql", R"({"connection":"off","sql":"SELECT 1"})"}}) {
    CAPTURE(name);
    auto r = c.call(name, args);
    CHECK(r.is_error);
    CHECK(has(r, "not available to MCP"));
  }
}

TEST_CASE("SQL failures carry their kind: a missing table, a refused write, an off connection, bad SQL") {
  tool_caller c;
  auto missing = c.call("getTableIndexes", R"({"connection":"ro","table":"nobody"})");
  REQUIRE(missing.is_error);
  CHECK(missing.kind == failure_kind::not_found);
  auto refused = c.call("executeSql", R"({"connection":"auto","sql":"DELETE FROM people"})", auth::scope::read);
  REQUIRE(refused.is_error);
  CHECK(refused.kind == failure_kind::permission_denied);
  auto off = c.call("getActiveSql", R"({"connection":"off"})");
  REQUIRE(off.is_error);
  CHECK(off.kind == failure_kind::unavailable);
  auto bad = c.call("executeSql", R"({"connection":"auto","sql":"SELECT FROM WHERE"})");
  REQUIRE(bad.is_error);
  CHECK(bad.kind == failure_kind::invalid_argument);
  auto no_column = c.call("executeSql", R"({"connection":"auto","sql":"SELECT nope FROM people"})");
  REQUIRE(no_column.is_error);
  CHECK(no_column.kind == failure_kind::invalid_argument);
}
