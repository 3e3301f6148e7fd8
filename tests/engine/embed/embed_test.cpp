// engine/embed: the word-vector and Model2Vec loaders, the tokenizers, and the registry of
// installed models (lazy loading, the not-installed error).
#include <doctest/doctest.h>

#include <cmath>

#include "engine/embed/loaders.hpp"
#include "tests/engine/embed/model_files.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::embed;

namespace {

std::vector<float> unit(std::vector<float> v) {
  double s = 0;
  for (float x : v) s += x * x;
  for (float& x : v) x = static_cast<float>(x / std::sqrt(s));
  return v;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

model_info info_of(std::string name, std::string format, std::uint32_t dim) {
  model_info i;
  i.name = std::move(name);
  i.format = std::move(format);
  i.dim = dim;
  return i;
}

}  // namespace

TEST_CASE("a text's word-vector embedding is the normalised average of its known words") {
  test::temp_dir dir;
  const auto file = dir.path() / "glove.txt";
  test::write_file(file, "cat 1 0 0\nkitten 0.5 0.5 0\ntable 0 0 2\n");
  auto m = load_word_vectors(file, info_of("w", "word-vectors", 3));
  REQUIRE(m.ok());
  check_close((*m)->embed("Cat, KITTEN! and a dog"), unit({1.5f, 0.5f, 0.0f}));
  check_close((*m)->embed("table"), {0, 0, 1});
  std::vector<float> out(3, 7.0f);
  CHECK_FALSE((*m)->embed("no known word here", out));
  check_close(out, {0, 0, 0});
}

TEST_CASE("a word2vec or fastText header line is read, and a row of the wrong length is refused by line") {
  test::temp_dir dir;
  const auto vec = dir.path() / "a.vec";
  test::write_file(vec, "2 2\nalpha 1 0\nbeta 0 1\n");
  auto detected = detect_model(vec);
  REQUIRE(detected.ok());
  CHECK(detected->format == "word-vectors");
  CHECK(detected->dim == 2);
  auto m = load_word_vectors(vec, info_of("v", "word-vectors", 2));
  REQUIRE(m.ok());
  check_close((*m)->embed("beta"), {0, 1});
  const auto bad = dir.path() / "bad.txt";
  test::write_file(bad, "alpha 1 0\nbeta 0\n");
  auto refused = load_word_vectors(bad, info_of("v", "word-vectors", 2));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("line 2 has fewer than 2 numbers") != std::string::npos);
}

TEST_CASE("WordPiece splits unknown words into the longest known pieces and drops unknown ones") {
  auto t = tokenizer::parse(test::wordpiece_tokenizer({"[PAD]", "[UNK]", "un", "##break", "##able", "cat", ","}));
  REQUIRE(t.ok());
  CHECK(t->kind() == "WordPiece");
  CHECK(t->encode("Unbreakable, CAT zzz") == std::vector<std::uint32_t>{2, 3, 4, 6, 5});
}

TEST_CASE("Unigram picks the most probable segmentation") {
  // "▁hello" alone scores -1; "▁hel" + "lo" scores -3.5; the single pieces are worse still.
  auto t = tokenizer::parse(test::unigram_tokenizer({{"<unk>", 0},
                                                     {"\xE2\x96\x81hello", -1.0},
                                                     {"\xE2\x96\x81hel", -1.5},
                                                     {"lo", -2.0},
                                                     {"\xE2\x96\x81", -4.0},
                                                     {"h", -5.0},
                                                     {"w", -5.0},
                                                     {"orld", -3.0}}));
  REQUIRE(t.ok());
  CHECK(t->kind() == "Unigram");
  CHECK(t->encode("Hello") == std::vector<std::uint32_t>{1});
  CHECK(t->encode("hel lo") == std::vector<std::uint32_t>{2, 4, 3});  // "▁lo": "▁" + "lo" is the only way
  // "▁world": "▁" + "w" + "orld"; nothing unknown is kept.
  CHECK(t->encode("world") == std::vector<std::uint32_t>{4, 6, 7});
}

