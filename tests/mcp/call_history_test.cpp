#include <doctest/doctest.h>

#include <string>

#include <boost/json/serialize.hpp>

#include "mcp/call_history.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

mcp::call_event event(std::string_view tool, const bj::object* args, const mcp::tool_result* r) {
  mcp::call_event e;
  e.tool = tool;
  e.session = "stdio";
  e.session_id = "mcp-1-1";
  e.milliseconds = 2.5;
  e.is_error = r && r->is_error;
  e.arguments = args;
  e.result = r;
  return e;
}

}  // namespace

TEST_CASE("a call history keeps the store or connection, the outcome and the error text, never the result") {
  mcp::call_history h(10);
  bj::object find_args{{"path", "/data/a"}, {"collection", "users"}, {"filter", bj::object{{"name", "secret"}}}};
  auto rows = mcp::tool_result::text("{\"_id\":1,\"name\":\"secret\"}");
  h.record(event("find", &find_args, &rows));
  bj::object sql_args{{"connection", "app"}, {"sql", "INSERT INTO t VALUES ('secret')"}};
  auto failed = mcp::tool_result::failure("UNIQUE constraint failed: t.x");
  h.record(event("executeSql", &sql_args, &failed));

  auto all = h.recent({}, 10);
  REQUIRE(all.size() == 2);
  CHECK(all[0].tool == "executeSql");  // newest first
  CHECK(all[0].connection == "app");
  CHECK(all[0].outcome == "error");
  CHECK(all[0].error == "UNIQUE constraint failed: t.x");
  CHECK(all[1].store == "/data/a");
  CHECK(all[1].outcome == "ok");
  CHECK(all[1].error.empty());
  std::string text = bj::serialize(mcp::to_json(all));
  CHECK(text.find("secret") == std::string::npos);
  CHECK(text.find("INSERT") == std::string::npos);
}

TEST_CASE("a call history is bounded and filters by store, connection and session") {
  mcp::call_history h(3);
  for (int i = 0; i < 5; ++i) {
    bj::object args{{"path", "/s" + std::to_string(i % 2)}};
    h.record(event("count", &args, nullptr));
  }
  CHECK(h.size() == 3);
  auto s1 = h.recent({"/s1", "", ""}, 10);
  CHECK(s1.size() == 1);  // of calls 2..4 only call 3 named /s1
  CHECK(h.recent({"", "app", ""}, 10).empty());
  CHECK(h.recent({}, 2).size() == 2);
  CHECK(h.stores() == std::vector<std::string>{"/s0", "/s1"});
  REQUIRE(h.last_of("mcp-1-1"));
  CHECK(h.last_of("mcp-1-1")->seq == 5);
  CHECK_FALSE(h.last_of("other"));
}

TEST_CASE("an error text longer than the bound is cut on a character boundary") {
  mcp::call_history h(2);
  auto failed = mcp::tool_result::failure(std::string(299, 'x') + "é and more");
  h.record(event("find", nullptr, &failed));
  auto r = h.recent({}, 1).at(0);
  CHECK(r.error.size() <= mcp::call_history::max_error_bytes + 3);
  CHECK(r.error.substr(0, 299) == std::string(299, 'x'));
  CHECK(r.error.substr(299) == "…");  // the 2-byte é would not fit whole
}
