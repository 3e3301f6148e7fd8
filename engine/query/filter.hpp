// omgdb engine — MongoDB query filters.
//
// A filter is compiled once from its document and then matched against many documents.
// Semantics follow MongoDB (see ../shared notes, document-engine.md §1): implicit traversal
// of arrays, dotted paths one array level per component, numeric components index arrays,
// null matches missing, comparisons stay within one type bracket, $ne/$nin are complements.
// Supported operators are listed in docs/query-language.md; an unknown operator, a
// malformed argument or an empty $and/$or/$nor is a compile error naming the operator and
// the path, e.g. "unknown operator `$foo` at `age`".
//
// Thread safety: a compiled filter is immutable; several threads may match with it at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

// PCRE2's match limit for every regex in a filter or a validation `pattern`: the backtracking
// steps one value may take (about 0.5 ms with the JIT). Reaching it is an error, never "no
// match" (docs/limits.md).
inline constexpr std::uint32_t k_regex_match_limit = 100'000;

// The most clauses one filter may hold: each field condition, operator, $and/$or/$nor branch,
// $all item and $in regex counts one ({a: {$gt: 1, $lt: 5}} is three). A larger filter is a
// compile error naming the limit; matching work per document stays bounded by it ($in values
// are binary-searched and do not count). docs/limits.md.
inline constexpr std::size_t k_max_filter_clauses = 10'000;

class filter {
 public:
  filter();  // matches every document
  ~filter();
  filter(filter&&) noexcept;
  filter& operator=(filter&&) noexcept;

  static result<filter> compile(const document& spec);

  // A `$expr` that fails at run time (e.g. "can't $divide by zero") and a regex that reaches
  // the match limit (k_regex_match_limit) make matches() and matches_bson() throw
  // engine::expression_error (engine/query/expr.hpp); catch it where the filter came from user
  // input and report what() as the error (store::find/count/distinct do; the write paths run
  // each match through guard_match).
  bool matches(const document& doc) const;

  // What a successful match found that updates and projections need.
  struct match_details {
    // For the positional `$` operator (update and projection): the index of the element that
    // satisfied the filter in the first array traversed on a matched path (MongoDB's
    // "elemMatchKey"); nullopt when no array was traversed.
    std::optional<std::size_t> array_index;
    // The dotted path (as the filter spelled it) that leads to that array: "grades" for
    // {"grades.score": {$gt: 1}} on grades: [{score: 0}, {score: 2}] (array_index 1).
    std::string array_path;
  };
  // matches(doc), also filling `details` when it returns true (reset first). MongoDB's rule:
  // a condition on a path records the element of the first array it expanded on the way to
  // the value that satisfied it ({grades: {$gte: 85}} on grades: [80, 90] → 1); `$elemMatch`
  // on an array reached without expansion records the element that matched. An implicit or
  // explicit $and evaluates its conditions in order and each one that records overwrites
  // the previous, so the LAST recording condition wins ({a: 1, b: 2} on a: [1], b: [0, 2]
  // → 1, from b). $or, $nor, $not, $ne, $nin, $expr and an array matched whole ({a: [1, 2]})
  // record nothing. Reaching an element by a numeric component ("a.0") is not an expansion.
  bool matches(const document& doc, match_details& details) const;
  bool matches_everything() const noexcept;

  // matches() evaluated over a document's stored BSON bytes, without decoding them
  // (engine/query/filter_raw.cpp): paths are walked in place and values compared as they lie, with
  // the same semantics as matches() (type brackets, numeric cross-type comparison, array
  // traversal, null matching missing). nullopt when only the decoded document can tell: a
  // filter with `$expr`, bytes the walk finds malformed, deprecated BSON types on a path.
  // The caller then decodes the document (reporting corruption) and calls matches().
  // Well-formed bytes are not validated beyond what the walk reads.
  std::optional<bool> matches_bson(std::string_view bson) const;

  // If the filter pins `_id` to one value by equality ({_id: v} or {_id: {$eq: v}} at the top
  // level, alone or inside a top-level $and), that value; else nullptr. Used for point lookups.
  const value* id_equality() const noexcept;

  struct node;

 private:
  std::unique_ptr<node> root_;
  const value* id_eq_ = nullptr;
  bool raw_ = false;  // every node answers matches_raw
};

}  // namespace omgdb::engine