TEST_CASE("a Model2Vec directory loads and embeds as the mean of its token rows, for F32 and F16 weights") {
  for (const char* dtype : {"F32", "F16"}) {
    CAPTURE(dtype);
    test::temp_dir dir;
    const auto m2v = dir.path() / "m2v";
    test::write_model2vec(m2v,
                          {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 2, 0}, {0.5f, 0.5f, 0, 0}},
                          test::wordpiece_tokenizer({"[PAD]", "[UNK]", "red", "apple", "##s", "green"}), dtype);
    auto detected = detect_model(m2v);
    REQUIRE(detected.ok());
    CHECK(detected->format == "model2vec");
    CHECK(detected->dim == 4);
    auto m = load_model2vec(m2v, info_of("m", "model2vec", 4));
    REQUIRE_MESSAGE(m.ok(), (m ? "" : m.error().message));
    // red(2) apple(3) ##s(4): mean (1,1,2,0)/3, normalised; "blue" is unknown and dropped.
    check_close((*m)->embed("Red apples blue"), unit({1, 1, 2, 0}));
    check_close((*m)->embed("green"), unit({1, 1, 0, 0}));
  }
}

TEST_CASE("a damaged safetensors file is refused with the reason") {
  CHECK(parse_safetensors("abc", "x").error().message.find("shorter than its 8-byte header") != std::string::npos);
  std::string cut = test::safetensors({{1, 2}, {3, 4}});
  cut.resize(cut.size() - 4);
  auto r = parse_safetensors(cut, "x");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("data offsets do not hold 2 × 2 F32") != std::string::npos);
  auto other = parse_safetensors(test::safetensors({{1, 2}}, "F32", "weights"), "x");
  REQUIRE(other.ok());  // the only matrix is taken whatever its name
  CHECK(other->dim == 2);
}

TEST_CASE("a model that is not installed is a not_found error naming it and `omgdb model add`") {
  test::temp_dir dir;
  model_registry reg(dir.path() / "models");
  auto r = reg.open("glove");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == failure_kind::not_found);
  CHECK(r.error().message.find("model `glove` is not installed") != std::string::npos);
  CHECK(r.error().message.find("omgdb model add glove PATH") != std::string::npos);
  CHECK(reg.list()->empty());
}

TEST_CASE("an installed model is listed with its provenance, loaded once, and removable") {
  test::temp_dir dir;
  const auto models = dir.path() / "models";
  const auto src = dir.path() / "w.txt";
  test::write_file(src, "cat 1 0\ndog 0 1\n");
  auto added = install_model(models, "pets", src, std::string(64, 'a'));
  REQUIRE_MESSAGE(added.ok(), (added ? "" : added.error().message));
  auto again = install_model(models, "pets", src, std::string(64, 'a'));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("omgdb model remove pets") != std::string::npos);
  CHECK_FALSE(install_model(models, "../x", src, "").ok());
  model_registry reg(models);
  auto listed = reg.list();
  REQUIRE(listed->size() == 1);
  CHECK(listed->at(0).name == "pets");
  CHECK(listed->at(0).format == "word-vectors");
  CHECK(listed->at(0).dim == 2);
  CHECK(listed->at(0).sha256 == std::string(64, 'a'));
  CHECK(listed->at(0).source.find("w.txt") != std::string::npos);
  auto a = reg.open("pets");
  auto b = reg.open("pets");
  REQUIRE(a.ok());
  CHECK(a->get() == b->get());
  check_close((*a)->embed("dog"), {0, 1});
  REQUIRE(remove_model(models, "pets").ok());
  CHECK(remove_model(models, "pets").error().kind == failure_kind::not_found);
  CHECK(model_registry(models).list()->empty());
}

TEST_CASE("a source that is not a model is refused and leaves nothing installed") {
  test::temp_dir dir;
  const auto models = dir.path() / "models";
  const auto src = dir.path() / "notes.txt";
  test::write_file(src, "hello there\nthis is prose\n");
  auto r = install_model(models, "prose", src, "");
  REQUIRE_FALSE(r.ok());
  CHECK(model_registry(models).list()->empty());
  CHECK_FALSE(std::filesystem::exists(models / "prose"));
  std::filesystem::create_directories(dir.path() / "half");
  CHECK(install_model(models, "half", dir.path() / "half", "").error().message.find("without model.safetensors") !=
        std::string::npos);
}
