// The two Markdown edits on text and on a store: only the targeted bytes change, running them
// twice changes nothing more, bad input is refused with the reason.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/markdown/markdown_store.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::markdown;
using omgdb::engine::test::doc;
using omgdb::engine::test::temp_dir;

namespace {

std::string set(std::string_view text, std::string_view id, std::string_view body) {
  auto r = set_section(text, id, body);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

void write_file(const std::filesystem::path& p, std::string_view text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::shared_ptr<store> open_store(const temp_dir& d) {
  REQUIRE(store::create(d.sub("store")).ok());
  auto s = store::open(d.sub("store"));
  REQUIRE(s.ok());
  return *s;
}

std::string stored_text(store& s, const char* id) {
  auto d = s.get("notes", value(id));
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  return find_field(**d, "text")->as_string();
}

}  // namespace

TEST_CASE("setting a parent section keeps its subsections and every other byte") {
  const std::string text = "# A\nold a\n## B\nold b\n# C\nold c\n";
  const std::string next = set(text, "a", "new a\nmore\n");
  CHECK(next == "# A\nnew a\nmore\n## B\nold b\n# C\nold c\n");
  CHECK(set(next, "a", "new a\nmore\n") == next);  // idempotent
  CHECK(set(text, "a/b", "x\n") == "# A\nold a\n## B\nx\n# C\nold c\n");
  CHECK(set(text, "", "preamble\n") == "preamble\n# A\nold a\n## B\nold b\n# C\nold c\n");
}

TEST_CASE("a body without a final newline gets one when a heading follows") {
  const std::string next = set("# A\nx\n# B\ny\n", "a", "no newline");
  CHECK(next == "# A\nno newline\n# B\ny\n");
  CHECK(set(next, "a", "no newline") == next);
  CHECK(set("# A\n# B\n", "a", "") == "# A\n# B\n");
}

TEST_CASE("an unknown section id is an error listing the nearest ids") {
  auto r = set_section("# Setup\n## Linux\n# Use\n", "setup/linx", "x");
  REQUIRE(!r.ok());
  CHECK(r.error().kind == omgdb::failure_kind::not_found);
  CHECK(r.error().message.find("nearest ids: `setup/linux`") != std::string::npos);
}

TEST_CASE("a body that would add or hide sections is refused") {
  CHECK(!set_section("# A\nx\n# B\n", "a", "## new heading\n").ok());
  auto fence = set_section("# A\nx\n# B\ny\n", "a", "```\nunclosed fence\n");
  REQUIRE(!fence.ok());
  CHECK(fence.error().message.find("change the document's sections") != std::string::npos);
  CHECK(!set_section("# A\nx\n\nB\n===\n", "a", "para").ok());  // "para\nB\n===" would be one heading
}

TEST_CASE("patching frontmatter keeps key order, removes keys and leaves the body byte for byte") {
  const std::string body = "# Title\r\nbody with  trailing spaces  \n\n```\n---\n```\n";
  const std::string text = "---\ntitle: Old\ntags: [a]\ndraft: true\n---\n" + body;
  auto r = patch_frontmatter(text, doc(R"({"title": "New", "extra": {"k": 1}, "tags": null})"), {"draft"});
  REQUIRE(r.ok());
  CHECK(*r == "---\ntitle: New\nextra:\n  k: 1\n---\n" + body);
  auto again = patch_frontmatter(*r, doc(R"({"title": "New", "extra": {"k": 1}, "tags": null})"), {"draft"});
  REQUIRE(again.ok());
  CHECK(*again == *r);
  auto added = patch_frontmatter("# No frontmatter\n", doc(R"({"a": 1})"), {});
  REQUIRE(added.ok());
  CHECK(*added == "---\na: 1\n---\n# No frontmatter\n");
  auto emptied = patch_frontmatter(*added, doc(R"({"a": null})"), {});
  REQUIRE(emptied.ok());
  CHECK(*emptied == "# No frontmatter\n");
}

TEST_CASE("frontmatter values YAML cannot hold are refused, naming the key") {
  auto r = patch_frontmatter("x\n", doc(R"({"id": {"$oid": "0123456789abcdef01234567"}})"), {});
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("`id`") != std::string::npos);
}

TEST_CASE("re-importing writes only the files that changed, and keeps fields users added") {
  temp_dir d;
  write_file(d.path() / "src" / "a.md", "# A\none\n");
  write_file(d.path() / "src" / "sub" / "b.md", "---\ntitle: Bee\n---\n# B\ntwo\n");
  write_file(d.path() / "src" / "skip.txt", "not markdown");
  auto s = open_store(d);
  auto files = list_sources({(d.path() / "src").string()}, "*.md");
  REQUIRE(files.ok());
  REQUIRE(files->size() == 2);
  CHECK((*files)[1].id == "sub/b.md");
  auto first = import_files(*s, "notes", *files);
  REQUIRE(first.ok());
  CHECK(first->inserted == 2);
  auto b = s->get("notes", value("sub/b.md"));
  REQUIRE(b.ok());
  CHECK(find_field(**b, "title")->as_string() == "Bee");
  CHECK(find_field(**b, "_sections") != nullptr);
  CHECK(to_json(*find_field(**b, "frontmatter")) == R"({"title":"Bee"})");

  // A field a user added survives a re-import of a changed file.
  store::update_request add;
  add.filter = doc(R"({"_id": "a.md"})");
  add.update = doc(R"({"$set": {"reviewed": true}})");
  REQUIRE(s->update_one("notes", add).ok());
  const auto seq_before = s->verify()->last_seq;
  auto same = import_files(*s, "notes", *files);
  REQUIRE(same.ok());
  CHECK(same->unchanged == 2);
  CHECK(same->batches == 0);
  CHECK(s->verify()->last_seq == seq_before);  // nothing was written

  write_file(d.path() / "src" / "a.md", "# A\nchanged\n");
  auto again = import_files(*s, "notes", *files);
  REQUIRE(again.ok());
  CHECK(again->updated == 1);
  CHECK(again->unchanged == 1);
  auto a = s->get("notes", value("a.md"));
  REQUIRE(a.ok());
  CHECK(find_field(**a, "reviewed") != nullptr);
  CHECK(find_field(**a, "text")->as_string() == "# A\nchanged\n");
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("the store edits write once, change nothing the second time and refuse other documents") {
  temp_dir d;
  write_file(d.path() / "src" / "n.md", "---\nstatus: draft\n---\n# Plan\nold\n## Step\nkeep\n");
  auto s = open_store(d);
  auto files = list_sources({(d.path() / "src" / "n.md").string()}, "*.md");
  REQUIRE(files.ok());
  REQUIRE(import_files(*s, "notes", *files).ok());

  auto r = store_set_section(*s, "notes", value("n.md"), "plan", "new\n");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->modified);
  const auto seq = s->verify()->last_seq;
  auto twice = store_set_section(*s, "notes", value("n.md"), "plan", "new\n");
  REQUIRE(twice.ok());
  CHECK(!twice->modified);
  CHECK(s->verify()->last_seq == seq);
  CHECK(stored_text(*s, "n.md") == "---\nstatus: draft\n---\n# Plan\nnew\n## Step\nkeep\n");

  auto p = store_patch_frontmatter(*s, "notes", value("n.md"), doc(R"({"status": "done"})"), {});
  REQUIRE(p.ok());
  CHECK(p->modified);
  CHECK(stored_text(*s, "n.md") == "---\nstatus: done\n---\n# Plan\nnew\n## Step\nkeep\n");
  auto stored = s->get("notes", value("n.md"));
  const auto& secs = find_field(**stored, "_sections")->as_array();
  CHECK(secs.size() == 3);
  CHECK(to_json(*find_field(**stored, "frontmatter")) == R"({"status":"done"})");

  REQUIRE(s->insert("notes", doc(R"({"_id": "plain", "text": "# x"})")).ok());
  auto refused = store_set_section(*s, "notes", value("plain"), "x", "y");
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("not imported as Markdown") != std::string::npos);
  CHECK(!store_patch_frontmatter(*s, "notes", value("plain"), doc(R"({"a": 1})"), {}).ok());
  auto missing = store_set_section(*s, "notes", value("nope.md"), "x", "y");
  REQUIRE(!missing.ok());
  CHECK(missing.error().kind == omgdb::failure_kind::not_found);
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}
