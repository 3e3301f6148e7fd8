// omgdb engine — distinct values of a dotted path under a RocksDB snapshot.
//
// Values are collected the way MongoDB's distinct command does (arrays along the path are
// traversed, an array at the end contributes its elements one level deep, missing fields
// contribute nothing) into an ordered set that never holds more than max_values + 1 entries:
// when it overflows, the largest is dropped, so memory stays bounded and the answer is the
// first max_values distinct values in BSON order whatever the scan order.
#include <iterator>
#include <set>
#include <vector>

#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/query/sort.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

status check_distinct_path(std::string_view field) {
  if (field.empty()) return make_error("distinct field must not be empty");
  if (field.front() == '$') {
    return make_error("distinct field `" + std::string(field) +
                      "` must be a field path without '$' (write `a.b`, not `$a.b`)");
  }
  if (field.front() == '.' || field.back() == '.' || field.find("..") != std::string_view::npos) {
    return make_error("distinct field `" + std::string(field) + "` has an empty component");
  }
  return {};
}

struct bson_less {
  bool operator()(const value& a, const value& b) const { return compare(a, b) < 0; }
};

}  // namespace

result<store::distinct_result> store::distinct(std::string_view collection, std::string_view field,
                                               const document& filter_spec, std::uint64_t max_values,
                                               const scan_control& control) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  if (auto p = check_distinct_path(field); !p) return std::move(p).error();
  if (max_values == 0) return make_error("maxValues must be at least 1");
  auto compiled = filter::compile(filter_spec);
  if (!compiled) return std::move(compiled).error();
  const filter& match = *compiled;

  distinct_result out;
  snapshot_guard snap(impl_->db);
  auto entry = impl_->lookup(snap.read_options(), collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return out;

  std::set<value, bson_less> kept;  // equal values (1, 1.0): the first one seen stays
  std::vector<const value*> found;
  collection_scan scan(*impl_, snap, collection, **entry, control);
  const value* point = match.id_equality();
  if (point != nullptr && (point->is_array() || std::holds_alternative<regex>(point->raw()))) {
    point = nullptr;  // not an exact point lookup (see store_read.cpp)
  }
  std::optional<std::vector<std::string>> planned;  // an index's candidates, in `_id` order
  if (point == nullptr) {
    auto ids = planned_ids(*impl_, snap.read_options(), **entry, filter_spec, control);
    if (!ids) return std::move(ids).error();
    planned = std::move(*ids);
    if (planned) scan.restrict_to(&*planned);
  }
  try {
    auto st = scan.run(point, [&](document&& doc) {
      if (!match.matches(doc)) return true;
      found.clear();
      bool missing = false;
      values_at_path(doc, field, found, missing);
      for (const value* v : found) {
        if (kept.size() == max_values) {
          const int c = compare(*v, *kept.rbegin());
          if (c > 0) out.truncated = true;  // beyond the largest kept value: cut
          if (c >= 0) continue;             // (or a duplicate of it)
        }
        if (!kept.insert(*v).second) continue;
        if (kept.size() > max_values) {
          kept.erase(std::prev(kept.end()));
          out.truncated = true;
        }
      }
      return true;
    });
    if (!st) return std::move(st).error();
  } catch (const expression_error& e) {
    return e.to_failure();
  }
  out.values.assign(kept.begin(), kept.end());
  return out;
}

}  // namespace omgdb::engine
