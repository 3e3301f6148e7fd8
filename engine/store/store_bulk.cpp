// omgdb engine — bulk_write: an ordered program of writes as one atomic transaction.
//
// Every step runs on the same write_session, so later steps read earlier steps' writes (the
// session's overlay), and the whole program is one WriteBatch with one op-log batch id. An
// error in any step discards the session: nothing is written.
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;
using kind = store::bulk_step::kind;

std::string op_name(kind k) {
  switch (k) {
    case kind::insert: return "insert";
    case kind::insert_many: return "insert_many";
    case kind::update_one: return "update_one";
    case kind::update_many: return "update_many";
    case kind::replace: return "replace";
    case kind::delete_one: return "delete";
    case kind::delete_many: return "delete_many";
  }
  return "?";
}

result<std::vector<value>> insert_step(write_session& w, const store::bulk_step& step) {
  std::vector<value> ids;
  if (step.documents.empty()) return ids;
  auto c = w.collection(step.collection, true);
  if (!c) return std::move(c).error();
  for (std::size_t i = 0; i < step.documents.size(); ++i) {
    auto id = w.insert(**c, step.documents[i]);
    if (!id) {
      if (step.op == kind::insert) return std::move(id).error();
      return make_error("document " + std::to_string(i) + ": " + id.error().message, id.error().kind);
    }
    ids.push_back(std::move(*id));
  }
  return ids;
}

// As store::replace (replace_document).
result<store::bulk_step_result> replace_step(write_session& w, const store::bulk_step& step) {
  store::bulk_step_result out;
  auto c = w.collection(step.collection, false);
  if (!c) return std::move(c).error();
  if (*c == nullptr) return out;
  auto old = w.get(**c, step.id);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return out;
  out.matched = 1;
  auto written = replace_document(w, **c, **old, step.documents.front());
  if (!written) return std::move(written).error();
  out.modified = *written ? 1 : 0;
  return out;
}

result<std::uint64_t> delete_step(write_session& w, const store::bulk_step& step) {
  auto c = w.collection(step.collection, false);
  if (!c) return std::move(c).error();
  if (*c == nullptr) return std::uint64_t{0};
  auto old = w.get(**c, step.id);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return std::uint64_t{0};
  if (auto r = w.remove(**c, **old); !r) return std::move(r).error();
  return std::uint64_t{1};
}

result<store::bulk_step_result> run_step(write_session& w, const store::bulk_step& step,
                                         const store::bulk_options& options) {
  store::bulk_step_result out;
  out.op = step.op;
  write_bounds bounds;
  bounds.max_scanned = options.max_scanned_documents_per_operation;
  bounds.scanned_name = "maxScannedDocumentsPerOperation";
  bounds.max_mutations = options.max_mutations;  // counted over the whole program
  switch (step.op) {
    case kind::insert:
    case kind::insert_many: {
      auto ids = insert_step(w, step);
      if (!ids) return std::move(ids).error();
      out.inserted_ids = std::move(*ids);
      return out;
    }
    case kind::update_one:
    case kind::update_many: {
      auto r = run_update(w, step.collection, step.update, step.op == kind::update_many, bounds);
      if (!r) return std::move(r).error();
      out.matched = r->matched;
      out.modified = r->modified;
      out.upserted_id = std::move(r->upserted_id);
      return out;
    }
    case kind::replace: {
      auto r = replace_step(w, step);
      if (!r) return r;
      r->op = step.op;
      return r;
    }
    case kind::delete_one: {
      auto n = delete_step(w, step);
      if (!n) return std::move(n).error();
      out.deleted = *n;
      return out;
    }
    case kind::delete_many: {
      auto n = run_delete_many(w, step.collection, step.update.filter, bounds);
      if (!n) return std::move(n).error();
      out.deleted = *n;
      return out;
    }
  }
  return make_error("unknown bulk step");
}

}  // namespace

result<std::vector<store::bulk_step_result>> store::bulk_write(const std::vector<bulk_step>& steps,
                                                               const bulk_options& options,
                                                               const scan_control& control) {
  if (steps.size() > options.max_operations) {
    return make_error("the program has " + std::to_string(steps.size()) + " operations, more than "
                      "maxOperations (" + std::to_string(options.max_operations) + "); nothing was written", failure_kind::limit_exceeded);
  }
  std::vector<bulk_step_result> results;
  results.reserve(steps.size());
  write_session w(*impl_, control);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    auto r = run_step(w, steps[k], options);
    if (r && options.max_mutations && w.mutations() > *options.max_mutations) {
      r = make_error("more than maxMutations (" + std::to_string(*options.max_mutations) +
                     ") documents would be written; nothing was written", failure_kind::limit_exceeded);
    }
    if (!r) {
      return make_error("operations[" + std::to_string(k) + "] (" + op_name(steps[k].op) + " on `" +
                            steps[k].collection + "`): " + r.error().message,
                        r.error().kind);
    }
    results.push_back(std::move(*r));
  }
  if (auto c = w.commit(); !c) return std::move(c).error();
  return results;
}

}  // namespace omgdb::engine
