// The integrity and safe-change tools: verify, plan_update, apply, rollback. Results are
// compact JSON (docs/changes.md).
#include "tools/change_tools.hpp"

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

// readOnlyHint, idempotentHint, destructiveHint as the seed's "Safety annotations" define
// them: verify writes nothing; plan_update persists a plan (a new token each call); apply and
// rollback overwrite existing documents.
const mcp::annotations read_only{true, true, false};
const mcp::annotations plain_write{false, false, false};
const mcp::annotations destructive_write{false, false, true};


using handler_fn = tool_result (*)(engine::store&, const bj::object&, mcp::call_context&);

template <handler_fn fn>
tool_result with_store(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  return fn(**st, args, ctx);
}

template <handler_fn fn>
mcp::tool make(std::shared_ptr<engine::store_registry> stores, std::string name, std::string description,
               std::vector<param> params, mcp::annotations hints, auth::scope scope) {
  mcp::tool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.params = std::move(params);
  t.hints = hints;
  t.required_scope = scope;
  t.handler = [stores](const bj::object& args, mcp::call_context& ctx) { return with_store<fn>(*stores, args, ctx); };
  return t;
}

bj::value doc_json(const engine::document& d) { return engine::to_boost_json(engine::value(d)); }

tool_result verify(engine::store& st, const bj::object&, mcp::call_context& ctx) {
  auto r = st.verify(scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  bj::array collections;
  for (const auto& c : r->collections) {
    collections.push_back(bj::object{{"name", c.name},
                                     {"documents", c.documents},
                                     {"oplogDocuments", c.oplog_documents},
                                     {"counter", c.counter},
                                     {"hashMatches", c.hash_matches},
                                     {"counterMatches", c.counter_matches}});
  }
  bj::array mismatches;
  for (const auto& m : r->mismatches) mismatches.emplace_back(m);
  bj::object out{{"ok", r->ok},
                 {"collections", std::move(collections)},
                 {"oplog", bj::object{{"records", r->oplog_records}, {"lastSeq", r->last_seq}}},
                 {"caches", bj::array{}},
                 {"mismatches", std::move(mismatches)}};
  if (r->more_mismatches > 0) out["moreMismatches"] = r->more_mismatches;
  return tool_result::text(json::serialize(out));
}

tool_result plan_update(engine::store& st, const bj::object& args, mcp::call_context& ctx) {
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  engine::store::plan_request request;
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto update = document_arg(args, "update");
  if (!update) return tool_result::failure(update.error().message);
  request.filter = std::move(*filter);
  request.update = std::move(*update);
  if (auto it = args.find("arrayFilters"); it != args.end() && !it->value().is_null()) {
    const auto& items = it->value().get_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto v = engine::from_json(items[i]);
      if (!v) {
        return tool_result::failure("argument `arrayFilters`, element " + std::to_string(i) + ": " +
                                    v.error().message);
      }
      request.array_filters.push_back(std::move(*v));
    }
  }
  auto r = st.plan_update(*coll, request, scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  bj::array sample;
  for (const auto& s : r->sample) sample.push_back(bj::object{{"before", doc_json(s.before)}, {"after", doc_json(s.after)}});
  // The token comes last, so a reader (or a test) sees the counts and sample first.
  return tool_result::text(json::serialize(bj::object{{"collection", *coll},
                                                      {"matchedCount", r->matched},
                                                      {"wouldModifyCount", r->would_modify},
                                                      {"sample", std::move(sample)},
                                                      {"token", r->token}}));
}

tool_result apply(engine::store& st, const bj::object& args, mcp::call_context& ctx) {
  auto token = required_string(args, "token");
  if (!token) return tool_result::failure(token.error().message);
  auto r = st.apply(*token, scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(json::serialize(
      bj::object{{"matched", r->matched}, {"modified", r->modified}, {"change_id", r->change_id}}));
}

tool_result rollback(engine::store& st, const bj::object& args, mcp::call_context& ctx) {
  auto id = required_string(args, "change_id");
  if (!id) return tool_result::failure(id.error().message);
  auto r = st.rollback(*id, scan_hooks(ctx));
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(json::serialize(bj::object{{"restored", r->restored}, {"change_id", r->change_id}}));
}

}  // namespace

mcp::tool verify_tool(std::shared_ptr<engine::store_registry> stores) {
  return make<verify>(stores, "verify", "Replay the op-log and report integrity plus per-cache status as JSON.",
                      {p_path}, read_only, auth::scope::read);
}

mcp::tool plan_update_tool(std::shared_ptr<engine::store_registry> stores) {
  return make<plan_update>(stores, "plan_update",
                           "Dry-run an update: returns a token plus a before/after sample, writes nothing.",
                           {p_path,
                            {"collection", param_type::string, true},
                            {"filter", param_type::object, true},
                            {"update", param_type::object, true},
                            {"arrayFilters", param_type::array_of_objects, false}},
                           plain_write, auth::scope::read_write);
}

mcp::tool apply_tool(std::shared_ptr<engine::store_registry> stores) {
  return make<apply>(stores, "apply", "Apply a planned change by token, reversibly.",
                     {p_path, {"token", param_type::string, true}}, destructive_write, auth::scope::read_write);
}

mcp::tool rollback_tool(std::shared_ptr<engine::store_registry> stores) {
  return make<rollback>(stores, "rollback", "Roll back a previously applied change by id.",
                        {p_path, {"change_id", param_type::string, true}}, destructive_write,
                        auth::scope::read_write);
}

}  // namespace omgdb::tools
