// engine/vector: the cache file proves itself. Rows altered on disk are never ranked from:
// the load checks the file's checksum and rebuilds from `C.__vectors`, saying so; verify
// reads every cache file whole and reports a damaged one, which the next vsearch rebuilds.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/vector/vector_cache.hpp"
#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The offset of the first float of the matrix and the dimension, read from the header as
// the file lays it out (magic, four length-prefixed strings, generation, seq, dim, rows).
std::pair<std::size_t, std::uint32_t> matrix_at(const std::string& b) {
  std::size_t at = 8;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t n = 0;
    std::memcpy(&n, b.data() + at, 4);
    at += 4 + n;
  }
  std::uint32_t dim = 0;
  std::memcpy(&dim, b.data() + at + 16, 4);
  return {at + 16 + 4 + 8, dim};
}

// Swaps the vectors of rows `a` and `b` in the file (the rows are in _id order, and the test
// documents have _ids 0 …, so row i is _id i).
void swap_rows(const fs::path& file, std::size_t a, std::size_t b) {
  std::string bytes = read_bytes(file);
  const auto [at, dim] = matrix_at(bytes);
  const std::size_t row = std::size_t{dim} * 4;
  REQUIRE(at + (std::max(a, b) + 1) * row <= bytes.size());
  std::string ra = bytes.substr(at + a * row, row);
  bytes.replace(at + a * row, row, bytes.substr(at + b * row, row));
  bytes.replace(at + b * row, row, ra);
  write_bytes(file, bytes);
}

fs::path the_file(test::vector_world& w) {
  const auto& s = engine::detail::store_access::of(*w.db);
  const auto f = vector::detail::cache_file(s.path, "docs", "text");
  REQUIRE(fs::exists(f));
  return f;
}

vector::nearest_result nearest_to(test::vector_world& w, std::string_view text, std::size_t k = 1) {
  auto r = vector::search_text(*w.db, *w.models, "docs", "text", text, k, {});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += n + "\n";
  return out;
}

std::string status_json(test::vector_world& w) {
  auto caches = vector::cache_status(*w.db);
  REQUIRE(caches.size() == 1);
  return to_json(caches[0]);
}

}  // namespace

TEST_CASE("a vector cache file with two rows swapped on disk is not ranked from: vsearch rebuilds it and says so") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  REQUIRE(nearest_to(w, "w3").hits.at(0).id.as_int64() == 3);  // writes the cache file
  swap_rows(the_file(w), 3, 7);
  vector::detail::forget_loaded_caches();  // as after a restart: the next search loads the file
  auto r = nearest_to(w, "w3");
  CHECK(r.hits.at(0).id.as_int64() == 3);
  CHECK(r.hits.at(0).score == doctest::Approx(1.0));
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("damaged") != std::string::npos);
  CHECK(r.notes[0].find("docs.__vectors") != std::string::npos);
  // The file was rewritten from the vectors: the next load is clean and says nothing.
  vector::detail::forget_loaded_caches();
  auto again = nearest_to(w, "w7");
  CHECK(again.hits.at(0).id.as_int64() == 7);
  CHECK_MESSAGE(again.notes.empty(), joined(again.notes));
  CHECK(status_json(w).find("\"damaged\":false") != std::string::npos);
}

TEST_CASE("verify reports a vector cache file whose bytes changed as damaged, and the next vsearch rebuilds it") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  nearest_to(w, "w3");
  CHECK(status_json(w).find("\"current\":true") != std::string::npos);
  swap_rows(the_file(w), 3, 7);
  const std::string reported = status_json(w);
  CHECK(reported.find("\"damaged\":true") != std::string::npos);
  CHECK(reported.find("\"current\":false") != std::string::npos);
  // A derived cache is never a data mismatch of the store.
  auto v = w.db->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
  // verify wrote nothing: the damaged file is still there until a search rebuilds it.
  CHECK(status_json(w).find("\"damaged\":true") != std::string::npos);
  auto r = nearest_to(w, "w7");
  CHECK(r.hits.at(0).id.as_int64() == 7);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("verify found it damaged") != std::string::npos);
  const std::string after = status_json(w);
  CHECK(after.find("\"damaged\":false") != std::string::npos);
  CHECK(after.find("\"current\":true") != std::string::npos);
}

TEST_CASE("a vector cache file of the older format without a checksum is rebuilt, never read") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  nearest_to(w, "w3");
  const auto file = the_file(w);
  swap_rows(file, 3, 7);
  // Format 1 was a layout with magic "OMGDBVC1" and no checksum after the rows.
  std::string bytes = read_bytes(file);
  bytes[7] = '1';
  bytes.resize(bytes.size() - 8);
  write_bytes(file, bytes);
  CHECK(status_json(w).find("older omgdb") != std::string::npos);
  vector::detail::forget_loaded_caches();
  CHECK(nearest_to(w, "w3").hits.at(0).id.as_int64() == 3);
  CHECK(status_json(w).find("\"current\":true") != std::string::npos);
}

TEST_CASE("a vector cache file whose header claims more rows than it holds is rebuilt without reading past its end") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  nearest_to(w, "w3");
  const auto file = the_file(w);
  std::string bytes = read_bytes(file);
  const auto [at, dim] = matrix_at(bytes);
  (void)dim;
  const std::uint64_t rows = 90'000'000;  // 2.9 GB of floats claimed by a file of a few kB
  std::memcpy(bytes.data() + at - 8, &rows, 8);
  write_bytes(file, bytes);
  CHECK(status_json(w).find("shorter than its header says") != std::string::npos);
  vector::detail::forget_loaded_caches();
  auto r = nearest_to(w, "w5");
  CHECK(r.hits.at(0).id.as_int64() == 5);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("damaged") != std::string::npos);
}

TEST_CASE("a vector cache file cut short after its rows is damaged, and one with bytes appended too") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  nearest_to(w, "w3");
  const auto file = the_file(w);
  const std::string good = read_bytes(file);
  for (const std::string& bad : {good.substr(0, good.size() - 3), good + std::string(5, '\0')}) {
    write_bytes(file, bad);
    CHECK(status_json(w).find("\"damaged\":true") != std::string::npos);
    vector::detail::forget_loaded_caches();
    auto r = nearest_to(w, "w9");
    CHECK(r.hits.at(0).id.as_int64() == 9);
    CHECK(r.notes.size() == 1);
  }
}
