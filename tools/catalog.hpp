// omgdb tools — the tool catalogues. Each entry binds a name, description, parameters and
// annotations from seeds/000 (the document tools) to a handler that calls the engine.
#pragma once

#include <memory>
#include <vector>

#include "engine/store/store.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

// The document-store tools that are implemented, in the seed's catalogue order: read tools,
// then write tools, then the dangerous one. Every tool takes `path`, opened through `stores`.
std::vector<mcp::tool> document_tools(std::shared_ptr<engine::store_registry> stores);

// Parts of the catalogue, used by document_tools().
void add_read_tools(std::vector<mcp::tool>& out, std::shared_ptr<engine::store_registry> stores);
void add_write_tools(std::vector<mcp::tool>& out, std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::tools
