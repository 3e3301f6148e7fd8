// The session's side of the mcp/transport seam: typed outgoing messages, exported and imported
// state, the envelope rules, oversized lines and ignored lines.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/json.hpp"
#include "common/log.hpp"
#include "mcp/session.hpp"

namespace bj = boost::json;
using namespace omgdb;
using namespace std::chrono_literals;

namespace {

// Everything a session hands over, with its kind and related id.
struct recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<mcp::outgoing> sent;

  mcp::session::send_fn sender() {
    return [this](mcp::outgoing o) {
      std::lock_guard lock(mu);
      sent.push_back(std::move(o));
      cv.notify_all();
    };
  }
  std::vector<mcp::outgoing> snapshot() {
    std::lock_guard lock(mu);
    return sent;
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] { return sent.size() >= n; });
  }
  bj::object last() {
    auto all = snapshot();
    REQUIRE_FALSE(all.empty());
    auto v = json::parse_strict(all.back().text);
    REQUIRE(v.ok());
    return v->as_object();
  }
};

std::string error_message(const bj::object& reply) {
  return std::string(reply.at("error").at("message").as_string());
}

// A tool that waits until cancelled (or 5 s), reporting progress first.
std::vector<mcp::tool> waiting_tool() {
  mcp::tool wait{"wait", "Wait until cancelled.", {}, {true, true, false}, auth::scope::read,
                 [](const bj::object&, mcp::call_context& ctx) {
                   ctx.progress(1, 2, "waiting");
                   auto until = std::chrono::steady_clock::now() + 5s;
                   while (!ctx.is_cancelled() && std::chrono::steady_clock::now() < until) {
                     std::this_thread::sleep_for(2ms);
                   }
                   return mcp::tool_result::text("waited");
                 }};
  return {wait};
}

constexpr std::string_view init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";
constexpr std::string_view initialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::mutex log_mu;
std::vector<std::pair<log::level, std::string>> logged;
void capture(log::level l, std::string_view m) noexcept {
  std::lock_guard lock(log_mu);
  logged.emplace_back(l, std::string(m));
}

}  // namespace

TEST_CASE("the session hands over each message with its kind and the id of the request it concerns") {
  mcp::server srv({}, waiting_tool());
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(R"({"jsonrpc":"2.0","id":"p-1","method":"ping"})");
  REQUIRE(out.snapshot().size() == 1);
  CHECK(out.snapshot()[0].kind == mcp::message_kind::response);
  CHECK(out.snapshot()[0].related == R"("p-1")");

  s->handle_text(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{},)"
                 R"("_meta":{"progressToken":"t"}}})");
  REQUIRE(out.wait_for(3));  // "started" and "waiting"
  s->handle_text(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})");
  s->wait_idle();
  auto all = out.snapshot();
  CHECK(all[1].kind == mcp::message_kind::notification);
  CHECK(all[1].related == "7");
  CHECK(all[2].kind == mcp::message_kind::notification);
  // The cancelled call gets no response; the transport is told so, as data.
  REQUIRE(all.size() == 4);
  CHECK(all[3].kind == mcp::message_kind::abandoned);
  CHECK(all[3].related == "7");
  CHECK(all[3].text.empty());
}

TEST_CASE("the session exports its negotiated version, initialized flag and log level as data") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  CHECK(s->export_state() == mcp::session_state{});
  s->handle_text(init);
  s->handle_text(initialized);
  s->handle_text(R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}})");
  CHECK(s->export_state() == mcp::session_state{"2025-06-18", true, "debug"});

  recorder other_out;
  auto fresh = std::make_shared<mcp::session>(srv, auth::scope::read, other_out.sender());
  REQUIRE(fresh->import_state(s->export_state()).ok());
  CHECK(fresh->export_state() == s->export_state());
  CHECK(fresh->negotiated_version() == "2025-06-18");
  CHECK(fresh->initialized());
  CHECK(other_out.snapshot().empty());  // importing answers nothing
}

TEST_CASE("import_state refuses a version or log level the session would not accept, and changes nothing") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  REQUIRE(s->import_state({"2025-11-25", false, "info"}).ok());
  CHECK_FALSE(s->import_state({"1999-01-01", true, ""}).ok());
  CHECK_FALSE(s->import_state({"", false, std::string(4u << 20, 'x')}).ok());
  CHECK(s->export_state() == mcp::session_state{"2025-11-25", false, "info"});
}

