#include "tools/profiles.hpp"

#include <algorithm>
#include <array>

namespace omgdb::tools {
namespace {

// The document store's everyday tools: reading, querying, writing, indexes, change plans.
constexpr std::array k_core{
    "get", "inspect", "list_collections", "find", "count_documents", "distinct", "describe", "dump",
    "cursor_open", "cursor_next", "cursor_close", "aggregate", "verify", "plan_update", "apply", "rollback",
    "define_collection", "validate", "list_indexes", "explain", "suggest_indexes", "diagnose", "create_index",
    "create_named_index", "drop_index", "insert", "insert_many", "replace", "delete", "create_collection",
    "drop_collection", "import_jsonl", "update_one", "update_many", "delete_many", "find_one_and_update",
    "bulk_write"};

// Retrieval for an agent that answers from documents: the reads it needs to look around, lexical
// and vector search, context packs and the Markdown section edits.
constexpr std::array k_search{
    "get", "inspect", "list_collections", "find", "count_documents", "describe", "search", "search_index_status",
    "define_search_index", "drop_search_index", "rebuild_search_index", "vsearch", "vstale", "vsync",
    "context_pack", "markdown_set_section", "markdown_patch_frontmatter"};

// Seed 003's SQL tools (listed only when connections are configured).
constexpr std::array k_sql{"getActiveSql", "getActiveConnectionContext", "getSchemaSummary", "getTableIndexes",
                           "explainSql", "getLatestSqlExecutionError", "proposeSqlEdit", "executeSql"};

template <std::size_t N>
bool has(const std::array<const char*, N>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(), [&](const char* n) { return name == n; });
}

bool serves_all(const std::vector<std::string>& profiles) {
  return profiles.empty() || std::find(profiles.begin(), profiles.end(), "all") != profiles.end();
}

}  // namespace

bool in_profile(std::string_view profile, std::string_view name) {
  if (profile == "all") return true;
  if (profile == "core") return has(k_core, name);
  if (profile == "search") return has(k_search, name);
  if (profile == "sql") return has(k_sql, name);
  return false;
}

void apply_profiles(std::vector<mcp::tool>& tools, const std::vector<std::string>& profiles) {
  if (serves_all(profiles)) return;
  std::erase_if(tools, [&](const mcp::tool& t) {
    return std::none_of(profiles.begin(), profiles.end(), [&](const std::string& p) { return in_profile(p, t.name); });
  });
}

}  // namespace omgdb::tools
