// The integrity and safe-change tools of seeds/000: verify (scope `read`), plan_update, apply,
// rollback (scope `read-write`). Results are compact JSON (docs/changes.md).
#include "engine/value/ejson.hpp"
#include "engine/vector/vector_search.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

bj::value doc_json(const engine::document& d) { return engine::to_boost_json(engine::value(d)); }

handler_result verify(in_store& a, const call& c) {
  OMGDB_TRY(r, a.store->verify(c.scan()));
  bj::array collections;
  for (const auto& e : r.collections) {
    collections.push_back(bj::object{{"name", e.name},
                                     {"documents", e.documents},
                                     {"oplogDocuments", e.oplog_documents},
                                     {"counter", e.counter},
                                     {"hashMatches", e.hash_matches},
                                     {"counterMatches", e.counter_matches}});
  }
  bj::array caches;
  for (const auto& e : r.caches) {
    caches.push_back(bj::object{{"kind", e.kind},
                                {"collection", e.collection},
                                {"name", e.name},
                                {"state", e.state},
                                {"expected", e.expected},
                                {"indexed", e.indexed},
                                {"builtThroughSeq", e.built_through},
                                {"detail", e.detail}});
  }
  bj::array mismatches;
  for (const auto& m : r.mismatches) mismatches.emplace_back(m);
  for (const auto& cache : engine::vector::cache_status(*a.store)) caches.push_back(doc_json(cache));  // docs/vectors.md
  bj::object out{{"ok", r.ok},
                 {"collections", std::move(collections)},
                 {"oplog", bj::object{{"records", r.oplog_records}, {"lastSeq", r.last_seq}}},
                 {"caches", std::move(caches)},
                 {"mismatches", std::move(mismatches)}};
  if (r.more_mismatches > 0) out["moreMismatches"] = r.more_mismatches;
  // A trimmed op-log (docs/backup.md): the replay started from the checkpoint at this seq - 1.
  if (r.verified_from > 0) out["oplog"].as_object()["verifiedFromSeq"] = r.verified_from;
  return json_text(out);
}

struct plan_args : in_collection {
  engine::store::plan_request req;
  void fields(arg_list& a) {
    a.required("filter", req.filter, {"The documents to change; {} explicitly for every document."});
    a.required("update", req.update, update_spec);
    a.optional("arrayFilters", req.array_filters, array_filters_spec);
  }
};

handler_result plan_update(plan_args& a, const call& c) {
  OMGDB_TRY(r, a.store->plan_update(a.collection, a.req, c.scan()));
  bj::array sample;
  for (const auto& s : r.sample) sample.push_back(bj::object{{"before", doc_json(s.before)}, {"after", doc_json(s.after)}});
  // The token comes last, so a reader (or a test) sees the counts and sample first.
  return json_text(bj::object{{"collection", a.collection},
                              {"matchedCount", r.matched},
                              {"wouldModifyCount", r.would_modify},
                              {"sample", std::move(sample)},
                              {"token", r.token}});
}

struct apply_args : in_store {
  std::string token;
  void fields(arg_list& a) { a.required("token", token, {"The token plan_update returned."}); }
};

handler_result apply(apply_args& a, const call& c) {
  OMGDB_TRY(r, a.store->apply(a.token, c.scan()));
  return json_text(bj::object{{"matched", r.matched}, {"modified", r.modified}, {"change_id", r.change_id}});
}

struct rollback_args : in_store {
  std::string change_id;
  void fields(arg_list& a) { a.required("change_id", change_id, {"The `change_id` apply returned."}); }
};

handler_result rollback(rollback_args& a, const call& c) {
  OMGDB_TRY(r, a.store->rollback(a.change_id, c.scan()));
  return json_text(bj::object{{"restored", r.restored}, {"change_id", r.change_id}});
}

// apply and rollback overwrite existing documents; plan_update persists a plan (a new token
// each call), so it is not idempotent.
constexpr mcp::annotations destructive_write{false, false, true};

}  // namespace

using auth::scope;
const tool_def verify_tool = define<in_store>(
    {"verify", "Replay the op-log and report integrity plus per-cache status as JSON.", read_only}, verify,
    mcp::result_shape::json_object);
const tool_def plan_update_tool = define<plan_args>(
    {"plan_update", "Dry-run an update: returns a token plus a before/after sample, writes nothing.", plain_write,
     scope::read_write},
    plan_update, mcp::result_shape::json_object);
const tool_def apply_tool = define<apply_args>(
    {"apply", "Apply a planned change by token, reversibly.", destructive_write, scope::read_write}, apply,
    mcp::result_shape::json_object);
const tool_def rollback_tool = define<rollback_args>(
    {"rollback", "Roll back a previously applied change by id.", destructive_write, scope::read_write}, rollback,
    mcp::result_shape::json_object);

}  // namespace omgdb::tools
