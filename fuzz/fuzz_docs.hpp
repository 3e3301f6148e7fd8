// omgdb fuzz — inputs as lines of Extended JSON, and documents generated around a spec.
//
// The engine targets read their input as lines: the first holds the spec (a filter, an
// update, a pipeline), the next ones documents. Documents are also generated from the spec's
// own field names and values (a path `a.b` in a filter gives fields `a` and `b`), so that a
// mutated spec keeps meeting documents it can match.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/value/value.hpp"

namespace omgdb::fuzz {

inline std::vector<std::string_view> lines_of(std::string_view text, std::size_t max_lines = 64) {
  std::vector<std::string_view> out;
  while (!text.empty() && out.size() < max_lines) {
    auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

inline std::optional<engine::value> value_of(std::string_view text) {
  auto j = json::parse_strict(text);
  if (!j) return std::nullopt;
  auto v = engine::from_json(*j);
  if (!v) return std::nullopt;
  return std::move(*v);
}

inline std::optional<engine::document> document_of(std::string_view text) {
  auto v = value_of(text);
  if (!v || !v->is_document()) return std::nullopt;
  return v->as_document();
}

// Field names and scalar values found in a spec, and documents built from them.
class doc_mix {
 public:
  explicit doc_mix(std::uint64_t seed) : rng_(seed) {
    names_ = {"a", "b", "_id", "0", "1"};
    scalars_ = {engine::value(), engine::value(std::int32_t{1}), engine::value(std::string("a")),
                engine::value(2.5), engine::value(true)};
  }

  void collect(const engine::value& v, int depth = 0) {
    if (depth > 8 || names_.size() > 64 || scalars_.size() > 64) return;
    if (v.is_document()) {
      for (const auto& f : v.as_document()) {
        std::string_view n = f.name;
        while (!n.empty()) {
          auto dot = n.find('.');
          std::string_view part = n.substr(0, dot);
          if (!part.empty() && part[0] != '$') names_.emplace_back(part);
          if (dot == std::string_view::npos) break;
          n.remove_prefix(dot + 1);
        }
        collect(f.val, depth + 1);
      }
    } else if (v.is_array()) {
      for (const auto& e : v.as_array()) collect(e, depth + 1);
    } else {
      scalars_.push_back(v);
      if (v.is_string() && v.as_string().size() < 16 && !v.as_string().empty() && v.as_string()[0] != '$')
        names_.push_back(v.as_string());
    }
  }

  engine::document generate(int depth = 3) {
    engine::document d;
    if (chance(70)) d.push_back(engine::field{"_id", engine::value(static_cast<std::int32_t>(pick(50)))});
    for (auto& f : object(depth)) {
      if (f.name != "_id") d.push_back(std::move(f));
    }
    return d;
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool chance(int percent) { return static_cast<int>(pick(100)) < percent; }

  engine::value any(int depth) {
    if (depth <= 0 || chance(55)) return scalars_[pick(scalars_.size())];
    if (chance(50)) {
      engine::array a;
      const std::size_t n = pick(4);
      for (std::size_t i = 0; i < n; ++i) a.push_back(any(depth - 1));
      return engine::value(std::move(a));
    }
    return engine::value(object(depth - 1));
  }

  engine::document object(int depth) {
    engine::document d;
    const std::size_t n = pick(4);
    for (std::size_t i = 0; i < n; ++i) d.push_back(engine::field{names_[pick(names_.size())], any(depth)});
    return d;
  }

  std::mt19937_64 rng_;
  std::vector<std::string> names_;
  std::vector<engine::value> scalars_;
};

// FNV-1a, a seed that follows the input.
inline std::uint64_t seed_of(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace omgdb::fuzz
