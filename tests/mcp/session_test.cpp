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

// Collects what a session sends and lets a test wait for it.
struct outbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bj::object> messages;

  mcp::session::send_fn sender() {
    return [this](mcp::outgoing o) {
      if (o.kind == mcp::message_kind::abandoned) return;  // not a message
      auto v = json::parse_strict(o.text);
      REQUIRE(v.ok());
      std::lock_guard lock(mu);
      messages.push_back(v->as_object());
      cv.notify_all();
    };
  }
  std::vector<bj::object> snapshot() {
    std::lock_guard lock(mu);
    return messages;
  }
  std::optional<bj::object> response(int id) {
    for (auto& m : snapshot()) {
      if (m.contains("id") && m.at("id") == bj::value(id)) return m;
    }
    return std::nullopt;
  }
  bool wait_for_count(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] { return messages.size() >= n; });
  }
};

// A gate a tool handler waits on, so a test controls when a call finishes.
struct gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int entered = 0;
  void pass(const mcp::call_context& ctx) {
    std::unique_lock lock(mu);
    ++entered;
    cv.notify_all();
    // Cancellation is a flag handlers poll, as engine scans do.
    while (!open && !ctx.is_cancelled()) cv.wait_for(lock, 5ms);
  }
  void release() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
  void wait_entered(int n) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, 5s, [&] { return entered >= n; });
  }
};

std::vector<mcp::tool> test_tools(gate& g) {
  mcp::tool echo{"echo", "Echo the text.", {{"text", mcp::param_type::string, true}}, {true, true, false},
                 auth::scope::read, [](const bj::object& a, mcp::call_context&) {
                   return mcp::tool_result::text(std::string(a.at("text").as_string()));
                 }};
  mcp::tool write{"write_thing", "Write.", {}, {}, auth::scope::read_write,
                  [](const bj::object&, mcp::call_context&) { return mcp::tool_result::text("written"); }};
  mcp::tool wait{"wait", "Wait at the gate, reporting progress.", {}, {true, true, false}, auth::scope::read,
                 [&g](const bj::object&, mcp::call_context& ctx) {
                   ctx.progress(1, 4, "started");
                   ctx.progress(1, 4, "repeated value is dropped");
                   ctx.progress(2, 4, "");
                   g.pass(ctx);
                   return mcp::tool_result::text("waited");
                 }};
  mcp::tool boom{"boom", "Throws.", {}, {}, auth::scope::read,
                 [](const bj::object&, mcp::call_context&) -> mcp::tool_result {
                   throw std::runtime_error("kaput");
                 }};
  return {echo, write, wait, boom};
}

std::string call(int id, const std::string& name, const std::string& args = "{}", const std::string& meta = "") {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" +
         name + R"(","arguments":)" + args + (meta.empty() ? "" : R"(,"_meta":)" + meta) + "}}";
}

std::string text_of(const bj::object& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

}  // namespace

TEST_CASE("a read-scope session never sees write tools") {
  gate g;
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  auto r = out.response(1);
  REQUIRE(r);
  std::vector<std::string> names;
  for (auto& t : r->at("result").at("tools").as_array()) names.emplace_back(t.at("name").as_string());
  CHECK(names == std::vector<std::string>{"echo", "wait", "boom"});
}

TEST_CASE("a call above the ceiling is refused with the seed's text and never runs") {
  gate g;
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(2, "write_thing"));
  s->wait_idle();
  auto r = out.response(2);
  REQUIRE(r);
  CHECK(r->at("result").at("isError") == true);
  CHECK(text_of(*r) == "Error: tool `write_thing` requires `read-write` scope but this server runs with `read` scope");
}

TEST_CASE("tool calls run on workers and may complete out of order") {
  gate g;
  mcp::server_options opts;
  opts.workers = 3;  // one session may occupy all but one
  mcp::server srv(opts, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "wait"));
  g.wait_entered(1);
  s->handle_text(call(2, "echo", R"({"text":"fast"})"));
  REQUIRE(out.wait_for_count(1));
  CHECK(out.response(2).has_value());
  CHECK_FALSE(out.response(1).has_value());
  g.release();
  s->wait_idle();
  REQUIRE(out.response(1));
  CHECK(text_of(*out.response(1)) == "waited");
}

