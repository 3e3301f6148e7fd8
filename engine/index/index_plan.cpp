// omgdb engine — choosing an index: per index the scan ranges its leading fields allow, a key
// count estimate, and a deterministic choice (index_plan.hpp, docs/indexes.md "Planner").
//
// Rules: an index is a candidate when its leading field has an indexable predicate; equality
// fields extend the ranges to the next field, the first range field ends them. A multikey
// index uses one operator of a field's predicates (different elements may satisfy different
// operators), others intersect them. A partial index is used only when the query implies its
// partialFilter. Keys are counted up to half the collection: an index matching more is not
// used (a full scan reads fewer bytes). The fewest keys win; ties go to more equality
// fields, then more bound fields, then the smaller name. Candidates are counted in the order
// of RocksDB's approximate size of their ranges, and (unless exact counts are asked for) a
// later one only until it has more keys than the best so far: the choice is unchanged, the
// planning reads at most about (candidates x the winner's keys) keys.
#include <algorithm>

#include "engine/value/ejson.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::detail {
namespace {

constexpr std::size_t k_max_ranges = 1000;
constexpr std::uint64_t k_keep_ids = 64;  // a candidate with at most this many entries keeps them

std::string inverted(const std::string& s) {
  std::string out = s;
  for (auto& c : out) c = static_cast<char>(~c);
  return out;
}

// Where a component's keys start and end (exclusive; "" is +infinity) in byte order.
std::string start_of(const std::string& lo, bool open) { return open ? successor(lo) : lo; }
std::string end_of(const std::string& hi, bool open) { return open ? hi : successor(hi); }

bool end_less(const std::string& a_end, const std::string& b_end) {
  if (a_end.empty()) return false;
  if (b_end.empty()) return true;
  return a_end < b_end;
}

std::vector<interval> intersect(const std::vector<interval>& a, const std::vector<interval>& b) {
  std::vector<interval> out;
  for (const auto& x : a) {
    for (const auto& y : b) {
      interval r;
      const std::string xs = start_of(x.lo, x.lo_open), ys = start_of(y.lo, y.lo_open);
      const bool x_lo = ys < xs || (ys == xs && x.lo >= y.lo);
      r.lo = x_lo ? x.lo : y.lo;
      r.lo_open = x_lo ? x.lo_open : y.lo_open;
      const std::string xe = end_of(x.hi, x.hi_open), ye = end_of(y.hi, y.hi_open);
      const bool x_hi = !end_less(ye, xe);
      r.hi = x_hi ? x.hi : y.hi;
      r.hi_open = x_hi ? x.hi_open : y.hi_open;
      const std::string end = x_hi ? xe : ye;
      if (!end.empty() && !(start_of(r.lo, r.lo_open) < end)) continue;
      if (x_lo && x_hi) {
        r.text = x.text;
      } else if (!x_lo && !x_hi) {
        r.text = y.text;
      } else {
        r.text = x.text + " ∩ " + y.text;
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

// The byte range of one component's interval after `prefix`: [start, end), end "" = +infinity
// of the prefix. A descending component's bytes are inverted, which reverses the interval.
std::pair<std::string, std::string> component_range(const std::string& prefix, const interval& iv, bool descending) {
  std::string start, end;
  if (!descending) {
    start = prefix + start_of(iv.lo, iv.lo_open);
    end = iv.hi_open ? prefix + iv.hi : successor(prefix + iv.hi);
  } else {
    start = prefix + start_of(inverted(iv.hi), iv.hi_open);
    end = iv.lo_open ? prefix + inverted(iv.lo) : successor(prefix + inverted(iv.lo));
  }
  return {std::move(start), std::move(end)};
}

void evaluate(index_candidate& cand, const std::vector<predicate>& preds) {
  const index_def& def = *cand.def;
  if (def.spec.partial_filter && !implies(preds, *def.spec.partial_filter)) {
    cand.reason = "partial index: the query does not imply its partialFilter " + to_json(*def.spec.partial_filter);
    return;
  }
  std::vector<std::string> points{idx_prefix(def.id)};  // the point prefixes so far
  std::vector<std::pair<std::string, std::string>> ranges;  // set by the last bound field
  bool exact = !def.multikey && !def.spec.partial_filter;
  std::vector<bool> used(preds.size(), false);
  for (const auto& f : def.spec.fields) {
    std::vector<std::size_t> on;
    for (std::size_t i = 0; i < preds.size(); ++i) {
      if (preds[i].indexable && preds[i].path == f.path) on.push_back(i);
    }
    if (on.empty()) break;
    std::vector<interval> ivs = preds[on.front()].ops.front();
    bool is_point = preds[on.front()].point;
    if (!def.multikey) {
      for (std::size_t i : on) {
        for (const auto& op : preds[i].ops) {
          if (&op == &preds[on.front()].ops.front()) continue;
          ivs = intersect(ivs, op);
        }
        is_point = is_point || preds[i].point;
        used[i] = true;
      }
    } else {
      exact = false;
    }
    if (points.size() * std::max<std::size_t>(ivs.size(), 1) > k_max_ranges) break;
    array texts;
    for (const auto& iv : ivs) texts.push_back(value(iv.text));
    cand.bounds.push_back(field{f.path, value(std::move(texts))});
    ranges.clear();
    std::vector<std::string> next;
    for (const auto& p : points) {
      for (const auto& iv : ivs) {
        ranges.push_back(component_range(p, iv, f.descending));
        if (is_point) {
          std::string k = p;
          k += f.descending ? inverted(iv.lo) : iv.lo;
          next.push_back(std::move(k));
        }
      }
    }
    ++cand.bound_fields;
    if (!is_point) break;
    points = std::move(next);
    ++cand.equality_fields;
  }
  cand.single_prefix = points.size() == 1;
  if (cand.bound_fields == 0) {
    cand.reason = "no indexable predicate on its leading field `" + def.spec.fields.front().path + "`";
    return;
  }
  for (std::size_t i = 0; i < preds.size(); ++i) exact = exact && used[i] && preds[i].exact;
  cand.covers_count = exact;
  const std::string limit = idx_prefix(def.id + 1);
  std::vector<key_range> sorted;
  for (auto& [start, end] : ranges) {
    if (end.empty() || end > limit) end = limit;
    if (start < end) sorted.push_back(key_range{std::move(start), std::move(end)});
  }
  std::sort(sorted.begin(), sorted.end(), [](const key_range& a, const key_range& b) { return a.start < b.start; });
  for (auto& r : sorted) {
    if (!cand.ranges.empty() && r.start <= cand.ranges.back().end) {
      cand.ranges.back().end = std::max(cand.ranges.back().end, r.end);
    } else {
      cand.ranges.push_back(std::move(r));
    }
  }
  cand.usable = true;
}

}  // namespace

failure corrupt_index_entry(std::string_view index_name, std::string_view key) {
  return make_error("corrupt index entry in index " + quoted_name(index_name) + " (key " + hex(key) +
                        "): its value is not the `_id` the key ends with; run verify, then rebuild the index "
                        "(drop_index and create_index)",
                    failure_kind::corrupt);
}

bool entry_consistent(std::string_view key, std::string_view value, bool unique) noexcept {
  if (value.empty()) return false;
  // An ordinary entry's key ends with its value (u32 index id + K + keystring(_id)).
  return unique || (key.size() > value.size() + 4 && key.substr(key.size() - value.size()) == value);
}

namespace {

// Visits the idx entries of `ranges` in order; `visit(value)` returns false to stop. An entry
// whose value does not fit its key (damaged on disk) is a `corrupt` error, never a document.
template <class Visit>
status scan_ranges(const store::impl& s, const rocksdb::ReadOptions& base, const index_def& def,
                   const std::vector<key_range>& ranges, const scan_control& control, Visit&& visit) {
  std::uint64_t seen = 0;
  for (const auto& r : ranges) {
    rocksdb::ReadOptions ro = base;
    rocksdb::Slice upper(r.end);
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.idx));
    for (it->Seek(r.start); it->Valid(); it->Next()) {
      if (seen++ % k_poll_every == 0) {
        if (auto p = poll(control, seen, 0); !p) return p;
      }
      if (!entry_consistent(it->key().ToStringView(), it->value().ToStringView(), def.spec.unique)) {
        return corrupt_index_entry(def.spec.name, it->key().ToStringView());
      }
      if (!visit(it->value())) return {};
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  }
  return {};
}

// RocksDB's estimate of the bytes the ranges hold (memtables and files): cheap, no key is read.
std::uint64_t approximate_bytes(const store::impl& s, const std::vector<key_range>& ranges) {
  std::vector<rocksdb::Range> rs;
  rs.reserve(ranges.size());
  for (const auto& r : ranges) rs.emplace_back(slice(r.start), slice(r.end));
  std::vector<std::uint64_t> sizes(rs.size(), 0);
  rocksdb::SizeApproximationOptions o;
  o.include_memtables = true;
  o.include_files = true;
  if (!s.db->GetApproximateSizes(o, s.idx, rs.data(), static_cast<int>(rs.size()), sizes.data()).ok()) return 0;
  std::uint64_t total = 0;
  for (auto n : sizes) total += n;
  return total;
}

}  // namespace

result<query_plan> plan_query(const store::impl& s, const rocksdb::ReadOptions& ro, const catalog_entry& c,
                              const document& filter_spec, bool exact_estimates) {
  auto defs = read_index_defs(s, ro, c.id);
  if (!defs) return std::move(defs).error();
  return plan_query(s, ro, c, filter_spec, std::move(*defs), exact_estimates);
}

result<query_plan> plan_query(const store::impl& s, const rocksdb::ReadOptions& ro, const catalog_entry& c,
                              const document& filter_spec, std::vector<index_def> defs, bool exact_estimates,
                              const filter* compiled) {
  query_plan plan;
  plan.documents = c.documents;
  plan.cap = std::max<std::uint64_t>(c.documents / 2, 1);
  plan.predicates = extract_predicates(filter_spec);
  std::optional<filter> own;
  if (compiled == nullptr) {
    auto f = filter::compile(filter_spec);
    if (!f) return std::move(f).error();
    compiled = &own.emplace(std::move(*f));
  }
  if (const value* id = compiled->id_equality(); id != nullptr && !id->is_array() && id->type() != kind::regex) {
    plan.chosen_kind = query_plan::kind::id_lookup;
  }
  plan.defs = std::move(defs);
  std::vector<std::size_t> order;  // the usable candidates, in counting order
  for (const auto& d : plan.defs) {
    index_candidate cand;
    cand.def = &d;
    evaluate(cand, plan.predicates);
    if (cand.usable) order.push_back(plan.candidates.size());
    plan.candidates.push_back(std::move(cand));
  }
  if (order.size() > 1) {
    // Smallest first, so that the others can stop counting early; name order breaks ties.
    for (std::size_t i : order) plan.candidates[i].approx_bytes = approximate_bytes(s, plan.candidates[i].ranges);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return plan.candidates[a].approx_bytes < plan.candidates[b].approx_bytes;
    });
  }
  std::uint64_t best = plan.cap;  // the fewest keys of a candidate counted so far
  for (std::size_t i : order) {
    index_candidate& cand = plan.candidates[i];
    // The estimate is an exact count up to `limit`; the entries of a small candidate are
    // kept, so that fetching its documents needs no second scan.
    const std::uint64_t limit = exact_estimates ? plan.cap : best;
    cand.ids_complete = true;
    auto st = scan_ranges(s, ro, *cand.def, cand.ranges, scan_control{}, [&](const rocksdb::Slice& v) {
      if (++cand.estimate <= k_keep_ids) {
        cand.ids.push_back(v.ToString());
      } else if (cand.ids_complete) {
        cand.ids_complete = false;
        cand.ids = {};
      }
      return cand.estimate <= limit;
    });
    if (!st) return std::move(st).error();
    if (cand.estimate > limit) {  // stopped early: the kept entries are not all of them
      cand.ids_complete = false;
      cand.ids = {};
    }
    if (cand.estimate > plan.cap) {
      cand.over_cap = true;
      cand.reason = "not selective: more than " + std::to_string(plan.cap) +
                    " keys (half the collection) would be read; a full scan is cheaper";
    } else if (cand.estimate > limit) {
      cand.partial = true;  // more keys than an earlier candidate: it cannot win
    } else {
      best = std::min(best, cand.estimate);
    }
  }
  if (plan.chosen_kind == query_plan::kind::id_lookup) return plan;
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    const auto& a = plan.candidates[i];
    if (!a.usable || a.over_cap) continue;
    if (plan.chosen >= 0) {
      const auto& b = plan.candidates[static_cast<std::size_t>(plan.chosen)];
      const bool better = a.estimate != b.estimate             ? a.estimate < b.estimate
                          : a.equality_fields != b.equality_fields ? a.equality_fields > b.equality_fields
                          : a.bound_fields != b.bound_fields   ? a.bound_fields > b.bound_fields
                                                               : a.def->spec.name < b.def->spec.name;
      if (!better) continue;
    }
    plan.chosen = static_cast<int>(i);
  }
  if (plan.chosen >= 0) plan.chosen_kind = query_plan::kind::index_scan;
  return plan;
}

