// engine/vector/vector_cache_load.cpp: the HNSW graph survives a restart (saved beside the
// cache, checksummed, loaded instead of rebuilt), absorbs a small vsync in place (new,
// changed and removed vectors), and a damaged graph file is rebuilt, never served.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/vector/vector_cache.hpp"
#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
namespace fs = std::filesystem;

namespace {

vector::nearest_result graph_search(test::vector_world& w, std::size_t word, std::size_t k = 5) {
  vector::nearest_request r;
  r.collection = "docs";
  r.field = "text";
  r.query = w.unit.at(word);
  r.k = k;
  r.hnsw_min_vectors = 1000;
  auto out = vector::nearest(*w.db, r);
  REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
  return *out;
}

std::int64_t top(const vector::nearest_result& r) { return static_cast<std::int64_t>(r.hits.at(0).id.number_as_double()); }

fs::path graph_path(test::vector_world& w) {
  return vector::detail::graph_file(engine::detail::store_access::of(*w.db).path, "docs", "text");
}

// The cache as the next search would use it, with its graph (null when it has none).
const vector::hnsw_index* graph_in_memory(test::vector_world& w) {
  const auto& s = engine::detail::store_access::of(*w.db);
  vector::detail::read_view view(s);
  auto b = vector::read_binding(*w.db, "docs", "text");
  REQUIRE(b.ok());
  REQUIRE(b->has_value());
  auto lease = vector::detail::load_cache(s, view, "docs", **b, {}, nullptr);
  REQUIRE(lease.ok());
  return (*lease)->hnsw.get();
}

std::string notes_of(const vector::nearest_result& r) {
  std::string out;
  for (const auto& n : r.notes) out += n + "\n";
  return out;
}

}  // namespace

TEST_CASE("the HNSW graph is saved beside the cache and loaded after a restart, not rebuilt") {
  test::vector_world w(1500, 16);
  w.fill(1500);
  w.sync("text", "a");
  auto first = graph_search(w, 17);
  CHECK(first.method == "hnsw");
  CHECK(top(first) == 17);
  const fs::path file = graph_path(w);
  REQUIRE(fs::exists(file));
  const auto written = fs::last_write_time(file);
  vector::detail::forget_loaded_caches();  // as after a restart
  auto after = graph_search(w, 17);
  CHECK(after.method == "hnsw");
  CHECK_MESSAGE(after.notes.empty(), notes_of(after));
  REQUIRE(after.hits.size() == first.hits.size());
  for (std::size_t i = 0; i < first.hits.size(); ++i) CHECK(to_json(after.hits[i].id) == to_json(first.hits[i].id));
  CHECK(fs::last_write_time(file) == written);  // loaded, not built and written again
  CHECK(graph_in_memory(w) != nullptr);
}

TEST_CASE("a small vsync is absorbed by the graph in place: new, changed and removed vectors") {
  test::vector_world w(2000, 16);
  w.fill(1500);
  w.sync("text", "a");
  REQUIRE(graph_search(w, 17).method == "hnsw");
  const auto* graph = graph_in_memory(w);
  REQUIRE(graph != nullptr);
  REQUIRE(graph->size() == 1500);
  REQUIRE(w.db->insert("docs", test::doc(R"({"_id": 1700, "text": "w1700"})")).ok());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 5})"), test::doc(R"({"$set": {"text": "w1800"}})")}).ok());
  REQUIRE(w.db->remove("docs", value(std::int64_t{9})).ok());
  w.sync("text");
  auto added = graph_search(w, 1700);
  CHECK(added.method == "hnsw");
  CHECK(top(added) == 1700);
  CHECK(top(graph_search(w, 1800)) == 5);
  for (const auto& h : graph_search(w, 9, 20).hits) CHECK(h.id.number_as_double() != 9);
  CHECK(graph_in_memory(w) == graph);  // the same graph, changed in place
  CHECK(graph->size() == 1501);
  CHECK(graph->removed() == 1);
  // The files were written with the change: a restart loads them and ranks the same.
  vector::detail::forget_loaded_caches();
  auto reloaded = graph_search(w, 1700);
  CHECK_MESSAGE(reloaded.notes.empty(), notes_of(reloaded));
  CHECK(top(reloaded) == 1700);
  auto v = w.db->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("a damaged HNSW graph file is rebuilt, never served, and verify reports it") {
  test::vector_world w(1500, 16);
  w.fill(1500);
  w.sync("text", "a");
  REQUIRE(graph_search(w, 17).method == "hnsw");
  const fs::path file = graph_path(w);
  auto flip = [&] {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(-200, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-200, std::ios::end);
    f.put(static_cast<char>(c ^ 0x5a));
  };
  flip();
  vector::detail::forget_loaded_caches();
  auto r = graph_search(w, 23);
  CHECK(top(r) == 23);
  CHECK(r.method == "hnsw");
  CHECK(notes_of(r).find("HNSW graph file") != std::string::npos);
  CHECK(notes_of(r).find("checksum") != std::string::npos);
  // Rebuilt and written again: the next load is clean.
  vector::detail::forget_loaded_caches();
  auto clean = graph_search(w, 23);
  CHECK_MESSAGE(clean.notes.empty(), notes_of(clean));
  // verify reads the graph file whole too, and marks a damaged one for the next search.
  flip();
  bool reported = false;
  for (const auto& c : vector::cache_status(*w.db)) {
    const std::string j = to_json(c);
    if (j.find("vectors-graph") != std::string::npos) reported = j.find("\"damaged\":true") != std::string::npos;
  }
  CHECK(reported);
  vector::detail::forget_loaded_caches();
  auto marked = graph_search(w, 23);
  CHECK(top(marked) == 23);
  CHECK(notes_of(marked).find("verify found it damaged") != std::string::npos);
}
