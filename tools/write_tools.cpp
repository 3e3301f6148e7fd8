// The write tools (scope `read-write`) and the dangerous one of seeds/000 that are implemented.
#include <string>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"
#include "tools/index_tools.hpp"
#include "tools/catalog.hpp"
#include "tools/change_tools.hpp"
#include "tools/schema_tools.hpp"
#include "tools/update_tools.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

// readOnlyHint, idempotentHint, destructiveHint as the seed's "Safety annotations" define them.
const mcp::annotations plain_write{false, false, false};
const mcp::annotations delete_hints{false, true, true};


tool_result insert_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto doc = document_arg(args, "document");
  if (!doc) return tool_result::failure(doc.error().message);
  auto id = (*st)->insert(*coll, std::move(*doc));
  if (!id) return tool_result::failure(id.error().message);
  return tool_result::text(json::serialize(bj::object{{"insertedId", engine::to_boost_json(*id)}}));
}

tool_result insert_many_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  const auto& arr = args.at("documents").get_array();
  std::vector<engine::document> docs;
  docs.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    auto d = engine::document_from_json(arr[i]);
    if (!d) {
      return tool_result::failure("argument `documents`, element " + std::to_string(i) + ": " +
                                  d.error().message + "; nothing was inserted");
    }
    docs.push_back(std::move(*d));
  }
  auto ids = (*st)->insert_many(*coll, std::move(docs), scan_hooks(ctx));
  if (!ids) return tool_result::failure(ids.error().message);
  bj::array list;
  for (const auto& id : *ids) list.push_back(engine::to_boost_json(id));
  return tool_result::text(json::serialize(
      bj::object{{"insertedCount", ids->size()}, {"insertedIds", std::move(list)}}));
}

tool_result replace_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto id = id_arg(args, "id");
  if (!id) return tool_result::failure(id.error().message);
  auto doc = document_arg(args, "document");
  if (!doc) return tool_result::failure(doc.error().message);
  auto r = (*st)->replace(*coll, *id, std::move(*doc));
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(
      json::serialize(bj::object{{"matchedCount", r->matched}, {"modifiedCount", r->modified}}));
}

tool_result delete_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto id = id_arg(args, "id");
  if (!id) return tool_result::failure(id.error().message);
  auto n = (*st)->remove(*coll, *id);
  if (!n) return tool_result::failure(n.error().message);
  return tool_result::text(json::serialize(bj::object{{"deletedCount", *n}}));
}

tool_result create_collection_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto created = (*st)->create_collection(*coll);
  if (!created) return tool_result::failure(created.error().message);
  return tool_result::text(json::serialize(bj::object{{"collection", *coll}, {"created", *created}}));
}

tool_result drop_collection_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto n = (*st)->drop_collection(*coll);
  if (!n) return tool_result::failure(n.error().message);
  return tool_result::text(json::serialize(
      bj::object{{"collection", *coll}, {"dropped", true}, {"deletedDocuments", *n}}));
}


}  // namespace

void add_write_tools(std::vector<mcp::tool>& out, std::shared_ptr<engine::store_registry> stores) {
  using auth::scope;
  out.push_back(make_tool(stores, "insert", "Insert one document; returns the assigned `_id`.",
                     {p_path, p_collection, {"document", param_type::object, true}}, plain_write,
                     scope::read_write, insert_tool));
  out.push_back(make_tool(stores, "insert_many",
                     "Atomically insert an array of documents in one durable transaction.",
                     {p_path, p_collection, {"documents", param_type::array_of_objects, true}},
                     plain_write, scope::read_write, insert_many_tool));
  out.push_back(import_jsonl_tool(stores));
  out.push_back(make_tool(stores, "replace",
                     "Replace one document by exact `_id`, preserving `_id` identity.",
                     {p_path, p_collection, {"id", param_type::any, true}, {"document", param_type::object, true}},
                     plain_write, scope::read_write, replace_tool));
  out.push_back(make_tool(stores, "delete", "Delete one document by exact `_id`.",
                     {p_path, p_collection, {"id", param_type::any, true}}, delete_hints,
                     scope::read_write, delete_tool));
  out.push_back(update_one_tool(stores));
  out.push_back(update_many_tool(stores));
  out.push_back(delete_many_tool(stores));
  out.push_back(find_one_and_update_tool(stores));
  out.push_back(bulk_write_tool(stores));
  out.push_back(define_collection_tool(stores));
  out.push_back(make_tool(stores, "create_collection",
                     "Create an explicitly cataloged collection, including an empty one.",
                     {p_path, p_collection}, plain_write, scope::read_write, create_collection_tool));
  out.push_back(create_index_tool(stores));
  out.push_back(create_named_index_tool(stores));
  out.push_back(drop_index_tool(stores));
  out.push_back(plan_update_tool(stores));
  out.push_back(apply_tool(stores));
  out.push_back(rollback_tool(stores));
  out.push_back(make_tool(stores, "drop_collection",
                     "Drop a collection with all of its documents and index metadata. The only tool "
                     "above `read-write`: it is never advertised or callable unless the server was "
                     "started with `--scope dangerous`.",
                     {p_path, p_collection}, plain_write, scope::dangerous, drop_collection_tool));
}

std::vector<mcp::tool> document_tools(std::shared_ptr<engine::store_registry> stores) {
  std::vector<mcp::tool> out;
  add_read_tools(out, stores);
  add_write_tools(out, stores);
  return out;
}

}  // namespace omgdb::tools
