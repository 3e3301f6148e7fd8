// The two collection providers: documents in memory, and the collections of a store read in
// pages through store::scan (decoded, exact types).
#include <algorithm>
#include <utility>

#include "engine/aggregate/pipeline.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine {
namespace {

class filtered_vector_source final : public document_source {
 public:
  filtered_vector_source(const std::vector<document>* docs, filter f, std::vector<std::string> fields = {})
      : docs_(docs), filter_(std::move(f)), fields_(std::move(fields)) {}
  result<bool> next(document& out) override {
    while (docs_ != nullptr && pos_ < docs_->size()) {
      const document& d = (*docs_)[pos_++];
      try {
        if (!filter_.matches(d)) continue;
      } catch (const std::exception& e) {
        return make_error(e.what());
      }
      out = d;
      if (!fields_.empty()) {
        std::erase_if(out, [&](const field& x) { return !std::binary_search(fields_.begin(), fields_.end(), x.name); });
      }
      return true;
    }
    return false;
  }

 private:
  const std::vector<document>* docs_;
  filter filter_;
  std::vector<std::string> fields_;  // sorted; empty: all of them
  std::size_t pos_ = 0;
};

// store::scan's stream: decoded documents (exact types), a page at a time under one snapshot.
class store_source final : public document_source {
 public:
  store_source(std::unique_ptr<store::document_stream> s, store_provider::stats* stats)
      : stream_(std::move(s)), stats_(stats) {}
  result<bool> next(document& out) override {
    auto r = stream_->next(out);
    if (r && *r && stats_ != nullptr) stats_->documents.fetch_add(1, std::memory_order_relaxed);
    return r;
  }

 private:
  std::unique_ptr<store::document_stream> stream_;
  store_provider::stats* stats_;
};

}  // namespace

result<std::unique_ptr<document_source>> memory_provider::scan(std::string_view collection, const document& spec,
                                                               const scan_control&) const {
  auto f = filter::compile(spec);
  if (!f) return std::move(f).error();
  auto it = collections.find(collection);
  return std::unique_ptr<document_source>(
      std::make_unique<filtered_vector_source>(it == collections.end() ? nullptr : &it->second, std::move(*f)));
}

result<std::unique_ptr<document_source>> memory_provider::scan_fields(std::string_view collection, const document& spec,
                                                                      const scan_control& control,
                                                                      const std::vector<std::string>& fields) const {
  if (!honor_fields) return scan(collection, spec, control);
  auto f = filter::compile(spec);
  if (!f) return std::move(f).error();
  auto it = collections.find(collection);
  return std::unique_ptr<document_source>(std::make_unique<filtered_vector_source>(
      it == collections.end() ? nullptr : &it->second, std::move(*f), fields));
}

result<std::unique_ptr<document_source>> store_provider::scan(std::string_view collection, const document& filter,
                                                              const scan_control& control) const {
  return scan_fields(collection, filter, control, {});
}

result<std::unique_ptr<document_source>> store_provider::scan_fields(std::string_view collection,
                                                                     const document& filter,
                                                                     const scan_control& control,
                                                                     const std::vector<std::string>& fields) const {
  auto stream = store_.scan(collection, filter, control, fields.empty() ? nullptr : &fields);
  if (!stream) return std::move(stream).error();
  if (stats_ != nullptr) {
    stats_->scans.fetch_add(1, std::memory_order_relaxed);
    if ((*stream)->how() == store::document_stream::access::index_scan) {
      stats_->index_scans.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return std::unique_ptr<document_source>(std::make_unique<store_source>(std::move(*stream), stats_));
}

namespace {

// store::equality_reader's documents, decoded (exact types), counted in the provider's stats.
class store_equality_source final : public collection_provider::equality_source {
 public:
  store_equality_source(std::unique_ptr<store::equality_reader> r, std::string collection, store_provider::stats* stats)
      : reader_(std::move(r)), collection_(std::move(collection)), stats_(stats) {}
  result<bool> read(const array& values, std::vector<document>& out, std::size_t max_bytes) override {
    bytes_.clear();
    auto r = reader_->read(values, bytes_, max_bytes);
    if (!r || !*r) return r;
    for (const std::string& b : bytes_) {
      auto d = from_bson(b);
      if (!d) return make_error("reading `" + collection_ + "`: " + d.error().message, d.error().kind);
      out.push_back(std::move(*d));
    }
    if (stats_ != nullptr) stats_->documents.fetch_add(bytes_.size(), std::memory_order_relaxed);
    return true;
  }

 private:
  std::unique_ptr<store::equality_reader> reader_;
  std::string collection_;
  store_provider::stats* stats_;
  std::vector<std::string> bytes_;
};

}  // namespace

result<std::unique_ptr<collection_provider::equality_source>> store_provider::equality_lookup(
    std::string_view collection, std::string_view path) const {
  auto r = store_.equality_reader_for(collection, path);
  if (!r) return std::move(r).error();
  if (!*r) return std::unique_ptr<equality_source>();
  if (stats_ != nullptr) {
    stats_->scans.fetch_add(1, std::memory_order_relaxed);
    stats_->index_scans.fetch_add(1, std::memory_order_relaxed);
  }
  return std::unique_ptr<equality_source>(
      std::make_unique<store_equality_source>(std::move(*r), std::string(collection), stats_));
}

}  // namespace omgdb::engine
