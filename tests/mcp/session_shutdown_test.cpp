// Issue 29, items 3 and 10, at the dispatcher: a shutdown sets every call's flag with reason
// `shutdown` and each still answers; calls that arrive later are refused; a call that ignores
// its flag is handed to the abandon hook, at the end of the orderly stop or by the watchdog;
// sessions sharing an owner key (one bearer token) share one share of the workers; and a
// call that finished although its client went away is logged `ok` with the note "client gone".
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/json.hpp"
#include "mcp/call_history.hpp"
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
      if (o.kind != mcp::message_kind::response) return;
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

std::atomic<int> running{0};
std::atomic<bool> release_stuck{false};

// `spin` polls its flag (as an engine loop does) and stops when it is set; `stuck` ignores it
// until the test releases it; `commit` has "committed" and then waits for its flag before it
// returns its result, as a write whose client hangs up after the commit; `echo` answers.
std::vector<mcp::tool> tools() {
  auto hints = mcp::annotations{true, true, false};
  mcp::tool spin{"spin", "Loop until cancelled.", {}, hints, auth::scope::read,
                 [](const bj::object&, mcp::call_context& ctx) {
                   ++running;
                   auto give_up = std::chrono::steady_clock::now() + 20s;
                   while (!ctx.is_cancelled() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
                   --running;
                   if (ctx.is_cancelled()) return mcp::tool_result::failure("stopped", failure_kind::unavailable);
                   return mcp::tool_result::text("finished");
                 }};
  mcp::tool stuck{"stuck", "Ignore the flag.", {}, hints, auth::scope::read,
                  [](const bj::object&, mcp::call_context&) {
                    ++running;
                    auto give_up = std::chrono::steady_clock::now() + 20s;
                    while (!release_stuck.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
                    --running;
                    return mcp::tool_result::text("released");
                  }};
  mcp::tool commit{"commit", "Commit, then notice the flag.", {}, hints, auth::scope::read,
                   [](const bj::object&, mcp::call_context& ctx) {
                     ++running;
                     auto give_up = std::chrono::steady_clock::now() + 20s;
                     while (!ctx.is_cancelled() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
                     --running;
                     return mcp::tool_result::text("{\"insertedCount\":1}");
                   }};
  mcp::tool echo{"echo", "Echo.", {}, hints, auth::scope::read,
                 [](const bj::object&, mcp::call_context&) { return mcp::tool_result::text("echo"); }};
  return {spin, stuck, commit, echo};
}

std::string call(int id, const std::string& name) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + name +
         R"(","arguments":{}}})";
}

std::string text_of(const bj::object& r) { return std::string(r.at("result").at("content").at(0).at("text").as_string()); }
bool is_error(const bj::object& r) { return r.at("result").at("isError").as_bool(); }

void wait_running(int n) {
  for (int i = 0; i < 5000 && running.load() < n; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(running.load() >= n);
}

}  // namespace

TEST_CASE("a shutdown stops every running call through its flag and each still answers") {
  mcp::server_options opts;
  opts.workers = 3;
  opts.session_workers = 3;
  mcp::server srv(opts, tools());
  outbox a, b;
  auto s1 = std::make_shared<mcp::session>(srv, auth::scope::read, a.sender());
  auto s2 = std::make_shared<mcp::session>(srv, auth::scope::read, b.sender());
  s1->handle_text(call(1, "spin"));
  s2->handle_text(call(2, "spin"));
  wait_running(2);
  auto started = std::chrono::steady_clock::now();
  srv.begin_shutdown(5s);
  CHECK(srv.stopping());
  CHECK(srv.drain());
  CHECK(std::chrono::steady_clock::now() - started < 1s);
  auto r1 = a.wait_response(1, 1s);
  auto r2 = b.wait_response(2, 1s);
  REQUIRE(r1);
  REQUIRE(r2);
  CHECK(is_error(*r1));
  CHECK(is_error(*r2));
}

TEST_CASE("a call that arrives after the shutdown began is refused without running") {
  mcp::server_options opts;
  opts.workers = 2;
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  srv.begin_shutdown(1s);
  s->handle_text(call(7, "echo"));
  auto r = out.wait_response(7, 1s);
  REQUIRE(r);
  CHECK(is_error(*r));
  CHECK(text_of(*r).find("the server is shutting down") != std::string::npos);
}

TEST_CASE("a call queued behind a stuck one is answered, not dropped, when the shutdown stops it") {
  release_stuck = false;
  mcp::server_options opts;
  opts.workers = 1;
  opts.session_workers = 1;
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "stuck"));
  wait_running(1);
  s->handle_text(call(2, "echo"));  // waits for the one worker
  srv.begin_shutdown(100ms);
  CHECK_FALSE(srv.drain());  // the stuck call ignores its flag past the deadline
  release_stuck = true;
  auto queued = out.wait_response(2, 5s);
  REQUIRE(queued);
  CHECK(is_error(*queued));
  CHECK(text_of(*queued).find("was not started: the server is shutting down") != std::string::npos);
  s->wait_idle();
}

