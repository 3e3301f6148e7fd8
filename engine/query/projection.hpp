// omgdb engine — find projections ({a: 1, "b.c": 1}, {x: 0}, $slice, $elemMatch, "arr.$").
//
// MongoDB's find-projection rules (4.4 and later):
//  - A projection is an inclusion ({a: 1}) or an exclusion ({a: 0}); mixing them is an error,
//    except `_id`, which is included unless `_id: 0` (or false) is given, and comes first in
//    an inclusion's output. {} returns documents as they are; {_id: 0} alone is an exclusion.
//    Values: true/false and numbers (non-zero includes); nested documents ({a: {b: 1}}) mean
//    the dotted paths ("a.b": 1). Anything else, e.g. {x: "$a"} or {x: {$add: …}}, is an error
//    ("projection expressions are not supported").
//  - Output keeps the document's field order. Numeric path components are field names.
//  - A dotted path through an array of documents projects each element: in an inclusion,
//    non-document elements are dropped (nested arrays are projected element by element);
//    in an exclusion they are kept. {"a.b": 1} on a scalar `a` leaves `a` out.
//  - {arr: {$slice: n}} keeps the first n elements (the last -n when negative),
//    {arr: {$slice: [skip, limit]}} skips (counting from the end when negative) then keeps
//    `limit` (> 0). A non-array value is returned as is. $slice does not decide the kind of
//    projection: {arr: {$slice: 2}} alone returns every other field.
//  - {arr: {$elemMatch: {…}}} (a top-level field only) keeps the first element matching the
//    condition as a one-element array, and leaves the field out when none does. It counts as
//    an inclusion, and the field is placed after the other included fields.
//  - {"arr.$": 1} keeps the element that the query's filter matched (filter::match_details):
//    the filter must have matched an element of exactly that array, else apply() fails. It
//    counts as an inclusion; at most one positional path per projection.
// Errors name the path: "projection paths `a` and `a.b` collide", "projection cannot mix
// inclusion (`a`) and exclusion (`b`)", "`$slice` limit must be positive at `arr`".
//
// Thread safety: a compiled projection is immutable; apply it from any number of threads.
#pragma once

#include <memory>
#include <string>

#include "common/result.hpp"
#include "engine/query/filter.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

class projection {
 public:
  projection();  // the identity: documents come back unchanged
  ~projection();
  projection(const projection&) = default;
  projection& operator=(const projection&) = default;
  projection(projection&&) noexcept = default;
  projection& operator=(projection&&) noexcept = default;

  static result<projection> compile(const document& spec);

  bool is_identity() const noexcept { return impl_ == nullptr; }
  // A positional "arr.$" path: apply() needs the match details of the document.
  bool needs_match_details() const noexcept;

  // The projected document. `details` is what filter::matches(doc, details) reported for it
  // (only read for a positional path; nullptr counts as "no element matched").
  result<document> apply(const document& doc, const filter::match_details* details = nullptr) const;

  struct impl;

 private:
  std::shared_ptr<const impl> impl_;
};

}  // namespace omgdb::engine
