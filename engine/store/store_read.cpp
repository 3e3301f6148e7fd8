// omgdb engine — get, find and count under a RocksDB snapshot.
//
// A filter that pins `_id` by equality is a point lookup; otherwise the planner
// (index_plan.hpp) may pick a secondary index, whose candidates are visited in `_id` order;
// else a prefix scan of the collection in keystring(_id) order (`_id` ascending BSON order).
// Sorted finds stream in an index's order when one gives exactly the sort's order
// (index_order.cpp), else keep a bounded top-k heap of skip + min(limit + 1, what one page
// can hold) sort keys — keys only (each ends with the `_id`): the page's documents are read
// again by `_id` under the same snapshot, so a sort of large documents holds their keys, not
// them. The heap is sort.hpp's bounded_sorter, the one `$sort` uses; the keys held are bounded
// by bytes (find_options::max_sort_bytes, k_max_sort_bytes): past it the call is refused with
// sort_limit_message, naming the limit and what avoids it. count may count index keys alone when the bounds are exact.
// Keyset pagination (afterId / afterSortKey) seeks past afterId when the order is the scan
// order, and otherwise drops the documents whose (sort key, _id) is not after the bound.
// Projections are applied to the documents of the page only.
#include <algorithm>
#include <variant>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/store/page_writer.hpp"
#include "engine/query/projection.hpp"
#include "engine/query/sort.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

result<std::optional<document>> store::impl::read_document(const rocksdb::ReadOptions& ro,
                                                           std::string_view collection,
                                                           std::uint32_t id,
                                                           const value& doc_id) const {
  std::string key = doc_key(id, doc_id);
  std::string bytes;
  auto st = db->Get(ro, docs, key, &bytes);
  if (st.IsNotFound()) return std::optional<document>{};
  if (!st.ok()) return storage_error(path, "read", st);
  auto doc = from_bson(bytes);
  if (!doc) return corrupt_document(collection, key.substr(4), doc.error());
  return std::optional<document>(std::move(*doc));
}

namespace {

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// The `_id` a filter pins by equality, when a point lookup is exact for it. Stored `_id`s
// are never arrays or regexes, and a regex operand means a pattern match, so those scan.
const value* point_of(const filter& f) {
  const value* id = f.id_equality();
  if (id == nullptr || id->is_array() || std::holds_alternative<regex>(id->raw())) return nullptr;
  return id;
}

bool sorts_as_scan(const sort_spec& sort) {
  if (sort.empty()) return true;
  const auto& keys = sort.keys();
  return keys.size() == 1 && keys[0].path == "_id" && !keys[0].descending;
}

bool id_only(const sort_spec& sort) {
  return std::all_of(sort.keys().begin(), sort.keys().end(),
                     [](const sort_spec::key& k) { return k.path == "_id"; });
}

std::string key_list(const sort_spec& sort) {
  std::string out;
  for (const auto& k : sort.keys()) out += (out.empty() ? "`" : ", `") + k.path + "`";
  return out;
}

// The sort key (sort_spec::sort_key layout) that a page must start strictly after, or nullopt
// without afterId. Errors explain what to send.
result<std::optional<array>> keyset_bound(const sort_spec& sort, const find_options& o) {
  if (!o.after_id) {
    if (o.after_sort_key) {
      return make_error("`afterSortKey` needs `afterId` too: send the `_id` of the last document "
                        "you received as `afterId` and its sort values as `afterSortKey`");
    }
    return std::optional<array>();
  }
  const std::string sort_text = sort.empty() ? "{}" : to_json(o.sort);
  if (!o.after_sort_key && !id_only(sort)) {
    return make_error("`afterId` with the sort " + sort_text + " also needs `afterSortKey`: an object "
                      "with the last document's sort values for exactly " + key_list(sort) +
                      " (the continuation note of the previous page gives both)");
  }
  array bound;
  if (o.after_sort_key) {
    const document& given = *o.after_sort_key;
    bool same = given.size() == sort.keys().size();
    for (const auto& k : sort.keys()) same = same && find_field(given, k.path) != nullptr;
    if (!same) {
      return make_error("`afterSortKey` must hold exactly the sort's keys " +
                        (sort.empty() ? std::string("(none: without a sort, page with `afterId` alone)")
                                      : key_list(sort)) +
                        ", with the last document's values; got " + to_json(given));
    }
    for (const auto& k : sort.keys()) bound.push_back(*find_field(given, k.path));
  } else {
    for (std::size_t i = 0; i < sort.keys().size(); ++i) bound.push_back(*o.after_id);
  }
  bound.push_back(*o.after_id);
  return std::optional<array>(std::move(bound));
}

document sort_values(const sort_spec& sort, const array& key) {
  document out;
  for (std::size_t i = 0; i < sort.keys().size(); ++i) out.push_back(field{sort.keys()[i].path, key[i]});
  return out;
}

}  // namespace

result<std::optional<document>> store::get(std::string_view collection, const value& id) const {
  read_view view(*impl_);
  auto entry = view.collection(collection, /*with_count=*/false);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return std::optional<document>{};
  return impl_->read_document(view.options(), collection, (*entry)->id, id);
}

