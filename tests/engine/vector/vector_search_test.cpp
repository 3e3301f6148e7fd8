// engine/vector: vsearch's ranking is exactly brute force (filtered or not); HNSW's recall
// against exact has a floor.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/vector/vector_kernel.hpp"
#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

// The k best ids by a plain double-precision loop over `unit`, among ids passing `keep`.
template <class Keep>
std::vector<std::int64_t> brute_force(const std::vector<std::vector<float>>& unit, std::size_t n,
                                      const std::vector<float>& q, std::size_t k, Keep keep) {
  std::vector<std::pair<double, std::int64_t>> all;
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep(i)) continue;
    double s = 0;
    for (std::size_t j = 0; j < q.size(); ++j) s += double(unit[i][j]) * q[j];
    all.emplace_back(-s, static_cast<std::int64_t>(i));
  }
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < std::min(k, all.size()); ++i) out.push_back(all[i].second);
  return out;
}

std::vector<std::int64_t> ids_of(const vector::nearest_result& r) {
  std::vector<std::int64_t> out;
  for (const auto& h : r.hits) out.push_back(h.id.as_int64());
  return out;
}

}  // namespace

TEST_CASE("exact vsearch returns the brute-force nearest documents, and with a filter the nearest among the matches") {
  test::vector_world w(600, 24);
  w.fill(600);
  auto synced = w.sync("text", "a");
  CHECK(synced.embedded == 600);
  std::mt19937_64 gen(99);
  std::uniform_int_distribution<std::size_t> pick(0, 599);
  for (int round = 0; round < 10; ++round) {
    // A query near a random word's vector, plus noise.
    std::vector<float> q = w.unit[pick(gen)];
    std::normal_distribution<float> noise(0, 0.3f);
    for (auto& x : q) x += noise(gen);
    REQUIRE(embed::normalize(q));
    vector::nearest_request r;
    r.collection = "docs";
    r.field = "text";
    r.query = q;
    r.k = 10;
    auto all = vector::nearest(*w.db, r);
    REQUIRE(all.ok());
    CHECK(all->method == "exact");
    CHECK(all->ranked == 600);
    CHECK(ids_of(*all) == brute_force(w.unit, 600, q, 10, [](std::size_t) { return true; }));
    for (std::size_t i = 1; i < all->hits.size(); ++i) CHECK(all->hits[i - 1].score >= all->hits[i].score);
    r.filter = test::doc(R"({"grp": 2})");
    auto some = vector::nearest(*w.db, r);
    REQUIRE(some.ok());
    CHECK(some->candidates == 200);
    CHECK(ids_of(*some) == brute_force(w.unit, 600, q, 10, [](std::size_t i) { return i % 3 == 2; }));
  }
}

TEST_CASE("vsearch answers from a cache that a later vsync makes current again, and verify lists it as a cache") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  auto first = vector::search_text(*w.db, *w.models, "docs", "text", "w3", 1, {});
  REQUIRE(first.ok());
  REQUIRE(first->hits.size() == 1);
  CHECK(first->hits[0].id.as_int64() == 3);
  CHECK(first->hits[0].score == doctest::Approx(1.0));
  auto caches = vector::cache_status(*w.db);
  REQUIRE(caches.size() == 1);
  CHECK(to_json(caches[0]).find("\"current\":true") != std::string::npos);
  // Add documents: the cache is older than the vectors until it is used again.
  REQUIRE(w.db->insert("docs", test::doc(R"({"_id": 30, "text": "w30"})")).ok());
  w.sync("text");
  CHECK(to_json(vector::cache_status(*w.db)[0]).find("\"current\":false") != std::string::npos);
  auto second = vector::search_text(*w.db, *w.models, "docs", "text", "w30", 1, {});
  REQUIRE(second.ok());
  CHECK(second->hits.at(0).id.number_as_double() == 30);
  CHECK(to_json(vector::cache_status(*w.db)[0]).find("\"current\":true") != std::string::npos);
  auto v = w.db->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("stale and missing vectors are counted, never ranked") {
  test::vector_world w(50, 8);
  w.fill(10);
  w.sync("text", "a");
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 4})"), test::doc(R"({"$set": {"text": "w40"}})")}).ok());
  REQUIRE(w.db->insert("docs", test::doc(R"({"_id": 11, "text": "w11"})")).ok());
  auto r = vector::search_text(*w.db, *w.models, "docs", "text", "w40 w11 w4", 20, {});
  REQUIRE(r.ok());
  CHECK(r->candidates == 11);
  CHECK(r->stale == 1);
  CHECK(r->missing == 1);
  CHECK(r->ranked == 9);
  for (const auto& h : r->hits) {
    CHECK(h.id.number_as_double() != 4);
    CHECK(h.id.number_as_double() != 11);
  }
}