TEST_CASE("a refused logging/setLevel leaves the stored level unchanged") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}})");
  std::string bogus = R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":")" +
                      std::string(4u << 20, 'x') + R"("}})";
  s->handle_text(bogus);
  CHECK(out.last().at("error").at("code") == -32602);
  CHECK(s->export_state().log_level == "error");
}

TEST_CASE("a request whose jsonrpc is not \"2.0\" or is missing is refused with -32600 and its id") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
  auto r = out.last();
  CHECK(r.at("id") == 1);
  CHECK(r.at("error").at("code") == -32600);
  CHECK(error_message(r) == R"(invalid request: `jsonrpc` must be "2.0")");
  s->handle_text(R"({"id":"two","method":"ping"})");
  r = out.last();
  CHECK(r.at("id") == "two");
  CHECK(error_message(r) == R"(invalid request: `jsonrpc` is missing; it must be "2.0")");
  s->handle_text(R"({"jsonrpc":2.0,"id":3,"method":"ping"})");
  CHECK(out.last().at("error").at("code") == -32600);
  // A notification with a bad envelope gets no reply (it cannot be answered).
  s->handle_text(R"({"jsonrpc":"1.0","method":"notifications/initialized"})");
  CHECK(out.snapshot().size() == 3);
  CHECK_FALSE(s->initialized());
}

TEST_CASE("a key repeated in the envelope is refused with -32600 instead of the last one winning") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"})");
  auto r = out.last();
  CHECK(r.at("id") == 1);
  CHECK(r.at("error").at("code") == -32600);
  CHECK(error_message(r) == R"(invalid request: duplicate key "method" in an object)");
  // Deeper repeats are the business of the method (tools/call: a tool error, as before).
  s->handle_text(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"a":1,"a":2}}})");
  CHECK(out.last().contains("result"));
}

TEST_CASE("a second initialize on an initialized session is refused and keeps the negotiated version") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(init);
  // Before notifications/initialized the handshake may be repeated (seed transcripts do so).
  s->handle_text(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})");
  CHECK(out.last().at("result").at("protocolVersion") == "2025-03-26");
  s->handle_text(initialized);
  s->handle_text(R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2024-11-05"}})");
  auto r = out.last();
  CHECK(r.at("id") == 3);
  CHECK(r.at("error").at("code") == -32600);
  CHECK(error_message(r).find("already initialized") != std::string::npos);
  CHECK(s->negotiated_version() == "2025-03-26");
}

TEST_CASE("an oversized line is answered with the id that precedes the cut") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->refuse_oversized(R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"insert","argum)", 100);
  auto r = out.last();
  CHECK(r.at("id") == 42);
  CHECK(r.at("error").at("code") == -32600);
  CHECK(error_message(r) == "request too large: a line exceeds 100 bytes");
  CHECK(out.snapshot().back().related == "42");
  s->refuse_oversized(R"({"method":"tools/call","params":{"a":["}",{"b":"x\"]"}]},"id":"r-\"9\"" ,"x)", 100);
  CHECK(out.last().at("id") == "r-\"9\"");
  // The id comes after the cut, or is itself cut: answered without one, as before.
  s->refuse_oversized(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"insert","argum)", 100);
  CHECK_FALSE(out.last().contains("id"));
  s->refuse_oversized(R"({"jsonrpc":"2.0","id":12)", 100);
  CHECK_FALSE(out.last().contains("id"));
  s->refuse_oversized(R"({"jsonrpc":"2.0","id":"abc)", 100);
  CHECK_FALSE(out.last().contains("id"));
  s->refuse_oversized(R"([{"id":1})", 100);
  CHECK_FALSE(out.last().contains("id"));
}

TEST_CASE("lines the seed says to ignore are ignored with a warning naming the line") {
  mcp::server srv({}, {});
  recorder out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  {
    std::lock_guard lock(log_mu);
    logged.clear();
  }
  log::set_sink(capture);
  s->handle_text("NaN", 3);
  s->handle_text("{\"a\":\"\xff\"}", 4);
  s->handle_text(R"({"s":"\ud800"})", 5);
  s->handle_text(std::string(200, '[') + std::string(200, ']'), 6);
  s->handle_text("[]", 7);
  s->handle_text(R"({"jsonrpc":"2.0","id":1})", 8);
  s->handle_text("   ", 9);  // blank: silent
  log::set_sink(nullptr);
  CHECK(out.snapshot().empty());
  std::lock_guard lock(log_mu);
  REQUIRE(logged.size() == 6);
  for (int i = 0; i < 6; ++i) {
    CHECK(logged[i].first == log::level::warning);
    CHECK(logged[i].second.find("input line " + std::to_string(i + 3) + ":") != std::string::npos);
  }
}
