// The semantic half of search: nearest neighbours from the vectors vsync wrote, hybrid as
// the reciprocal rank fusion of the lexical and semantic rankings, and the errors when a
// model or the vectors are missing (never a download).
#include "engine/index/keystring.hpp"
#include "engine/search/index.hpp"
#include "engine/search/search.hpp"
#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;
namespace es = omgdb::engine::search;

namespace {

omgdb::result<es::search_result> run(vector_world& w, std::string index, std::string q, std::optional<es::search_mode> mode,
                              std::string_view filter = "{}") {
  es::search_request r;
  r.collection = "docs";
  r.index = std::move(index);
  r.query = std::move(q);
  r.mode = mode;
  r.limit = 5;
  r.filter = doc(filter);
  r.explain = true;
  return es::manager::of(*w.db)->run(r, w.models.get());
}

void define(vector_world& w, std::string_view json) {
  auto d = es::manager::of(*w.db)->define(doc(json));
  REQUIRE_MESSAGE(d.ok(), (d ? "" : d.error().message));
}

constexpr std::string_view k_def =
    R"({"collection":"docs","name":"both","fields":["text","title"],"semantic":{"fields":["text"],"model":"a"}})";

}  // namespace

TEST_CASE("semantic search ranks by the cosine of the installed model's vectors, filtered first") {
  vector_world w(40, 16);
  w.fill(40);
  w.sync("text", "a");
  define(w, k_def);
  auto r = run(w, "both", "w7", es::search_mode::semantic);
  REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error().message));
  REQUIRE(!r->hits.empty());
  CHECK(to_json(r->hits[0].id) == "7");
  CHECK(r->hits[0].score == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(r->mode == "semantic");
  auto f = run(w, "both", "w7", es::search_mode::semantic, R"({"grp":0})");
  REQUIRE(f.ok());
  for (const auto& h : f->hits) CHECK(h.id.as_int64() % 3 == 0);
}

TEST_CASE("hybrid is the weighted reciprocal rank fusion of the lexical and semantic rankings") {
  vector_world w(40, 16);
  w.fill(40);
  w.sync("text", "a");
  define(w, k_def);
  auto hybrid = run(w, "both", "w7 w12", std::nullopt);  // the default with a semantic part
  REQUIRE_MESSAGE(hybrid.ok(), (hybrid ? "" : hybrid.error().message));
  CHECK(hybrid->mode == "hybrid");
  es::search_request big;
  big.collection = "docs";
  big.index = "both";
  big.query = "w7 w12";
  big.limit = 50;
  big.mode = es::search_mode::lexical;
  auto lex = es::manager::of(*w.db)->run(big, w.models.get());
  big.mode = es::search_mode::semantic;
  auto sem = es::manager::of(*w.db)->run(big, w.models.get());
  REQUIRE(lex.ok());
  REQUIRE(sem.ok());
  std::vector<es::ranked> l, s;
  for (const auto& h : lex->hits) l.push_back({encode_key(h.id), h.id});
  for (const auto& h : sem->hits) s.push_back({encode_key(h.id), h.id});
  auto fused = es::rrf({l, s}, {es::k_hybrid_lexical_weight, es::k_hybrid_semantic_weight});
  REQUIRE(hybrid->hits.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(to_json(hybrid->hits[i].id) == to_json(fused[i].id));
    CHECK(hybrid->hits[i].score == doctest::Approx(fused[i].score));
  }
}

TEST_CASE("a semantic search without the model or its vectors says what to install or run") {
  vector_world w(10, 8);
  w.fill(10);
  define(w, k_def);
  auto no_vectors = run(w, "both", "w1", es::search_mode::semantic);
  REQUIRE_FALSE(no_vectors.ok());
  CHECK(no_vectors.error().message.find("run vsync") != std::string::npos);
  define(w, R"({"collection":"docs","name":"other","fields":["text"],"semantic":{"fields":["text"],"model":"minilm"}})");
  auto no_model = run(w, "other", "w1", es::search_mode::hybrid);
  REQUIRE_FALSE(no_model.ok());
  CHECK(no_model.error().message.find("minilm") != std::string::npos);
  CHECK(no_model.error().message.find("omgdb model add") != std::string::npos);
  // Lexical still works on the same index.
  auto lex = run(w, "other", "w1", es::search_mode::lexical);
  REQUIRE(lex.ok());
  CHECK(to_json(lex->hits.at(0).id) == "1");
}

