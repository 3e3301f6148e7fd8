// omgdb engine — store::equality_reader: `$lookup`'s foreign documents through an index on the
// foreign field (engine/aggregate/stage_lookup.cpp).
//
// Opened once per `$lookup`: one snapshot, the collection's catalog entry, the index (the
// first in name order that leads with the path and is not partial) and one RocksDB iterator
// over its entries. Each read() seeks that iterator once per value — the entries of key
// prefix idx_prefix(index) + keystring(value) (inverted for a descending field), whatever
// the later fields of a compound index hold — collects the docs-key suffixes, sorts them
// into `_id` order and reads the documents by key. No planner runs per call:
// the plan of an equality on the index's leading field is always these point ranges.
//
// `_id` needs no index: the documents are keyed by keystring(_id) (store_detail.hpp), so a
// read of `_id` values is one Get per value. Every value has a point there — null is the
// key of the document whose `_id` is null (every document has an `_id`, so null matches no
// missing one) — and an array or a regex matches no document (a stored `_id` is never one).
#include <algorithm>

#include "engine/index/index.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/index/keystring.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

// Whether equality with `v` is exactly the index entries keyed by v (index_bounds.cpp's
// equality_intervals answers the same values with one point).
bool has_point(const value& v) {
  switch (v.type()) {
    case kind::null_:
    case kind::array:
    case kind::regex:
    case kind::min_key:
    case kind::max_key:
      return false;
    default:
      return true;
  }
}

class reader_impl final : public store::equality_reader {
 public:
  reader_impl(const store::impl& s, std::string collection) : s_(s), snap_(s.db), collection_(std::move(collection)) {}

  // false when there is nothing to read through (no collection, no such index).
  result<bool> open(std::string_view path) {
    auto entry = s_.lookup(snap_.read_options(), collection_, /*with_count=*/false);
    if (!entry) return std::move(entry).error();
    if (!entry->has_value()) return false;
    entry_ = **entry;
    doc_key_ = docs_prefix(entry_.id);
    docs_prefix_size_ = doc_key_.size();
    if (path == "_id") {
      by_id_ = true;
      return true;
    }
    auto defs = read_index_defs(s_, snap_.read_options(), entry_.id);
    if (!defs) return std::move(defs).error();
    for (const index_def& d : *defs) {
      if (!d.spec.partial_filter && !d.spec.fields.empty() && d.spec.fields.front().path == path) {
        prefix_ = idx_prefix(d.id);
        upper_ = idx_prefix(d.id + 1);
        descending_ = d.spec.fields.front().descending;
        auto ro = snap_.read_options();
        upper_slice_ = rocksdb::Slice(upper_);
        ro.iterate_upper_bound = &upper_slice_;  // a member: it outlives the iterator
        it_.reset(s_.db->NewIterator(ro, s_.idx));
        return true;
      }
    }
    return false;
  }

  result<bool> read(const array& values, std::vector<std::string>& out, std::size_t max_bytes) override {
    ids_.clear();
    if (by_id_) {
      for (const value& v : values) {
        if (!v.is_array() && !std::holds_alternative<regex>(v.raw())) ids_.push_back(encode_key(v));
      }
      return read_documents(out, max_bytes);
    }
    if (!std::all_of(values.begin(), values.end(), has_point)) return false;
    for (const value& v : values) {
      key_ = prefix_;
      append_key(key_, v, descending_);
      end_ = successor(key_);
      for (it_->Seek(key_); it_->Valid(); it_->Next()) {
        if (!end_.empty() && it_->key().compare(rocksdb::Slice(end_)) >= 0) break;
        ids_.push_back(it_->value().ToString());
      }
      if (!it_->status().ok()) return storage_error(s_.path, "read", it_->status());
    }
    return read_documents(out, max_bytes);
  }

 private:
  // The documents of the `_id` keys in ids_, each once, in `_id` order.
  result<bool> read_documents(std::vector<std::string>& out, std::size_t max_bytes) {
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    // One Get per document (cheaper than a MultiGet for the one or few of a typical join).
    const auto ro = snap_.read_options();
    std::size_t bytes = 0;
    for (const std::string& id : ids_) {
      doc_key_.resize(docs_prefix_size_);
      doc_key_ += id;
      got_.Reset();
      auto st = s_.db->Get(ro, s_.docs, doc_key_, &got_);
      if (st.IsNotFound()) continue;  // an `_id` value no document has
      if (!st.ok()) return storage_error(s_.path, "read", st);
      bytes += got_.size();
      if (bytes > max_bytes) {
        return make_error("more than " + std::to_string(max_bytes) + " bytes of documents of " + quoted_name(collection_) +
                              " match one document's values",
                          failure_kind::limit_exceeded);
      }
      out.emplace_back(got_.data(), got_.size());
    }
    return true;
  }

  const store::impl& s_;
  snapshot_guard snap_;  // before the iterator reading through it
  std::string collection_;
  catalog_entry entry_;
  std::string prefix_, upper_;
  rocksdb::Slice upper_slice_;
  bool descending_ = false;
  bool by_id_ = false;  // `_id`: the documents' own keys, no index
  std::unique_ptr<rocksdb::Iterator> it_;
  std::vector<std::string> ids_;
  std::string key_, end_, doc_key_;
  std::size_t docs_prefix_size_ = 0;
  rocksdb::PinnableSlice got_;
};

}  // namespace

result<std::unique_ptr<store::equality_reader>> store::equality_reader_for(std::string_view collection,
                                                                           std::string_view path) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto r = std::make_unique<reader_impl>(*impl_, std::string(collection));
  auto opened = r->open(path);
  if (!opened) return std::move(opened).error();
  if (!*opened) return std::unique_ptr<equality_reader>();
  return std::unique_ptr<equality_reader>(std::move(r));
}

}  // namespace omgdb::engine
