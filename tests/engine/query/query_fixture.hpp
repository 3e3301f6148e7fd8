// Helpers for the filter and sort tests: build values from JSON text (Extended JSON) and
// report which documents of a small corpus a filter selects, or in which order a sort puts
// them, by `_id`.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/query/filter.hpp"
#include "engine/query/sort.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::query_test {

inline document doc(std::string_view json) {
  auto j = json::parse_strict(json);
  REQUIRE_MESSAGE(j.ok(), "bad JSON in test: ", json);
  auto d = document_from_json(*j);
  REQUIRE_MESSAGE(d.ok(), "bad document in test: ", json);
  return std::move(*d);
}

inline std::vector<document> corpus(std::string_view json_array) {
  auto j = json::parse_strict(json_array);
  REQUIRE_MESSAGE(j.ok(), "bad JSON in test: ", json_array);
  REQUIRE(j->is_array());
  std::vector<document> out;
  for (const auto& e : j->as_array()) {
    auto d = document_from_json(e);
    REQUIRE(d.ok());
    out.push_back(std::move(*d));
  }
  return out;
}

inline filter compile(std::string_view filter_json) {
  auto f = filter::compile(doc(filter_json));
  REQUIRE_MESSAGE(f.ok(), filter_json, " -> ", (f.ok() ? "" : f.error().message));
  return std::move(*f);
}

// The compile error of a filter that must not compile.
inline std::string compile_error(std::string_view filter_json) {
  auto f = filter::compile(doc(filter_json));
  REQUIRE_MESSAGE(!f.ok(), "expected a compile error for ", filter_json);
  return f.error().message;
}

// f.matches(d), also checking that the matcher over stored bytes (filter::matches_bson, the
// full scan's) gives the same answer whenever it gives one; so every filter test here also
// tests the raw matcher.
inline bool decoded_and_raw_match(const filter& f, const document& d) {
  const bool decoded = f.matches(d);
  if (auto bytes = to_bson(d); bytes.ok()) {
    const std::optional<bool> raw = f.matches_bson(*bytes);
    if (raw) CHECK_MESSAGE(*raw == decoded, "raw matcher disagrees on ", to_json(d));
  }
  return decoded;
}

inline bool matches(std::string_view filter_json, std::string_view doc_json) {
  return decoded_and_raw_match(compile(filter_json), doc(doc_json));
}

inline std::string id_text(const document& d) {
  const value* id = find_field(d, "_id");
  if (id == nullptr) return "<no _id>";
  if (id->is_string()) return id->as_string();
  return to_json(*id);
}

// Sorted `_id`s of the documents of `docs` the filter matches.
inline std::vector<std::string> matching(std::string_view filter_json,
                                         const std::vector<document>& docs) {
  const filter f = compile(filter_json);
  std::vector<std::string> out;
  for (const auto& d : docs) {
    if (decoded_and_raw_match(f, d)) out.push_back(id_text(d));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A set of `_id`s, sorted like `matching` sorts them.
inline std::vector<std::string> ids(std::initializer_list<std::string_view> list) {
  std::vector<std::string> out(list.begin(), list.end());
  std::sort(out.begin(), out.end());
  return out;
}

// `_id`s in the order the sort puts the documents.
inline std::vector<std::string> sorted(std::string_view sort_json, std::vector<document> docs) {
  auto spec = sort_spec::compile(doc(sort_json));
  REQUIRE_MESSAGE(spec.ok(), sort_json, " -> ", (spec.ok() ? "" : spec.error().message));
  std::sort(docs.begin(), docs.end(),
            [&](const document& a, const document& b) { return spec->compare(a, b) < 0; });
  std::vector<std::string> out;
  for (const auto& d : docs) out.push_back(id_text(d));
  return out;
}

// `_id`s in the given order (no sorting), to compare with `sorted`.
inline std::vector<std::string> order(std::initializer_list<std::string_view> list) {
  return std::vector<std::string>(list.begin(), list.end());
}

}  // namespace omgdb::engine::query_test
