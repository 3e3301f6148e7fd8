// The stdio transport's writer under concurrency (run under ThreadSanitizer by `make
// test-tsan`): many tool calls answered from the worker pool while the reader thread answers
// quick ones inline and progress notifications leave from the workers, all through the one
// line writer to one pipe. Every line on stdout must be one whole JSON-RPC message, every
// request answered exactly once, and a call's progress must leave before its answer.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/json.hpp"
#include "transports/stdio.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

std::vector<mcp::tool> chatty_tools() {
  mcp::tool echo{"echo", "Echo the text.", {{"text", mcp::param_type::string, true}}, {true, true, false},
                 auth::scope::read, [](const bj::object& a, mcp::call_context&) {
                   return mcp::tool_result::text(std::string(a.at("text").as_string()));
                 }};
  mcp::tool chatty{"chatty", "Report progress a few times, then answer.", {{"steps", mcp::param_type::integer, true}},
                   {true, true, false}, auth::scope::read, [](const bj::object& a, mcp::call_context& ctx) {
                     const auto steps = a.at("steps").to_number<int>();
                     for (int i = 1; i <= steps; ++i) {
                       ctx.progress(i, steps, "step " + std::to_string(i));
                       if (i % 3 == 0) std::this_thread::yield();
                     }
                     return mcp::tool_result::text(std::string(4096, 'x'));  // several writes' worth together
                   }};
  return {echo, chatty};
}

// Runs run_stdio over pipes: `input` is written by a thread of its own in pieces of
// `chunk` bytes, and everything stdout carried comes back.
std::string run_over_pipes(mcp::server& srv, const std::string& input, std::size_t chunk, bool close_stdout_early = false) {
  int in[2], out[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  std::string got;
  std::thread reader([&] {
    char buf[8192];
    std::size_t total = 0;
    while (true) {
      if (close_stdout_early && total > 2000) break;
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
      total += static_cast<std::size_t>(n);
    }
    ::close(out[0]);
  });
  std::thread writer([&] {
    for (std::size_t at = 0; at < input.size(); at += chunk) {
      const std::string piece = input.substr(at, chunk);
      if (::write(in[1], piece.data(), piece.size()) != static_cast<ssize_t>(piece.size())) break;
    }
    ::close(in[1]);
  });
  transports::stdio_options o;
  o.in_fd = in[0];
  o.out_fd = out[1];
  const int rc = transports::run_stdio(srv, auth::scope::read, o);
  CHECK(rc == 0);
  ::close(out[1]);
  ::close(in[0]);
  writer.join();
  reader.join();
  return got;
}

std::string call(int id, const std::string& name, const std::string& args, bool progress) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + name +
         R"(","arguments":)" + args + (progress ? R"(,"_meta":{"progressToken":"p)" + std::to_string(id) + R"("})" : "") +
         "}}\n";
}

}  // namespace

