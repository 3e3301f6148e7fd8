// The vector tools of seeds/000 (docs/vectors.md): vsync (scope `read-write`: writes
// `<collection>.__vectors`), vsearch and vstale (scope `read`; readOnlyHint false, as the
// issue says: vsearch may write the rebuildable cache file inside the store, never documents).
#include "engine/value/ejson.hpp"
#include "engine/vector/vector_search.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

status need_models(const call& c) {
  if (!c.env.models) {
    return make_error("this server has no models directory: install a model with `omgdb model add NAME PATH`",
                      failure_kind::unavailable);
  }
  return {};
}

bj::value binding_json(const engine::vector::binding& b) {
  return bj::object{{"model", b.model}, {"modelSha256", b.model_sha256}, {"dim", b.dim}};
}

struct field_args : in_collection {
  std::string field;
  void fields(arg_list& a) { a.required("field", field, {"Dotted path of the text field (a string) to embed."}); }
};

struct vsync_args : field_args {
  std::optional<std::string> model;
  void fields(arg_list& a) {
    field_args::fields(a);
    a.optional("model", model,
               {"Installed model (`omgdb model list`) to embed the field with; binds it to the field. Default: the "
                "model already bound, else the configured default model ([vectors] default_model), else the only "
                "installed model. Changing it makes the field's vectors stale until they are re-embedded.",
                {}, 64});
  }
};

handler_result vsync(vsync_args& a, const call& c) {
  OMGDB_CHECK(need_models(c));
  engine::vector::sync_request r;
  r.collection = a.collection;
  r.field = a.field;
  r.model = a.model;
  OMGDB_TRY(out, engine::vector::sync(*a.store, *c.env.models, r, c.scan()));
  return json_text(bj::object{{"collection", engine::vector::vectors_collection(a.collection)},
                              {"field", a.field},
                              {"embedded", out.embedded},
                              {"unchanged", out.unchanged},
                              {"removed", out.removed},
                              {"withoutText", out.no_text},
                              {"batches", out.batches},
                              {"rebound", out.rebound},
                              {"binding", binding_json(out.bound)}});
}

handler_result vstale(field_args& a, const call& c) {
  OMGDB_TRY(out, engine::vector::stale(*a.store, a.collection, a.field, engine::vector::k_stale_list_max, c.scan()));
  bj::array ids;
  for (const auto& id : out.ids) ids.push_back(engine::to_boost_json(id));
  bj::object o{{"ids", std::move(ids)},
               {"truncated", out.truncated},
               {"missing", out.missing},
               {"stale", out.stale},
               {"fresh", out.fresh}};
  o["binding"] = out.bound ? binding_json(*out.bound) : bj::value(nullptr);
  return json_text(o);
}

struct vsearch_args : field_args {
  std::string query;
  std::uint64_t k = 5;
  engine::document filter;
  void fields(arg_list& a) {
    field_args::fields(a);
    a.required("query", query, {"The text to find neighbours of, embedded with the field's bound model.", {}, 1 << 16});
    a.optional("k", k, {"Nearest documents to return.", 1, engine::vector::k_max_k, "5"});
    a.optional("filter", filter, {"Only documents matching this filter are ranked (pre-filter); {} or absent: all."});
  }
};

handler_result vsearch(vsearch_args& a, const call& c) {
  OMGDB_CHECK(need_models(c));
  OMGDB_TRY(out, engine::vector::search_text(*a.store, *c.env.models, a.collection, a.field, a.query, a.k, a.filter,
                                             c.scan()));
  bj::array hits;
  for (const auto& h : out.hits) hits.push_back(bj::object{{"_id", engine::to_boost_json(h.id)}, {"score", h.score}});
  bj::object o{{"results", std::move(hits)},
               {"candidates", out.candidates},
               {"ranked", out.ranked},
               {"stale", out.stale},
               {"missing", out.missing},
               {"method", out.method},
               {"model", out.bound.model}};
  if (out.stale + out.missing > 0) {
    o["note"] = std::to_string(out.stale + out.missing) +
                " matching documents were not ranked: their vectors are stale or missing (vstale lists them; vsync "
                "refreshes them)";
  }
  if (!out.notes.empty()) {  // e.g. a damaged cache file rebuilt for this call (docs/vectors.md)
    bj::array notes;
    for (const auto& n : out.notes) notes.emplace_back(n);
    o["notes"] = std::move(notes);
  }
  return json_text(o);
}

// Read scope, but not read-only: vsearch may write its cache file (the seed counts 14
// read-only tools). idempotentHint stays false with readOnlyHint false (catalog_test).
constexpr mcp::annotations read_with_cache{false, false, false};

}  // namespace

using auth::scope;
const tool_def vsearch_tool = define<vsearch_args>(
    {"vsearch", "Semantic search over a text field; `k` defaults to 5, `filter` pre-filters candidates.", read_with_cache},
    vsearch, mcp::result_shape::json_object);
const tool_def vstale_tool = define<field_args>(
    {"vstale", "`_id`s whose persisted embedding is missing or stale.", read_with_cache}, vstale,
    mcp::result_shape::json_object);
const tool_def vsync_tool = define<vsync_args>(
    {"vsync", "Persist or refresh embeddings into `<collection>.__vectors`.", plain_write, scope::read_write}, vsync,
    mcp::result_shape::json_object);

}  // namespace omgdb::tools
