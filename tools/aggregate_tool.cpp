// The `aggregate` tool of seeds/000: MongoDB's aggregation pipeline over one collection of a
// store (engine/aggregate/pipeline.hpp, docs/aggregation.md). The result is NDJSON of the
// output documents in relaxed Extended JSON, cut at a document boundary at the call's reply
// limit, with a note saying which `$skip` to append to read on. `$out` and `$merge` are
// refused by the engine at every scope (a read tool writes no documents). The call's scan
// control (cancellation, which also fires at its deadline, and progress) reaches the
// pipeline's per-document loops.
#include <string>

#include "engine/store/process_defaults.hpp"
#include "engine/aggregate/pipeline.hpp"
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"
#include "tools/result_bound.hpp"

namespace omgdb::tools {
namespace {

// Read scope, but not among the seed's 14 read-only tools (issue 17): readOnlyHint false.
constexpr mcp::annotations aggregate_hints{false, false, false};

constexpr spec pipeline_spec{
    "Aggregation pipeline: an array of stage objects such as {\"$match\": {…}}, {\"$group\": {…}} "
    "(docs/aggregation.md); `$out` and `$merge` are refused."};

struct aggregate_args : in_collection {
  engine::array pipeline;
  void fields(arg_list& a) { a.required("pipeline", pipeline, pipeline_spec); }
};

// The note after a result cut at the reply limit: the pipeline's output order is
// deterministic for the same data, so a `$skip` appended to the same pipeline reads on.
std::string continuation_note(std::uint64_t returned, std::size_t max_bytes) {
  return "Result cut at the " + size_text(max_bytes) + " reply limit after " + std::to_string(returned) +
         " documents. More documents follow: to continue, call `aggregate` again with the same path, "
         "collection and pipeline with {\"$skip\": " + std::to_string(returned) + "} appended to the pipeline.";
}

handler_result aggregate(aggregate_args& a, const call& c) {
  const engine::store_provider provider(*a.store);
  engine::pipeline_options options;
  options.max_stage_bytes = engine::default_stage_bytes();  // [limits] aggregation_stage_bytes
  options.control = c.scan();
  const std::size_t max_bytes = c.ctx.max_result_bytes;
  std::string out, line;
  std::uint64_t returned = 0;
  bool truncated = false;
  OMGDB_CHECK(engine::run_pipeline(provider, a.collection, a.pipeline, options, [&](engine::document&& d) {
    line.clear();
    engine::append_json(line, d, engine::ejson_mode::relaxed);
    line.push_back('\n');
    // The first document always goes in, so appending the `$skip` of the note always advances.
    if (returned > 0 && out.size() + line.size() > max_bytes) {
      truncated = true;
      return false;
    }
    out += line;
    ++returned;
    return true;
  }));
  mcp::tool_result r = mcp::tool_result::text(std::move(out));
  if (truncated) {
    r.texts.push_back(continuation_note(returned, max_bytes));
    r.structured_extra["continuation"] =
        boost::json::object{{"appendStage", boost::json::object{{"$skip", returned}}}};
  }
  return r;
}

}  // namespace

const tool_def aggregate_tool = define<aggregate_args>(
    {"aggregate", "Run an aggregation pipeline (docs/aggregation.md); returns NDJSON.", aggregate_hints}, aggregate,
    mcp::result_shape::ndjson);

}  // namespace omgdb::tools
