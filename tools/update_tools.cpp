// The filter-driven write tools (scope `read-write`): import_jsonl, update_one, update_many,
// delete_many, find_one_and_update, bulk_write. Results are compact JSON.
#include "tools/update_tools.hpp"

#include <cmath>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

// None of these tools is read-only, idempotent or destructive in the seed's lists.
const mcp::annotations plain_write{false, false, false};

const param p_filter{"filter", param_type::object, true};
const param p_update{"update", param_type::object, true};
const param p_array_filters{"arrayFilters", param_type::array_of_objects, false};
const param p_max_scanned{"maxScannedDocuments", param_type::integer, false};
const param p_max_mutations{"maxMutations", param_type::integer, false};

using handler_fn = tool_result (*)(engine::store&, const std::string& collection, const bj::object&,
                                   mcp::call_context&);

mcp::tool make(std::shared_ptr<engine::store_registry> stores, std::string name, std::string description,
               std::vector<param> params, tool_result (*fn)(engine::store_registry&, const bj::object&,
                                                            mcp::call_context&)) {
  mcp::tool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.params = std::move(params);
  t.hints = plain_write;
  t.required_scope = auth::scope::read_write;
  t.handler = [stores, fn](const bj::object& args, mcp::call_context& ctx) { return fn(*stores, args, ctx); };
  return t;
}

// Opens the store and reads `collection`, then runs `fn`.
template <handler_fn fn>
tool_result with_collection(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  return fn(**st, *coll, args, ctx);
}

result<engine::array> array_arg(const bj::object& args, std::string_view name) {
  engine::array out;
  auto it = args.find(name);
  if (it == args.end() || it->value().is_null()) return out;
  const auto& items = it->value().get_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto v = engine::from_json(items[i]);
    if (!v) {
      return make_error("argument `" + std::string(name) + "`, element " + std::to_string(i) + ": " +
                        v.error().message);
    }
    out.push_back(std::move(*v));
  }
  return out;
}

// filter, update, arrayFilters, maxScannedDocuments, maxMutations (when present).
result<engine::store::update_request> update_request(const bj::object& args, bool with_update) {
  engine::store::update_request r;
  auto filter = document_arg(args, "filter");
  if (!filter) return std::move(filter).error();
  r.filter = std::move(*filter);
  if (with_update) {
    auto update = document_arg(args, "update");
    if (!update) return std::move(update).error();
    r.update = std::move(*update);
    auto filters = array_arg(args, "arrayFilters");
    if (!filters) return std::move(filters).error();
    r.array_filters = std::move(*filters);
  }
  auto scanned = optional_count(args, "maxScannedDocuments");
  if (!scanned) return std::move(scanned).error();
  r.max_scanned_documents = *scanned;
  auto mutations = optional_count(args, "maxMutations");
  if (!mutations) return std::move(mutations).error();
  r.max_mutations = *mutations;
  return r;
}

bj::object update_counts(const engine::store::update_result& r) {
  bj::object out{{"matchedCount", r.matched}, {"modifiedCount", r.modified}};
  if (r.upserted_id) out["upsertedId"] = engine::to_boost_json(*r.upserted_id);
  return out;
}

tool_result update_one(engine::store& st, const std::string& coll, const bj::object& args, mcp::call_context& ctx) {
  auto r = update_request(args, true);
  if (!r) return tool_result::failure(r.error().message);
  if (args.contains("upsertDocument")) {
    auto seed = document_arg(args, "upsertDocument");
    if (!seed) return tool_result::failure(seed.error().message);
    r->upsert_document = std::move(*seed);
  }
  auto out = st.update_one(coll, *r, scan_hooks(ctx));
  if (!out) return tool_result::failure(out.error().message);
  return tool_result::text(json::serialize(update_counts(*out)));
}

tool_result update_many(engine::store& st, const std::string& coll, const bj::object& args, mcp::call_context& ctx) {
  auto r = update_request(args, true);
  if (!r) return tool_result::failure(r.error().message);
  auto out = st.update_many(coll, *r, scan_hooks(ctx));
  if (!out) return tool_result::failure(out.error().message);
  return tool_result::text(json::serialize(update_counts(*out)));
}

tool_result delete_many(engine::store& st, const std::string& coll, const bj::object& args, mcp::call_context& ctx) {
  auto r = update_request(args, false);
  if (!r) return tool_result::failure(r.error().message);
  engine::store::delete_request d{std::move(r->filter), r->max_scanned_documents, r->max_mutations};
  auto n = st.delete_many(coll, d, scan_hooks(ctx));
  if (!n) return tool_result::failure(n.error().message);
  return tool_result::text(json::serialize(bj::object{{"deletedCount", *n}}));
}

tool_result find_one_and_update(engine::store& st, const std::string& coll, const bj::object& args,
                                mcp::call_context& ctx) {
  auto r = update_request(args, true);
  if (!r) return tool_result::failure(r.error().message);
  auto out = st.find_one_and_update(coll, *r, scan_hooks(ctx));
  if (!out) return tool_result::failure(out.error().message);
  auto image = [](const std::optional<engine::document>& d) -> bj::value {
    return d ? engine::to_boost_json(engine::value(*d)) : bj::value(nullptr);
  };
  return tool_result::text(json::serialize(bj::object{{"before", image(out->before)}, {"after", image(out->after)}}));
}

