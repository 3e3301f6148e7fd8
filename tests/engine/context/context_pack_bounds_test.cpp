// Issue 29 items 6 and 7: context_pack never trusts a stored `_sections` (derived data a
// writer can forge), charges what it builds to the call's budget, and stops when told to.
#include <doctest/doctest.h>

#include "engine/context/context_pack.hpp"
#include "engine/markdown/markdown.hpp"
#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::context;
using omgdb::engine::budget_test::installed_budget;
using omgdb::engine::budget_test::peak_growth_mib;
using omgdb::engine::test::temp_dir;

namespace {

std::shared_ptr<store> open_store(const temp_dir& d) {
  REQUIRE(store::create(d.sub("s")).ok());
  auto s = store::open(d.sub("s"));
  REQUIRE(s.ok());
  return *s;
}

result<pack> run(store& s, const std::string& query, const scan_control& control = {}) {
  pack_request r{"c", "text", query, 2000, {}};
  auto bm = make_bm25();
  return context_pack(s, r, *estimate_counter(), *bm, control);
}

}  // namespace

TEST_CASE("a forged `_sections` with a 50,000-entry heading path is never copied into the pack") {
  temp_dir d;
  auto s = open_store(d);
  std::string text = "# Guide\nintro\n## Install\nRun the frobnicate installer.\n";
  for (int i = 0; i < 100; ++i) text += "\n" + std::string(900, 'x') + " words.\n";
  array path;
  for (int i = 0; i < 50000; ++i) path.emplace_back("level " + std::to_string(i));
  array forged;
  for (int i = 0; i < 1; ++i) {
    forged.emplace_back(document{{"id", value("forged")},
                                 {"path", value(path)},
                                 {"headingStart", value(std::int64_t{0})},
                                 {"bodyStart", value(std::int64_t{0})},
                                 {"bodyEnd", value(static_cast<std::int64_t>(text.size()))}});
  }
  REQUIRE(s->insert("c", document{{"_id", value("g.md")},
                                  {"text", value(text)},
                                  {"_sections", value(std::move(forged))},
                                  {"_markdown", value(document{{"version", value(std::int32_t{1})}})}})
              .ok());
  result<pack> p = pack{};
  const double mib = peak_growth_mib([&] { p = run(*s, "frobnicate installer"); });
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  REQUIRE(!p->citations.empty());
  const citation& c = p->citations.front();
  CHECK(c.section_id == std::optional<std::string>("guide/install"));
  CHECK(c.heading_path == std::vector<std::string>{"Guide", "Install"});
  CHECK(p->text.find("level 1") == std::string::npos);
  CHECK(mib < 64);
}

TEST_CASE("a context pack's candidates and chunks are charged to the call's budget") {
  temp_dir d;
  auto s = open_store(d);
  std::string para;
  for (int i = 0; i < 200; ++i) para += "word" + std::to_string(i % 37) + " frobnicate. ";
  std::vector<document> docs;
  for (int i = 0; i < 400; ++i) {
    std::string text;
    for (int k = 0; k < 4; ++k) text += para + "\n\n";
    docs.push_back(document{{"_id", value(std::int64_t{i})}, {"text", value(text)}});
  }
  REQUIRE(s->insert_many("c", std::move(docs)).ok());
  installed_budget call(1 << 20);
  scan_control control;
  control.budget = &call.budget;
  auto p = run(*s, "frobnicate", control);
  REQUIRE(!p.ok());
  CAPTURE(p.error().message);
  CHECK(p.error().kind == failure_kind::limit_exceeded);
  CHECK(p.error().message.find("context pack") != std::string::npos);
  CHECK(call.budget.used() == 0);
}

TEST_CASE("a cancelled call stops a context pack") {
  temp_dir d;
  auto s = open_store(d);
  REQUIRE(s->insert("c", document{{"_id", value(1)}, {"text", value("frobnicate here")}}).ok());
  installed_budget call(std::uint64_t{64} << 20);
  call.stop = true;
  scan_control control;
  control.budget = &call.budget;
  auto p = run(*s, "frobnicate", control);
  REQUIRE(!p.ok());
  CHECK(p.error().kind == failure_kind::cancelled);
}