result<std::vector<std::string>> scan_candidate(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                const index_candidate& cand, const scan_control& control,
                                                std::uint64_t* keys_examined) {
  std::vector<std::string> ids;
  if (cand.ids_complete) {
    ids = cand.ids;  // the planner's scan kept every entry
  } else {
    auto st = scan_ranges(s, ro, *cand.def, cand.ranges, control, [&](const rocksdb::Slice& v) {
      ids.push_back(v.ToString());
      return true;
    });
    if (!st) return std::move(st).error();
  }
  if (keys_examined != nullptr) *keys_examined = ids.size();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

result<std::uint64_t> count_keys(const store::impl& s, const rocksdb::ReadOptions& ro, const index_candidate& cand,
                                 const scan_control& control) {
  std::uint64_t n = 0;
  auto st = scan_ranges(s, ro, *cand.def, cand.ranges, control, [&](const rocksdb::Slice&) {
    ++n;
    return true;
  });
  if (!st) return std::move(st).error();
  return n;
}

result<std::optional<std::vector<std::string>>> planned_ids(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                            const catalog_entry& c, const document& filter,
                                                            const scan_control& control, const engine::filter* compiled) {
  using out_t = std::optional<std::vector<std::string>>;
  if (filter.empty()) return out_t{};
  auto defs = read_index_defs(s, ro, c.id);
  if (!defs) return std::move(defs).error();
  if (defs->empty()) return out_t{};
  auto plan = plan_query(s, ro, c, filter, std::move(*defs), /*exact_estimates=*/false, compiled);
  if (!plan) return std::move(plan).error();
  if (plan->chosen_kind != query_plan::kind::index_scan) return out_t{};
  auto ids = scan_candidate(s, ro, plan->candidates[static_cast<std::size_t>(plan->chosen)], control);
  if (!ids) return std::move(ids).error();
  return out_t(std::move(*ids));
}

}  // namespace omgdb::engine::detail
