// omgdb tools — secondary indexes and the planner of seeds/000: create_index,
// create_named_index, drop_index (write), list_indexes, explain, suggest_indexes, diagnose
// (read) (tools/index_tools.cpp, docs/indexes.md). read_tools.cpp / write_tools.cpp place
// them in the seed's catalogue order.
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

mcp::tool list_indexes_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool explain_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool suggest_indexes_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool diagnose_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool create_index_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool create_named_index_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool drop_index_tool(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
