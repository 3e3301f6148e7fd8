// Issue 29 item 4: a Markdown edit parses before the store's write session, bounded in size,
// in cmark-gfm's quadratic constructs, in memory (the call's budget) and in time (the call's
// flag); the frontmatter's duplicate-key check is linear.
#include <doctest/doctest.h>

#include <chrono>
#include <future>

#include "engine/markdown/markdown_store.hpp"
#include "engine/store/store_detail.hpp"
#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::markdown;
using omgdb::engine::budget_test::cpu_seconds;
using omgdb::engine::budget_test::installed_budget;
using omgdb::engine::test::temp_dir;

namespace {

std::string repeat(std::string_view unit, std::size_t n) {
  std::string out;
  out.reserve(unit.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

std::shared_ptr<store> store_with_note(const temp_dir& d, const std::string& text) {
  REQUIRE(store::create(d.sub("store")).ok());
  auto s = store::open(d.sub("store"));
  REQUIRE(s.ok());
  auto doc = build_document(value("n.md"), text, "n");
  REQUIRE(doc.ok());
  REQUIRE((*s)->insert("notes", std::move(*doc)).ok());
  return *s;
}

}  // namespace

TEST_CASE("a section body of 20,000 `![[]()` is refused at once, naming the bound") {
  const std::string body = repeat("![[]()", 20000);
  result<std::string> r = std::string();
  const double cpu = cpu_seconds([&] { r = set_section("# A\nold\n", "a", body); });
  REQUIRE(!r.ok());
  CAPTURE(r.error().message);
  CHECK(r.error().kind == failure_kind::limit_exceeded);
  CHECK(r.error().message.find("unclosed `[`") != std::string::npos);
  CHECK(cpu < 0.5);
}

TEST_CASE("unclosed `<?` in a long paragraph are refused before the parse") {
  const std::string text = "# A\n" + repeat("a <?", 2000) + repeat("x", 1 << 20) + "\n";
  auto r = parse_sections(text);
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::limit_exceeded);
  CHECK(r.error().message.find("`<?`") != std::string::npos);
  // The same openers spread over short paragraphs are fine.
  CHECK(parse_sections("# A\n" + repeat("a <?\n\n", 2000)).ok());
  // Ordinary link lists are far from the bound.
  CHECK(parse_sections("# Links\n" + repeat("- [name](http://example.com) text\n", 20000)).ok());
}

TEST_CASE("a Markdown parse is charged to the call's budget and stops past it") {
  installed_budget call(1 << 20);
  const std::string text = repeat("*a ", 400000);  // 1.2 MB of dense inlines: ~150 MB of cmark nodes
  auto r = parse_sections(text);
  REQUIRE(!r.ok());
  CAPTURE(r.error().message);
  CHECK(r.error().kind == failure_kind::limit_exceeded);
  CHECK(r.error().message.find("the Markdown parse") != std::string::npos);
  CHECK(call.budget.used() == 0);  // everything the parse held was given back
  CHECK(parse_sections("# fine\ntext\n").ok());
}

TEST_CASE("a cancelled call stops the Markdown parse") {
  installed_budget call(std::uint64_t{1} << 30);
  call.stop = true;
  auto r = parse_sections(repeat("para *graph* with [a](b) link\n\n", 20000));
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::cancelled);
}

TEST_CASE("a heading path of long titles is charged to the call's budget") {
  installed_budget call(std::uint64_t{64} << 20);
  const std::string text = "# " + repeat("t", 100000) + "\n" + repeat("## x\n", 2000);
  auto r = parse_sections(text);
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::limit_exceeded);
}

TEST_CASE("an edit refused by its parse never waits for the store's writer") {
  temp_dir d;
  auto s = store_with_note(d, "# A\nold\n");
  std::future<result<edit_result>> edit;
  {
    // Another writer holds the store's writer lock for as long as it likes.
    detail::write_session other(detail::store_access::of(*s));
    edit = std::async(std::launch::async, [&] {
      return store_set_section(*s, "notes", value("n.md"), "a", repeat("![[]()", 20000));
    });
    const bool answered = edit.wait_for(std::chrono::seconds(3)) == std::future_status::ready;
    CHECK(answered);
  }
  auto r = edit.get();
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::limit_exceeded);
}

TEST_CASE("an edit still writes, and parses outside the writer, when the document is fine") {
  temp_dir d;
  auto s = store_with_note(d, "# A\nold\n## B\nkeep\n");
  auto r = store_set_section(*s, "notes", value("n.md"), "a", "new\n");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->modified);
  auto stored = s->get("notes", value("n.md"));
  REQUIRE(stored.ok());
  CHECK(find_field(**stored, "text")->as_string() == "# A\nnew\n## B\nkeep\n");
}

TEST_CASE("a frontmatter of 150,000 keys is checked for duplicates in linear time") {
  std::string yaml;
  for (int i = 0; i < 150000; ++i) yaml += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  result<document> r = document{};
  const double cpu = cpu_seconds([&] { r = parse_frontmatter(yaml); });
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->size() == 150000);
  CHECK(cpu < 3.0);
  auto dup = parse_frontmatter(yaml + "k7: again\n");
  REQUIRE(!dup.ok());
  CHECK(dup.error().message.find("repeats the key `k7`") != std::string::npos);
}
