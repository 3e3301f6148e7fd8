// The two collection providers: documents in memory, and the collections of a store read in
// pages through store::scan (decoded, exact types).
#include <utility>

#include "engine/aggregate/pipeline.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine {
namespace {

class filtered_vector_source final : public document_source {
 public:
  filtered_vector_source(const std::vector<document>* docs, filter f) : docs_(docs), filter_(std::move(f)) {}
  result<bool> next(document& out) override {
    while (docs_ != nullptr && pos_ < docs_->size()) {
      const document& d = (*docs_)[pos_++];
      try {
        if (!filter_.matches(d)) continue;
      } catch (const std::exception& e) {
        return make_error(e.what());
      }
      out = d;
      return true;
    }
    return false;
  }

 private:
  const std::vector<document>* docs_;
  filter filter_;
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

result<std::unique_ptr<document_source>> store_provider::scan(std::string_view collection, const document& filter,
                                                              const scan_control& control) const {
  auto stream = store_.scan(collection, filter, control);
  if (!stream) return std::move(stream).error();
  if (stats_ != nullptr) {
    stats_->scans.fetch_add(1, std::memory_order_relaxed);
    if ((*stream)->how() == store::document_stream::access::index_scan) {
      stats_->index_scans.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return std::unique_ptr<document_source>(std::make_unique<store_source>(std::move(*stream), stats_));
}

bool store_provider::has_index(std::string_view collection, std::string_view path) const {
  if (!store_.has_collection(collection)) return false;
  auto indexes = store_.list_indexes(collection);
  if (!indexes) return false;
  for (const auto& i : *indexes) {
    if (!i.spec.partial_filter && !i.spec.fields.empty() && i.spec.fields.front().path == path) return true;
  }
  return false;
}

}  // namespace omgdb::engine
