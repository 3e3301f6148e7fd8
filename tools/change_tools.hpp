// omgdb tools — integrity and safe change: verify (scope `read`), plan_update, apply and
// rollback (scope `read-write`) (tools/change_tools.cpp, docs/changes.md). read_tools.cpp and
// write_tools.cpp place them in the seed's catalogue order.
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

mcp::tool verify_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool plan_update_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool apply_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool rollback_tool(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
