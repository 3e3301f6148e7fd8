// omgdb tools — the one catalogue list, in the seeds' order.
#include "tools/catalog.hpp"

namespace omgdb::tools {

const std::vector<const tool_def*>& catalogue_defs() {
  static const std::vector<const tool_def*> all{
      // seeds/000, read tools (scope `read`)
      &get_tool, &inspect_tool, &list_collections_tool, &list_indexes_tool, &find_tool, &count_documents_tool,
      &distinct_tool, &cursor_open_tool, &cursor_next_tool, &cursor_close_tool, &aggregate_tool, &describe_tool,
      &dump_tool, &verify_tool, &validate_tool, &explain_tool, &suggest_indexes_tool, &diagnose_tool,
      &search_tool, &search_index_status_tool, &vsearch_tool, &vstale_tool, &context_pack_tool,
      // write tools (scope `read-write`)
      &insert_tool, &insert_many_tool, &import_jsonl_tool, &replace_tool, &delete_tool, &update_one_tool,
      &update_many_tool, &delete_many_tool, &find_one_and_update_tool, &bulk_write_tool, &define_collection_tool,
      &create_collection_tool, &create_index_tool, &create_named_index_tool, &drop_index_tool,
      &define_search_index_tool, &drop_search_index_tool, &rebuild_search_index_tool, &markdown_set_section_tool,
      &markdown_patch_frontmatter_tool, &plan_update_tool, &apply_tool, &rollback_tool, &vsync_tool,
      // the dangerous one
      &drop_collection_tool,
      // seed 003, the SQL tools (listed when connections are configured)
      &get_active_sql_tool, &connection_context_tool, &schema_summary_tool, &table_indexes_tool, &explain_sql_tool,
      &latest_error_tool, &propose_edit_tool, &execute_sql_tool};
  return all;
}

std::vector<mcp::tool> catalogue(const tool_env& env) {
  const bool with_sql = env.sql && !env.sql->empty();
  std::vector<mcp::tool> out;
  for (const tool_def* d : catalogue_defs()) {
    if (!d->info.needs_sql || with_sql) out.push_back(d->make(env));
  }
  return out;
}

std::vector<mcp::tool> listing_catalogue(const tool_env& env) {
  std::vector<mcp::tool> out;
  for (const tool_def* d : catalogue_defs()) out.push_back(d->make(env));
  return out;
}

std::vector<mcp::tool> document_tools(std::shared_ptr<engine::store_registry> stores) {
  return catalogue(tool_env{std::move(stores), nullptr});
}

std::vector<mcp::tool> sql_tools(std::shared_ptr<sql::service> service) {
  std::vector<mcp::tool> out;
  if (!service || service->empty()) return out;
  const tool_env env{nullptr, std::move(service)};
  for (const tool_def* d : catalogue_defs()) {
    if (d->info.needs_sql) out.push_back(d->make(env));
  }
  return out;
}

}  // namespace omgdb::tools
