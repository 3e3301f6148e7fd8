// omgdb tools — the eight SQL tools of seed 003 over sql::service (docs/sql-tools.md).
//
// All eight are listed at scope `read`: the session's scope caps each connection's access
// instead (a `read` session is read-only everywhere; executeSql then runs read-only SQL only).
// The list is empty when no connection is configured, so a store-only server's catalogue is
// exactly the document tools.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.hpp"
#include "sql/service.hpp"

namespace omgdb::tools {

std::vector<mcp::tool> sql_tools(std::shared_ptr<sql::service> service);

}  // namespace omgdb::tools
