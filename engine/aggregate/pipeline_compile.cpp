// Compiling a pipeline: stage names to stage compilers, the refused stages, the unknown-stage
// hint, and the rewrites ($sort + $limit: top-k).
#include <string>
#include <utility>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

struct stage_entry {
  std::string_view name;
  stage_compiler compile;
};

constexpr stage_entry stages[] = {
    {"$match", compile_match},
    {"$project", compile_project},
    {"$addFields", compile_add_fields},
    {"$set", compile_add_fields},
    {"$unset", compile_unset},
    {"$group", compile_group},
    {"$sort", compile_sort},
    {"$limit", compile_limit},
    {"$skip", compile_skip},
    {"$unwind", compile_unwind},
    {"$count", compile_count},
    {"$lookup", compile_lookup},
    {"$facet", compile_facet},
    {"$bucket", compile_bucket},
    {"$bucketAuto", compile_bucket_auto},
    {"$sortByCount", compile_sort_by_count},
    {"$replaceRoot", compile_replace_root},
    {"$replaceWith", compile_replace_with},
    {"$sample", compile_sample},
    {"$unionWith", compile_union_with},
    {"$redact", compile_redact},
    {"$setWindowFields", compile_set_window_fields},
    {"$densify", compile_densify},
    {"$fill", compile_fill},
};

// Stages MongoDB has that omgdb refuses, with the reason.
std::string refusal(std::string_view name) {
  if (name == "$out" || name == "$merge") {
    return quoted(name) + " is not supported: `aggregate` is a read tool and never writes documents; "
           "write the results with `insert_many`, `bulk_write` or `update_many` instead";
  }
  static constexpr std::string_view unsupported[] = {
      "$geoNear", "$graphLookup", "$search", "$searchMeta", "$vectorSearch",
      "$changeStream", "$collStats", "$indexStats", "$currentOp", "$listSessions", "$planCacheStats",
      "$documents", "$listLocalSessions", "$shardedDataDistribution", "$rankFusion", "$scoreFusion"};
  for (std::string_view u : unsupported) {
    if (u == name) return quoted(name) + " is not supported by omgdb (see docs/aggregation.md for the stages it runs)";
  }
  return {};
}

}  // namespace

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

result<stage_list> compile_pipeline(const array& spec, const compile_ctx& ctx) {
  if (ctx.depth > ctx.max_depth) {
    return make_error("sub-pipelines nest deeper than " + std::to_string(ctx.max_depth) + " levels", failure_kind::limit_exceeded);
  }
  if (spec.size() > k_max_pipeline_stages) {
    return make_error("the pipeline has " + std::to_string(spec.size()) + " stages; a pipeline (or sub-pipeline) may have at most " +
                          std::to_string(k_max_pipeline_stages) + " (MongoDB's bound)",
                      failure_kind::limit_exceeded);
  }
  stage_list out;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const std::string where = "stage " + std::to_string(i + 1);
    const value& s = spec[i];
    if (!s.is_document() || s.as_document().size() != 1) {
      return make_error(where + ": each stage must be a document with exactly one field, the stage name");
    }
    const field& f = s.as_document().front();
    if (std::string r = refusal(f.name); !r.empty()) return make_error(where + ": " + r);
    const stage_entry* entry = nullptr;
    for (const stage_entry& e : stages) {
      if (e.name == f.name) entry = &e;
    }
    if (entry == nullptr) {
      std::vector<std::string> names;
      for (const stage_entry& e : stages) names.emplace_back(e.name);
      const std::string near = closest_name(f.name, names);
      return make_error(where + ": unknown stage " + quoted(f.name) +
                        (near.empty() ? "" : " (did you mean " + quoted(near) + "?)"));
    }
    auto compiled = entry->compile(f.val, ctx);
    if (!compiled) return make_error(where + " (" + quoted(f.name) + "): " + compiled.error().message, compiled.error().kind);
    out.push_back(std::move(*compiled));
  }
  // $sort immediately followed by $limit keeps only the top k.
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (!is_sort(out[i])) continue;
    if (auto k = limit_of(out[i + 1])) out[i] = sort_with_limit(out[i], *k);
  }
  return out;
}

result<std::vector<std::string>> field_path_parts(std::string_view path, std::string_view what) {
  std::vector<std::string> parts;
  if (path.empty()) return make_error(std::string(what) + " must not be empty");
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string_view piece = path.substr(start, dot == path.npos ? path.npos : dot - start);
    if (piece.empty()) return make_error(std::string(what) + " " + quoted(path) + " has an empty component");
    if (piece.front() == '$') return make_error(std::string(what) + " " + quoted(path) + " has a component starting with '$'");
    parts.emplace_back(piece);
    if (dot == path.npos) return parts;
    start = dot + 1;
  }
}

}  // namespace omgdb::engine::aggregate_detail
