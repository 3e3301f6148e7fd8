// omgdb tools — the fixture tools of the official MCP conformance suite
// (npm @modelcontextprotocol/conformance, server scenarios). Test runs only: they exist so the
// suite can exercise text results, error results, log notifications and progress notifications
// against the real server; `omgdb serve --conformance-fixtures` adds them and says so loudly.
// They touch no store, database or network.
#pragma once

#include <vector>

#include "mcp/tool.hpp"

namespace omgdb::tools {

// test_simple_text, test_error_handling, test_tool_with_logging, test_tool_with_progress.
std::vector<mcp::tool> conformance_fixture_tools();

}  // namespace omgdb::tools