TEST_CASE("a cancelled call gets no reply") {
  gate g;
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(5, "wait"));
  g.wait_entered(1);
  s->handle_text(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}})");
  s->wait_idle();
  CHECK_FALSE(out.response(5).has_value());
  s->handle_text(R"({"jsonrpc":"2.0","id":6,"method":"ping"})");
  CHECK(out.response(6).has_value());
}

TEST_CASE("progress notifications echo the client's token and strictly increase") {
  gate g;
  g.release();
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(7, "wait", "{}", R"({"progressToken":"tok-1"})"));
  s->wait_idle();
  std::vector<double> seen;
  for (auto& m : out.snapshot()) {
    if (m.contains("method") && m.at("method") == "notifications/progress") {
      CHECK(m.at("params").at("progressToken") == "tok-1");
      seen.push_back(m.at("params").at("progress").to_number<double>());
    }
  }
  REQUIRE(seen.size() == 3);  // 0 as the call starts, then the handler's 1 and 2 (1 repeated is dropped)
  CHECK(seen[0] == 0);
  CHECK(seen[1] == 1);
  CHECK(seen[2] == 2);
  CHECK(out.response(7).has_value());
}

TEST_CASE("no progress notification is sent without a progress token") {
  gate g;
  g.release();
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(8, "wait"));
  s->wait_idle();
  CHECK(out.snapshot().size() == 1);
}

TEST_CASE("a full queue answers server busy instead of growing") {
  gate g;
  mcp::server_options opts;
  opts.workers = 1;
  opts.max_queue = 1;
  mcp::server srv(opts, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "wait"));
  g.wait_entered(1);
  s->handle_text(call(2, "echo", R"({"text":"queued"})"));
  s->handle_text(call(3, "echo", R"({"text":"refused"})"));
  auto busy = out.response(3);
  REQUIRE(busy);
  CHECK(text_of(*busy).rfind("Error: server busy", 0) == 0);
  // The kind says it: worth retrying, whatever the message's words.
  const auto& meta = busy->at("result").at("_meta").at("error");
  CHECK(meta.at("kind") == bj::value("busy"));
  CHECK(meta.at("retryable") == bj::value(true));
  g.release();
  s->wait_idle();
  CHECK(text_of(*out.response(2)) == "queued");
}

TEST_CASE("a session over its in-flight limit gets a busy error while other sessions keep calling") {
  gate g;
  mcp::server_options opts;
  opts.workers = 4;
  opts.max_in_flight = 2;
  mcp::server srv(opts, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "wait"));
  s->handle_text(call(2, "wait"));
  g.wait_entered(2);
  s->handle_text(call(3, "echo", R"({"text":"third"})"));
  auto busy = out.response(3);
  REQUIRE(busy);
  CHECK(busy->at("result").at("isError") == bj::value(true));
  CHECK(text_of(*busy).rfind("Error: session busy: this session already has 2 tool calls in flight", 0) == 0);

  outbox other_out;
  auto other = std::make_shared<mcp::session>(srv, auth::scope::read, other_out.sender());
  other->handle_text(call(1, "echo", R"({"text":"other"})"));
  other->wait_idle();
  CHECK(text_of(*other_out.response(1)) == "other");

  g.release();
  s->wait_idle();
  s->handle_text(call(4, "echo", R"({"text":"after"})"));
  s->wait_idle();
  CHECK(text_of(*out.response(4)) == "after");
}

TEST_CASE("a handler that throws becomes an isError result and the session keeps serving") {
  gate g;
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "boom"));
  s->wait_idle();
  auto r = out.response(1);
  REQUIRE(r);
  CHECK(r->at("result").at("isError") == true);
  CHECK(text_of(*r) == "Error: internal error in `boom`: kaput");
  s->handle_text(call(2, "echo", R"({"text":"still here"})"));
  s->wait_idle();
  CHECK(text_of(*out.response(2)) == "still here");
}

TEST_CASE("log notifications follow the level the client set") {
  gate g;
  mcp::server srv({}, test_tools(g));
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->handle_text(call(1, "echo", R"({"text":"a"})"));
  s->wait_idle();
  CHECK(out.snapshot().size() == 1);  // default level warning: the debug timing line is not sent
  s->handle_text(R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}})");
  s->handle_text(call(3, "echo", R"({"text":"b"})"));
  s->wait_idle();
  bool saw_log = false;
  for (auto& m : out.snapshot()) {
    if (m.contains("method") && m.at("method") == "notifications/message") {
      saw_log = true;
      CHECK(m.at("params").at("level") == "debug");
      CHECK(std::string(m.at("params").at("data").as_string()).rfind("tool echo took", 0) == 0);
    }
  }
  CHECK(saw_log);
}

