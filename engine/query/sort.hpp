// omgdb engine — sort specifications ({field: 1 | -1, ...}).
//
// Ascending order uses an array field's smallest element, descending its largest (MongoDB);
// missing sorts as null; values compare in BSON order (value.hpp). `_id` ascending is always
// the final tiebreak, so the order is total and deterministic.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

// The memory one sort may hold: an unindexed find sort's kept keys (find_options::
// max_sort_bytes) and an aggregation stage's documents (pipeline_options::max_stage_bytes)
// share this one figure: past it the call is refused, nothing spills to disk
// (docs/decisions.md, "One memory limit for sorting").
inline constexpr std::size_t k_max_sort_bytes = std::size_t{100} << 20;  // 100 MiB

class sort_spec {
 public:
  struct key {
    std::string path;  // dotted
    bool descending = false;
  };

  sort_spec() = default;  // `_id` ascending only
  // Errors: a direction other than 1 / -1 (int or integral double), an empty path,
  // a path with an empty component or starting with '$'.
  static result<sort_spec> compile(const document& spec);

  const std::vector<key>& keys() const noexcept { return keys_; }
  bool empty() const noexcept { return keys_.empty(); }

  // <0, 0, >0; equal only for documents with equal sort values and equal `_id`.
  int compare(const document& a, const document& b) const;

  // The sort key of one document: one value per key (min/max rule applied), then `_id`.
  // An empty array at the end of a path (MongoDB's `undefined` key) appears as an empty
  // array value, which compare_keys orders after MinKey and before null.
  array sort_key(const document& doc) const;
  int compare_keys(const array& a, const array& b) const;

 private:
  std::vector<key> keys_;
};

// The memory a sort key holds (its values, strings and nested documents included), roughly
// as allocated: what a sort counts against k_max_sort_bytes.
std::size_t sort_key_bytes(const array& key);

// Values at a dotted path, MongoDB style: traverses one array level per component, numeric
// components index arrays (and also match fields literally named so). Appends every value
// reached (an array ending the path contributes its elements, not itself; an element reached
// by index is taken as is); `missing` is set when some branch ends on a missing field or on a
// scalar where the path goes on. See engine/query/path.hpp.
void values_at_path(const document& doc, std::string_view path, std::vector<const value*>& out,
                    bool& missing);

}  // namespace omgdb::engine
