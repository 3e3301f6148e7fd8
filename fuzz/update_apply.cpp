// Fuzz target 4: an update compiled and applied two ways.
//
// Input: line 1 an update document, line 2 its arrayFilters (a JSON array, or anything else
// for none), further lines documents; eight more are generated from the update's names and
// values. The decoding path (update_spec::apply, engine/update/update_apply.cpp) and the
// raw-bytes path (detail::raw_updater, engine/update/update_raw.cpp) must agree wherever the
// byte path answers: the same "changed" verdict and byte-identical BSON (update_raw.hpp's
// contract), and an update never changes `_id`.
#include "engine/bson/bson_codec.hpp"
#include "engine/update/update.hpp"
#include "engine/update/update_raw.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {
constexpr const char* k_name = "update_apply";
}

OMGDB_FUZZ_TARGET(update_apply) {
  const auto text = fuzz::text_of(data, size);
  const auto lines = fuzz::lines_of(text, 18);
  if (lines.empty()) return 0;
  auto ops = fuzz::document_of(lines[0]);
  if (!ops) return 0;
  array filters;
  if (lines.size() > 1) {
    if (auto f = fuzz::value_of(lines[1]); f && f->is_array()) filters = f->as_array();
  }
  auto spec = update_spec::compile(*ops, filters);
  if (!spec) return 0;
  auto raw = detail::raw_updater::make(*spec);

  std::vector<document> docs;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    if (auto d = fuzz::document_of(lines[i])) docs.push_back(std::move(*d));
  }
  fuzz::doc_mix mix(fuzz::seed_of(text));
  mix.collect(value(*ops));
  for (const auto& f : filters) mix.collect(f);
  for (int i = 0; i < 8; ++i) docs.push_back(mix.generate());

  update_apply_options options;
  options.now_millis = 1700000000000;
  filter::match_details details;
  details.array_index = 0;
  details.array_path = "a";
  for (const auto& d : docs) {
    auto stored = to_bson(d);
    if (!stored) continue;
    for (bool inserting : {false, true}) {
      options.inserting = inserting;
      options.positional = inserting ? nullptr : &details;
      auto slow = spec->apply(d, options);
      if (slow) {
        value id_before, id_after;
        const bool had = bson_get_field(*stored, "_id", id_before);
        auto out_bytes = to_bson(slow->doc);
        if (had && out_bytes && !inserting) {  // an upsert's $setOnInsert may set it
          OMGDB_FUZZ_CHECK(k_name, bson_get_field(*out_bytes, "_id", id_after) && identical(id_before, id_after),
                           "update " + to_json(value(*ops)) + " document " + to_json(value(d)));
        }
        if (!slow->changed) {
          OMGDB_FUZZ_CHECK(k_name, identical(slow->doc, d), "unchanged but different: " + to_json(value(d)));
        }
      }
      if (!raw || inserting) continue;
      detail::raw_updater::prepared p;
      std::string out;
      if (!raw->prepare(*stored, p)) continue;
      const auto done = raw->finish(p, options, out);
      if (done == detail::raw_updater::outcome::decode) continue;
      const std::string what = "update " + to_json(value(*ops)) + " document " + to_json(value(d));
      auto decoded = from_bson(*stored);
      OMGDB_FUZZ_CHECK(k_name, decoded.ok(), what);
      auto expected = spec->apply(*decoded, options);
      OMGDB_FUZZ_CHECK(k_name, expected.ok(), what + ": the byte path answered where apply fails: " +
                                                  (expected.ok() ? "" : expected.error().message));
      OMGDB_FUZZ_CHECK(k_name, (done == detail::raw_updater::outcome::changed) == expected->changed, what);
      if (done == detail::raw_updater::outcome::changed) {
        auto want = to_bson(expected->doc);
        OMGDB_FUZZ_CHECK(k_name, want.ok() && out == *want, what + " gave " + to_json(value(expected->doc)));
      }
    }
  }
  return 0;
}