TEST_CASE("concurrent answers and progress through the stdio writer leave as whole lines, each request answered once") {
  mcp::server_options opts;
  opts.workers = 4;
  opts.max_queue = 1024;
  mcp::server srv(opts, chatty_tools());
  std::string input;
  constexpr int k_calls = 240;
  for (int id = 1; id <= k_calls; ++id) {
    if (id % 3 == 0) {
      input += call(id, "echo", R"({"text":"hello )" + std::to_string(id) + R"("})", false);
    } else {
      input += call(id, "chatty", R"({"steps":)" + std::to_string(1 + id % 7) + "}", id % 2 == 0);
    }
    if (id % 40 == 0) input += R"({"jsonrpc":"2.0","id":"ping)" + std::to_string(id) + R"(","method":"ping"})" "\n";
  }
  // Pieces that cut lines in the middle, so the reader holds and releases the writer often.
  const std::string out = run_over_pipes(srv, input, 777);

  std::map<std::string, int> answers;
  std::map<std::string, double> last_progress;  // per progress token
  std::map<std::string, bool> answered_before_progress;
  std::size_t start = 0;
  int lines = 0;
  while (start < out.size()) {
    const auto nl = out.find('\n', start);
    REQUIRE_MESSAGE(nl != std::string::npos, "the output ends inside a line");
    const std::string line = out.substr(start, nl - start);
    start = nl + 1;
    ++lines;
    auto v = json::parse_strict(line);
    REQUIRE_MESSAGE(v.ok(), line.substr(0, 200));
    REQUIRE(v->is_object());
    const auto& m = v->as_object();
    CHECK(m.at("jsonrpc") == "2.0");
    if (const auto* id = m.if_contains("id")) {
      const std::string key = json::serialize(*id);
      ++answers[key];
      CHECK_MESSAGE(m.contains("result"), line.substr(0, 200));
      continue;
    }
    REQUIRE(m.at("method") == "notifications/progress");
    const std::string token(m.at("params").at("progressToken").as_string());
    const double p = m.at("params").at("progress").to_number<double>();
    // Strictly increasing (the session's own "started" at 0 first), never reordered.
    CHECK((last_progress.count(token) == 0 || p > last_progress[token]));
    last_progress[token] = p;
    // A progress notification after its call's answer would be a reordering in the writer.
    const std::string id = token.substr(1);
    CHECK_MESSAGE(answers.count(id) == 0, "progress for " << id << " after its answer");
  }
  CHECK(answers.size() == static_cast<std::size_t>(k_calls + k_calls / 40));
  for (const auto& [id, n] : answers) CHECK_MESSAGE(n == 1, id);
  // Every chatty call with a token reported each of its steps.
  for (int id = 2; id <= k_calls; id += 2) {
    if (id % 3 == 0) continue;
    CHECK(last_progress["p" + std::to_string(id)] == 1 + id % 7);
  }
  CHECK(lines > k_calls);
}

TEST_CASE("a client that stops reading stdout mid-stream ends the session cleanly, without a crash or a hang") {
  std::signal(SIGPIPE, SIG_IGN);
  mcp::server_options opts;
  opts.workers = 3;
  opts.max_queue = 1024;
  mcp::server srv(opts, chatty_tools());
  std::string input;
  for (int id = 1; id <= 120; ++id) input += call(id, "chatty", R"({"steps":5})", true);
  const std::string out = run_over_pipes(srv, input, 4096, true);
  // What did arrive is whole lines up to the cut.
  const auto last = out.rfind('\n');
  REQUIRE(last != std::string::npos);
  std::size_t start = 0;
  while (start <= last) {
    const auto nl = out.find('\n', start);
    CHECK(json::parse_strict(out.substr(start, nl - start)).ok());
    start = nl + 1;
  }
}

TEST_CASE("a client pipelining 1,000 tool calls over stdio gets every answer and no busy error") {
  // The queue holds 256 calls (the default) and each call takes a millisecond: the reader must
  // wait for room (the pipe holds the client back) rather than answer "server busy".
  mcp::tool slow{"slow", "Answer after a millisecond.", {{"n", mcp::param_type::integer, true}}, {true, true, false},
                 auth::scope::read, [](const bj::object& a, mcp::call_context&) {
                   std::this_thread::sleep_for(std::chrono::milliseconds(1));
                   return mcp::tool_result::text(std::to_string(a.at("n").to_number<int>()));
                 }};
  mcp::server_options opts;
  opts.workers = 2;
  REQUIRE(opts.max_queue == 256);
  mcp::server srv(opts, {slow});
  std::string input;
  constexpr int k_calls = 1000;
  for (int id = 1; id <= k_calls; ++id) input += call(id, "slow", R"({"n":)" + std::to_string(id) + "}", false);
  const std::string out = run_over_pipes(srv, input, 1 << 16);

  std::map<int, std::string> answers;
  std::size_t start = 0;
  int busy = 0;
  while (start < out.size()) {
    const auto nl = out.find('\n', start);
    REQUIRE(nl != std::string::npos);
    auto v = json::parse_strict(out.substr(start, nl - start));
    start = nl + 1;
    REQUIRE(v.ok());
    const auto& m = v->as_object();
    const auto& result = m.at("result").as_object();
    const std::string text(result.at("content").as_array().at(0).at("text").as_string());
    if (text.find("busy") != std::string::npos) ++busy;
    answers[m.at("id").to_number<int>()] = text;
  }
  CHECK(busy == 0);
  REQUIRE(answers.size() == static_cast<std::size_t>(k_calls));
  for (const auto& [id, text] : answers) CHECK(text == std::to_string(id));
}
