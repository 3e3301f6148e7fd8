// omgdb engine — the query planner's internals (index_bounds.cpp, index_plan.cpp,
// index_explain.cpp). Not a public header.
//
// Bounds live in the keystring byte space: an interval {lo, hi} holds the encoded keys k with
// lo <= k and (k <= hi or hi is a prefix of k), so a bound may be a whole encoded value or just
// a type bracket's tag byte ("every number"). Bounds are a superset of what the predicate
// matches; the full filter is always re-checked on the fetched documents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/index/index.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::detail {

struct interval {
  std::string lo;
  std::string hi;
  std::string text;  // for explain: "[5, 5]", "(5, max number]", "strings starting with \"ab\""
  bool lo_open = false;  // excludes keys with prefix lo ($gt)
  bool hi_open = false;  // excludes keys with prefix hi ($lt)
};

// One top-level condition of a filter (a field of the filter or of a top-level $and).
struct predicate {
  std::string path;
  document condition;            // {path: condition}, a filter of its own (diagnose)
  bool indexable = false;
  std::string reason;            // why not, when !indexable
  std::string kind;              // "equality", "$in", "range", "prefix regex", "regex"
  // One interval list per indexable operator of the condition ({$gt: 1, $lt: 9}: two);
  // a multikey index may use only one of them, other indexes intersect them.
  std::vector<std::vector<interval>> ops;
  bool point = false;            // every interval is one value (equality, $in of values)
  // The bounds hold exactly the values the condition matches (no operator left out, no
  // superset such as a regex or a lone upper bound over numbers, which takes in NaN): on a
  // non-multikey index, counting keys then counts the matching documents.
  bool exact = false;
};

// The top-level conjuncts of `filter`; `$or`, `$nor`, `$expr`, … appear as non-indexable
// predicates with an empty path.
std::vector<predicate> extract_predicates(const document& filter);

// The prefix successor: every string with prefix s is below it; "" means +infinity.
std::string successor(std::string s);

struct index_candidate {
  const index_def* def = nullptr;
  bool usable = false;
  std::string reason;               // why not usable
  std::vector<key_range> ranges;    // merged, ascending
  std::size_t bound_fields = 0;     // leading fields with bounds
  std::size_t equality_fields = 0;  // leading fields bound to points
  document bounds;                  // field -> [interval texts]
  std::uint64_t estimate = 0;       // keys in the ranges, counted up to the cap
  bool over_cap = false;
  // Counting stopped once this candidate had more keys than an already counted one (so it
  // cannot be chosen): `estimate` is then a lower bound (that count plus one).
  bool partial = false;
  std::uint64_t approx_bytes = 0;   // RocksDB's approximate size of the ranges (counting order)
  // The ranges hold exactly one key per matching document (exact predicates on bound fields
  // only, not multikey, not partial): count_documents may count keys without fetching.
  bool covers_count = false;
  bool single_prefix = false;       // the equality fields pin one value each (no $in of several)
  // The entries' values (docs-key suffixes) in scan order, when the planner's count read
  // all of them and there were few (scan_candidate then reads nothing again).
  std::vector<std::string> ids;
  bool ids_complete = false;
};

struct query_plan {
  enum class kind { full_scan, id_lookup, index_scan };
  kind chosen_kind = kind::full_scan;
  std::vector<index_def> defs;      // the collection's indexes (candidates point into it)
  std::vector<index_candidate> candidates;  // one per index, name order
  int chosen = -1;                  // index into candidates
  std::uint64_t documents = 0;
  std::uint64_t cap = 0;            // an index matching more keys than this is not used
  std::vector<predicate> predicates;
};

// Plans `filter` on collection `c`. The filter must compile (callers check first).
// Candidates are counted smallest approximate size first; with `exact_estimates` false a
// later one is counted only until it has more keys than the best so far (partial): the
// choice is the same, only the losers' counts are cut short. explain, suggest_indexes and
// diagnose ask for exact counts.
result<query_plan> plan_query(const store::impl& s, const rocksdb::ReadOptions& ro, const catalog_entry& c,
                              const document& filter, bool exact_estimates = false);
// The same with the collection's index definitions already read (read_index_defs), and
// optionally `filter` already compiled (`compiled`, else it is compiled again).
result<query_plan> plan_query(const store::impl& s, const rocksdb::ReadOptions& ro, const catalog_entry& c,
                              const document& filter, std::vector<index_def> defs, bool exact_estimates = false,
                              const engine::filter* compiled = nullptr);

// The docs-key suffixes (keystring(_id)) the chosen candidate's ranges hold, sorted and
// distinct; `keys_examined` counts the entries read.
result<std::vector<std::string>> scan_candidate(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                const index_candidate& cand, const scan_control& control,
                                                std::uint64_t* keys_examined = nullptr);

// The number of entries in the candidate's ranges (for a covers_count candidate: the number
// of matching documents).
result<std::uint64_t> count_keys(const store::impl& s, const rocksdb::ReadOptions& ro, const index_candidate& cand,
                                 const scan_control& control);

// plan_query + scan_candidate: the candidate ids when an index is chosen; nullopt for a full
// scan (or an `_id` lookup, which the callers do themselves).
result<std::optional<std::vector<std::string>>> planned_ids(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                            const catalog_entry& c, const document& filter,
                                                            const scan_control& control,
                                                            const engine::filter* compiled = nullptr);

// Ranges whose entries list every document `filter` can match exactly once, in the order of
// `sort` then `_id` ascending (index_order.cpp): a non-multikey, non-partial index whose fields
// after the single-valued equality prefix are the sort's keys with their directions, or all
// with the opposite ones (scanned backwards, equal keys put back in `_id` order), and no more
// fields unless it is unique. Chosen when the filter's own choice is that index or another
// one with no more keys, or when the filter chose no index and the query has a limit. `index_name` gets the
// index's name.
// An idx entry as read: its value must be the `_id` its key ends with (an ordinary index) or
// non-empty (a unique one); anything else was damaged on disk.
bool entry_consistent(std::string_view key, std::string_view value, bool unique) noexcept;
failure corrupt_index_entry(std::string_view index_name, std::string_view key);

struct ordered_scan {
  std::vector<key_range> ranges;  // ascending
  bool reverse = false;           // visit them backwards
  bool unique = false;            // entries never share a key (no `_id` suffix)
  std::string index;              // the index's name (for errors)
};
result<std::optional<ordered_scan>> ordered_ranges(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                   const catalog_entry& c, const document& filter,
                                                   const sort_spec& sort, bool limited,
                                                   std::string* index_name = nullptr);
// Visits the documents of the scan's entries in its order; `visit` returns false to stop.
status visit_in_order(const store::impl& s, const rocksdb::ReadOptions& ro, const ordered_scan& scan,
                      const catalog_entry& c, const scan_control& control,
                      const std::function<bool(document&&)>& visit);

// Does `query` imply the partial filter `partial` (both as predicates)? Conservative.
bool implies(const std::vector<predicate>& query, const document& partial);

}  // namespace omgdb::engine::detail
