// omgdb tools — the persisted read cursors of seeds/000: cursor_open, cursor_next,
// cursor_close (tools/cursor_tools.cpp, docs/cursors.md). read_tools.cpp places them in the
// seed's catalogue order. They run at `read` scope but are not read-only: they persist the
// cursor's position inside the store.
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

mcp::tool cursor_open_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool cursor_next_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool cursor_close_tool(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