TEST_CASE("calls that ignore their flag past the deadline are handed to the abandon hook, by the stop or the watchdog") {
  release_stuck = false;
  std::mutex mu;
  std::vector<bool> calls;  // the `overdue` argument of each call of the hook
  mcp::server_options opts;
  opts.workers = 2;
  opts.overdue_margin = 200ms;
  opts.on_abandon = [&](bool overdue) {
    std::lock_guard lock(mu);
    calls.push_back(overdue);
  };
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "stuck"));
  wait_running(1);
  srv.abandon_stuck_calls();  // no shutdown yet: nothing to abandon
  {
    std::lock_guard lock(mu);
    CHECK(calls.empty());
  }
  auto started = std::chrono::steady_clock::now();
  srv.begin_shutdown(100ms);
  CHECK_FALSE(srv.drain());
  CHECK(std::chrono::steady_clock::now() - started < 1s);
  srv.abandon_stuck_calls();  // the end of the orderly stop
  std::this_thread::sleep_for(400ms);  // past the deadline + the margin: the watchdog fires
  {
    std::lock_guard lock(mu);
    REQUIRE(calls.size() == 2);
    CHECK(calls[0] == false);
    CHECK(calls[1] == true);
  }
  release_stuck = true;
  s->wait_idle();
}

TEST_CASE("sessions sharing one owner key occupy one share of the workers together") {
  release_stuck = false;
  mcp::server_options opts;
  opts.workers = 2;
  opts.session_workers = 1;
  mcp::server srv(opts, tools());
  outbox a, b, c, other;
  auto token = std::make_shared<char>('\0');
  std::vector<std::shared_ptr<mcp::session>> same_token;
  outbox* boxes[] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    auto s = std::make_shared<mcp::session>(srv, auth::scope::read, boxes[i]->sender());
    s->set_share_owner(token);
    s->handle_text(call(10 + i, "stuck"));
    same_token.push_back(s);
  }
  wait_running(1);
  std::this_thread::sleep_for(50ms);
  CHECK(running.load() == 1);  // the token's other two calls wait for its share
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, other.sender());
  auto started = std::chrono::steady_clock::now();
  s->handle_text(call(20, "echo"));
  auto r = other.wait_response(20, 5s);
  REQUIRE(r);
  CHECK(text_of(*r) == "echo");
  CHECK(std::chrono::steady_clock::now() - started < 500ms);
  release_stuck = true;
  for (auto& t : same_token) t->wait_idle();
}

TEST_CASE("a call that finished although its client went away is logged ok with the note client gone") {
  auto history = std::make_shared<mcp::call_history>();
  std::atomic<bool> flagged_event{true};
  mcp::server_options opts;
  opts.workers = 2;
  opts.on_call = [&](const mcp::call_event& e) {
    flagged_event = e.cancelled;
    history->record(e);
  };
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(3, "commit"));
  wait_running(1);
  CHECK(s->cancel_request("3"));  // the client hangs up after the commit
  s->wait_idle();
  CHECK_FALSE(flagged_event.load());
  auto recent = history->recent({}, 1);
  REQUIRE(recent.size() == 1);
  CHECK(recent[0].outcome == "ok");
  CHECK(recent[0].note == "client gone");
  CHECK(mcp::to_json(recent[0]).at("note") == "client gone");
}

TEST_CASE("a call stopped by its flag is still logged cancelled, without a note") {
  auto history = std::make_shared<mcp::call_history>();
  mcp::server_options opts;
  opts.workers = 2;
  opts.on_call = [&](const mcp::call_event& e) { history->record(e); };
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(4, "spin"));
  wait_running(1);
  CHECK(s->cancel_request("4"));
  s->wait_idle();
  auto recent = history->recent({}, 1);
  REQUIRE(recent.size() == 1);
  CHECK(recent[0].outcome == "cancelled");
  CHECK(recent[0].note.empty());
}

TEST_CASE("a call past its deadline by more than the grace counts as overdue; one within it does not") {
  release_stuck = false;
  mcp::server_options opts;
  opts.workers = 2;
  opts.call_timeout = 50ms;
  mcp::server srv(opts, tools());
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(5, "stuck"));
  wait_running(1);
  CHECK_FALSE(s->overdue(10s));
  std::this_thread::sleep_for(200ms);
  CHECK(s->overdue(100ms));
  CHECK_FALSE(s->overdue(10s));
  release_stuck = true;
  s->wait_idle();
}
