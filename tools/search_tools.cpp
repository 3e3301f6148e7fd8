// The search-index tools of seeds/000 (docs/search.md): search and search_index_status (scope
// `read`; they may build or catch up a generation, a rebuildable cache, never documents, so
// readOnlyHint is false), define_search_index, drop_search_index, rebuild_search_index
// (scope `read-write`). Results are compact JSON.
#include "engine/search/search.hpp"
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
namespace es = engine::search;

namespace {

bj::value doc_json(const engine::document& d) { return engine::to_boost_json(engine::value(d)); }

// A read tool that may write rebuildable caches: not read-only (as the cursor tools).
constexpr mcp::annotations cache_read{false, false, false};

struct define_args : in_store {
  engine::document definition;
  void fields(arg_list& a) {
    a.required("definition", definition,
               {"{collection, name, fields: [path | {path, weight}], language?: Snowball language or \"none\" "
                "(default english), semantic?: {fields, model}}."});
  }
};

handler_result define(define_args& a, const call& c) {
  OMGDB_TRY(r, es::manager::of(*a.store)->define(a.definition, c.scan()));
  bj::object out{{"collection", r.def.collection}, {"name", r.def.name},   {"version", r.def.version},
                 {"created", r.created},           {"changed", r.changed}, {"built", r.built}};
  if (!r.build_error.empty()) out["buildError"] = r.build_error;
  return json_text(out);
}

struct index_args : in_collection {
  std::string index;
  void fields(arg_list& a) { a.required("index", index, {"The search index's name."}); }
};

handler_result drop(index_args& a, const call&) {
  OMGDB_CHECK(es::manager::of(*a.store)->drop(a.collection, a.index));
  return json_text(bj::object{{"collection", a.collection}, {"dropped", a.index}});
}

struct rebuild_args : index_args {
  std::uint64_t writer_memory = es::k_default_writer_memory;
  void fields(arg_list& a) {
    index_args::fields(a);
    a.optional("writerMemoryBytes", writer_memory,
               {"Indexed text held before each commit while building.", 1, es::k_max_writer_memory,
                "67108864 (64 MiB)"});
  }
};

handler_result rebuild(rebuild_args& a, const call& c) {
  OMGDB_TRY(r, es::manager::of(*a.store)->rebuild(a.collection, a.index, a.writer_memory, c.scan()));
  return json_text(bj::object{{"collection", a.collection},
                              {"index", a.index},
                              {"generation", r.generation},
                              {"snapshotSeq", r.snapshot_seq},
                              {"builtThroughSeq", r.built_through},
                              {"documents", r.documents},
                              {"commits", r.commits},
                              {"fileBytes", r.file_bytes},
                              {"contentHash", r.content_hash},
                              {"verified", true},
                              {"millis", r.millis}});
}

struct search_args : index_args {
  std::string query, mode;
  engine::document filter;
  std::uint64_t limit = es::k_default_limit;
  std::optional<engine::value> min_score;
  bool highlight = false, explain = false;
  std::uint64_t timeout_ms = es::k_default_timeout_ms;
  void fields(arg_list& a) {
    index_args::fields(a);
    a.required("query", query,
               {"Words (any of them), \"phrases\", prefix*, AND / OR / NOT, field:term, (groups).", {}, 4096});
    a.optional("mode", mode, {"lexical, semantic or hybrid; default hybrid when the index has a semantic part, else lexical."});
    a.optional("filter", filter, filter_spec);
    a.optional("limit", limit, {"Hits to return.", 1, es::k_max_limit, "10"});
    a.optional("minScore", min_score, {"Leave out hits scoring below this."});
    a.optional("highlight", highlight, {"Snippets per field with the matched terms in **bold**.", {}, {}, "false"});
    a.optional("explain", explain, {"Per hit: BM25 score, matched terms, each retriever's rank.", {}, {}, "false"});
    a.optional("timeoutMs", timeout_ms,
               {"Time to catch the index up and rank; past it the index answers as of where it got.", 1,
                es::k_max_timeout_ms, "2000"});
  }
};

handler_result search(search_args& a, const call& c) {
  es::search_request r;
  r.collection = a.collection;
  r.index = a.index;
  r.query = a.query;
  if (!a.mode.empty()) {
    if (a.mode == "lexical") {
      r.mode = es::search_mode::lexical;
    } else if (a.mode == "semantic") {
      r.mode = es::search_mode::semantic;
    } else if (a.mode == "hybrid") {
      r.mode = es::search_mode::hybrid;
    } else {
      return make_error("argument `mode` must be lexical, semantic or hybrid, got `" + a.mode + "`");
    }
  }
  r.filter = std::move(a.filter);
  r.limit = a.limit;
  if (a.min_score) {
    if (!a.min_score->is_number()) return make_error("argument `minScore` must be a number");
    r.min_score = a.min_score->number_as_double();
  }
  r.highlight = a.highlight;
  r.explain = a.explain;
  r.timeout_ms = a.timeout_ms;
  OMGDB_TRY(res, es::manager::of(*a.store)->run(r, c.env.models.get(), c.scan()));
  bj::array hits;
  for (auto& h : res.hits) {
    bj::object o{{"_id", engine::to_boost_json(h.id)}, {"score", h.score}};
    if (a.highlight) {
      bj::object hl;
      for (auto& [field, text] : h.highlights) hl[field] = text;
      o["highlights"] = std::move(hl);
    }
    if (h.explain) o["explain"] = doc_json(*h.explain);
    hits.push_back(std::move(o));
  }
  bj::object boundary{{"searchedSeq", res.searched_seq},
                      {"lastSeq", res.last_seq},
                      {"lag", res.last_seq > res.searched_seq ? res.last_seq - res.searched_seq : 0},
                      {"caughtUp", res.caught_up},
                      {"generation", res.generation}};
  if (res.definition_mismatch) boundary["definitionMismatch"] = true;
  bj::object out{{"collection", a.collection}, {"index", a.index}, {"mode", res.mode},
                 {"hits", std::move(hits)},     {"boundary", std::move(boundary)}};
  if (!res.notes.empty()) {
    bj::array notes;
    for (auto& n : res.notes) notes.emplace_back(n);
    out["notes"] = std::move(notes);
  }
  return json_text(out);
}

struct status_args : in_collection {
  std::string index;
  void fields(arg_list& a) { a.optional("index", index, {"One index; without it, every index of the collection."}); }
};

handler_result status_of(status_args& a, const call&) {
  std::optional<std::string_view> one;
  if (!a.index.empty()) one = a.index;
  OMGDB_TRY(list, es::manager::of(*a.store)->index_status(a.collection, one));
  bj::array out;
  for (const auto& d : list) out.push_back(doc_json(d));
  return json_text(bj::object{{"collection", a.collection}, {"indexes", std::move(out)}});
}

}  // namespace

const tool_def search_tool = define<search_args>(
    {"search",
     "Typed lexical, local semantic, or deterministic hybrid full-text search; semantic models must already be "
     "installed — this tool never downloads.",
     cache_read},
    search, mcp::result_shape::json_object);
const tool_def search_index_status_tool = define<status_args>(
    {"search_index_status", "Search definition, generation boundary, provenance, counts, and rebuild state.", cache_read},
    status_of, mcp::result_shape::json_object);
const tool_def define_search_index_tool = define<define_args>(
    {"define_search_index", "Define or update a versioned, op-log-backed search index.", plain_write,
     auth::scope::read_write},
    define, mcp::result_shape::json_object);
const tool_def drop_search_index_tool = define<index_args>(
    {"drop_search_index", "Drop a search-index definition and its rebuildable acceleration files.", plain_write,
     auth::scope::read_write},
    drop, mcp::result_shape::json_object);
const tool_def rebuild_search_index_tool = define<rebuild_args>(
    {"rebuild_search_index", "Explicitly rebuild and verify one derived search generation.", plain_write,
     auth::scope::read_write},
    rebuild, mcp::result_shape::json_object);

}  // namespace omgdb::tools
