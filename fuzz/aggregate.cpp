// Fuzz target 5: aggregation pipelines over documents in memory.
//
// Input: line 1 a pipeline (a JSON array of stages), further lines documents of collection
// `c`; sixteen more are generated from the pipeline's names and values, split between `c`
// and `o` (for $lookup, $unionWith). The pipeline runs over a memory_provider with a 1 MiB
// per-stage bound; whatever it outputs must be written as JSON objects, and a second run with
// the same seed and clock, over source documents cut to the fields the pipeline reads
// (source_fields, as the store's scan decodes them), gives the same output.
//
// Each run is one call under a call budget of 64 MiB (common/call_budget.hpp), as a tool call
// is: what expressions and stages build is refused at that bound, so run with libFuzzer's
// `-rss_limit_mb=512 -timeout=5` (fuzz/run.sh does) a memory or time bomb — a value built
// past the budget, a loop that ignores it — is a finding, not a crash of the harness.
#include "common/call_budget.hpp"
#include "engine/aggregate/pipeline.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

constexpr const char* k_name = "aggregate";
constexpr std::size_t k_max_output = 2000;
constexpr std::size_t k_max_output_bytes = std::size_t{8} << 20;  // JSON text kept per run
constexpr std::uint64_t k_call_bytes = std::uint64_t{64} << 20;

struct run_output {
  bool ok = false;
  std::string text;  // relaxed Extended JSON lines
};

run_output run(const memory_provider& provider, const array& pipeline) {
  call_budget budget(k_call_bytes);
  budget_scope scope(&budget);
  pipeline_options options;
  options.max_stage_bytes = std::size_t{1} << 20;
  options.now_millis = 1700000000000;
  options.sample_seed = 7;
  run_output out;
  std::size_t n = 0;
  auto st = run_pipeline(provider, "c", pipeline, options, [&](document&& d) {
    out.text += to_json(d);
    out.text += '\n';
    return ++n < k_max_output && out.text.size() < k_max_output_bytes;
  });
  out.ok = st.ok();
  return out;
}

}  // namespace

OMGDB_FUZZ_TARGET(aggregate) {
  const auto text = fuzz::text_of(data, size);
  const auto lines = fuzz::lines_of(text, 33);
  if (lines.empty()) return 0;
  auto pipeline = fuzz::value_of(lines[0]);
  if (!pipeline || !pipeline->is_array()) return 0;

  memory_provider provider;
  auto& c = provider.collections["c"];
  auto& o = provider.collections["o"];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (auto d = fuzz::document_of(lines[i])) c.push_back(std::move(*d));
  }
  fuzz::doc_mix mix(fuzz::seed_of(text));
  mix.collect(*pipeline);
  for (int i = 0; i < 16; ++i) (i % 2 ? o : c).push_back(mix.generate());

  const run_output first = run(provider, pipeline->as_array());
  if (!first.ok) return 0;
  for (auto line : fuzz::lines_of(first.text, k_max_output)) {
    // Strict JSON; not necessarily readable as Extended JSON again: a computed field may be
    // named like a wrapper ({"$oid": 5}), which Extended JSON cannot tell from one.
    // Duplicate names are kept (documents may repeat a field), so not parse_strict.
    auto back = json::parse(line);
    OMGDB_FUZZ_CHECK(k_name, back.ok() && back->value.is_object(), std::string(line));
  }
  // Again with the same seed and clock, now leaving out of the source documents the fields the
  // pipeline does not read (as the store's scan does: pipeline_deps.cpp): the same answer.
  provider.honor_fields = true;
  const run_output second = run(provider, pipeline->as_array());
  OMGDB_FUZZ_CHECK(k_name, second.ok && second.text == first.text,
                   "decoding only the fields the pipeline reads changes its answer: " + to_json(*pipeline));
  return 0;
}
