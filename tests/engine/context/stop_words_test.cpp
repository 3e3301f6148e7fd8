// Context packs rank by what a question is about, not by how it is phrased: the English stop
// words of a query ("how", "do", "i", …) are not BM25 terms and are dropped from the query a
// covering search index is asked (engine/context/stop_words.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "engine/context/context_pack.hpp"
#include "engine/markdown/markdown_store.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::context;
using omgdb::engine::test::temp_dir;

namespace {

// An express-like README and two contribution guides, as the issue met them.
void write_corpus(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "express.md")
      << "# Express\n\nFast, unopinionated, minimalist web framework for Node.js.\n\n"
         "## Installation\n\nThis is a Node.js module available through the npm registry. "
         "Before installing, download and install Node.js.\n\n```console\n$ npm install express\n```\n\n"
         "## Features\n\n* Robust routing\n* Focus on high performance\n* HTTP helpers\n\n"
         "## Quick Start\n\nThe quickest way to get started with express is to utilize the executable "
         "express(1) to generate an application.\n\n## Philosophy\n\nThe Express philosophy is to provide "
         "small, robust tooling for HTTP servers.\n";
  std::ofstream(dir / "contributing.md")
      << "# Contributing\n\n## How to Contribute\n\nHow do I help? If you do not know how, ask: I do answer. "
         "How you do it is up to you; what I ask is that you do it in the open.\n\n"
         "## Code of Conduct\n\nBe kind.\n";
  std::ofstream(dir / "docs-contributing.md")
      << "# Documentation\n\n## How to Contribute\n\nHow do I fix a typo? Do open a pull request: I do review "
         "them, and how quickly I do depends on how busy I am.\n";
}

}  // namespace

TEST_CASE("a question's phrasing words do not outrank what it asks about in BM25") {
  auto bm = make_bm25();
  const std::vector<std::string_view> chunks{
      "## How to Contribute\n\nHow do I help? If you do not know how, ask: I do answer.",
      "## Installation\n\nThis is a Node.js module. Installation is done with npm install express.",
      "## Features\n\nExpress has robust routing.", "## Philosophy\n\nThe Express philosophy is small tooling."};
  const auto s = bm->score(chunks, "How do I install express?");
  CHECK(s[1] > s[0]);
  CHECK(s[1] > s[2]);
  CHECK(s[0] == 0.0);  // "how", "do", "i" alone score nothing
  // A query of stop words alone still ranks by them (better than no ranking at all).
  const auto only = bm->score(chunks, "how do I");
  CHECK(only[0] > 0.0);
}

TEST_CASE("a context pack answers how to install express from its Installation section") {
  temp_dir d;
  write_corpus(d.path() / "src");
  REQUIRE(store::create(d.sub("s")).ok());
  auto st = store::open(d.sub("s"));
  REQUIRE(st.ok());
  auto files = markdown::list_sources({(d.path() / "src").string()}, "*.md");
  REQUIRE(files.ok());
  REQUIRE(markdown::import_files(**st, "c", *files).ok());
  auto bm = make_bm25();
  for (const char* q : {"How do I install express?", "how can I install Express", "What do I do to install express?"}) {
    pack_request r{"c", "text", q, 120, {}};
    auto p = context_pack(**st, r, *estimate_counter(), *bm);
    REQUIRE(p.ok());
    REQUIRE_FALSE(p->citations.empty());
    // The first citation is express.md's and quotes its Installation section (with the
    // adjacent introduction merged in); no contribution guide comes before it.
    CHECK_MESSAGE(p->citations.front().id.as_string() == "express.md", q);
    const auto first_end = p->text.find("\n\n[2] ");
    CHECK_MESSAGE(p->text.substr(0, first_end).find("## Installation") != std::string::npos, q);
    CHECK_MESSAGE(p->text.substr(0, first_end).find("How to Contribute") == std::string::npos, q);
  }
}

TEST_CASE("a plain query loses its stop words for a search index; the query syntax and stop-word-only queries are kept") {
  CHECK(without_stop_words("How do I install express?") == "install express?");
  CHECK(without_stop_words("  what's the  difference between ^1.2 and ~1.2  ") == "difference between ^1.2 ~1.2");
  CHECK(without_stop_words("why is my build not reproducible") == "build not reproducible");
  // Operators, phrases, fields and prefixes give words a role: the query is the user's.
  CHECK(without_stop_words("how AND install") == "how AND install");
  CHECK(without_stop_words("\"how to\" install") == "\"how to\" install");
  CHECK(without_stop_words("title:how install*") == "title:how install*");
  CHECK(without_stop_words("how do I") == "how do I");  // nothing else to search for
  CHECK(without_stop_words("") == "");
  CHECK(is_stop_word("how"));
  CHECK(is_stop_word("s"));  // of "it's"
  CHECK_FALSE(is_stop_word("not"));
  CHECK_FALSE(is_stop_word("install"));
}
