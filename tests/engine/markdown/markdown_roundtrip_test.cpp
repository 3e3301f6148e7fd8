// Round trips on real Markdown: this repository's docs/*.md and Debian's /usr/share/doc
// Markdown files are imported, one section of each is set and its frontmatter patched; every
// byte outside the edited range stays identical, the other sections keep their ids and hashes,
// and the store verifies clean.
#include <doctest/doctest.h>

#include <filesystem>

#include "engine/markdown/markdown_store.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::markdown;
using omgdb::engine::test::doc;
using omgdb::engine::test::temp_dir;
namespace fs = std::filesystem;

#ifndef OMGDB_SOURCE_DIR
#define OMGDB_SOURCE_DIR "."
#endif

namespace {

std::vector<source_file> corpus() {
  std::vector<source_file> out;
  auto docs = list_sources({std::string(OMGDB_SOURCE_DIR) + "/docs"}, "*.md");
  REQUIRE(docs.ok());
  for (auto& f : *docs) out.push_back({f.file, "docs/" + f.id});
  if (fs::is_directory("/usr/share/doc")) {
    auto deb = list_sources({"/usr/share/doc"}, "*.md");
    if (deb.ok()) {
      std::size_t n = 0;
      for (auto& f : *deb) {
        if (n++ >= 300) break;
        out.push_back({f.file, "debian/" + f.id});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const source_file& a, const source_file& b) { return a.id < b.id; });
  return out;
}

std::string text_of(store& s, const std::string& id) {
  auto d = s.get("md", value(id));
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  return find_field(**d, "text")->as_string();
}

}  // namespace

TEST_CASE("setting a section and patching frontmatter of real Markdown leaves every other byte identical") {
  temp_dir d;
  REQUIRE(store::create(d.sub("store")).ok());
  auto s = store::open(d.sub("store"));
  REQUIRE(s.ok());
  const auto files = corpus();
  REQUIRE(files.size() >= 10);
  auto report = import_files(**s, "md", files);
  REQUIRE(report.ok());
  MESSAGE("imported " << report->inserted << " of " << files.size() << " files, skipped " << report->skipped.size());
  CHECK(report->inserted + report->skipped.size() == files.size());
  CHECK(report->skipped.size() * 10 <= files.size());
  for (const auto& k : report->skipped) MESSAGE("skipped " << k.file << ": " << k.reason);

  std::size_t edited = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    if (i > 0 && files[i - 1].id == f.id) continue;  // skipped: the same `_id` as the one before
    auto stored = (*s)->get("md", value(f.id));
    REQUIRE(stored.ok());
    if (!stored->has_value()) continue;  // skipped at import
    const std::string before = text_of(**s, f.id);
    auto secs = parse_sections(before);
    REQUIRE(secs.ok());
    const section target = (*secs)[secs->size() / 2];
    const std::string body = "Replaced by the round-trip test.\n\n";
    auto r = store_set_section(**s, "md", value(f.id), target.id, body);
    REQUIRE_MESSAGE(r.ok(), f.id << ": " << (r.ok() ? "" : r.error().message));
    const std::string after = text_of(**s, f.id);
    INFO(f.id << " section " << target.id);
    CHECK(after.compare(0, target.body_start, before, 0, target.body_start) == 0);
    const std::string_view tail = std::string_view(before).substr(target.body_end);
    REQUIRE(after.size() >= tail.size());
    CHECK(std::string_view(after).substr(after.size() - tail.size()) == tail);
    auto secs_after = parse_sections(after);
    REQUIRE(secs_after.ok());
    REQUIRE(secs_after->size() == secs->size());
    for (std::size_t i = 0; i < secs->size(); ++i) {
      CHECK((*secs_after)[i].id == (*secs)[i].id);
      if ((*secs)[i].id != target.id) CHECK((*secs_after)[i].hash == (*secs)[i].hash);
    }

    const frontmatter_block fm = find_frontmatter(after);
    const std::string body_bytes = after.substr(fm.present ? fm.end : 0);
    auto p = store_patch_frontmatter(**s, "md", value(f.id), doc(R"({"roundTrip": {"checked": true}})"), {});
    REQUIRE_MESSAGE(p.ok(), f.id << ": " << (p.ok() ? "" : p.error().message));
    const std::string patched = text_of(**s, f.id);
    const frontmatter_block fm2 = find_frontmatter(patched);
    REQUIRE(fm2.present);
    CHECK(patched.substr(fm2.end) == body_bytes);
    ++edited;
  }
  CHECK(edited == report->inserted);
  auto v = (*s)->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}
