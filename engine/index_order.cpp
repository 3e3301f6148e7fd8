// omgdb engine — an index that gives a find's sort order, so a sorted query with a limit
// reads only the first entries instead of sorting every match (index_plan.hpp).
//
// The order must be exactly the in-memory sort's: sort keys compared as MongoDB does, then
// `_id` ascending. An ascending scan of an index gives that when no document has an array on
// its paths (multikey sorts by min/max element, which entry order does not follow), every
// document has exactly one entry (not partial), the fields after the single-valued equality
// prefix are the sort keys with the same directions, and equal sort keys fall back to the
// entries' `_id` suffix (no further index fields, or a unique index, whose keys never tie).
#include "engine/index_plan.hpp"
#include "engine/sort.hpp"

namespace omgdb::engine::detail {
namespace {

bool gives_order(const index_candidate& cand, const sort_spec& sort) {
  const index_def& d = *cand.def;
  if (d.multikey || d.spec.partial_filter) return false;
  std::vector<sort_spec::key> keys = sort.keys();
  if (!keys.empty() && keys.back().path == "_id") {
    if (keys.back().descending) return false;
    keys.pop_back();  // `_id` ascending is the tiebreak anyway
  }
  std::size_t pinned = 0;
  if (cand.usable && cand.single_prefix) pinned = cand.equality_fields;
  std::vector<sort_spec::key> rest;
  for (const auto& k : keys) {
    if (k.path == "_id") return false;
    bool is_pinned = false;
    for (std::size_t i = 0; i < pinned; ++i) is_pinned = is_pinned || d.spec.fields[i].path == k.path;
    if (!is_pinned) rest.push_back(k);
  }
  if (pinned + rest.size() > d.spec.fields.size()) return false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const auto& f = d.spec.fields[pinned + i];
    if (f.path != rest[i].path || f.descending != rest[i].descending) return false;
  }
  return d.spec.unique || pinned + rest.size() == d.spec.fields.size();
}

}  // namespace

result<std::optional<std::vector<key_range>>> ordered_ranges(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                            const catalog_entry& c, const document& filter,
                                                            const sort_spec& sort, bool limited,
                                                            std::string* index_name) {
  using out_t = std::optional<std::vector<key_range>>;
  if (!has_indexes(s, ro, c.id)) return out_t{};
  auto plan = plan_query(s, ro, c, filter);
  if (!plan) return std::move(plan).error();
  if (plan->chosen_kind == query_plan::kind::id_lookup) return out_t{};
  const index_candidate* pick = nullptr;
  if (plan->chosen >= 0) {
    const auto& chosen = plan->candidates[static_cast<std::size_t>(plan->chosen)];
    if (gives_order(chosen, sort)) {
      pick = &chosen;
    } else {
      // Another index that reads no more keys and gives the order wins (first by name);
      // otherwise the filter's index, which reads fewer documents, and an in-memory sort.
      for (const auto& cand : plan->candidates) {
        if (cand.usable && !cand.over_cap && cand.estimate <= chosen.estimate && gives_order(cand, sort)) {
          pick = &cand;
          break;
        }
      }
      if (pick == nullptr) return out_t{};
    }
  } else if (limited) {
    for (const auto& cand : plan->candidates) {
      if (gives_order(cand, sort)) {
        pick = &cand;  // name order: the first is deterministic
        break;
      }
    }
  }
  if (pick == nullptr) return out_t{};
  if (index_name != nullptr) *index_name = pick->def->spec.name;
  if (pick->usable) return out_t(pick->ranges);  // ascending and disjoint: index order
  return out_t(std::vector<key_range>{key_range{idx_prefix(pick->def->id), idx_prefix(pick->def->id + 1)}});
}

status visit_in_order(const store::impl& s, const rocksdb::ReadOptions& ro, const std::vector<key_range>& ranges,
                      const catalog_entry& c, const scan_control& control,
                      const std::function<bool(document&&)>& visit) {
  std::uint64_t seen = 0;
  const std::string prefix = docs_prefix(c.id);
  for (const auto& r : ranges) {
    rocksdb::ReadOptions o = ro;
    rocksdb::Slice upper(r.end);
    o.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(o, s.idx));
    for (it->Seek(r.start); it->Valid(); it->Next()) {
      if (seen++ % k_poll_every == 0) {
        if (auto p = poll(control, seen, c.documents); !p) return p;
      }
      std::string bytes;
      auto st = s.db->Get(ro, s.docs, prefix + it->value().ToString(), &bytes);
      if (st.IsNotFound()) continue;
      if (!st.ok()) return storage_error(s.path, "read", st);
      auto doc = from_bson(bytes);
      if (!doc) return corrupt_document(c.name, it->value().ToStringView(), doc.error());
      if (!visit(std::move(*doc))) return {};
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  }
  return {};
}

}  // namespace omgdb::engine::detail
