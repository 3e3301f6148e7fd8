// omgdb search — a search-index definition: what the tool takes, what meta stores, what a
// generation records (docs/search.md "Defining an index").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::search {

inline constexpr std::size_t k_max_fields = 32;
inline constexpr std::string_view k_meta_prefix = "search/";

struct field_spec {
  std::string path;    // dotted; arrays on the path are traversed, strings collected
  double weight = 1;   // BM25 column weight, > 0 and ≤ 1000
};

struct semantic_spec {
  std::vector<std::string> fields;  // the text embedded (joined), dotted paths
  std::string model;                // an installed model's name (`omgdb model add`)
};

struct definition {
  std::string collection;
  std::string name;
  std::vector<field_spec> fields;
  std::string language = "english";  // a Snowball stemmer, or "none"
  std::optional<semantic_spec> semantic;
  std::uint64_t version = 0;  // 1 for the first definition, +1 for each change
  std::uint64_t seq = 0;      // op-log seq of the record that defined this version
};

// From the tool's `definition` argument: {collection, name, fields, language?, semantic?}.
// Errors name the key and say what was expected. version/seq are left 0.
result<definition> parse_definition(const document& spec);
// The stored form (BSON bytes) and back.
std::string encode(const definition& d);
result<definition> decode_definition(std::string_view bytes);
// The definition as a document (status, results).
document to_document(const definition& d);
// Whether two definitions index the same way (collection, name, fields, language, semantic).
bool same_shape(const definition& a, const definition& b);
// The meta key of an index.
std::string meta_key(std::string_view collection, std::string_view name);
// The Snowball languages libstemmer has, plus "none".
std::vector<std::string> languages();

// The text of `path` in `doc` (strings along the path; arrays traversed; joined by "\n").
std::string field_text(const document& doc, std::string_view path);

}  // namespace omgdb::engine::search
