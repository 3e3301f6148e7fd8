// The index and planner tools of seeds/000. Results (docs/indexes.md):
//   create_index / create_named_index → {"collection","name","created":B,"documentsIndexed":N,"keys":K}
//   list_indexes → {"collection","indexes":[{"name","key":{…},"unique":B,"multikey":B,"partialFilter"?}]}
//   drop_index   → {"collection","dropped":name}
//   explain / suggest_indexes / diagnose → the engine's planner documents as relaxed JSON.
// The index key is `field` (a path, or {path: 1 | -1}) or `fields` (an array of paths or
// {path: ±1} objects, or one object {a: 1, b: -1} in key order); exactly one of them.
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using index_spec = engine::store::index_spec;

namespace {

result<bool> direction(const bj::value& v, std::string_view path) {
  if (v.is_int64() && (v.get_int64() == 1 || v.get_int64() == -1)) return v.get_int64() == -1;
  if (v.is_double() && (v.get_double() == 1.0 || v.get_double() == -1.0)) return v.get_double() < 0;
  return make_error("index direction of `" + std::string(path) + "` must be 1 (ascending) or -1 (descending)");
}

status add_fields_object(const bj::object& o, index_spec& spec) {
  for (const auto& kv : o) {
    OMGDB_TRY(descending, direction(kv.value(), kv.key()));
    spec.fields.push_back({std::string(kv.key()), descending});
  }
  return {};
}

status add_one(const bj::value& v, index_spec& spec, std::string_view arg) {
  if (v.is_string()) {
    spec.fields.push_back({std::string(v.get_string()), false});
    return {};
  }
  if (v.is_object() && v.get_object().size() == 1) return add_fields_object(v.get_object(), spec);
  return make_error("argument `" + std::string(arg) + "`: a field is a path string or a one-key object {path: 1 | -1}");
}

struct index_args : in_collection {
  std::string name;
  std::optional<bj::value> field, fields_arg;
  bool unique = false;
  std::optional<engine::document> partial_filter;
  void key_fields(arg_list& a) {
    a.optional("field", field, {"One field: a path, or {path: 1 | -1} (-1: descending)."});
    a.optional("fields", fields_arg, {"A compound key: an array of paths or {path: ±1} objects, or {a: 1, b: -1}."});
    a.optional("unique", unique, {"Refuse two documents with the same key.", {}, {}, "false"});
    a.optional("partialFilter", partial_filter, {"Index only the documents matching this filter."});
  }
  void fields(arg_list& a) { key_fields(a); }
};

struct named_index_args : index_args {
  void fields(arg_list& a) {
    a.required("name", name, {"The index's stable name."});
    key_fields(a);
  }
};

// The spec from `field` / `fields` / `unique` / `partialFilter` (and `name`).
result<index_spec> spec_of(index_args& a) {
  index_spec spec;
  spec.name = std::move(a.name);
  if (a.field.has_value() == a.fields_arg.has_value()) {
    return make_error("pass exactly one of `field` (one field) and `fields` (a compound index)");
  }
  if (a.field) {
    OMGDB_CHECK(add_one(*a.field, spec, "field"));
  } else if (a.fields_arg->is_array()) {
    for (const auto& v : a.fields_arg->get_array()) OMGDB_CHECK(add_one(v, spec, "fields"));
  } else if (a.fields_arg->is_object()) {
    OMGDB_CHECK(add_fields_object(a.fields_arg->get_object(), spec));
  } else {
    return make_error("argument `fields` must be an array of fields or an object {path: 1 | -1, …}");
  }
  spec.unique = a.unique;
  spec.partial_filter = std::move(a.partial_filter);
  return spec;
}

handler_result create(index_args& a, const call& c) {
  OMGDB_TRY(spec, spec_of(a));
  OMGDB_TRY(r, a.store->create_index(a.collection, std::move(spec), c.scan()));
  return json_text(bj::object{{"collection", a.collection},
                              {"name", r.name},
                              {"created", r.created},
                              {"documentsIndexed", r.documents_indexed},
                              {"keys", r.keys}});
}

handler_result create_named(named_index_args& a, const call& c) { return create(a, c); }

handler_result list(in_collection& a, const call&) {
  OMGDB_TRY(list, a.store->list_indexes(a.collection));
  bj::array out;
  for (const auto& i : list) {
    bj::object key;
    for (const auto& f : i.spec.fields) key[f.path] = f.descending ? -1 : 1;
    bj::object item{{"name", i.spec.name}, {"key", std::move(key)}, {"unique", i.spec.unique}, {"multikey", i.multikey}};
    if (i.spec.partial_filter) item["partialFilter"] = engine::to_boost_json(engine::value(*i.spec.partial_filter));
    out.push_back(std::move(item));
  }
  return json_text(bj::object{{"collection", a.collection}, {"indexes", std::move(out)}});
}

struct drop_args : in_collection {
  std::string name;
  void fields(arg_list& a) { a.required("name", name, {"The index's stable name (list_indexes shows them)."}); }
};

handler_result drop(drop_args& a, const call&) {
  OMGDB_CHECK(a.store->drop_index(a.collection, a.name));
  return json_text(bj::object{{"collection", a.collection}, {"dropped", a.name}});
}

struct planner_args : in_collection {
  engine::document filter, sort;
  void fields(arg_list& a) {
    a.required("filter", filter, {"The query's filter; {} explicitly for every document."});
  }
};

struct suggest_args : planner_args {
  void fields(arg_list& a) {
    planner_args::fields(a);
    a.optional("sort", sort, {"The query's sort, to make the suggestions sort-aware."});
  }
};

handler_result planned(result<engine::document> r) {
  OMGDB_TRY(plan, r);
  return mcp::tool_result::text(engine::to_json(plan));
}

handler_result explain(planner_args& a, const call& c) {
  return planned(a.store->explain(a.collection, a.filter, {}, c.scan()));
}
handler_result suggest(suggest_args& a, const call&) {
  return planned(a.store->suggest_indexes(a.collection, a.filter, a.sort));
}
handler_result diagnose(planner_args& a, const call& c) {
  return planned(a.store->diagnose(a.collection, a.filter, c.scan()));
}

}  // namespace