tool_result import_jsonl(engine::store& st, const std::string& coll, const bj::object& args, mcp::call_context& ctx) {
  auto file = required_string(args, "file");
  if (!file) return tool_result::failure(file.error().message);
  auto batch = optional_count(args, "batchSize");
  if (!batch) return tool_result::failure(batch.error().message);
  if (*batch && **batch == 0) return tool_result::failure("argument `batchSize` must be at least 1");
  auto out = st.import_jsonl(coll, *file, batch->value_or(1000), scan_hooks(ctx));
  if (!out) return tool_result::failure(out.error().message);
  return tool_result::text(json::serialize(bj::object{{"imported", out->imported}, {"batches", out->batches}}));
}

std::optional<std::int64_t> integer_of(const bj::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return v.get_uint64() > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX
                                                                                  : static_cast<std::int64_t>(v.get_uint64());
  if (v.is_double() && std::isfinite(v.get_double()) && std::abs(v.get_double()) < 9e18) {
    return static_cast<std::int64_t>(v.get_double());
  }
  return std::nullopt;
}

bj::object step_json(const engine::store::bulk_step_result& r) {
  using kind = engine::store::bulk_step::kind;
  switch (r.op) {
    case kind::insert:
      return {{"op", "insert"}, {"insertedId", engine::to_boost_json(r.inserted_ids.at(0))}};
    case kind::insert_many: {
      bj::array ids;
      for (const auto& id : r.inserted_ids) ids.push_back(engine::to_boost_json(id));
      return {{"op", "insert_many"}, {"insertedCount", r.inserted_ids.size()}, {"insertedIds", std::move(ids)}};
    }
    case kind::update_one:
    case kind::update_many: {
      bj::object out{{"op", r.op == kind::update_one ? "update_one" : "update_many"},
                     {"matchedCount", r.matched}, {"modifiedCount", r.modified}};
      if (r.upserted_id) out["upsertedId"] = engine::to_boost_json(*r.upserted_id);
      return out;
    }
    case kind::replace: return {{"op", "replace"}, {"matchedCount", r.matched}, {"modifiedCount", r.modified}};
    case kind::delete_one: return {{"op", "delete"}, {"deletedCount", r.deleted}};
    case kind::delete_many: return {{"op", "delete_many"}, {"deletedCount", r.deleted}};
  }
  return {};
}

tool_result bulk_write(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto version = integer_of(args.at("version"));
  if (!version) return tool_result::failure("argument `version` must be an integer");
  auto ops = array_arg(args, "operations");
  if (!ops) return tool_result::failure(ops.error().message);
  auto steps = engine::store::parse_bulk(*version, *ops);
  if (!steps) return tool_result::failure(steps.error().message);
  engine::store::bulk_options o;
  auto max_ops = optional_count(args, "maxOperations");
  if (!max_ops) return tool_result::failure(max_ops.error().message);
  if (*max_ops) o.max_operations = **max_ops;
  auto scanned = optional_count(args, "maxScannedDocumentsPerOperation");
  if (!scanned) return tool_result::failure(scanned.error().message);
  o.max_scanned_documents_per_operation = *scanned;
  auto mutations = optional_count(args, "maxMutations");
  if (!mutations) return tool_result::failure(mutations.error().message);
  o.max_mutations = *mutations;
  auto out = (*st)->bulk_write(*steps, o, scan_hooks(ctx));
  if (!out) return tool_result::failure(out.error().message);
  bj::array results;
  for (const auto& r : *out) results.push_back(step_json(r));
  return tool_result::text(json::serialize(bj::object{{"results", std::move(results)}}));
}

}  // namespace

mcp::tool import_jsonl_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "import_jsonl",
              "Stream a JSON Lines file in atomic batch commits (default 1000 per batch).",
              {p_path, p_collection, {"file", param_type::string, true}, {"batchSize", param_type::integer, false}},
              with_collection<import_jsonl>);
}

mcp::tool update_one_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "update_one",
              "Atomically update the canonical-`_id` first match; explicit-seed upsert only.",
              {p_path, p_collection, p_filter, p_update, p_array_filters,
               {"upsertDocument", param_type::object, false}, p_max_scanned},
              with_collection<update_one>);
}

mcp::tool update_many_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "update_many", "Update every match in one bounded atomic commit.",
              {p_path, p_collection, p_filter, p_update, p_array_filters, p_max_scanned, p_max_mutations},
              with_collection<update_many>);
}

mcp::tool delete_many_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "delete_many", "Delete every match in one bounded atomic commit.",
              {p_path, p_collection, p_filter, p_max_scanned, p_max_mutations}, with_collection<delete_many>);
}

mcp::tool find_one_and_update_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "find_one_and_update",
              "Atomically update the first match and return its before/after images.",
              {p_path, p_collection, p_filter, p_update, p_array_filters, p_max_scanned},
              with_collection<find_one_and_update>);
}

mcp::tool bulk_write_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(stores, "bulk_write",
              "Ordered CRUD program as one atomic transaction; later steps read earlier writes.",
              {p_path, {"version", param_type::integer, true}, {"operations", param_type::array_of_objects, true},
               {"maxOperations", param_type::integer, false},
               {"maxScannedDocumentsPerOperation", param_type::integer, false}, p_max_mutations},
              bulk_write);
}

}  // namespace omgdb::tools
