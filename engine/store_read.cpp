// omgdb engine — get, find and count under a RocksDB snapshot.
//
// A filter that pins `_id` by equality is a point lookup; anything else is a prefix scan of
// the collection in keystring(_id) order (which is `_id` ascending BSON order). Sorted finds
// keep a bounded top-k heap of skip + min(limit, what one page can hold) entries.
#include <algorithm>

#include "engine/bson_codec.hpp"
#include "engine/ejson.hpp"
#include "engine/filter.hpp"
#include "engine/sort.hpp"
#include "engine/store_detail.hpp"

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

// Visits the candidate documents of one collection: the single `_id` match for a point
// lookup, else every document in `_id` order. `visit` returns false to stop early.
class collection_scan {
 public:
  collection_scan(const store::impl& s, const snapshot_guard& snap, std::string_view collection,
                  const catalog_entry& entry, const scan_control& control)
      : s_(s), snap_(snap), collection_(collection), entry_(entry), control_(control) {}

  template <class Visit>
  status run(const value* point_id, Visit&& visit) {
    auto ro = snap_.read_options();
    if (point_id != nullptr) {
      auto doc = s_.read_document(ro, collection_, entry_.id, *point_id);
      if (!doc) return std::move(doc).error();
      if (doc->has_value()) visit(std::move(**doc));
      return {};
    }
    std::string lower = docs_prefix(entry_.id);
    std::string upper = docs_prefix(entry_.id + 1);
    rocksdb::Slice upper_slice(upper);
    ro.iterate_upper_bound = &upper_slice;  // must outlive the iterator
    std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(ro, s_.docs));
    std::uint64_t seen = 0;
    for (it->Seek(lower); it->Valid(); it->Next()) {
      if (seen % k_poll_every == 0) {
        if (auto p = poll(control_, seen, entry_.documents); !p) return p;
      }
      ++seen;
      auto doc = from_bson(it->value().ToStringView());
      if (!doc) {
        return corrupt_document(collection_, it->key().ToStringView().substr(4), doc.error());
      }
      if (!visit(std::move(*doc))) return {};
    }
    if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
    return {};
  }

 private:
  const store::impl& s_;
  const snapshot_guard& snap_;
  std::string_view collection_;
  const catalog_entry& entry_;
  const scan_control& control_;
};

// Appends documents to a page until the byte cap; counts what it returned.
class page_writer {
 public:
  page_writer(find_page& page, std::size_t max_bytes, std::uint64_t skip)
      : page_(page), max_bytes_(max_bytes), skip_(skip) {}

  // False when the page is full (the document was not added and the page is truncated).
  bool add(const document& doc) {
    line_.clear();
    append_json(line_, doc, ejson_mode::relaxed);
    line_.push_back('\n');
    // The first document always goes in, so a caller paging with next_skip always advances.
    if (page_.returned > 0 && page_.ndjson.size() + line_.size() > max_bytes_) {
      page_.truncated = true;
      page_.next_skip = skip_ + page_.returned;
      return false;
    }
    page_.ndjson += line_;
    ++page_.returned;
    return true;
  }

 private:
  find_page& page_;
  std::size_t max_bytes_;
  std::uint64_t skip_;
  std::string line_;
};

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct keyed_doc {
  array key;
  document doc;
};

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

}  // namespace

result<std::optional<document>> store::get(std::string_view collection, const value& id) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  snapshot_guard snap(impl_->db);
  auto ro = snap.read_options();
  auto entry = impl_->lookup(ro, collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return std::optional<document>{};
  return impl_->read_document(ro, collection, (*entry)->id, id);
}

result<find_page> store::find(std::string_view collection, const find_options& options,
                              const scan_control& control) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto compiled = filter::compile(options.filter);
  if (!compiled) return std::move(compiled).error();
  auto sort = sort_spec::compile(options.sort);
  if (!sort) return std::move(sort).error();
  const filter& match = *compiled;

  find_page page;
  snapshot_guard snap(impl_->db);
  auto entry = impl_->lookup(snap.read_options(), collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return page;

  // MongoDB treats limit 0 as "no limit".
  std::uint64_t limit = options.limit.value_or(0) == 0 ? UINT64_MAX : *options.limit;
  page_writer out(page, options.max_bytes, options.skip);
  collection_scan scan(*impl_, snap, collection, **entry, control);
  const value* point = point_of(match);

  if (sorts_as_scan(*sort)) {
    // Streaming: scan order is already the requested order.
    std::uint64_t matched = 0;
    auto st = scan.run(point, [&](document&& doc) {
      if (!match.matches(doc)) return true;
      if (matched++ < options.skip) return true;
      if (page.returned >= limit) return false;
      return out.add(doc) && page.returned < limit;
    });
    if (!st) return std::move(st).error();
    return page;
  }

  // Sorted: `all` is a max-heap (by sort key) of the best skip + k matches seen so far. k is
  // the limit, but never more than a page can hold: every line is at least 10 bytes
  // ({"_id":1} and '\n'), so max_bytes / 8 + 2 documents always include one past a full
  // page, which is what `truncated` needs. So even an unlimited sort keeps bounded memory.
  const sort_spec& order = *sort;
  auto before = [&](const keyed_doc& a, const keyed_doc& b) {
    return order.compare_keys(a.key, b.key) < 0;
  };
  std::uint64_t page_cap = static_cast<std::uint64_t>(options.max_bytes / 8) + 2;
  std::uint64_t keep = saturating_add(options.skip, std::min(limit, page_cap));
  std::vector<keyed_doc> all;
  auto st = scan.run(point, [&](document&& doc) {
    if (!match.matches(doc)) return true;
    keyed_doc kd{order.sort_key(doc), std::move(doc)};
    if (all.size() < keep) {
      all.push_back(std::move(kd));
      std::push_heap(all.begin(), all.end(), before);
    } else if (before(kd, all.front())) {
      std::pop_heap(all.begin(), all.end(), before);
      all.back() = std::move(kd);
      std::push_heap(all.begin(), all.end(), before);
    }
    return true;
  });
  if (!st) return std::move(st).error();
  std::sort_heap(all.begin(), all.end(), before);
  for (std::uint64_t i = options.skip; i < all.size() && page.returned < limit; ++i) {
    if (!out.add(all[i].doc)) break;
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
  auto st = scan.run(point_of(match), [&](document&& doc) {
    if (match.matches(doc)) ++n;
    return true;
  });
  if (!st) return std::move(st).error();
  return n;
}

}  // namespace omgdb::engine