result<std::optional<std::string>> store::get_json(std::string_view collection, const value& id) const {
  read_view view(*impl_);
  const auto ro = view.options();
  auto entry = view.collection(collection, /*with_count=*/false);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return std::optional<std::string>{};
  const std::string key = doc_key((*entry)->id, id);
  rocksdb::PinnableSlice bytes;  // released before the snapshot (declared after it)
  auto st = impl_->db->Get(ro, impl_->docs, key, &bytes);
  if (st.IsNotFound()) return std::optional<std::string>{};
  if (!st.ok()) return storage_error(impl_->path, "read", st);
  std::string text;
  if (append_bson_json(text, bytes.ToStringView())) return std::optional<std::string>(std::move(text));
  auto doc = from_bson(bytes.ToStringView());
  if (!doc) return corrupt_document(collection, key.substr(4), doc.error());
  return std::optional<std::string>(to_json(*doc));
}

result<find_page> store::find(std::string_view collection, const find_options& options,
                              const scan_control& control) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto compiled = filter::compile(options.filter);
  if (!compiled) return std::move(compiled).error();
  auto sort = sort_spec::compile(options.sort);
  if (!sort) return std::move(sort).error();
  auto project = projection::compile(options.projection);
  if (!project) return std::move(project).error();
  auto bound = keyset_bound(*sort, options);
  if (!bound) return std::move(bound).error();
  const filter& match = *compiled;

  find_page page;
  snapshot_guard snap(impl_->db);
  auto entry = impl_->lookup(snap.read_options(), collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return page;

  // MongoDB treats limit 0 as "no limit".
  std::uint64_t limit = options.limit.value_or(0) == 0 ? UINT64_MAX : *options.limit;
  page_writer out(page, options.max_bytes, options.skip, match, *project);
  collection_scan scan(*impl_, snap, collection, **entry, control);
  const value* point = point_of(match);
  std::optional<ordered_scan> ordered;  // an index in the sort's order
  if (point == nullptr && !sorts_as_scan(*sort)) {
    auto o = ordered_ranges(*impl_, snap.read_options(), **entry, options.filter, *sort, limit != UINT64_MAX);
    if (!o) return std::move(o).error();
    ordered = std::move(*o);
  }
  std::optional<std::vector<std::string>> planned;  // an index's candidates, in `_id` order
  if (point == nullptr && !ordered) {
    auto ids = planned_ids(*impl_, snap.read_options(), **entry, options.filter, control, &match);
    if (!ids) return std::move(ids).error();
    planned = std::move(*ids);
    if (planned) scan.restrict_to(&*planned);
  }
  std::optional<failure> error;
  try {
    if (sorts_as_scan(*sort)) {
      // Streaming: scan order is already the requested order; afterId seeks past its key. One
      // match past a full page is looked for, so `more` is exact.
      const value* after = options.after_id ? &*options.after_id : nullptr;
      std::uint64_t matched = 0;
      if (planned) {
        // An index's candidates, matched over their stored bytes and written as text
        // (page_writer::add_bytes), decoded only when the raw matcher or the text writer
        // cannot tell.
        auto st = scan.run_matching_bytes(match, after, [&](std::string_view key, std::string_view raw)
                                                            -> std::optional<status> {
          if (matched++ < options.skip) return std::nullopt;
          if (page.returned >= limit) {
            page.more = true;
            return status();
          }
          auto added = out.add_bytes(raw, collection, key.substr(4));
          if (!added) return status(std::move(added).error());
          if (!*added) return status();
          return std::nullopt;
        });
        if (!st) return std::move(st).error();
        return page;
      }
      auto st = scan.run_matching(match, point, [&](document&& doc) {
        if (matched++ < options.skip) return true;
        if (page.returned >= limit) {
          page.more = true;
          return false;
        }
        auto added = out.add(doc);
        if (!added) error = std::move(added).error();
        return added.ok() && *added;
      }, after);
      if (!st) return std::move(st).error();
      if (error) return std::move(*error);
      return page;
    }

    // Sorted: `all` is a max-heap (by sort key) of the best skip + k matches seen so far. k is
    // the limit plus one (to know whether more follow), but never more than a page can hold:
    // every line is at least 10 bytes ({"_id":1} and '\n'), so max_bytes / 8 + 2 documents
    // always include one past a full page. So even an unlimited sort keeps bounded memory.
    const sort_spec& order = *sort;
    if (ordered) {
      // Streaming in the index's order, which is the sort's: stop one match past the page.
      std::uint64_t matched = 0;
      array last_key;
      auto st = visit_in_order(*impl_, snap.read_options(), *ordered, **entry, control, [&](document&& doc) {
        if (!match.matches(doc)) return true;
        array key = order.sort_key(doc);
        if (*bound && order.compare_keys(key, **bound) <= 0) return true;  // keyset: not after
        if (matched++ < options.skip) return true;
        if (page.returned >= limit) {
          page.more = true;
          return false;
        }
        auto added = out.add(doc);
        if (!added) error = std::move(added).error();
        if (!added.ok() || !*added) return false;
        last_key = std::move(key);
        return true;
      });
      if (!st) return std::move(st).error();
      if (error) return std::move(*error);
      if (page.more && page.returned > 0 && !id_only(order)) page.last_sort_key = sort_values(order, last_key);
      return page;
    }
    std::uint64_t page_cap = static_cast<std::uint64_t>(options.max_bytes / 8) + 2;
    std::uint64_t keep = saturating_add(options.skip, std::min(saturating_add(limit, 1), page_cap));
    // The sorter `$sort` uses too (sort.hpp): keys only, each ending with the `_id`.
    bounded_sorter<std::monostate> sorter(order, keep, options.max_sort_bytes);
    bool too_big = false;
    auto st = scan.run_matching(match, point, [&](document&& doc) {
      array key = order.sort_key(doc);
      if (*bound && order.compare_keys(key, **bound) <= 0) return true;  // keyset: not after
      too_big = !sorter.offer(std::move(key), {}, 0);
      return !too_big;
    });
    if (!st) return std::move(st).error();
    if (too_big) {
      return make_error(sort_limit_message("sorting by " + to_json(options.sort) + " without an index in that order",
                                           sorter.size(), sorter.max_bytes(),
                                           "pass a `limit` (with an index on the sort fields the sort then streams "
                                           "in its order) and a smaller `skip`, or narrow the filter"),
                        failure_kind::limit_exceeded);
    }
    const auto all = sorter.take_sorted();
    std::uint64_t i = options.skip;
    for (; i < all.size() && page.returned < limit; ++i) {
      // The document again, by its `_id` (the key's last value), under the scan's snapshot.
      auto doc = impl_->read_document(snap.read_options(), collection, (*entry)->id, all[i].key.back());
      if (!doc) return std::move(doc).error();
      if (!doc->has_value()) continue;  // cannot happen under one snapshot
      auto added = out.add(**doc);
      if (!added) return std::move(added).error();
      if (!*added) break;
    }
    if (i < all.size()) page.more = true;
    if (page.more && page.returned > 0 && !id_only(order)) {
      page.last_sort_key = sort_values(order, all[options.skip + page.returned - 1].key);
    }
  } catch (const expression_error& e) {
    return e.to_failure();
  }
  return page;
}