TEST_CASE("HNSW finds at least 90% of the exact ten nearest on 20,000 random vectors") {
  const std::uint32_t dim = 32;
  const std::size_t n = 20000;
  std::mt19937_64 gen(5);
  std::normal_distribution<float> normal;
  std::vector<float> m(n * dim);
  for (std::size_t i = 0; i < n; ++i) {
    std::span<float> row(m.data() + i * dim, dim);
    for (auto& x : row) x = normal(gen);
    embed::normalize(row);
  }
  vector::hnsw_index graph(m, dim);
  std::size_t found = 0, wanted = 0;
  for (int qi = 0; qi < 100; ++qi) {
    std::vector<float> q(dim);
    for (auto& x : q) x = normal(gen);
    embed::normalize(q);
    auto exact = vector::exact_top_k(m, dim, q, 10);
    auto approx = graph.search(q, 40);
    approx.resize(std::min<std::size_t>(10, approx.size()));
    for (const auto& e : exact) {
      ++wanted;
      for (const auto& a : approx) found += a.row == e.row ? 1 : 0;
    }
  }
  const double recall = double(found) / double(wanted);
  MESSAGE("HNSW recall@10 over 20000 x 32: " << recall);
  CHECK(recall >= 0.9);
}

TEST_CASE("a query of the wrong dimension, a k out of range and a field without vectors are refused") {
  test::vector_world w(10, 4);
  w.fill(5);
  vector::nearest_request r;
  r.collection = "docs";
  r.field = "text";
  r.query = {1, 0, 0, 0};
  auto none = vector::nearest(*w.db, r);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("run vsync with `model`") != std::string::npos);
  w.sync("text", "a");
  r.query = {1, 0};
  CHECK(vector::nearest(*w.db, r).error().message.find("the query vector has 2 components") != std::string::npos);
  r.query = {1, 0, 0, 0};
  r.k = 0;
  CHECK(vector::nearest(*w.db, r).error().message.find("k must be 1 to 1000") != std::string::npos);
}

TEST_CASE("above the HNSW size vsearch uses the graph, and falls back to exact when the filter removes its neighbours") {
  test::vector_world w(2000, 16);
  w.fill(2000);
  w.sync("text", "a");
  std::vector<float> q = w.unit[17];
  vector::nearest_request r;
  r.collection = "docs";
  r.field = "text";
  r.query = q;
  r.k = 10;
  r.hnsw_min_vectors = 1000;
  auto graph = vector::nearest(*w.db, r);
  REQUIRE(graph.ok());
  CHECK(graph->method == "hnsw");
  const auto exact = brute_force(w.unit, 2000, q, 10, [](std::size_t) { return true; });
  std::size_t common = 0;
  for (auto id : ids_of(*graph)) common += std::count(exact.begin(), exact.end(), id);
  CHECK(common >= 9);
  CHECK(ids_of(*graph).at(0) == 17);
  // Exclude the 100 nearest: the graph's 64 fetched neighbours are all filtered out.
  const auto near = brute_force(w.unit, 2000, q, 100, [](std::size_t) { return true; });
  std::string nin;
  for (auto id : near) nin += (nin.empty() ? "" : ",") + std::to_string(id);
  r.filter = test::doc(R"({"_id": {"$nin": [)" + nin + "]}}");
  auto fallback = vector::nearest(*w.db, r);
  REQUIRE(fallback.ok());
  CHECK(fallback->method == "hnsw+exact");
  CHECK(ids_of(*fallback) == brute_force(w.unit, 2000, q, 10, [&](std::size_t i) {
          return std::find(near.begin(), near.end(), static_cast<std::int64_t>(i)) == near.end();
        }));
  // A filter keeping a third of the documents ranks exactly.
  r.filter = test::doc(R"({"grp": 1})");
  auto third = vector::nearest(*w.db, r);
  REQUIRE(third.ok());
  CHECK(third->method == "exact");
}
