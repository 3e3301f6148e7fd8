// omgdb vectors — internals shared by engine/vector/*.cpp: the stored documents of
// `C.__vectors`, reading them under one snapshot, the text at a field. Not a public header.
#pragma once

#include <functional>
#include <unordered_map>

#include "engine/store/store_detail.hpp"
#include "engine/vector/vector_search.hpp"

namespace omgdb::engine::vector::detail {

using engine::detail::catalog_entry;
using engine::detail::read_view;

// A persisted vector as read back (without its floats unless asked).
struct stored_vector {
  value id;                  // the source document's _id
  std::string model;
  std::string model_sha256;
  std::string text_hash;
  std::vector<float> data;   // empty unless read with floats
};

// _ids of the two document kinds of `C.__vectors`.
value binding_id(std::string_view field);
value vector_id(std::string_view field, const value& source_id);

document binding_document(const binding& b);
binding parse_binding(std::string_view field, const document& binding_doc);
document vector_document(std::string_view field, const value& source_id, const binding& b, std::string_view text_hash,
                         std::span<const float> v);

result<std::optional<binding>> read_binding(const store::impl& s, const read_view& view, std::string_view collection,
                                            std::string_view field);

// The string at dotted `field` (through embedded documents only), or nullopt.
std::optional<std::string_view> text_at(const document& doc, std::string_view field);

// The binding and every vector of `field` in `C.__vectors` as of `view`, keyed by
// encode_key(source _id). `with_floats` also decodes the vectors.
struct field_vectors {
  std::optional<binding> bound;
  std::unordered_map<std::string, stored_vector> rows;
};
result<field_vectors> read_field_vectors(const store::impl& s, const read_view& view, std::string_view collection,
                                         std::string_view field, bool with_floats, const scan_control& control);

// Visits every document of `collection` (matching `filter`, when given) as of `view`.
status scan_source(const store::impl& s, const read_view& view, std::string_view collection, const document* filter,
                   const scan_control& control, const std::function<bool(document&&)>& visit);

// Whether a stored vector is fresh against the binding and the current text.
inline bool fresh(const stored_vector& v, const binding& b, std::string_view hash) {
  return v.model == b.model && v.model_sha256 == b.model_sha256 && v.text_hash == hash;
}

// The unit-length float32 vector in a BinData's bytes (little-endian), nullopt when the
// length is not dim × 4.
bool decode_floats(std::string_view bytes, std::uint32_t dim, std::vector<float>& out);

}  // namespace omgdb::engine::vector::detail
