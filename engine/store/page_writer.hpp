// omgdb engine — the text of a find page (store_read.cpp): documents as NDJSON lines up to a
// byte cap, from decoded documents or straight from their stored bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/query/filter.hpp"
#include "engine/query/projection.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {

// Appends documents (projected) to a page until the byte cap; counts what it returned and
// remembers the last one, for the keyset continuation.
class page_writer {
 public:
  page_writer(find_page& page, std::size_t max_bytes, std::uint64_t skip, const filter& match,
              const projection& project)
      : page_(page), max_bytes_(max_bytes), skip_(skip), match_(match), project_(project) {}

  // add() of a stored document's bytes: with no projection they are written as text
  // directly (no value tree); else, or when that writer declines them, decoded first.
  result<bool> add_bytes(std::string_view bytes, std::string_view collection, std::string_view key) {
    line_.clear();
    value id;
    if (project_.is_identity() && bson_get_field(bytes, "_id", id) && append_bson_json(line_, bytes)) {
      return commit_line(std::move(id));
    }
    auto doc = from_bson(bytes);
    if (!doc) return corrupt_document(collection, key, doc.error());
    return add(*doc);
  }

  // False when the page is full (the document was not added and the page is truncated).
  result<bool> add(const document& doc) {
    line_.clear();
    if (project_.is_identity()) {
      append_json(line_, doc, ejson_mode::relaxed);
    } else {
      filter::match_details details;
      if (project_.needs_match_details()) match_.matches(doc, details);
      auto projected = project_.apply(doc, &details);
      if (!projected) return std::move(projected).error();
      append_json(line_, *projected, ejson_mode::relaxed);
    }
    const value* id = find_field(doc, "_id");
    return commit_line(id != nullptr ? *id : value());
  }

 private:
  // Appends line_ (one document's text) to the page unless it would overflow it.
  bool commit_line(value id) {
    line_.push_back('\n');
    // The first document always goes in, so a caller paging with next_skip always advances.
    if (page_.returned > 0 && page_.ndjson.size() + line_.size() > max_bytes_) {
      page_.truncated = true;
      page_.more = true;
      page_.next_skip = skip_ + page_.returned;
      return false;
    }
    page_.ndjson += line_;
    ++page_.returned;
    page_.last_id = std::move(id);
    return true;
  }

  find_page& page_;
  std::size_t max_bytes_;
  std::uint64_t skip_;
  const filter& match_;
  const projection& project_;
  std::string line_;
};

}  // namespace omgdb::engine::detail
