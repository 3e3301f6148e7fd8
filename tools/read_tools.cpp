// The read tools (scope `read`) of seeds/000 that are implemented. find's continuation note
// and distinct's result format are documented in docs/query-language.md.
#include <string>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"
#include "tools/catalog.hpp"
#include "tools/change_tools.hpp"
#include "tools/cursor_tools.hpp"
#include "tools/index_tools.hpp"
#include "tools/schema_tools.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

const mcp::annotations read_only{true, true, false};


std::string size_text(std::size_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

tool_result get_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto id = id_arg(args, "id");
  if (!id) return tool_result::failure(id.error().message);
  auto text = (*st)->get_json(*coll, *id);
  if (!text) return tool_result::failure(text.error().message);
  if (!text->has_value()) return tool_result::text("null");
  return tool_result::text(std::move(**text));
}

tool_result inspect_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto colls = (*st)->collections();
  if (!colls) return tool_result::failure(colls.error().message);
  bj::array list;
  for (const auto& c : *colls) list.push_back(bj::object{{"name", c.name}, {"documents", c.documents}});
  return tool_result::text(json::serialize(bj::object{{"path", (*st)->path()}, {"collections", std::move(list)}}));
}

tool_result list_collections_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto colls = (*st)->collections();
  if (!colls) return tool_result::failure(colls.error().message);
  bj::array names;
  for (const auto& c : *colls) names.emplace_back(c.name);
  return tool_result::text(json::serialize(names));
}

// An optional argument of any JSON type as an engine value (afterId); arrays are refused.
result<std::optional<engine::value>> optional_id(const bj::object& args, std::string_view name) {
  if (!args.contains(name)) return std::optional<engine::value>();
  auto v = id_arg(args, name);
  if (!v) return std::move(v).error();
  return std::optional<engine::value>(std::move(*v));
}

// The note after a page that did not hold every match: how to get the next one.
std::string continuation_note(const engine::find_page& page, std::size_t max_bytes) {
  std::string keyset = "\"afterId\": " + engine::to_json(page.last_id);
  if (page.last_sort_key) keyset += ", \"afterSortKey\": " + engine::to_json(*page.last_sort_key);
  std::string out;
  if (page.truncated) {
    out = "Result cut at the " + size_text(max_bytes) + " reply limit after " + std::to_string(page.returned) +
          " documents. ";
  }
  out += "More documents match: to continue, call `find` again with the same filter, sort, project and "
         "limit, no `skip`, and " + keyset;
  if (page.truncated) out += " (or the same arguments with \"skip\": " + std::to_string(page.next_skip) + ")";
  return out + ".";
}

tool_result find_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  engine::find_options opts;
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto sort = document_arg(args, "sort");
  if (!sort) return tool_result::failure(sort.error().message);
  auto skip = optional_count(args, "skip");
  if (!skip) return tool_result::failure(skip.error().message);
  auto limit = optional_count(args, "limit");
  if (!limit) return tool_result::failure(limit.error().message);
  auto after_id = optional_id(args, "afterId");
  if (!after_id) return tool_result::failure(after_id.error().message);
  auto after_sort_key = document_arg(args, "afterSortKey");
  if (!after_sort_key) return tool_result::failure(after_sort_key.error().message);
  auto project = document_arg(args, "project");
  if (!project) return tool_result::failure(project.error().message);
  opts.filter = std::move(*filter);
  opts.sort = std::move(*sort);
  opts.skip = skip->value_or(0);
  opts.limit = *limit;
  opts.after_id = std::move(*after_id);
  if (args.contains("afterSortKey")) opts.after_sort_key = std::move(*after_sort_key);
  opts.projection = std::move(*project);
  opts.max_bytes = ctx.max_result_bytes;
  auto page = (*st)->find(*coll, opts, scan_hooks(ctx));
  if (!page) return tool_result::failure(page.error().message);
  tool_result r = tool_result::text(std::move(page->ndjson));
  if (page->more) r.texts.push_back(continuation_note(*page, ctx.max_result_bytes));
  return r;
}

tool_result count_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto n = (*st)->count(*coll, *filter, scan_hooks(ctx));
  if (!n) return tool_result::failure(n.error().message);
  return tool_result::text(json::serialize(bj::object{{"count", *n}}));
}

