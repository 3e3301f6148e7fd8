// omgdb engine — an index that gives a find's sort order, so a sorted query with a limit
// reads only the first entries instead of sorting every match (index_plan.hpp).
//
// The order must be exactly the in-memory sort's: sort keys compared as MongoDB does, then
// `_id` ascending. An ascending scan of an index gives that when no document has an array on
// its paths (multikey sorts by min/max element, which entry order does not follow), every
// document has exactly one entry (not partial), the fields after the single-valued equality
// prefix are the sort keys with the same directions, and equal sort keys fall back to the
// entries' `_id` suffix (no further index fields, or a unique index, whose keys never tie).
#include "engine/index/index_plan.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::detail {
namespace {

enum class order_fit { none, forward, backward };

order_fit gives_order(const index_candidate& cand, const sort_spec& sort) {
  const index_def& d = *cand.def;
  if (d.multikey || d.spec.partial_filter) return order_fit::none;
  std::vector<sort_spec::key> keys = sort.keys();
  if (!keys.empty() && keys.back().path == "_id") {
    if (keys.back().descending) return order_fit::none;
    keys.pop_back();  // `_id` ascending is the tiebreak anyway
  }
  std::size_t pinned = 0;
  if (cand.usable && cand.single_prefix) pinned = cand.equality_fields;
  std::vector<sort_spec::key> rest;
  for (const auto& k : keys) {
    if (k.path == "_id") return order_fit::none;
    bool is_pinned = false;
    for (std::size_t i = 0; i < pinned; ++i) is_pinned = is_pinned || d.spec.fields[i].path == k.path;
    if (!is_pinned) rest.push_back(k);
  }
  if (pinned + rest.size() > d.spec.fields.size()) return order_fit::none;
  if (!d.spec.unique && pinned + rest.size() != d.spec.fields.size()) return order_fit::none;
  bool same = true, opposite = true;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const auto& f = d.spec.fields[pinned + i];
    if (f.path != rest[i].path) return order_fit::none;
    same = same && f.descending == rest[i].descending;
    opposite = opposite && f.descending != rest[i].descending;
  }
  return same ? order_fit::forward : opposite ? order_fit::backward : order_fit::none;
}

}  // namespace

result<std::optional<ordered_scan>> ordered_ranges(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                   const catalog_entry& c, const document& filter,
                                                   const sort_spec& sort, bool limited, std::string* index_name) {
  using out_t = std::optional<ordered_scan>;
  auto defs = read_index_defs(s, ro, c.id);
  if (!defs) return std::move(defs).error();
  if (defs->empty()) return out_t{};
  auto plan = plan_query(s, ro, c, filter, std::move(*defs));
  if (!plan) return std::move(plan).error();
  if (plan->chosen_kind == query_plan::kind::id_lookup) return out_t{};
  const index_candidate* pick = nullptr;
  order_fit fit = order_fit::none;
  if (plan->chosen >= 0) {
    const auto& chosen = plan->candidates[static_cast<std::size_t>(plan->chosen)];
    fit = gives_order(chosen, sort);
    if (fit != order_fit::none) {
      pick = &chosen;
    } else {
      // Another index that reads no more keys and gives the order wins (first by name);
      // otherwise the filter's index, which reads fewer documents, and an in-memory sort.
      for (const auto& cand : plan->candidates) {
        if (!cand.usable || cand.over_cap || cand.estimate > chosen.estimate) continue;
        fit = gives_order(cand, sort);
        if (fit != order_fit::none) {
          pick = &cand;
          break;
        }
      }
    }
  } else if (limited) {
    for (const auto& cand : plan->candidates) {
      fit = gives_order(cand, sort);
      if (fit != order_fit::none) {
        pick = &cand;  // name order: the first is deterministic
        break;
      }
    }
  }
  if (pick == nullptr) return out_t{};
  if (index_name != nullptr) *index_name = pick->def->spec.name;
  ordered_scan out;
  out.reverse = fit == order_fit::backward;
  out.unique = pick->def->spec.unique;
  out.index = pick->def->spec.name;
  if (pick->usable) {
    out.ranges = pick->ranges;  // ascending and disjoint: index order
  } else {
    out.ranges.push_back(key_range{idx_prefix(pick->def->id), idx_prefix(pick->def->id + 1)});
  }
  return out_t(std::move(out));
}

status visit_in_order(const store::impl& s, const rocksdb::ReadOptions& ro, const ordered_scan& scan,
                      const catalog_entry& c, const scan_control& control,
                      const std::function<bool(document&&)>& visit) {
  std::uint64_t seen = 0;
  const std::string prefix = docs_prefix(c.id);
  // Fetches and visits one entry's document; false: stop.
  auto emit = [&](const std::string& id_key, bool& go) -> status {
    if (seen++ % k_poll_every == 0) {
      if (auto p = poll(control, seen, c.documents); !p) return p;
    }
    std::string bytes;
    auto st = s.db->Get(ro, s.docs, prefix + id_key, &bytes);
    // The entry and the documents are read under one snapshot: an entry without its document
    // was damaged on disk (skipping it would leave a matching document out, unsaid).
    if (st.IsNotFound()) {
      return make_error("corrupt index entry in index " + quoted_name(scan.index) +
                            ": it names a document that does not exist; run verify, then rebuild the index",
                        failure_kind::corrupt);
    }
    if (!st.ok()) return storage_error(s.path, "read", st);
    auto doc = from_bson(bytes);
    if (!doc) return corrupt_document(c.name, id_key, doc.error());
    go = visit(std::move(*doc));
    return {};
  };
  bool go = true;
  const std::size_t n = scan.ranges.size();
  for (std::size_t i = 0; i < n && go; ++i) {
    const key_range& r = scan.ranges[scan.reverse ? n - 1 - i : i];
    rocksdb::ReadOptions o = ro;
    rocksdb::Slice lower(r.start), upper(r.end);
    o.iterate_lower_bound = &lower;
    o.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(o, s.idx));
    if (!scan.reverse) {
      for (it->Seek(r.start); it->Valid() && go; it->Next()) {
        if (!entry_consistent(it->key().ToStringView(), it->value().ToStringView(), scan.unique)) {
          return corrupt_index_entry(scan.index, it->key().ToStringView());
        }
        if (auto e = emit(it->value().ToString(), go); !e) return e;
      }
    } else {
      // Backwards, entries of one key come in descending `_id` order: gather each run of equal
      // keys and emit it reversed, so ties stay in `_id` ascending order as the sort wants.
      std::string run_key;
      std::vector<std::string> run;
      auto flush = [&]() -> status {
        for (auto id = run.rbegin(); id != run.rend() && go; ++id) {
          if (auto e = emit(*id, go); !e) return e;
        }
        run.clear();
        return {};
      };
      for (it->SeekToLast(); it->Valid() && go; it->Prev()) {
        const std::string_view key = it->key().ToStringView();
        const std::string_view val = it->value().ToStringView();
        if (!entry_consistent(key, val, scan.unique)) return corrupt_index_entry(scan.index, key);
        const std::string_view k = scan.unique ? key : key.substr(0, key.size() - std::min(key.size(), val.size()));
        if (!run.empty() && k != run_key) {
          if (auto f = flush(); !f) return f;
        }
        if (run.empty()) run_key.assign(k);
        run.emplace_back(val);
      }
      if (go) {
        if (auto f = flush(); !f) return f;
      }
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  }
  return {};
}

}  // namespace omgdb::engine::detail
