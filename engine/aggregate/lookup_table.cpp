// The foreign side of an equality `$lookup` whose foreign field has no index: the foreign
// collection read once into memory (each document as its BSON bytes, the compact form), with
// an ordered map from each value found at the foreign path to the documents holding it (a
// superset of the query's equality matches, which the query filter then confirms on the
// decoded candidates, so the semantics are exactly those of a per-document scan).
#include <algorithm>

#include "engine/aggregate/stage.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

// The values at `parts[i..]` below `d` that an equality on the path can match: each value at
// the end and, when it is an array, its elements. `nullish` is set where the path is missing
// or leads through a non-document, where {path: null} may match.
void collect(const document& d, const std::vector<std::string>& parts, std::size_t i, std::vector<const value*>& out,
             bool& nullish) {
  const value* v = find_field(d, parts[i]);
  if (v == nullptr) {
    nullish = true;
    return;
  }
  if (i + 1 == parts.size()) {
    out.push_back(v);
    if (v->is_array()) {
      for (const value& e : v->as_array()) out.push_back(&e);
      if (v->as_array().empty()) nullish = true;
    }
    return;
  }
  if (v->is_document()) return collect(v->as_document(), parts, i + 1, out, nullish);
  if (v->is_array()) {
    if (v->as_array().empty()) nullish = true;
    for (const value& e : v->as_array()) {
      if (e.is_document()) {
        collect(e.as_document(), parts, i + 1, out, nullish);
      } else {
        nullish = true;
      }
    }
    return;
  }
  nullish = true;
}

bool numeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool lookup_table::usable_path(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    if (numeric(path.substr(start, dot - start))) return false;  // array positions: scan instead
    start = dot + 1;
  }
  return true;
}

bool lookup_table::build(cursor& foreign, const std::string& foreign_field, const exec_ctx& ctx, std::size_t limit) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= foreign_field.size();) {
    const std::size_t dot = std::min(foreign_field.find('.', start), foreign_field.size());
    parts.emplace_back(foreign_field.substr(start, dot - start));
    start = dot + 1;
  }
  std::size_t bytes = 0;
  std::vector<const value*> found;
  document d;
  while (foreign.next(d)) {
    ctx.poll();
    if (docs_.size() == UINT32_MAX) return false;
    const auto at = static_cast<std::uint32_t>(docs_.size());
    auto encoded = to_bson(d);
    if (!encoded) fail(encoded.error().message);
    bytes += encoded->size() + sizeof(std::string);
    docs_.push_back(std::move(*encoded));
    found.clear();
    bool nullish = false;
    collect(d, parts, 0, found, nullish);
    auto add_key = [&](const value& v) {
      auto [it, fresh] = keys_.try_emplace(v);
      if (fresh) bytes += approx_bytes(v) + 64;  // the map node
      if (it->second.empty() || it->second.back() != at) {
        it->second.push_back(at);
        bytes += sizeof(std::uint32_t);
      }
    };
    if (nullish) add_key(value());
    for (const value* v : found) add_key(*v);
    d = document{};
    if (bytes > limit) {
      docs_.clear();
      keys_.clear();
      return false;
    }
  }
  bytes_ = bytes;
  return true;
}

std::vector<document> lookup_table::matches(const array& values, const filter& exact) const {
  std::vector<std::uint32_t> candidates;
  for (const value& v : values) {
    auto it = keys_.find(v);
    if (it != keys_.end()) candidates.insert(candidates.end(), it->second.begin(), it->second.end());
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<document> out;
  for (std::uint32_t i : candidates) {
    auto d = from_bson(docs_[i]);
    if (!d) fail(d.error().message);
    if (exact.matches(*d)) out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace omgdb::engine::aggregate_detail
