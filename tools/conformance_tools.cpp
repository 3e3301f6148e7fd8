// omgdb tools — the conformance-suite fixture tools (tools/catalog.hpp). Test runs only.
#include <chrono>
#include <thread>

#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace {

using mcp::tool_result;

// Sleeps 50 ms unless the call is cancelled; false when it was.
bool pause(const mcp::call_context& ctx) {
  for (int i = 0; i < 5; ++i) {
    if (ctx.is_cancelled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !ctx.is_cancelled();
}

handler_result simple_text(no_args&, const call&) {
  return tool_result::text("This is a simple text response for testing.");
}

handler_result error_handling(no_args&, const call&) {
  return make_error("This tool intentionally returns an error for testing");
}

handler_result with_logging(no_args&, const call& c) {
  for (const char* step : {"Tool execution started", "Tool processing data", "Tool execution completed"}) {
    if (c.ctx.log) c.ctx.log(mcp::log_level::info, step);
    if (!pause(c.ctx)) return make_error("cancelled", failure_kind::cancelled);
  }
  return tool_result::text("Tool with logging executed successfully");
}

handler_result with_progress(no_args&, const call& c) {
  for (double done : {0.0, 50.0, 100.0}) {
    if (c.ctx.progress) c.ctx.progress(done, 100.0, "step");
    if (!pause(c.ctx)) return make_error("cancelled", failure_kind::cancelled);
  }
  return tool_result::text("Tool with progress executed successfully");
}

// A worker stuck in a loop that never polls its flag (what issue 29's SIGTERM tests need):
// 30 s of sleep that no cancellation, deadline or shutdown shortens.
handler_result ignores_cancellation(no_args&, const call&) {
  for (int i = 0; i < 3000; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return tool_result::text("slept 30 s without looking at the cancellation flag");
}

tool_def fixture(std::string_view name, std::string_view description, runner<no_args> run) {
  return define<no_args>({name, description, read_only}, run);
}

}  // namespace

std::vector<mcp::tool> conformance_fixture_tools() {
  static const tool_def all[] = {
      fixture("test_simple_text", "Conformance fixture (test runs only): returns one text block.", simple_text),
      fixture("test_error_handling", "Conformance fixture (test runs only): always fails with an error result.",
              error_handling),
      fixture("test_tool_with_logging",
              "Conformance fixture (test runs only): sends three log notifications while it runs.", with_logging),
      fixture("test_tool_with_progress",
              "Conformance fixture (test runs only): reports progress 0, 50 and 100 of 100.", with_progress),
      fixture("test_ignores_cancellation",
              "Test fixture (test runs only): sleeps 30 s without polling its cancellation flag, as a call stuck "
              "in a loop would.",
              ignores_cancellation)};
  std::vector<mcp::tool> out;
  for (const auto& d : all) out.push_back(d.make(tool_env{}));
  return out;
}

}  // namespace omgdb::tools
