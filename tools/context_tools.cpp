// The context_pack tool of seeds/000 (scope `read`): a token-budgeted, cited context bundle
// (docs/context-packs.md). Its result is two texts: the pack as Markdown, then the citations
// and the count as JSON.
#include "common/json.hpp"
#include "engine/context/context_pack.hpp"
#include "engine/search/search.hpp"
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

struct context_pack_args : in_collection {
  std::string field;
  std::string query;
  std::uint64_t budget = 1000;
  engine::document filter;
  void fields(arg_list& a) {
    a.required("field", field, {"The text field to quote (a dotted path); `text` for imported Markdown."});
    a.required("query", query, {"What the pack should answer, in words.", {}, std::uint64_t{4096}});
    a.optional("budget", budget, {"Most tokens the pack's Markdown may hold.", 1, engine::context::k_max_budget, "1000"});
    a.optional("filter", filter, {"MongoDB-style filter choosing the candidate documents; {} (default) is all."});
  }
};

// How many of a covering search index's best documents a pack draws its chunks from.
constexpr std::uint64_t k_index_documents = 50;

// The first search index of `collection` (in name order) whose fields include `field`.
std::optional<engine::search::definition> covering_index(engine::store& st, const std::string& collection, const std::string& field) {
  auto defs = engine::search::manager::of(st)->definitions(collection);
  if (!defs) return std::nullopt;
  for (const auto& d : *defs) {
    for (const auto& f : d.fields) {
      if (f.path == field) return d;
    }
  }
  return std::nullopt;
}

handler_result context_pack(context_pack_args& a, const call& c) {
  std::string problem;
  const auto counter = engine::context::default_counter(&problem);
  const auto rank = engine::context::make_bm25();
  // Ranking (docs/context-packs.md): a search index covering the field chooses the documents
  // (hybrid when it has a semantic part), BM25 then ranks their chunks; without one, BM25
  // ranks the chunks of every candidate.
  std::string ranking, index_note;
  engine::document filter = a.filter;
  if (auto index = covering_index(*a.store, a.collection, a.field)) {
    engine::search::search_request sr;
    sr.collection = a.collection;
    sr.index = index->name;
    // Its English stop words would choose documents for the question's phrasing ("how", "do",
    // "i"), not its subject (docs/context-packs.md, "Ranking"); other languages have no list.
    sr.query = index->language == "english" ? engine::context::without_stop_words(a.query) : a.query;
    sr.filter = a.filter;
    sr.limit = k_index_documents;
    auto found = engine::search::manager::of(*a.store)->run(sr, c.env.models.get());
    if (found) {
      engine::array ids;
      for (const auto& h : found->hits) ids.push_back(h.id);
      engine::document only{{"_id", engine::value(engine::document{{"$in", engine::value(std::move(ids))}})}};
      filter = a.filter.empty() ? std::move(only)
                                : engine::document{{"$and", engine::value(engine::array{engine::value(a.filter),
                                                                                      engine::value(std::move(only))})}};
      ranking = "search index `" + index->name + "` (" + found->mode + ", its best " + std::to_string(k_index_documents) +
                " documents), then bm25 over their chunks";
    } else {
      index_note = "search index `" + index->name + "` was not used (" + found.error().message +
                   "); bm25 ranked every candidate";
    }
  }
  engine::context::pack_request req{a.collection, a.field, a.query, a.budget, std::move(filter)};
  OMGDB_TRY(p, engine::context::context_pack(*a.store, req, *counter, *rank, c.scan()));
  if (!ranking.empty()) p.ranking = ranking;
  bj::array cites;
  for (const auto& x : p.citations) {
    bj::array path;
    for (const auto& t : x.heading_path) path.emplace_back(t);
    cites.push_back(bj::object{{"n", x.n},
                               {"_id", engine::to_boost_json(x.id)},
                               {"sectionId", x.section_id ? bj::value(*x.section_id) : bj::value(nullptr)},
                               {"headingPath", std::move(path)},
                               {"byteStart", x.byte_start},
                               {"byteEnd", x.byte_end},
                               {"seq", x.seq},
                               {"score", x.score}});
  }
  bj::object meta{{"citations", std::move(cites)},
                  {"tokens", bj::object{{"counter", p.counter}, {"total", p.tokens}, {"budget", p.budget}}},
                  {"ranking", p.ranking},
                  {"candidates", p.candidates},
                  {"chunks", p.chunks},
                  {"matchedChunks", p.matched_chunks}};
  if (!problem.empty()) meta["note"] = "the o200k rank file was not used: " + problem;
  if (!index_note.empty()) meta["rankingNote"] = index_note;
  mcp::tool_result out = mcp::tool_result::text(p.text);
  out.texts.push_back(json::serialize(meta));
  return out;
}

}  // namespace

const tool_def context_pack_tool = define<context_pack_args>(
    {"context_pack",
     "Token-budgeted, cited context bundle (docs/context-packs.md); `budget` defaults to 1000 tokens.",
     {false, false, false}, auth::scope::read},
    context_pack);

}  // namespace omgdb::tools
