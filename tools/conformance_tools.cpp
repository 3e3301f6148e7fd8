// omgdb tools — conformance-suite fixture tools (see conformance_tools.hpp).
#include "tools/conformance_tools.hpp"

#include <chrono>
#include <thread>

namespace omgdb::tools {
namespace {

constexpr auto step_pause = std::chrono::milliseconds(50);

mcp::tool fixture(std::string name, std::string description, mcp::tool_handler fn) {
  mcp::annotations hints;
  hints.read_only = true;
  hints.idempotent = true;
  return mcp::tool{std::move(name), "Conformance fixture (test runs only): " + std::move(description),
                   {}, hints, auth::scope::read, std::move(fn)};
}

// Sleeps `step_pause` unless the call is cancelled; false when it was.
bool pause(const mcp::call_context& ctx) {
  for (int i = 0; i < 5; ++i) {
    if (ctx.is_cancelled()) return false;
    std::this_thread::sleep_for(step_pause / 5);
  }
  return !ctx.is_cancelled();
}

}  // namespace

std::vector<mcp::tool> conformance_fixture_tools() {
  std::vector<mcp::tool> out;
  out.push_back(fixture("test_simple_text", "returns one text block.",
                        [](const boost::json::object&, mcp::call_context&) {
                          return mcp::tool_result::text("This is a simple text response for testing.");
                        }));
  out.push_back(fixture("test_error_handling", "always fails with an error result.",
                        [](const boost::json::object&, mcp::call_context&) {
                          return mcp::tool_result::failure("This tool intentionally returns an error for testing");
                        }));
  out.push_back(fixture("test_tool_with_logging", "sends three log notifications while it runs.",
                        [](const boost::json::object&, mcp::call_context& ctx) {
                          const char* steps[] = {"Tool execution started", "Tool processing data",
                                                 "Tool execution completed"};
                          for (const char* step : steps) {
                            if (ctx.log) ctx.log(mcp::log_level::info, step);
                            if (!pause(ctx)) return mcp::tool_result::failure("cancelled");
                          }
                          return mcp::tool_result::text("Tool with logging executed successfully");
                        }));
  out.push_back(fixture("test_tool_with_progress", "reports progress 0, 50 and 100 of 100.",
                        [](const boost::json::object&, mcp::call_context& ctx) {
                          for (double done : {0.0, 50.0, 100.0}) {
                            if (ctx.progress) ctx.progress(done, 100.0, "step");
                            if (!pause(ctx)) return mcp::tool_result::failure("cancelled");
                          }
                          return mcp::tool_result::text("Tool with progress executed successfully");
                        }));
  return out;
}

}  // namespace omgdb::tools