TEST_CASE("a quick tool runs on the handing-over thread when the session allows it, others on workers") {
  std::thread::id quick_thread, slow_thread;
  mcp::tool quick{"quick", "Quick.", {}, {true, true, false}, auth::scope::read,
                  [&](const bj::object&, mcp::call_context& ctx) {
                    quick_thread = std::this_thread::get_id();
                    ctx.progress(1, 1, "done");
                    return mcp::tool_result::text("quick");
                  }};
  quick.quick = true;
  mcp::tool slow{"slow", "Slow.", {}, {true, true, false}, auth::scope::read,
                 [&](const bj::object&, mcp::call_context&) {
                   slow_thread = std::this_thread::get_id();
                   return mcp::tool_result::text("slow");
                 }};
  mcp::server srv({}, {quick, slow});
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());

  s->handle_text(call(1, "quick"));  // not allowed yet: the pool runs it
  s->wait_idle();
  CHECK(quick_thread != std::this_thread::get_id());
  while (!srv.pool().idle()) std::this_thread::sleep_for(1ms);  // the worker finishes its job

  s->set_run_quick_inline(true);
  s->handle_text(call(2, "quick", "{}", R"({"progressToken":"t"})"));
  // Answered before handle_text returned, on this thread, with its progress notifications.
  auto r = out.response(2);
  REQUIRE(r);
  CHECK(text_of(*r) == "quick");
  CHECK(quick_thread == std::this_thread::get_id());
  int progress = 0;
  for (auto& m : out.snapshot()) {
    if (m.contains("method") && m.at("method") == "notifications/progress") ++progress;
  }
  CHECK(progress == 2);  // "started" and "done"

  s->handle_text(call(3, "slow"));
  s->wait_idle();
  REQUIRE(out.response(3));
  CHECK(slow_thread != std::this_thread::get_id());
}

TEST_CASE("a quick tool goes to the pool while a worker is busy, so it never waits behind a long call") {
  gate g;
  auto tools = test_tools(g);
  std::thread::id quick_thread;
  mcp::tool quick{"quick", "Quick.", {}, {true, true, false}, auth::scope::read,
                  [&](const bj::object&, mcp::call_context&) {
                    quick_thread = std::this_thread::get_id();
                    return mcp::tool_result::text("quick");
                  }};
  quick.quick = true;
  tools.push_back(quick);
  mcp::server_options opts;
  opts.workers = 2;
  mcp::server srv(opts, tools);
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->set_run_quick_inline(true);
  s->handle_text(call(1, "wait"));
  g.wait_entered(1);
  s->handle_text(call(2, "quick"));
  REQUIRE(out.wait_for_count(1));
  CHECK(out.response(2).has_value());
  CHECK_FALSE(out.response(1).has_value());
  CHECK(quick_thread != std::this_thread::get_id());
  g.release();
  s->wait_idle();
  CHECK(out.response(1).has_value());
}

TEST_CASE("a quick tool that warms a resource runs inline only once a call on that resource has finished") {
  std::thread::id ran_on;
  mcp::tool quick{"quick", "Quick once its store is open.", {{"path", mcp::param_type::string, true}},
                  {true, true, false}, auth::scope::read, [&](const bj::object&, mcp::call_context&) {
                    ran_on = std::this_thread::get_id();
                    return mcp::tool_result::text("quick");
                  }};
  quick.quick = true;
  quick.quick_once_warm = "path";
  mcp::server srv({}, {quick});
  outbox out;
  auto s = std::make_shared<mcp::session>(srv, auth::scope::read, out.sender());
  s->set_run_quick_inline(true);
  auto run = [&](int id, const std::string& path) {
    s->handle_text(call(id, "quick", R"({"path":")" + path + R"("})"));
    s->wait_idle();
    while (!srv.pool().idle()) std::this_thread::sleep_for(1ms);
    REQUIRE(out.response(id));
    return ran_on == std::this_thread::get_id();
  };
  CHECK_FALSE(run(1, "/a"));  // the first call on /a may open it: a worker runs it
  CHECK(run(2, "/a"));
  CHECK_FALSE(run(3, "/b"));
  CHECK(run(4, "/b"));
  CHECK(run(5, "/a"));
}
