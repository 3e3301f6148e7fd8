// What a call stopped by its cancellation flag answers, by the reason the flag was set: the
// deadline is a limit_exceeded error naming the limit and its settings; a client that
// cancelled or went away is told apart. Engine loops honour the flag at their next document.
#include <doctest/doctest.h>

#include <atomic>

#include "tests/tools/tool_bench.hpp"

using namespace omgdb;
using namespace std::chrono_literals;

namespace {

struct stopped_call {
  std::atomic<bool> flag{true};
  std::atomic<mcp::cancel_reason> why;
  mcp::call_context ctx;
  explicit stopped_call(mcp::cancel_reason reason) : why(reason) {
    ctx.scope = auth::scope::read_write;
    ctx.cancelled = &flag;
    ctx.cancel_why = &why;
    ctx.deadline = 1234ms;
  }
};

void fill(test::tool_bench& bench) {
  std::string docs = "[";
  for (int i = 0; i < 600; ++i) docs += (i ? "," : "") + std::string(R"({"_id":)") + std::to_string(i) + R"(,"r":"aaaa"})";
  REQUIRE_FALSE(bench.call("insert_many", R"({"collection":"c","documents":)" + docs + "]}").is_error);
}

}  // namespace

TEST_CASE("a scan stopped by the call deadline answers limit_exceeded naming the deadline and its settings") {
  test::tool_bench bench("omgdb-deadline-");
  fill(bench);
  const char* reads[][2] = {
      {"count_documents", R"({"collection":"c","filter":{"r":{"$regex":"^(a+)+$"}}})"},
      {"find", R"({"collection":"c","filter":{"r":{"$regex":"^(a+)+$"}},"sort":{"r":1}})"},
      {"distinct", R"({"collection":"c","field":"r","filter":{"r":{"$regex":"^a"}}})"},
      {"update_many", R"({"collection":"c","filter":{"r":{"$regex":"^a"}},"update":{"$set":{"x":1}}})"},
  };
  for (auto& [tool, args] : reads) {
    CAPTURE(tool);
    stopped_call c(mcp::cancel_reason::deadline);
    auto r = bench.call_in(c.ctx, tool, args);
    REQUIRE(r.is_error);
    CHECK(r.kind == failure_kind::limit_exceeded);
    CHECK(r.texts.front().starts_with("Error: `" + std::string(tool) + "` exceeded the call deadline of 1234 ms "
                                      "(set with --call-timeout / [limits] call_timeout_ms)"));
  }
  // The stopped update_many changed nothing.
  auto after = bench.call("count_documents", R"({"collection":"c","filter":{"x":1}})");
  REQUIRE_FALSE(after.is_error);
  CHECK(after.texts.front().find("\"count\":0") != std::string::npos);
}

TEST_CASE("a call cancelled by its client or because it went away says which, with the kind cancelled") {
  test::tool_bench bench("omgdb-deadline-");
  fill(bench);
  const std::string args = R"({"collection":"c","filter":{"r":{"$regex":"^(a+)+$"}}})";
  stopped_call by_client(mcp::cancel_reason::client);
  auto r = bench.call_in(by_client.ctx, "count_documents", args);
  REQUIRE(r.is_error);
  CHECK(r.kind == failure_kind::cancelled);
  CHECK(r.texts.front() == "Error: `count_documents` was cancelled by the client");
  stopped_call gone(mcp::cancel_reason::client_gone);
  r = bench.call_in(gone.ctx, "count_documents", args);
  REQUIRE(r.is_error);
  CHECK(r.kind == failure_kind::cancelled);
  CHECK(r.texts.front() == "Error: `count_documents` stopped: the client went away");
}