using auth::scope;
const tool_def list_indexes_tool = define<in_collection>(
    {"list_indexes", "A collection's ordinary indexes in stable name order.", read_only}, list,
    mcp::result_shape::json_object);
const tool_def explain_tool = define<planner_args>(
    {"explain",
     "How a query will run — index scan vs full scan: the chosen index and bounds, rejected candidates and why, keys "
     "and documents examined.",
     read_only},
    explain, mcp::result_shape::json_object);
const tool_def suggest_indexes_tool = define<suggest_args>(
    {"suggest_indexes", "Indexes the planner can use for this query, optionally sort-aware, best first.", read_only},
    suggest, mcp::result_shape::json_object);
const tool_def diagnose_tool = define<planner_args>(
    {"diagnose",
     "Why-not debugger: per-predicate selectivity (documents each predicate alone matches) and why each index was "
     "not used.",
     read_only},
    diagnose, mcp::result_shape::json_object);
// Not idempotent in the seed's sense ("the read-only tools plus `delete` and the two Markdown edits").
const tool_def create_index_tool = define<index_args>(
    {"create_index",
     "Create a secondary index — pass `field` for one field or `fields` for a compound index ({path: -1} for "
     "descending); `unique`, `partialFilter` optional. Built atomically.",
     plain_write, scope::read_write},
    create, mcp::result_shape::json_object);
const tool_def create_named_index_tool = define<named_index_args>(
    {"create_named_index",
     "Create a secondary index under an explicit stable name; a name already used by a different definition is an "
     "error, never silently ignored.",
     plain_write, scope::read_write},
    create_named, mcp::result_shape::json_object);
const tool_def drop_index_tool = define<drop_args>(
    {"drop_index", "Drop one ordinary index by stable name.", plain_write, scope::read_write}, drop,
    mcp::result_shape::json_object);

}  // namespace omgdb::tools
