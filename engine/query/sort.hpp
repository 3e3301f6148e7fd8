// omgdb engine — sort specifications ({field: 1 | -1, ...}).
//
// Ascending order uses an array field's smallest element, descending its largest (MongoDB);
// missing sorts as null; values compare in BSON order (value.hpp). `_id` ascending is always
// the final tiebreak, so the order is total and deterministic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/call_budget.hpp"
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

// The memory a value, document or sort key holds (strings, nested documents and arrays
// included), roughly as allocated: the one measure every bounded sort and aggregation stage
// counts against its limit (k_max_sort_bytes, pipeline_options::max_stage_bytes).
std::size_t held_bytes(const value& v);
std::size_t held_bytes(const document& d);
std::size_t sort_key_bytes(const array& key);

// "100 MiB" for whole mebibytes, else "1048576 bytes": how limits are named in errors.
std::string limit_text(std::size_t bytes);

// The one error of a sort past its memory limit (find's unindexed sort and `$sort`):
// "<who> exceeded the sort memory limit of <limit> (it holds the sort entries of <held>
// documents and does not spill to disk): <remedy>".
std::string sort_limit_message(std::string_view who, std::uint64_t held, std::size_t limit, std::string_view remedy);

// The one bounded sorter of find's unindexed sort (Payload: nothing, the key ends with the
// `_id` and the documents are read again) and aggregation's `$sort` (Payload: the document).
// It keeps the best `keep` entries offered (a max-heap; UINT64_MAX keeps all) in the order of
// `spec` (sort_spec::compare_keys on sort_spec::sort_key, whose last value is the `_id`), ties
// broken by arrival order, and counts the bytes it holds (held_bytes of the key, the payload's
// bytes as given, the entry itself). offer() returns false once they pass `max_bytes`: the
// caller then fails with sort_limit_message. Nothing spills to disk.
template <class Payload>
class bounded_sorter {
 public:
  struct entry {
    array key;
    std::uint64_t seq = 0;
    Payload payload{};
    std::size_t bytes = 0;
  };

  bounded_sorter(const sort_spec& spec, std::uint64_t keep, std::size_t max_bytes)
      : spec_(spec), keep_(keep), max_bytes_(max_bytes) {}

  bool before(const entry& a, const entry& b) const {
    const int c = spec_.compare_keys(a.key, b.key);
    return c != 0 ? c < 0 : a.seq < b.seq;
  }

  // Offers one entry (its key from spec.sort_key); false once the bytes held pass the limit.
  bool offer(array key, Payload payload, std::size_t payload_bytes) {
    if (keep_ == 0) return true;
    entry e{std::move(key), seq_++, std::move(payload), 0};
    auto less = [this](const entry& a, const entry& b) { return before(a, b); };
    const bool bounded = keep_ != UINT64_MAX;
    if (bounded && held_.size() >= keep_) {
      if (!before(e, held_.front())) return true;  // not better than the worst kept
      std::pop_heap(held_.begin(), held_.end(), less);
      bytes_ -= held_.back().bytes;
      held_.pop_back();
    }
    e.bytes = sort_key_bytes(e.key) + payload_bytes + sizeof(entry);
    bytes_ += e.bytes;
    held_.push_back(std::move(e));
    if (bounded) std::push_heap(held_.begin(), held_.end(), less);
    return bytes_ <= max_bytes_;
  }

  // The entries kept, best first; the sorter is empty afterwards.
  // The sort polls the thread's current call (common/call_budget.hpp) every 1024 comparisons:
  // a cancelled call stops it with call_error "cancelled".
  std::vector<entry> take_sorted() {
    const call_budget& call = current_budget();
    std::size_t steps = 0;
    auto less = [this, &call, &steps](const entry& a, const entry& b) {
      if ((++steps & 1023) == 0) call.poll();
      return before(a, b);
    };
    if (keep_ != UINT64_MAX) {
      std::sort_heap(held_.begin(), held_.end(), less);
    } else {
      std::sort(held_.begin(), held_.end(), less);
    }
    bytes_ = 0;
    return std::move(held_);
  }

  std::size_t size() const noexcept { return held_.size(); }
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }

 private:
  const sort_spec& spec_;
  std::uint64_t keep_;
  std::size_t max_bytes_;
  std::vector<entry> held_;
  std::size_t bytes_ = 0;
  std::uint64_t seq_ = 0;
};

// Values at a dotted path, MongoDB style: traverses one array level per component, numeric
// components index arrays (and also match fields literally named so). Appends every value
// reached (an array ending the path contributes its elements, not itself; an element reached
// by index is taken as is); `missing` is set when some branch ends on a missing field or on a
// scalar where the path goes on. See engine/query/path.hpp.
void values_at_path(const document& doc, std::string_view path, std::vector<const value*>& out,
                    bool& missing);

}  // namespace omgdb::engine
