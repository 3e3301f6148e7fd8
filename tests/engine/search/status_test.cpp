// engine/search/status.cpp: what verify and search_index_status report, and that they only
// read. An index is behind only by op-log records of the collection it covers (vsync's
// `C.__vectors` writes never make it stale); verify leaves the search directory exactly as
// it found it, leftovers included, which the first write removes.
#include <algorithm>
#include <fstream>

#include "engine/search/index.hpp"
#include "engine/search/search.hpp"
#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;
namespace es = omgdb::engine::search;
namespace fs = std::filesystem;

namespace {

const store::verify_cache& search_cache(const store::verify_report& r, std::string_view name) {
  auto it = std::find_if(r.caches.begin(), r.caches.end(), [&](const auto& c) { return c.name == name; });
  REQUIRE(it != r.caches.end());
  return *it;
}

store::verify_report verified(store& s) {
  auto r = s.verify();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

std::string status_json(store& s, std::string_view collection, std::string_view index) {
  auto st = es::manager::of(s)->index_status(collection, index);
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  REQUIRE(st->size() == 1);
  return to_json(value((*st)[0]));
}

bool has(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

// Every file and directory under `root` with its size and modification time.
std::vector<std::string> listing(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string line = fs::relative(e.path(), root).string();
    if (e.is_regular_file()) {
      line += " " + std::to_string(e.file_size()) + " " +
              std::to_string(e.last_write_time().time_since_epoch().count());
    }
    out.push_back(std::move(line));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_text(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

TEST_CASE("after vsync, verify and search_index_status count only the covered collection's records as lag") {
  vector_world w(40, 8);
  w.fill(30);
  auto defined = es::manager::of(*w.db)->define(doc(R"({"collection":"docs","name":"lex","fields":["text","title"]})"));
  REQUIRE(defined.ok());
  REQUIRE(defined->built);
  w.sync("text", "a", 4);  // eight batches: ~40 op-log records of docs.__vectors
  REQUIRE(w.db->insert("other", doc(R"({"_id": 1, "text": "w1"})")).ok());
  const std::string fresh = status_json(*w.db, "docs", "lex");
  CHECK_MESSAGE(has(fresh, R"("lag":0,"lagExact":true)"), fresh);
  auto v = verified(*w.db);
  CHECK(v.ok);
  CHECK_MESSAGE(search_cache(v, "lex").state == "fresh", search_cache(v, "lex").detail);
  // One write to the collection itself: one record behind, whatever else was logged.
  REQUIRE(w.db->insert("docs", doc(R"({"_id": 100, "text": "w3"})")).ok());
  REQUIRE(w.db->insert("other", doc(R"({"_id": 2, "text": "w2"})")).ok());
  w.sync("text");
  const std::string behind = status_json(*w.db, "docs", "lex");
  CHECK_MESSAGE(has(behind, R"("lag":1,"lagExact":true)"), behind);
  auto v2 = verified(*w.db);
  CHECK(search_cache(v2, "lex").state == "behind");
  CHECK(has(search_cache(v2, "lex").detail, "1 op-log records of its collection behind"));
}

TEST_CASE("verify removes and writes nothing in the search directory; the first rebuild removes the leftovers") {
  vector_world w(10, 8);
  w.fill(10);
  REQUIRE(es::manager::of(*w.db)->define(doc(R"({"collection":"docs","name":"lex","fields":["text"]})")).ok());
  const std::string path = w.dir.sub("s.omgdb");
  const fs::path root = fs::path(path) / "search";
  const fs::path index_dir = es::manager::of(*w.db)->internals().dir("docs", "lex");
  w.db.reset();
  // What a crash can leave: a temporary generation, and the directory of a dropped index.
  write_text(index_dir / "gen-000099.sqlite.tmp", "half a build");
  fs::create_directories(root / "docs.dropped");
  write_text(root / "docs.dropped" / "gen-000001.sqlite", "an old generation");
  auto reopened = store::open(path);
  REQUIRE(reopened.ok());
  w.db = *reopened;
  const auto before = listing(root);
  REQUIRE(std::find(before.begin(), before.end(), "docs.dropped") != before.end());
  auto v = verified(*w.db);
  CHECK(v.ok);
  CHECK(listing(root) == before);
  (void)status_json(*w.db, "docs", "lex");
  CHECK(listing(root) == before);
  auto rebuilt = es::manager::of(*w.db)->rebuild("docs", "lex", es::k_default_writer_memory);
  REQUIRE(rebuilt.ok());
  CHECK_FALSE(fs::exists(root / "docs.dropped"));
  CHECK_FALSE(fs::exists(index_dir / "gen-000099.sqlite.tmp"));
}
