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
#include <memory>
#include <optional>

#include "common/result.hpp"
#include "engine/value.hpp"

namespace omgdb::engine {

class filter {
 public:
  filter();  // matches every document
  ~filter();
  filter(filter&&) noexcept;
  filter& operator=(filter&&) noexcept;

  static result<filter> compile(const document& spec);

  bool matches(const document& doc) const;

  // What a successful match found that updates and projections need.
  struct match_details {
    // For the positional `$` operator (update and projection): the index of the element that
    // satisfied the filter in the first array traversed on a matched path (MongoDB's
    // "elemMatchKey"); nullopt when no array was traversed.
    std::optional<std::size_t> array_index;
  };
  // matches(doc), also filling `details` when it returns true.
  bool matches(const document& doc, match_details& details) const;
  bool matches_everything() const noexcept;

  // If the filter pins `_id` to one value by equality ({_id: v} or {_id: {$eq: v}} at the top
  // level, alone or inside a top-level $and), that value; else nullptr. Used for point lookups.
  const value* id_equality() const noexcept;

  struct node;

 private:
  std::unique_ptr<node> root_;
  const value* id_eq_ = nullptr;
};

}  // namespace omgdb::engine
