// Fuzz target 2: Extended JSON → value → BSON → value, and back to Extended JSON.
//
// Input: one JSON text. What the engine accepts must survive, as ejson.hpp and bson_codec.hpp
// promise: BSON and canonical Extended JSON round-trip every value exactly (identical(): same
// types, same field order, -0.0 and NaN kept); relaxed Extended JSON, which may narrow an int64
// to int32, reads back to the same relaxed text. Anything to_bson accepts from_bson accepts.
#include "engine/bson/bson_codec.hpp"
#include "engine/update/update.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

constexpr const char* k_name = "ejson_bson";

value reread(const std::string& text, const char* what) {
  auto j = json::parse_strict(text);
  OMGDB_FUZZ_CHECK(k_name, j.ok(), std::string(what) + " output is not strict JSON: " + text);
  auto v = from_json(*j);
  OMGDB_FUZZ_CHECK(k_name, v.ok(), std::string(what) + " output does not read back: " + text + " — " +
                                       (v.ok() ? "" : v.error().message));
  return std::move(*v);
}

}  // namespace

OMGDB_FUZZ_TARGET(ejson_bson) {
  auto j = json::parse_strict(fuzz::text_of(data, size));
  if (!j) return 0;
  auto v = from_json(*j);
  if (!v) return 0;

  const std::string canonical = to_json(*v, ejson_mode::canonical);
  const value from_canonical = reread(canonical, "canonical");
  OMGDB_FUZZ_CHECK(k_name, identical(*v, from_canonical), canonical);

  const std::string relaxed = to_json(*v, ejson_mode::relaxed);
  const value from_relaxed = reread(relaxed, "relaxed");
  OMGDB_FUZZ_CHECK(k_name, to_json(from_relaxed) == relaxed, relaxed + " became " + to_json(from_relaxed));

  if (!v->is_document()) return 0;
  const document& d = v->as_document();
  auto bytes = to_bson(d);
  if (!bytes) return 0;
  auto back = from_bson(*bytes);
  OMGDB_FUZZ_CHECK(k_name, back.ok(), canonical + " — " + (back.ok() ? "" : back.error().message));
  OMGDB_FUZZ_CHECK(k_name, identical(d, *back), canonical + " came back as " + to_json(*back, ejson_mode::canonical));
  auto again = to_bson(*back);
  OMGDB_FUZZ_CHECK(k_name, again.ok() && *again == *bytes, canonical);

  // One top-level field read in place is the decoded document's first field of that name.
  for (const auto& f : d) {
    value got;
    OMGDB_FUZZ_CHECK(k_name, bson_get_field(*bytes, f.name, got), f.name);
    for (const auto& g : d) {
      if (g.name == f.name) {
        OMGDB_FUZZ_CHECK(k_name, identical(got, g.val), f.name);
        break;
      }
    }
    break;  // the first field is enough: each lookup walks the document
  }
  return 0;
}
