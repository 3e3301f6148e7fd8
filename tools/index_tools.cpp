// The index and planner tools. Results (docs/indexes.md):
//   create_index / create_named_index → {"collection","name","created":B,"documentsIndexed":N,"keys":K}
//   list_indexes → {"collection","indexes":[{"name","key":{…},"unique":B,"multikey":B,"partialFilter"?}]}
//   drop_index   → {"collection","dropped":name}
//   explain / suggest_indexes / diagnose → the engine's planner documents as relaxed JSON.
// The index key is `field` (a path, or {path: 1 | -1}) or `fields` (an array of paths or
// {path: ±1} objects, or one object {a: 1, b: -1} in key order); exactly one of them.
#include <string>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"
#include "tools/index_tools.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

const mcp::annotations read_only{true, true, false};
const mcp::annotations creates{false, true, false};  // re-running with the same definition changes nothing

result<bool> direction(const bj::value& v, std::string_view path) {
  if (v.is_int64() && (v.get_int64() == 1 || v.get_int64() == -1)) return v.get_int64() == -1;
  if (v.is_double() && (v.get_double() == 1.0 || v.get_double() == -1.0)) return v.get_double() < 0;
  return make_error("index direction of `" + std::string(path) + "` must be 1 (ascending) or -1 (descending)");
}

status add_fields_object(const bj::object& o, engine::store::index_spec& spec) {
  for (const auto& kv : o) {
    auto d = direction(kv.value(), kv.key());
    if (!d) return std::move(d).error();
    spec.fields.push_back({std::string(kv.key()), *d});
  }
  return {};
}

status add_one(const bj::value& v, engine::store::index_spec& spec, std::string_view arg) {
  if (v.is_string()) {
    spec.fields.push_back({std::string(v.get_string()), false});
    return {};
  }
  if (v.is_object() && v.get_object().size() == 1) return add_fields_object(v.get_object(), spec);
  return make_error("argument `" + std::string(arg) + "`: a field is a path string or a one-key object {path: 1 | -1}");
}

// The spec from `field` / `fields` / `unique` / `partialFilter` (and `name` when named).
result<engine::store::index_spec> spec_arg(const bj::object& args, bool named) {
  engine::store::index_spec spec;
  if (named) {
    auto name = required_string(args, "name");
    if (!name) return std::move(name).error();
    spec.name = std::move(*name);
  }
  const bj::value* one = args.if_contains("field");
  const bj::value* many = args.if_contains("fields");
  if ((one == nullptr) == (many == nullptr)) {
    return make_error("pass exactly one of `field` (one field) and `fields` (a compound index)");
  }
  if (one != nullptr) {
    if (auto s = add_one(*one, spec, "field"); !s) return std::move(s).error();
  } else if (many->is_array()) {
    for (const auto& v : many->get_array()) {
      if (auto s = add_one(v, spec, "fields"); !s) return std::move(s).error();
    }
  } else if (many->is_object()) {
    if (auto s = add_fields_object(many->get_object(), spec); !s) return std::move(s).error();
  } else {
    return make_error("argument `fields` must be an array of fields or an object {path: 1 | -1, …}");
  }
  if (const bj::value* u = args.if_contains("unique"); u != nullptr && !u->is_null()) {
    if (!u->is_bool()) return make_error("argument `unique` must be a boolean");
    spec.unique = u->get_bool();
  }
  if (args.contains("partialFilter") && !args.at("partialFilter").is_null()) {
    auto pf = document_arg(args, "partialFilter");
    if (!pf) return std::move(pf).error();
    spec.partial_filter = std::move(*pf);
  }
  return spec;
}

tool_result create(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx, bool named) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto spec = spec_arg(args, named);
  if (!spec) return tool_result::failure(spec.error().message);
  auto r = (*st)->create_index(*coll, std::move(*spec), scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(json::serialize(bj::object{{"collection", *coll},
                                                      {"name", r->name},
                                                      {"created", r->created},
                                                      {"documentsIndexed", r->documents_indexed},
                                                      {"keys", r->keys}}));
}

tool_result create_tool(engine::store_registry& s, const bj::object& a, mcp::call_context& c) { return create(s, a, c, false); }
tool_result create_named_tool(engine::store_registry& s, const bj::object& a, mcp::call_context& c) { return create(s, a, c, true); }

