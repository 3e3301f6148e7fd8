// omgdb tools — validation rules of seeds/000: define_collection (write) and validate (read)
// (tools/schema_tools.cpp, docs/validation.md). write_tools.cpp / read_tools.cpp place them
// in the seed's catalogue order.
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

mcp::tool define_collection_tool(std::shared_ptr<engine::store_registry> stores);
mcp::tool validate_tool(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
