// omgdb tools — the one tool catalogue: every definition (tools/tool_def.hpp) in the seeds'
// order — seeds/000's read tools, write tools and the dangerous one, then seed 003's SQL tools.
#pragma once

#include <memory>
#include <vector>

#include "tools/tool_def.hpp"

namespace omgdb::tools {

// The definitions, by the file that holds them.
extern const tool_def get_tool, inspect_tool, list_collections_tool, find_tool, count_documents_tool,
    distinct_tool, describe_tool, dump_tool;                                        // read_tools.cpp
extern const tool_def cursor_open_tool, cursor_next_tool, cursor_close_tool;        // cursor_tools.cpp
extern const tool_def aggregate_tool;                                               // aggregate_tool.cpp
extern const tool_def verify_tool, plan_update_tool, apply_tool, rollback_tool;     // change_tools.cpp
extern const tool_def define_collection_tool, validate_tool;                        // schema_tools.cpp
extern const tool_def list_indexes_tool, explain_tool, suggest_indexes_tool, diagnose_tool, create_index_tool,
    create_named_index_tool, drop_index_tool;                                       // index_tools.cpp
extern const tool_def insert_tool, insert_many_tool, replace_tool, delete_tool, create_collection_tool,
    drop_collection_tool;                                                           // write_tools.cpp
extern const tool_def import_jsonl_tool, update_one_tool, update_many_tool, delete_many_tool,
    find_one_and_update_tool, bulk_write_tool;                                      // update_tools.cpp
extern const tool_def vsearch_tool, vstale_tool, vsync_tool;                       // vector_tools.cpp
extern const tool_def markdown_set_section_tool, markdown_patch_frontmatter_tool;  // markdown_tools.cpp
extern const tool_def context_pack_tool;                                          // context_tools.cpp
extern const tool_def get_active_sql_tool, connection_context_tool, schema_summary_tool, table_indexes_tool,
    explain_sql_tool, latest_error_tool, propose_edit_tool, execute_sql_tool;       // sql_tools.cpp

// The catalogue in order, as definitions.
extern const tool_def search_tool, search_index_status_tool, define_search_index_tool, drop_search_index_tool,
    rebuild_search_index_tool;                                                      // search_tools.cpp
const std::vector<const tool_def*>& catalogue_defs();

// The catalogue over `env`: the document tools, then the SQL tools when `env.sql` has
// connections (a store-only server's catalogue is exactly the document tools). Builds no
// connection and opens no store.
std::vector<mcp::tool> catalogue(const tool_env& env);

// Every definition, the SQL tools included whatever `env.sql` holds: what a server with
// connections lists (seed 003's standalone mode lists "the same eight tools"). For listing
// only: the caller replaces the handlers (daemon/runtime.cpp, standalone_catalogue).
std::vector<mcp::tool> listing_catalogue(const tool_env& env);

// The two halves of it.
std::vector<mcp::tool> document_tools(std::shared_ptr<engine::store_registry> stores);
std::vector<mcp::tool> sql_tools(std::shared_ptr<sql::service> service);

// The fixture tools of the official MCP conformance suite (npm @modelcontextprotocol/conformance,
// server scenarios), for test runs only (`omgdb serve --conformance-fixtures` adds them and says
// so loudly): test_simple_text, test_error_handling, test_tool_with_logging,
// test_tool_with_progress. They touch no store, database or network.
std::vector<mcp::tool> conformance_fixture_tools();

}  // namespace omgdb::tools