TEST_CASE("search_index_status counts the semantic part's vectors and names the bound model's sha256") {
  vector_world w(10, 8);
  w.fill(10);
  w.sync("text", "a");
  define(w, k_def);
  // One document's text changes after vsync: its vector is stale; one new document has none.
  REQUIRE(w.db->replace("docs", value(std::int64_t{3}),
                        document{{"_id", value(std::int64_t{3})}, {"text", value("w4")}, {"grp", value(std::int64_t{0})}})
              .ok());
  REQUIRE(w.db->insert("docs", document{{"_id", value(std::int64_t{10})}, {"text", value("w5")}}).ok());
  auto st = es::manager::of(*w.db)->index_status("docs", std::string_view("both"));
  REQUIRE_MESSAGE(st.ok(), (st ? "" : st.error().message));
  REQUIRE(st->size() == 1);
  const std::string json = to_json(value((*st)[0]));
  CHECK(json.find(R"("vectors":{"present":10,"fresh":9,"stale":1,"missing":1})") != std::string::npos);
  auto bound = vector::read_binding(*w.db, "docs", "text");
  REQUIRE(bound.ok());
  REQUIRE(bound->has_value());
  CHECK(!(*bound)->model_sha256.empty());
  CHECK(json.find(R"("sha256":")" + (*bound)->model_sha256 + "\"") != std::string::npos);
}

TEST_CASE("minScore is compared with the score each mode returns: BM25, similarity, or the fused score in hybrid") {
  vector_world w(40, 16);
  w.fill(40);
  w.sync("text", "a");
  define(w, k_def);
  auto with_min = [&](std::optional<es::search_mode> mode, std::optional<double> min) {
    es::search_request r;
    r.collection = "docs";
    r.index = "both";
    r.query = "w7 w12";
    r.mode = mode;
    r.limit = 20;
    r.min_score = min;
    auto out = es::manager::of(*w.db)->run(r, w.models.get());
    REQUIRE_MESSAGE(out.ok(), (out ? "" : out.error().message));
    return *out;
  };
  // Hybrid: a fused score is at most (1 + 0.2) / 61, so minScore 0.5 keeps nothing, even
  // though the lexical candidates' BM25 scores are above 0.5.
  auto all = with_min(std::nullopt, std::nullopt);
  REQUIRE(all.mode == "hybrid");
  REQUIRE(all.hits.size() >= 3);
  auto lex = with_min(es::search_mode::lexical, 0.5);
  REQUIRE(!lex.hits.empty());
  for (const auto& h : lex.hits) CHECK(h.score >= 0.5);
  CHECK(with_min(std::nullopt, 0.5).hits.empty());
  // A threshold between two fused scores keeps exactly the hits at or above it.
  std::size_t keep = 1;  // the first drop in score after the first hit
  while (keep + 1 < all.hits.size() && all.hits[keep].score == all.hits[keep - 1].score) ++keep;
  REQUIRE(all.hits[keep - 1].score > all.hits[keep].score);
  auto some = with_min(std::nullopt, (all.hits[keep - 1].score + all.hits[keep].score) / 2);
  REQUIRE(some.hits.size() == keep);
  for (std::size_t i = 0; i < keep; ++i) CHECK(to_json(some.hits[i].id) == to_json(all.hits[i].id));
  // Semantic: the similarity.
  auto sem_all = with_min(es::search_mode::semantic, std::nullopt);
  auto sem = with_min(es::search_mode::semantic, 0.5);
  REQUIRE(sem.hits.size() >= 1);
  CHECK(sem.hits.size() < sem_all.hits.size());
  for (const auto& h : sem.hits) CHECK(h.score >= 0.5);
}
