#include <doctest/doctest.h>

#include <functional>
#include <thread>
#include <vector>

#include "transports/http_sessions.hpp"

using namespace omgdb;
using namespace omgdb::transports::http;

namespace {

request_view post(std::optional<std::string> session = std::nullopt) {
  request_view r;
  r.method = "POST";
  r.target = "/mcp";
  r.host = "127.0.0.1:41922";
  r.accept = "application/json, text/event-stream";
  r.content_type = "application/json";
  r.session_id = std::move(session);
  r.protocol_version = "2025-11-25";
  return r;
}

constexpr std::string_view init_body =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

std::vector<mcp::tool> tools(std::thread::id& ran_on) {
  mcp::tool quick{"quick", "Quick.", {}, {true, true, false}, auth::scope::read,
                  [&ran_on](const boost::json::object&, mcp::call_context&) {
                    ran_on = std::this_thread::get_id();
                    return mcp::tool_result::text("quick");
                  }};
  quick.quick = true;
  return {quick};
}

}  // namespace

TEST_CASE("on the event loop a quick tool's reply is in the POST's outlet when handle_post returns") {
  std::thread::id ran_on;
  mcp::server srv({}, tools(ran_on));
  std::vector<std::function<void()>> posted;
  session_table table(srv, auth::scope::read, {}, [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });
  table.set_on_loop([] { return true; });
  auto init = table.handle_post(post(), init_body);
  REQUIRE(init.out);
  CHECK(init.out->out.size() == 1);  // initialize's reply, routed at once
  auto sid = init.session->id();
  auto call = table.handle_post(
      post(sid), R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{}}})");
  REQUIRE(call.out);
  CHECK(ran_on == std::this_thread::get_id());
  REQUIRE(call.out->out.size() == 1);
  CHECK(call.out->out[0].find(R"("text":"quick")") != std::string::npos);
  CHECK(call.out->finished);
  CHECK(posted.empty());
  table.close_all();
}

TEST_CASE("without the loop check a session's messages are posted to the loop, not routed in place") {
  std::thread::id ran_on;
  mcp::server srv({}, tools(ran_on));
  std::vector<std::function<void()>> posted;
  session_table table(srv, auth::scope::read, {}, [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });
  auto init = table.handle_post(post(), init_body);
  REQUIRE(init.out);
  CHECK(init.out->out.empty());
  REQUIRE(posted.size() == 1);
  posted[0]();
  CHECK(init.out->out.size() == 1);
  table.close_all();
}
