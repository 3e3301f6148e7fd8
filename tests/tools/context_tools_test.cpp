// tools/context_tools: context_pack ranks through a search index that covers its field (the
// index picks the documents, BM25 their chunks) and over every candidate without one.
#include <doctest/doctest.h>

#include "common/json.hpp"
#include "tests/tools/tool_bench.hpp"

using namespace omgdb;
namespace bj = boost::json;

namespace {

// The pack's second text: citations, tokens, ranking and counts.
bj::object pack_meta(test::tool_bench& b, const std::string& args) {
  auto r = b.call("context_pack", args);
  REQUIRE_MESSAGE(!r.is_error, r.texts.at(0));
  REQUIRE(r.texts.size() == 2);
  auto j = json::parse_strict(r.texts[1]);
  REQUIRE(j.ok());
  return j->as_object();
}

void fill(test::tool_bench& b) {
  // 80 notes: 60 mention kiwis (once, or many times for the last ten), 20 do not.
  std::string docs = "[";
  for (int i = 0; i < 80; ++i) {
    std::string text = i < 60 ? "Notes on fruit. The kiwi is brown outside." : "Notes on tools. A hammer drives nails.";
    if (i >= 50 && i < 60) text += " Kiwi kiwi kiwi: the kiwi grows on vines.";
    docs += std::string(i ? "," : "") + R"({"_id":)" + std::to_string(i) + R"(,"body":")" + text + R"("})";
  }
  docs += "]";
  REQUIRE_FALSE(b.call("insert_many", R"({"collection":"notes","documents":)" + docs + "}").is_error);
}

}  // namespace

TEST_CASE("without a search index on the field, context_pack ranks the chunks of every candidate with bm25") {
  test::tool_bench b{"omgdb-context-tools-"};
  fill(b);
  auto meta = pack_meta(b, R"({"collection":"notes","field":"body","query":"kiwi vines","budget":200})");
  CHECK(meta.at("ranking").as_string() == "bm25");
  CHECK(meta.at("candidates").to_number<int>() == 80);
  CHECK_FALSE(meta.contains("rankingNote"));
}

TEST_CASE("a search index covering the field chooses the pack's documents, and bm25 ranks their chunks") {
  test::tool_bench b{"omgdb-context-tools-"};
  fill(b);
  auto def = b.call("define_search_index",
                    R"({"definition":{"collection":"notes","name":"bodies","fields":["body"]}})");
  REQUIRE_MESSAGE(!def.is_error, def.texts.at(0));
  auto meta = pack_meta(b, R"({"collection":"notes","field":"body","query":"kiwi vines","budget":200})");
  const std::string ranking(meta.at("ranking").as_string());
  CHECK(ranking.find("search index `bodies`") != std::string::npos);
  // The index's best 50 of the 60 kiwi notes are the candidates, not all 80 notes.
  CHECK(meta.at("candidates").to_number<int>() == 50);
  // The best chunk is one of the notes that say "vines".
  const auto& first = meta.at("citations").as_array().at(0).as_object();
  const int id = first.at("_id").to_number<int>();
  CHECK(id >= 50);
  CHECK(id < 60);
  // A filter still applies: only the notes below 55.
  auto filtered = pack_meta(b, R"({"collection":"notes","field":"body","query":"kiwi vines","budget":200,
                                    "filter":{"_id":{"$lt":55}}})");
  for (const auto& c : filtered.at("citations").as_array()) CHECK(c.at("_id").to_number<int>() < 55);
  // An index on another field is not used.
  REQUIRE_FALSE(b.call("insert", R"({"collection":"other","document":{"_id":1,"a":"kiwi","b":"kiwi"}})").is_error);
  REQUIRE_FALSE(b.call("define_search_index", R"({"definition":{"collection":"other","name":"as","fields":["a"]}})")
                    .is_error);
  CHECK(pack_meta(b, R"({"collection":"other","field":"b","query":"kiwi"})").at("ranking").as_string() == "bm25");
}

TEST_CASE("with a search index, a question is answered from the section about its subject, not its phrasing") {
  test::tool_bench b{"omgdb-context-tools-"};
  const std::string docs = R"([
    {"_id": "express", "body": "Express is a fast web framework for Node.js. Installation: npm install express. Express routes requests."},
    {"_id": "contributing", "body": "How to Contribute. How do I help? If you do not know how, ask: I do answer. How you do it is up to you."},
    {"_id": "guide", "body": "How to Contribute docs. How do I fix a typo? Do open a pull request: I do review them."}])";
  REQUIRE_FALSE(b.call("insert_many", R"({"collection":"readmes","documents":)" + docs + "}").is_error);
  REQUIRE_FALSE(b.call("define_search_index", R"({"definition":{"collection":"readmes","name":"bodies","fields":["body"]}})")
                    .is_error);
  auto meta = pack_meta(b, R"({"collection":"readmes","field":"body","query":"How do I install express?","budget":200})");
  CHECK(meta.at("ranking").as_string().find("search index `bodies`") != std::string::npos);
  const auto& cites = meta.at("citations").as_array();
  REQUIRE_FALSE(cites.empty());
  CHECK(cites.at(0).at("_id").as_string() == "express");
  CHECK(cites.size() == 1);  // the guides match only "how", "do" and "i"
}