tool_result distinct_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto field = required_string(args, "field");
  if (!field) return tool_result::failure(field.error().message);
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto max_values = optional_count(args, "maxValues");
  if (!max_values) return tool_result::failure(max_values.error().message);
  if (max_values->value_or(1) == 0) return tool_result::failure("argument `maxValues` must be at least 1");
  const std::uint64_t cap = max_values->value_or(1000);
  auto found = (*st)->distinct(*coll, *field, *filter, cap, scan_hooks(ctx));
  if (!found) return tool_result::failure(found.error().message);
  // {"values":[…],"count":N,"truncated":B}, values cut to fit the reply limit if need be.
  std::string values;
  std::string piece;
  std::size_t count = 0;
  bool cut_by_bytes = false;
  for (const auto& v : found->values) {
    piece.clear();
    engine::append_json(piece, v);
    if (values.size() + piece.size() + 64 > ctx.max_result_bytes && count > 0) {
      cut_by_bytes = true;
      break;
    }
    if (count > 0) values += ',';
    values += piece;
    ++count;
  }
  const bool truncated = found->truncated || cut_by_bytes;
  tool_result r = tool_result::text("{\"values\":[" + values + "],\"count\":" + std::to_string(count) +
                                    ",\"truncated\":" + (truncated ? "true" : "false") + "}");
  if (cut_by_bytes) {
    r.texts.push_back("Values cut at the " + size_text(ctx.max_result_bytes) + " reply limit after " +
                      std::to_string(count) + " values (the first ones in BSON order). Narrow `filter` to see the rest.");
  } else if (found->truncated) {
    r.texts.push_back("More distinct values exist: these are the first " + std::to_string(count) +
                      " in BSON order (`maxValues` " + std::to_string(cap) +
                      "). Raise `maxValues` or narrow `filter` to see the rest.");
  }
  return r;
}

tool_result describe_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto md = (*st)->describe();
  if (!md) return tool_result::failure(md.error().message);
  return tool_result::text(std::move(*md));
}

tool_result dump_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  std::string out;
  std::size_t lines = 0;
  bool cut = false;
  auto s = (*st)->dump(
      [&](std::string_view line) {
        if (out.size() + line.size() + 1 > ctx.max_result_bytes) {
          cut = true;
          return false;
        }
        out.append(line);
        out.push_back('\n');
        ++lines;
        return true;
      },
      scan_hooks(ctx));
  if (!s) return tool_result::failure(s.error().message);
  tool_result r = tool_result::text(std::move(out));
  if (cut) {
    r.texts.push_back("Dump cut at the " + size_text(ctx.max_result_bytes) + " reply limit after " +
                      std::to_string(lines) + " lines. For the complete export run `omgdb dump " +
                      (*st)->path() + "` on the command line, or page through each collection with " +
                      "`find` and `afterId`.");
  }
  return r;
}

mcp::tool make(std::shared_ptr<engine::store_registry> stores, std::string name, std::string description,
               std::vector<param> params, mcp::annotations hints, store_handler fn) {
  return make_tool(std::move(stores), std::move(name), std::move(description), std::move(params), hints,
                   auth::scope::read, fn);
}

}  // namespace

void add_read_tools(std::vector<mcp::tool>& out, std::shared_ptr<engine::store_registry> stores) {
  out.push_back(make(stores, "get", "Fetch one document by exact `_id`.",
                     {p_path, p_collection, {"id", param_type::any, true}}, read_only, get_tool));
  out.back().quick = true;  // one point lookup: may run on a transport's thread (mcp/tool.hpp),
  out.back().quick_once_warm = "path";  // once a call has opened the store
  out.push_back(make(stores, "inspect", "List collections and document counts as JSON.", {p_path},
                     read_only, inspect_tool));
  out.push_back(make(stores, "list_collections", "Every known collection in stable name order.",
                     {p_path}, read_only, list_collections_tool));
  out.push_back(list_indexes_tool(stores));
  out.push_back(make(stores, "find", "Find documents matching a MongoDB-style filter; returns NDJSON.",
                     {p_path,
                      p_collection,
                      {"filter", param_type::object, false},
                      {"sort", param_type::object, false},
                      {"skip", param_type::integer, false},
                      {"limit", param_type::integer, false},
                      {"afterId", param_type::any, false},
                      {"afterSortKey", param_type::object, false},
                      {"project", param_type::object, false}},
                     read_only, find_tool));
  out.push_back(make(stores, "count_documents",
                     "Count matching documents through the direct query planner.",
                     {p_path, p_collection, {"filter", param_type::object, false}}, read_only, count_tool));
  out.push_back(make(stores, "distinct", "Deterministic distinct values for a dotted field path.",
                     {p_path,
                      p_collection,
                      {"field", param_type::string, true},
                      {"filter", param_type::object, false},
                      {"maxValues", param_type::integer, false}},
                     read_only, distinct_tool));
  out.push_back(cursor_open_tool(stores));
  out.push_back(cursor_next_tool(stores));
  out.push_back(cursor_close_tool(stores));
  out.push_back(make(stores, "describe", "Markdown manual of the database.", {p_path}, read_only,
                     describe_tool));
  out.push_back(make(stores, "dump", "Deterministic canonical export of every document.", {p_path},
                     read_only, dump_tool));
  out.push_back(verify_tool(stores));
  out.push_back(validate_tool(stores));
  out.push_back(explain_tool(stores));
  out.push_back(suggest_indexes_tool(stores));
  out.push_back(diagnose_tool(stores));
}

}  // namespace omgdb::tools
