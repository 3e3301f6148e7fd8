// Helpers for the update-language tests: compile an update from JSON text, apply it to a
// document from JSON text, and read the result back as relaxed (or canonical) JSON.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/update/update.hpp"

namespace omgdb::engine::test {

inline value json_value(std::string_view text) {
  auto j = json::parse_strict(text);
  REQUIRE_MESSAGE(j.ok(), text);
  auto v = from_json(*j);
  REQUIRE_MESSAGE(v.ok(), text);
  return std::move(*v);
}

struct update_run {
  bool ok = false;
  std::string error;  // when !ok
  std::string doc;    // when ok: the result as JSON
  bool changed = false;
};

struct update_case {
  std::string_view update;
  std::string_view filters = "[]";
  update_apply_options options{};
  ejson_mode mode = ejson_mode::relaxed;

  update_run on(std::string_view doc_text) const {
    update_run out;
    value u = json_value(update);
    value f = json_value(filters);
    REQUIRE(u.is_document());
    REQUIRE(f.is_array());
    auto spec = update_spec::compile(u.as_document(), f.as_array());
    if (!spec) {
      out.error = spec.error().message;
      return out;
    }
    value d = json_value(doc_text);
    REQUIRE(d.is_document());
    auto r = spec->apply(d.as_document(), options);
    if (!r) {
      out.error = r.error().message;
      return out;
    }
    out.ok = true;
    out.doc = to_json(r->doc, mode);
    out.changed = r->changed;
    return out;
  }
};

// The result of `update` applied to `doc`, as relaxed JSON ("ERROR: …" when it fails).
inline std::string applied(std::string_view update, std::string_view doc, std::string_view filters = "[]") {
  auto r = update_case{update, filters}.on(doc);
  return r.ok ? r.doc : "ERROR: " + r.error;
}

// Same, canonical Extended JSON (shows int32 / int64 / double).
inline std::string applied_canonical(std::string_view update, std::string_view doc) {
  update_case c{update};
  c.mode = ejson_mode::canonical;
  auto r = c.on(doc);
  return r.ok ? r.doc : "ERROR: " + r.error;
}

// The error message of compiling or applying `update` to `doc` ("" when it succeeds).
inline std::string update_error(std::string_view update, std::string_view doc = "{}",
                                std::string_view filters = "[]") {
  auto r = update_case{update, filters}.on(doc);
  return r.ok ? "" : r.error;
}

// Canonical form of a JSON document text, to compare against canonical results.
inline std::string canonical(std::string_view doc_text) {
  return to_json(json_value(doc_text), ejson_mode::canonical);
}

}  // namespace omgdb::engine::test