tool_result list_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto list = (*st)->list_indexes(*coll);
  if (!list) return tool_result::failure(list.error().message);
  bj::array out;
  for (const auto& i : *list) {
    bj::object key;
    for (const auto& f : i.spec.fields) key[f.path] = f.descending ? -1 : 1;
    bj::object item{{"name", i.spec.name}, {"key", std::move(key)}, {"unique", i.spec.unique}, {"multikey", i.multikey}};
    if (i.spec.partial_filter) item["partialFilter"] = engine::to_boost_json(engine::value(*i.spec.partial_filter));
    out.push_back(std::move(item));
  }
  return tool_result::text(json::serialize(bj::object{{"collection", *coll}, {"indexes", std::move(out)}}));
}

tool_result drop_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto name = required_string(args, "name");
  if (!name) return tool_result::failure(name.error().message);
  if (auto r = (*st)->drop_index(*coll, *name); !r) return tool_result::failure(r.error().message);
  return tool_result::text(json::serialize(bj::object{{"collection", *coll}, {"dropped", *name}}));
}

enum class planner_call { explain, suggest, diagnose };

tool_result planner(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx, planner_call which) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto sort = document_arg(args, "sort");
  if (!sort) return tool_result::failure(sort.error().message);
  auto r = which == planner_call::explain   ? (*st)->explain(*coll, *filter, {}, scan_hooks(ctx))
           : which == planner_call::suggest ? (*st)->suggest_indexes(*coll, *filter, *sort)
                                            : (*st)->diagnose(*coll, *filter, scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(engine::to_json(*r));
}

tool_result explain_run(engine::store_registry& s, const bj::object& a, mcp::call_context& c) { return planner(s, a, c, planner_call::explain); }
tool_result suggest_run(engine::store_registry& s, const bj::object& a, mcp::call_context& c) { return planner(s, a, c, planner_call::suggest); }
tool_result diagnose_run(engine::store_registry& s, const bj::object& a, mcp::call_context& c) { return planner(s, a, c, planner_call::diagnose); }

std::vector<param> key_params(bool named) {
  std::vector<param> p{p_path, p_collection};
  if (named) p.push_back({"name", param_type::string, true});
  p.push_back({"field", param_type::any, false});
  p.push_back({"fields", param_type::any, false});
  p.push_back({"unique", param_type::boolean, false});
  p.push_back({"partialFilter", param_type::object, false});
  return p;
}

const param p_filter{"filter", param_type::object, true};

}  // namespace

mcp::tool list_indexes_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "list_indexes", "A collection's ordinary indexes in stable name order.",
                   {p_path, p_collection}, read_only, auth::scope::read, list_tool);
}

mcp::tool explain_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "explain",
                   "How a query will run — index scan vs full scan: the chosen index and bounds, rejected "
                   "candidates and why, keys and documents examined.",
                   {p_path, p_collection, p_filter}, read_only, auth::scope::read, explain_run);
}

mcp::tool suggest_indexes_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "suggest_indexes",
                   "Indexes the planner can use for this query, optionally sort-aware, best first.",
                   {p_path, p_collection, p_filter, {"sort", param_type::object, false}}, read_only, auth::scope::read,
                   suggest_run);
}

mcp::tool diagnose_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "diagnose",
                   "Why-not debugger: per-predicate selectivity (documents each predicate alone matches) and "
                   "why each index was not used.",
                   {p_path, p_collection, p_filter}, read_only, auth::scope::read, diagnose_run);
}

mcp::tool create_index_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "create_index",
                   "Create a secondary index — pass `field` for one field or `fields` for a compound index "
                   "({path: -1} for descending); `unique`, `partialFilter` optional. Built atomically.",
                   key_params(false), creates, auth::scope::read_write, create_tool);
}

mcp::tool create_named_index_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "create_named_index",
                   "Create a secondary index under an explicit stable name; a name already used by a different "
                   "definition is an error, never silently ignored.",
                   key_params(true), creates, auth::scope::read_write, create_named_tool);
}

mcp::tool drop_index_tool(std::shared_ptr<engine::store_registry> stores) {
  return make_tool(std::move(stores), "drop_index", "Drop one ordinary index by stable name.",
                   {p_path, p_collection, {"name", param_type::string, true}}, mcp::annotations{false, false, false},
                   auth::scope::read_write, drop_tool);
}

}  // namespace omgdb::tools
