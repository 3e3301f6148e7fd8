// Fuzz target 3: a query filter compiled and matched two ways.
//
// Input: line 1 a filter (Extended JSON), further lines documents; eight more documents are
// generated from the filter's own names and values. For every document the value matcher
// (filter::matches, engine/query/filter_match.cpp) and the byte matcher (filter::matches_bson,
// engine/query/filter_raw.cpp) must agree wherever the byte matcher answers, and a document
// read back from its BSON must match exactly as the original did.
#include <exception>

#include "engine/bson/bson_codec.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

// nullopt: the match threw (an $expr error or the regex match limit), which both paths may do.
template <class F>
std::optional<bool> guarded(F&& f) {
  try {
    return f();
  } catch (const expression_error&) {
    return std::nullopt;
  }
}

}  // namespace

OMGDB_FUZZ_TARGET(filter_match) {
  const auto text = fuzz::text_of(data, size);
  const auto lines = fuzz::lines_of(text, 17);
  if (lines.empty()) return 0;
  auto spec = fuzz::document_of(lines[0]);
  if (!spec) return 0;
  auto f = filter::compile(*spec);
  if (!f) return 0;

  std::vector<document> docs;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (auto d = fuzz::document_of(lines[i])) docs.push_back(std::move(*d));
  }
  fuzz::doc_mix mix(fuzz::seed_of(text));
  mix.collect(value(*spec));
  for (int i = 0; i < 8; ++i) docs.push_back(mix.generate());

  for (const auto& d : docs) {
    auto bytes = to_bson(d);
    if (!bytes) continue;
    const auto by_value = guarded([&] { return f->matches(d); });
    filter::match_details details;
    const auto with_details = guarded([&] { return f->matches(d, details); });
    OMGDB_FUZZ_CHECK("filter_match", by_value == with_details, to_json(value(d)));
    std::optional<std::optional<bool>> by_bytes;
    try {
      by_bytes = f->matches_bson(*bytes);
    } catch (const expression_error&) {
      by_bytes.reset();
    }
    if (by_value && by_bytes && *by_bytes) {
      OMGDB_FUZZ_CHECK("filter_match", *by_value == **by_bytes,
                       "filter " + to_json(value(*spec)) + " document " + to_json(value(d)));
    }
    auto back = from_bson(*bytes);
    OMGDB_FUZZ_CHECK("filter_match", back.ok(), to_json(value(d)));
    const auto by_back = guarded([&] { return f->matches(*back); });
    if (by_value && by_back) {
      OMGDB_FUZZ_CHECK("filter_match", *by_value == *by_back,
                       "filter " + to_json(value(*spec)) + " document " + to_json(value(d)));
    }
  }
  return 0;
}
