// omgdb engine — MongoDB update documents ({$set: …, $inc: …}).
//
// An update is compiled once from its document (and its arrayFilters) and then applied to
// many documents. Semantics follow MongoDB 5.0+ (docs/update-language.md has the full list):
//  - operators: $set $unset $inc $mul $min $max $rename $currentDate $setOnInsert $bit
//    $push (with $each $slice $sort $position) $addToSet (with $each) $pop $pull $pullAll;
//  - paths are dotted; numeric components index arrays; `$` is the element the query matched
//    (filter::match_details), `$[]` every element, `$[id]` the elements its arrayFilter
//    matches (nested too); identifiers start with a lowercase letter and are alphanumeric;
//    every arrayFilter must be used and every identifier needs exactly one filter;
//  - fields are applied in MongoDB's order: lexicographic, numeric components numerically,
//    so new fields are appended in that order;
//  - two paths that are equal or where one is a prefix of the other conflict (compile error,
//    or an apply error when positional paths resolve to conflicting elements);
//  - `_id` is immutable; $inc/$mul of a non-number is an error; int32 arithmetic that
//    overflows gives int64, int64 overflow is an error; `$set` past the end of an array pads
//    with nulls; `$set` through a scalar is an error; `$unset` of an array element sets it to
//    null; `$rename` removes the target first and never moves into or out of an array;
//    `{$set: {}}` is a no-op;
//  - an update without operators (a replacement) or mixing operators and plain fields is an
//    error ("update document requires update operators; use `replace` to replace a
//    document"); an unknown operator is an error naming it.
// Errors are complete sentences naming the operator and the path.
//
// Thread safety: a compiled update_spec is immutable; several threads may apply it at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/query/filter.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

struct update_apply_options {
  // For the positional `$`: what the query matched in this document (nullptr: nothing, so
  // an update using `$` fails with "the positional operator did not find the match needed
  // from the query").
  const filter::match_details* positional = nullptr;
  // True when an upsert inserts the document: $setOnInsert applies, `$` is refused.
  bool inserting = false;
  // The time $currentDate writes, in milliseconds since the epoch (one value per call, as
  // MongoDB uses one time per operation). $currentDate {$type:"timestamp"} writes
  // {t: now / 1000, i: 1}.
  std::int64_t now_millis = 0;
};

struct update_outcome {
  document doc;
  // MongoDB's "not a no-op" (what modifiedCount counts): the result differs from the
  // document (types and field order too), or a $push inserted elements — even when its
  // $slice trimmed them away and `doc` came out identical.
  bool changed = false;
};

class update_spec {
 public:
  update_spec();  // the empty update: changes nothing
  ~update_spec();
  update_spec(update_spec&&) noexcept;
  update_spec& operator=(update_spec&&) noexcept;
  update_spec(const update_spec&) = delete;
  update_spec& operator=(const update_spec&) = delete;

  // Errors: see the header comment; also malformed operator arguments ("`$inc` at `a` needs a
  // number, not \"x\""), bad paths, unknown / unused / duplicate array filter identifiers.
  static result<update_spec> compile(const document& update, const array& array_filters = {});

  // Applies the update to a copy of `doc`. Errors (nothing is changed): a conflict between
  // resolved positional paths, a type error ($inc of a string, $push to a non-array, $set
  // through a scalar), a modified `_id`, int64 overflow, `$[]` over a missing array, a $pull
  // condition's regex reaching the match limit.
  result<update_outcome> apply(const document& doc, const update_apply_options& options) const;

  // True when a path uses the positional `$` (the caller must then supply match details).
  bool uses_positional() const noexcept;

  // The distinct top-level field names the update's paths start with ($rename: source and
  // target), in first-use order: apply() reads and writes no other top-level field. nullopt
  // when a path starts with `$`, `$[]` or `$[id]`.
  std::optional<std::vector<std::string>> root_fields() const;

  struct impl;

 private:
  result<update_outcome> apply_unguarded(const document& doc, const update_apply_options& options) const;

  std::unique_ptr<impl> impl_;
};

// True when `a` and `b` are the same value of the same type, documents with the same fields
// in the same order (unlike equal(): 1 and 1.0 differ, -0.0 and 0.0 differ, NaN is NaN).
bool identical(const value& a, const value& b);
bool identical(const document& a, const document& b);

}  // namespace omgdb::engine
