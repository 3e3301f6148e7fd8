// omgdb tools — the filter-driven write tools of seeds/000: import_jsonl, update_one,
// update_many, delete_many, find_one_and_update, bulk_write (tools/update_tools.cpp).
// write_tools.cpp places them in the seed's catalogue order.
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

mcp::tool import_jsonl_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool update_one_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool update_many_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool delete_many_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool find_one_and_update_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool bulk_write_tool(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
