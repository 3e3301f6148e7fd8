// The two collection providers: documents in memory, and the collections of a store read in
// pages through store::find (keyset on `_id`).
#include <utility>

#include "common/json.hpp"
#include "engine/aggregate/pipeline.hpp"
#include "engine/query/filter.hpp"
#include "engine/value/ejson.hpp"

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

// Pages of store::find in `_id` order; each page resumes after the last `_id` returned.
class store_source final : public document_source {
 public:
  store_source(const store& s, std::string collection, document filter, scan_control control)
      : store_(s), collection_(std::move(collection)), filter_(std::move(filter)), control_(std::move(control)) {}

  result<bool> next(document& out) override {
    while (pos_ >= page_.size()) {
      if (done_) return false;
      if (auto st = fetch(); !st) return std::move(st).error();
    }
    out = std::move(page_[pos_++]);
    return true;
  }

 private:
  static constexpr std::uint64_t k_page = 1000;

  status fetch() {
    find_options o;
    o.filter = filter_;
    o.limit = k_page;
    o.max_bytes = std::size_t{4} << 20;
    if (last_id_) o.after_id = *last_id_;
    auto page = store_.find(collection_, o, control_);
    if (!page) return std::move(page).error();
    page_.clear();
    pos_ = 0;
    std::string_view text = page->ndjson;
    while (!text.empty()) {
      const std::size_t nl = text.find('\n');
      const std::string_view line = text.substr(0, nl);
      text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
      if (line.empty()) continue;
      auto j = json::parse_strict(line);
      if (!j) return make_error("reading `" + collection_ + "`: " + j.error().message);
      auto d = document_from_json(*j);
      if (!d) return make_error("reading `" + collection_ + "`: " + d.error().message);
      page_.push_back(std::move(*d));
    }
    if (!page->more || page_.empty()) done_ = true;
    if (!page_.empty()) {
      const value* id = find_field(page_.back(), "_id");
      if (id == nullptr) return make_error("reading `" + collection_ + "`: a document without `_id`");
      last_id_ = *id;
    }
    return {};
  }

  const store& store_;
  std::string collection_;
  document filter_;
  scan_control control_;
  std::vector<document> page_;
  std::size_t pos_ = 0;
  std::optional<value> last_id_;
  bool done_ = false;
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
  if (!store_.has_collection(collection)) {
    return std::unique_ptr<document_source>(std::make_unique<filtered_vector_source>(nullptr, engine::filter()));
  }
  return std::unique_ptr<document_source>(
      std::make_unique<store_source>(store_, std::string(collection), filter, control));
}

}  // namespace omgdb::engine