result<std::uint64_t> store::count(std::string_view collection, const document& filter_spec,
                                   const scan_control& control) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto compiled = filter::compile(filter_spec);
  if (!compiled) return std::move(compiled).error();
  const filter& match = *compiled;
  snapshot_guard snap(impl_->db);
  auto entry = impl_->lookup(snap.read_options(), collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return std::uint64_t{0};
  if (match.matches_everything()) return (*entry)->documents;  // the counter is exact
  std::uint64_t n = 0;
  collection_scan scan(*impl_, snap, collection, **entry, control);
  std::optional<std::vector<std::string>> planned;  // an index's candidates, in `_id` order
  std::vector<index_def> defs;
  if (point_of(match) == nullptr) {
    auto d = read_index_defs(*impl_, snap.read_options(), (*entry)->id);
    if (!d) return std::move(d).error();
    defs = std::move(*d);
  }
  if (!defs.empty()) {
    auto plan = plan_query(*impl_, snap.read_options(), **entry, filter_spec, std::move(defs), false, &match);
    if (!plan) return std::move(plan).error();
    // An index whose ranges hold exactly one key per match counts without fetching (even
    // when it is too wide to be chosen for fetching documents).
    const index_candidate* covering = nullptr;
    if (plan->chosen >= 0 && plan->candidates[static_cast<std::size_t>(plan->chosen)].covers_count) {
      covering = &plan->candidates[static_cast<std::size_t>(plan->chosen)];
    }
    for (const auto& c : plan->candidates) {
      if (covering == nullptr && c.usable && c.covers_count) covering = &c;
    }
    if (covering != nullptr) {
      // The planner counted the keys already unless it stopped at its cap or once the
      // candidate had more keys than another.
      if (!covering->over_cap && !covering->partial) return covering->estimate;
      return count_keys(*impl_, snap.read_options(), *covering, control);
    }
    if (plan->chosen_kind == query_plan::kind::index_scan) {
      auto ids = scan_candidate(*impl_, snap.read_options(), plan->candidates[static_cast<std::size_t>(plan->chosen)],
                                control);
      if (!ids) return std::move(ids).error();
      planned = std::move(*ids);
      scan.restrict_to(&*planned);
    }
  }
  try {
    // Counting decodes nothing that the filter can judge from the stored bytes.
    auto st = scan.run_matching(match, point_of(match), [&](document&&) {
      ++n;
      return true;
    }, nullptr, /*decode=*/false);
    if (!st) return std::move(st).error();
  } catch (const expression_error& e) {
    return e.to_failure();
  }
  return n;
}

}  // namespace omgdb::engine
