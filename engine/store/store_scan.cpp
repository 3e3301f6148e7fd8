// omgdb engine — store::scan: the decoded documents matching a filter, pulled a page at a
// time under one snapshot (the aggregation pipeline's source, engine/aggregate/providers.cpp).
//
// The candidates are those find() would visit in `_id` order: the point lookup of a filter
// pinning `_id`, an index's candidates (index_plan.hpp, chosen once when the stream opens),
// else every document of the collection. A page holds at most k_page documents or k_page_bytes
// of stored bytes (always at least one document); the next page resumes after the last `_id`
// (a seek) or at the next index candidate. Documents are decoded from their stored BSON, so
// their types are exact.
#include <algorithm>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

constexpr std::size_t k_page = 256;
constexpr std::size_t k_page_bytes = std::size_t{4} << 20;

class stream_impl final : public store::document_stream {
 public:
  stream_impl(const store::impl& s, std::string collection, filter match, const scan_control& control,
              const std::vector<std::string>* fields)
      : s_(s), snap_(s.db), collection_(std::move(collection)), match_(std::move(match)) {
    if (fields != nullptr) fields_ = *fields;
    control_.cancelled = control.cancelled;  // progress is the caller's: it counts what it pulls
  }

  status start(const document& spec) {
    auto entry = s_.lookup(snap_.read_options(), collection_);
    if (!entry) return std::move(entry).error();
    if (!entry->has_value()) {
      done_ = true;
      return {};
    }
    entry_ = **entry;
    const value* id = match_.id_equality();
    // Stored `_id`s are never arrays, and a regex operand is a pattern match: those scan.
    if (id != nullptr && !id->is_array() && !std::holds_alternative<regex>(id->raw())) {
      point_ = *id;
      how_ = access::id_lookup;
      return {};
    }
    auto ids = planned_ids(s_, snap_.read_options(), entry_, spec, control_, &match_);
    if (!ids) return std::move(ids).error();
    if (*ids) {
      planned_ = std::move(**ids);
      how_ = access::index_scan;
    }
    return {};
  }

  result<bool> next(document& out) override {
    while (pos_ >= page_.size()) {
      if (done_) return false;
      OMGDB_CHECK(fill());
    }
    out = std::move(page_[pos_++]);
    return true;
  }

  access how() const noexcept override { return how_; }

 private:
  status fill() {
    page_.clear();
    pos_ = 0;
    collection_scan scan(s_, snap_, collection_, entry_, control_);
    try {
      if (point_) {
        done_ = true;
        return scan.run_matching(match_, &*point_, [&](document&& d) {
          if (fields_) {
            std::erase_if(d, [&](const field& f) { return !std::binary_search(fields_->begin(), fields_->end(), f.name); });
          }
          page_.push_back(std::move(d));
          return true;
        });
      }
      std::size_t bytes = 0;
      bool full = false;
      auto add = [&](std::string_view key, std::string_view raw) -> std::optional<status> {
        auto doc = fields_ ? from_bson_fields(raw, *fields_) : from_bson(raw);
        if (!doc) return status(corrupt_document(collection_, key.substr(4), doc.error()));
        page_.push_back(std::move(*doc));
        bytes += raw.size();
        if (page_.size() >= k_page || bytes >= k_page_bytes) {
          full = true;
          return status();
        }
        return std::nullopt;
      };
      if (planned_) {
        // The next candidates, at most a page of them (those that no longer match drop out).
        const std::size_t n = std::min(k_page, planned_->size() - next_candidate_);
        slice_.assign(planned_->begin() + static_cast<std::ptrdiff_t>(next_candidate_),
                      planned_->begin() + static_cast<std::ptrdiff_t>(next_candidate_ + n));
        scan.restrict_to(&slice_);
        auto st = scan.run_matching_bytes(match_, nullptr, add);
        if (!st) return st;
        // A page cut by its byte cap resumes after its last document's candidate.
        if (full && !page_.empty()) {
          const std::string key = encode_key(*find_field(page_.back(), "_id"));
          next_candidate_ += static_cast<std::size_t>(
              std::upper_bound(slice_.begin(), slice_.end(), key) - slice_.begin());
        } else {
          next_candidate_ += n;
        }
        if (next_candidate_ >= planned_->size()) done_ = true;
        return {};
      }
      auto st = scan.run_matching_bytes(match_, last_id_ ? &*last_id_ : nullptr, add);
      if (!st) return st;
      if (!full) done_ = true;
      if (!page_.empty()) {
        const value* id = find_field(page_.back(), "_id");
        if (id == nullptr) return make_error("reading `" + collection_ + "`: a stored document without `_id`", failure_kind::corrupt);
        last_id_ = *id;
      }
      return {};
    } catch (const expression_error& e) {
      return e.to_failure();
    }
  }

  const store::impl& s_;
  snapshot_guard snap_;  // before anything reading through it
  std::string collection_;
  filter match_;
  std::optional<std::vector<std::string>> fields_;  // decode only these (sorted)
  scan_control control_;
  catalog_entry entry_;
  access how_ = access::full_scan;
  std::optional<value> point_;
  std::optional<std::vector<std::string>> planned_;  // an index's candidates, `_id` order
  std::vector<std::string> slice_;                    // this page's candidates
  std::size_t next_candidate_ = 0;
  std::optional<value> last_id_;
  std::vector<document> page_;
  std::size_t pos_ = 0;
  bool done_ = false;
};

}  // namespace

result<std::unique_ptr<store::document_stream>> store::scan(std::string_view collection, const document& filter_spec,
                                                            const scan_control& control,
                                                            const std::vector<std::string>* fields) const {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto compiled = filter::compile(filter_spec);
  if (!compiled) return std::move(compiled).error();
  auto s = std::make_unique<stream_impl>(*impl_, std::string(collection), std::move(*compiled), control, fields);
  OMGDB_CHECK(s->start(filter_spec));
  return std::unique_ptr<document_stream>(std::move(s));
}

}  // namespace omgdb::engine
