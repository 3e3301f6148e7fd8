// The per-call deadline and the per-session share of the worker pool (issue 16, item 1): a
// call past its deadline is stopped through its cancellation flag and still answered; a call
// whose client went away is stopped and not answered; one session flooding the pool leaves a
// worker for another session's call.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/json.hpp"
#include "mcp/session.hpp"

namespace bj = boost::json;
using namespace omgdb;
using namespace std::chrono_literals;

namespace {

struct outbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bj::object> messages;
  mcp::session::send_fn sender() {
    return [this](mcp::outgoing o) {
      if (o.kind == mcp::message_kind::abandoned) return;
      auto v = json::parse_strict(o.text);
      REQUIRE(v.ok());
      std::lock_guard lock(mu);
      messages.push_back(v->as_object());
      cv.notify_all();
    };
  }
  std::optional<bj::object> wait_response(int id, std::chrono::milliseconds within) {
    std::unique_lock lock(mu);
    std::optional<bj::object> found;
    cv.wait_for(lock, within, [&] {
      for (auto& m : messages) {
        if (m.contains("id") && m.at("id") == bj::value(id)) found = m;
      }
      return found.has_value();
    });
    return found;
  }
};

const char* reason_name(mcp::cancel_reason r) {
  switch (r) {
    case mcp::cancel_reason::deadline: return "deadline";
    case mcp::cancel_reason::client_gone: return "client_gone";
    case mcp::cancel_reason::client: return "client";
    case mcp::cancel_reason::shutdown: return "shutdown";
    default: return "none";
  }
}

std::atomic<int> spinning{0};

// `spin` runs until its flag is set (as an engine loop polls it), then reports why and the
// deadline it was given; `echo` answers at once.
std::vector<mcp::tool> tools() {
  mcp::tool spin{"spin", "Loop until cancelled.", {}, {true, true, false}, auth::scope::read,
                 [](const bj::object&, mcp::call_context& ctx) {
                   ++spinning;
                   auto give_up = std::chrono::steady_clock::now() + 20s;
                   while (!ctx.is_cancelled() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
                   --spinning;
                   return mcp::tool_result::text(std::string(reason_name(ctx.why_cancelled())) + " " +
                                                 std::to_string(ctx.deadline.count()));
                 }};
  mcp::tool echo{"echo", "Echo.", {}, {true, true, false}, auth::scope::read,
                 [](const bj::object&, mcp::call_context&) { return mcp::tool_result::text("echo"); }};
  return {spin, echo};
}

std::string call(int id, const std::string& name) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + name +
         R"(","arguments":{}}})";
}

std::string text_of(const bj::object& r) { return std::string(r.at("result").at("content").at(0).at("text").as_string()); }

void wait_spinning(int n) {
  for (int i = 0; i < 5000 && spinning.load() < n; ++i) std::this_thread::sleep_for(1ms);
}

}  // namespace

TEST_CASE("a call past its deadline has its cancellation flag set for the deadline and is still answered") {
  mcp::server_options opts;
  opts.workers = 2;
  opts.call_timeout = 150ms;
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  auto started = std::chrono::steady_clock::now();
  s->handle_text(call(1, "spin"));
  auto r = out.wait_response(1, 10s);
  REQUIRE(r);
  CHECK(text_of(*r) == "deadline 150");
  CHECK(std::chrono::steady_clock::now() - started >= 150ms);
  CHECK(srv.deadlines().armed() == 0);
}

TEST_CASE("a call that ends before its deadline leaves nothing armed and is not cancelled") {
  mcp::server_options opts;
  opts.call_timeout = 60s;
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "echo"));
  s->wait_idle();
  auto r = out.wait_response(1, 1s);
  REQUIRE(r);
  CHECK(text_of(*r) == "echo");
  CHECK(srv.deadlines().armed() == 0);
}

TEST_CASE("a call whose client went away is stopped through its flag and gets no reply") {
  mcp::server_options opts;
  opts.workers = 2;
  opts.call_timeout = 0ms;  // no deadline: only the client's going away stops it
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  spinning = 0;
  s->handle_text(call(7, "spin"));
  wait_spinning(1);
  REQUIRE(spinning.load() == 1);
  CHECK(s->cancel_request("7"));
  CHECK_FALSE(s->cancel_request("8"));
  s->wait_idle();
  CHECK(spinning.load() == 0);
  CHECK_FALSE(out.wait_response(7, 50ms).has_value());
}

TEST_CASE("one session flooding the pool leaves a worker for another session's call") {
  mcp::server_options opts;
  opts.workers = 3;  // a session may occupy 2
  opts.call_timeout = 0ms;
  mcp::server srv(opts, tools());
  outbox flood_out, other_out;
  auto flood = std::make_shared<mcp::session>(srv, auth::scope::read, flood_out.sender());
  auto other = std::make_shared<mcp::session>(srv, auth::scope::read, other_out.sender());
  spinning = 0;
  for (int i = 1; i <= 6; ++i) flood->handle_text(call(i, "spin"));
  wait_spinning(2);
  std::this_thread::sleep_for(50ms);
  CHECK(spinning.load() == 2);  // its share; the other four wait in the queue
  other->handle_text(call(1, "echo"));
  auto r = other_out.wait_response(1, 5s);
  REQUIRE(r);
  CHECK(text_of(*r) == "echo");
  // The flood's own next call waits its turn behind its share, not in front of it.
  flood->handle_text(call(9, "spin"));
  std::this_thread::sleep_for(50ms);
  CHECK(spinning.load() == 2);
  flood->cancel_all();
  flood->wait_idle();
  CHECK(spinning.load() == 0);
}
