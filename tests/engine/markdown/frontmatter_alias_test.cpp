// Issue 29 item 5: YAML aliases in frontmatter ("billion laughs") are bounded as they expand,
// nesting is bounded, and a frontmatter closed by `...` gets the rules of one closed by `---`.
#include <doctest/doctest.h>

#include "engine/markdown/markdown_store.hpp"
#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::markdown;
using omgdb::engine::budget_test::cpu_seconds;
using omgdb::engine::budget_test::installed_budget;
using omgdb::engine::budget_test::peak_growth_mib;
using omgdb::engine::test::doc;
using omgdb::engine::test::temp_dir;

namespace {

// Six levels of ten aliases each: 10^6 strings once expanded, four times the bound (nine
// levels, 10^9, took 4 GiB before the bound; six keep a run of the old code survivable).
std::string laughs() {
  std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'f'; ++c) {
    const char p = static_cast<char>(c - 1);
    y += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) y += std::string(i ? "," : "") + "*" + p;
    y += "]\n";
  }
  return y;
}

}  // namespace

TEST_CASE("billion laughs in frontmatter stop at the bound, fast and small") {
  result<document> r = document{};
  double cpu = 0;
  const double mib = peak_growth_mib([&] { cpu = cpu_seconds([&] { r = parse_frontmatter(laughs()); }); });
  REQUIRE(!r.ok());
  CAPTURE(r.error().message);
  CHECK(r.error().kind == failure_kind::limit_exceeded);
  CHECK(r.error().message.find("aliases counted") != std::string::npos);
  CHECK(cpu < 1.0);
  CHECK(mib < 128);
}

TEST_CASE("aliases that expand within the bounds still read as their values") {
  auto r = parse_frontmatter("base: &b {x: 1, y: [a, b]}\ncopy: *b\nname: &n hello\nagain: *n\n");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(to_json(value(*r)) ==
        R"({"base":{"x":1,"y":["a","b"]},"copy":{"x":1,"y":["a","b"]},"name":"hello","again":"hello"})");
}

TEST_CASE("an alias reads as its anchor's typed value, and as its text when it is a key") {
  auto r = parse_frontmatter("a: &n 7\nb: *n\nx: &k name\n*k : 3\n&t 12: twelve\nc: *t\n");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(to_json(value(*r)) == R"({"a":7,"b":7,"x":"name","name":3,"12":"twelve","c":12})");
}

TEST_CASE("what aliases expand to is charged to the call's budget") {
  installed_budget call(1 << 20);
  std::string y = "a: &a [" + std::string(2000, 'x') + "]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [";
  for (int i = 0; i < 200; ++i) y += std::string(i ? "," : "") + "*b";
  y += "]\n";
  auto r = parse_frontmatter(y);
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::limit_exceeded);
}

TEST_CASE("deeply nested frontmatter is an error, not a crash") {
  const std::string deep = "a: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  auto r = parse_frontmatter(deep);
  REQUIRE(!r.ok());
  const std::string block = [] {
    std::string y;
    for (int i = 0; i < 100; ++i) y += std::string(static_cast<std::size_t>(2 * i), ' ') + "k:\n";
    return y;
  }();
  CHECK(!parse_frontmatter(block).ok());
  CHECK(parse_frontmatter("x: " + std::string(200000, '1') + ".5e\n").ok());  // a long scalar: no regex recursion
}

TEST_CASE("a frontmatter closed by `...` is bounded like one closed by `---` in both edits") {
  temp_dir d;
  REQUIRE(store::create(d.sub("store")).ok());
  auto s = store::open(d.sub("store"));
  REQUIRE(s.ok());
  // A document stored without frontmatter parse (as a forged insert could): its `...` block
  // holds the laughs.
  document forged = doc(R"({"_id": "n.md", "title": "n", "_sections": [], "_markdown": {"version": 1}})");
  forged.push_back({"text", value("---\n" + laughs() + "...\n# A\nbody\n")});
  REQUIRE((*s)->insert("notes", std::move(forged)).ok());
  auto p = store_patch_frontmatter(**s, "notes", value("n.md"), doc(R"({"x": 1})"), {});
  REQUIRE(!p.ok());
  CHECK(p.error().kind == failure_kind::limit_exceeded);
  auto e = store_set_section(**s, "notes", value("n.md"), "a", "new\n");
  REQUIRE(!e.ok());
  CHECK(e.error().kind == failure_kind::limit_exceeded);
}

TEST_CASE("setting section \"\" cannot open a frontmatter block, whichever line closes it") {
  for (const char* close : {"---", "..."}) {
    CAPTURE(close);
    const std::string body = std::string("---\n") + "a: 1\n" + close + "\ntext\n";
    auto r = set_section("# A\nbody\n", "", body);
    REQUIRE(!r.ok());
  }
  auto dots = set_section("# A\nbody\n", "", "---\nlaughs: &a [1]\n...\n");
  REQUIRE(!dots.ok());
  CHECK(dots.error().message.find("frontmatter") != std::string::npos);
  // A document with frontmatter keeps it when its preamble is set.
  auto kept = set_section("---\nt: 1\n...\npre\n# A\n", "", "new pre\n");
  REQUIRE(kept.ok());
  CHECK(*kept == "---\nt: 1\n...\nnew pre\n# A\n");
}
