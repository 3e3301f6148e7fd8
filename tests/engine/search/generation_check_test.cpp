// engine/search: a damaged generation is never answered from. Real generation files written
// by the engine, damaged by the test: bytes flipped on disk, `_id`s swapped in the row map
// with a plain sqlite3 connection (as the sqlite3 shell would), rows altered through SQLite
// with valid page checksums. verify reports each one (never `fresh`), and a search rebuilds
// instead of answering from it.
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "engine/index/keystring.hpp"
#include "engine/search/index.hpp"
#include "engine/search/page_check.hpp"
#include "engine/search/search.hpp"
#include "engine/search/tokenizer.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;
namespace es = omgdb::engine::search;

namespace {

constexpr std::string_view k_def = R"({"collection":"pages","name":"text","fields":[{"path":"title","weight":3},"body"]})";

struct indexed_store {
  fresh_store f;
  std::shared_ptr<es::manager> m;
  indexed_store() {
    REQUIRE(f.db->insert_many("pages", docs({R"({"_id":1,"title":"Opening files","body":"open(2) opens the file named by pathname"})",
                                              R"({"_id":2,"title":"Sockets","body":"socket creates an endpoint; bind names it"})",
                                              R"({"_id":3,"title":"Pipes","body":"pipe makes a channel between processes"})",
                                              R"({"_id":4,"title":"Reading","body":"read from a file descriptor; reads bytes"})"}))
                .ok());
    m = es::manager::of(*f.db);
    REQUIRE(m->define(doc(k_def)).ok());
  }
  fs::path file() {
    const auto dir = m->internals().dir("pages", "text");
    return es::manager::impl::gen_file(dir, es::manager::impl::current(dir));
  }
  es::search_result search(std::string q) {
    es::search_request r;
    r.collection = "pages";
    r.index = "text";
    r.query = std::move(q);
    auto out = m->run(r, nullptr);
    REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
    return *out;
  }
  store::verify_cache verified() {
    auto r = f.db->verify();
    REQUIRE(r.ok());
    auto it = std::find_if(r->caches.begin(), r->caches.end(), [](const auto& c) { return c.name == "text"; });
    REQUIRE(it != r->caches.end());
    return *it;
  }
};

std::vector<std::string> ids(const es::search_result& r) {
  std::vector<std::string> out;
  for (const auto& h : r.hits) out.push_back(to_json(h.id));
  return out;
}

std::string notes(const es::search_result& r) {
  std::string out;
  for (const auto& n : r.notes) out += n + "\n";
  return out;
}

// A connection to a generation file: the default VFS (what the sqlite3 shell uses) or, with
// `checked`, omgdb's, so what it writes carries valid page checksums.
struct connection {
  sqlite3* db = nullptr;
  connection(const fs::path& file, bool checked) {
    REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, checked ? es::checked_vfs() : nullptr) == SQLITE_OK);
    REQUIRE(es::register_tokenizer(db).ok());
  }
  ~connection() { sqlite3_close_v2(db); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    INFO(sql << ": " << (err != nullptr ? err : ""));
    sqlite3_free(err);
    REQUIRE(rc == SQLITE_OK);
  }
  // Exchanges the row-map entries (idkey and id; with `hashes`, the hash too) of _ids a and b.
  void swap_ids(std::int64_t a, std::int64_t b, bool hashes) {
    const std::string ka = detail::hex(encode_key(value(a))), kb = detail::hex(encode_key(value(b)));
    exec("CREATE TEMP TABLE t AS SELECT idkey, id, hash FROM docmap WHERE idkey IN (x'" + ka + "', x'" + kb + "')");
    exec("UPDATE docmap SET idkey = x'ff', id = x'00' WHERE idkey = x'" + ka + "'");
    const std::string set_b = std::string("idkey = (SELECT idkey FROM t WHERE idkey = x'") + ka + "'), id = (SELECT id FROM t WHERE idkey = x'" +
                              ka + "')" + (hashes ? ", hash = (SELECT hash FROM t WHERE idkey = x'" + ka + "')" : "");
    const std::string set_a = std::string("idkey = (SELECT idkey FROM t WHERE idkey = x'") + kb + "'), id = (SELECT id FROM t WHERE idkey = x'" +
                              kb + "')" + (hashes ? ", hash = (SELECT hash FROM t WHERE idkey = x'" + kb + "')" : "");
    exec("UPDATE docmap SET " + set_b + " WHERE idkey = x'" + kb + "'");
    exec("UPDATE docmap SET " + set_a + " WHERE idkey = x'ff'");
    exec("DROP TABLE t");
  }
  std::int64_t root_page(const std::string& table) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?1", -1, &st, nullptr) == SQLITE_OK);
    sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const auto page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return page;
  }
};

// Overwrites 16 bytes in the middle of page `page` of `file`, as a failing disk would.
void flip_bytes(const fs::path& file, std::int64_t page) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>((page - 1) * 4096 + 2000));
  const std::string junk(16, '\x5a');
  io.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

std::int64_t root_page(const fs::path& file, const std::string& table) {
  connection c(file, false);
  return c.root_page(table);
}

}  // namespace

TEST_CASE("two _ids swapped in a generation's row map with the sqlite3 shell: verify says corrupt, search never returns the wrong document") {
  indexed_store s;
  CHECK(ids(s.search("socket")) == std::vector<std::string>{"2"});
  const auto before = s.search("socket").generation;
  {
    connection shell(s.file(), false);
    shell.swap_ids(1, 2, false);
  }
  const auto v = s.verified();
  CHECK(v.state == "corrupt");
  CHECK(v.detail.find("fails its checksum") != std::string::npos);
  auto r = s.search("socket");
  CHECK(ids(r) == std::vector<std::string>{"2"});
  CHECK(r.generation > before);
  CHECK(notes(r).find("damaged") != std::string::npos);
  CHECK(s.verified().state == "fresh");
}

TEST_CASE("a search meeting a row map changed with the sqlite3 shell rebuilds before answering, with or without verify first") {
  indexed_store s;
  CHECK(ids(s.search("socket")) == std::vector<std::string>{"2"});
  {
    connection shell(s.file(), false);
    shell.swap_ids(1, 2, true);
  }
  auto r = s.search("socket");  // the open handle sees the file changed: opened, checked, refused
  CHECK(ids(r) == std::vector<std::string>{"2"});
  CHECK(notes(r).find("rebuilt") != std::string::npos);
  {
    connection shell(s.file(), false);
    shell.swap_ids(2, 3, true);
  }
  s.m->internals().states.clear();  // as after a restart: nothing open
  auto again = s.search("pipe");
  CHECK(ids(again) == std::vector<std::string>{"3"});
  CHECK(notes(again).find("rebuilt") != std::string::npos);
}

TEST_CASE("a row map whose _ids were swapped through SQLite with valid page checksums is found by verify's row check") {
  indexed_store s;
  for (bool hashes : {false, true}) {
    {
      connection c(s.file(), true);
      c.swap_ids(1, 2, hashes);
    }
    const auto v = s.verified();
    CHECK(v.state == "corrupt");
    CHECK(v.detail.find("_id ") != std::string::npos);
    // verify marked it: the next search rebuilds instead of answering from it.
    auto r = s.search("socket");
    CHECK(ids(r) == std::vector<std::string>{"2"});
    CHECK(notes(r).find("rebuilt") != std::string::npos);
    CHECK(s.verified().state == "fresh");
  }
}

TEST_CASE("a generation whose indexed text differs from the documents is corrupt in verify, naming the _id") {
  indexed_store s;
  {
    connection c(s.file(), true);
    c.exec("UPDATE fts SET f1 = 'nothing about sockets' WHERE rowid = (SELECT rowid FROM docmap WHERE idkey = x'" +
           detail::hex(encode_key(value(std::int64_t{2}))) + "')");
  }
  auto v = s.verified();
  CHECK(v.state == "corrupt");
  CHECK(v.detail.find("_id 2") != std::string::npos);
  REQUIRE(s.m->rebuild("pages", "text", es::k_min_writer_memory).ok());
  CHECK(s.verified().state == "fresh");
  // The same text in both tables (the row map's hash recomputed), still not the document's.
  const std::string key = detail::hex(encode_key(value(std::int64_t{4})));
  {
    connection c(s.file(), true);
    c.exec("UPDATE fts SET f1 = 'changed' WHERE rowid = (SELECT rowid FROM docmap WHERE idkey = x'" + key + "')");
  }
  {
    // Recompute the row map's hash the way the engine does (content_hash of key, 0x1f, texts).
    connection c(s.file(), true);
    const std::string idkey = encode_key(value(std::int64_t{4}));
    const auto h = detail::content_hash(idkey + "\x1f" + "Reading" + "\x1f" + "changed");
    c.exec("UPDATE docmap SET hash = " + std::to_string(static_cast<std::int64_t>(h)) + " WHERE idkey = x'" + key + "'");
  }
  v = s.verified();
  CHECK(v.state == "corrupt");
  CHECK(v.detail.find("_id 4 differs from the document") != std::string::npos);
}

TEST_CASE("a generation with bytes flipped on disk is never answered from: the search rebuilds and says so") {
  for (const std::string table : {"docmap", "fts_data", "fts_content"}) {
    CAPTURE(table);
    indexed_store s;
    CHECK(ids(s.search("pipe")) == std::vector<std::string>{"3"});
    const auto before = s.search("pipe").generation;
    flip_bytes(s.file(), root_page(s.file(), table));
    auto r = s.search("pipe");
    CHECK(ids(r) == std::vector<std::string>{"3"});
    CHECK(r.generation > before);
    CHECK(notes(r).find("fails its checksum") != std::string::npos);
    CHECK(s.verified().state == "fresh");
  }
}

TEST_CASE("a page changed on disk under an open generation fails the query that reads it and marks the file") {
  indexed_store s;
  const auto file = s.file();
  const auto page = root_page(file, "docmap");
  auto g = es::generation::open(file);
  REQUIRE(g.ok());
  flip_bytes(file, page);
  auto rows = (*g)->content_hash();  // reads every row of the row map's table
  REQUIRE_FALSE(rows.ok());
  CHECK(rows.error().kind == omgdb::failure_kind::corrupt);
  CHECK(rows.error().message.find("page " + std::to_string(page) + " fails its checksum") != std::string::npos);
  CHECK(rows.error().message.find("the next search rebuilds") != std::string::npos);
  CHECK(es::damage_of(file).has_value());
  auto again = es::generation::open(file);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().kind == omgdb::failure_kind::corrupt);
}

TEST_CASE("a generation without page checksums (an older omgdb's) is outdated in verify and rebuilt by the next search") {
  indexed_store s;
  // The same generation as a file written before page checksums: no reserved bytes.
  const auto file = s.file();
  const fs::path old = file.string() + ".old";
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(old.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK);
    REQUIRE(es::register_tokenizer(db).ok());
    const std::string sql =
        "CREATE VIRTUAL TABLE fts USING fts5(f0, f1, tokenize='omgdb english');"
        "CREATE TABLE docmap(rowid INTEGER PRIMARY KEY, idkey BLOB NOT NULL UNIQUE, id BLOB NOT NULL, hash INTEGER NOT NULL);"
        "CREATE TABLE state(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
        "INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(3, 1)');"
        "ATTACH '" + file.string() + "' AS g;"
        "INSERT INTO docmap SELECT * FROM g.docmap; INSERT INTO fts(rowid, f0, f1) SELECT rowid, f0, f1 FROM g.fts;"
        "INSERT INTO state SELECT * FROM g.state; DETACH g;";
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    INFO((err != nullptr ? err : ""));
    sqlite3_free(err);
    sqlite3_close_v2(db);
    REQUIRE(rc == SQLITE_OK);
  }
  fs::rename(old, file);
  s.m->internals().states.clear();
  CHECK(s.verified().state == "outdated");
  auto r = s.search("socket");
  CHECK(ids(r) == std::vector<std::string>{"2"});
  CHECK(notes(r).find("no page checksums") != std::string::npos);
  CHECK(s.verified().state == "fresh");
}

TEST_CASE("generations written by builds and catch-ups of inserts, updates and deletes pass the page check and the row check") {
  fresh_store f;
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> word(0, 2999);
  auto text = [&](int words) {
    std::string s;
    for (int i = 0; i < words; ++i) s += " w" + std::to_string(word(gen));
    return s;
  };
  std::vector<document> batch;
  for (int i = 0; i < 1500; ++i) {
    // Long bodies: overflow pages, and many pages freed when they are deleted or replaced.
    batch.push_back(document{{"_id", value(std::int64_t{i})}, {"title", value(text(3))}, {"body", value(text(i % 7 == 0 ? 900 : 60))}});
  }
  REQUIRE(f.db->insert_many("pages", batch).ok());
  auto m = es::manager::of(*f.db);
  REQUIRE(m->define(doc(k_def)).ok());
  std::int64_t next = 1500;
  std::uniform_int_distribution<std::int64_t> pick(0, 1499);
  for (int round = 0; round < 12; ++round) {
    for (int i = 0; i < 40; ++i) {
      REQUIRE(f.db->remove("pages", value(pick(gen))).ok());
      const value id(pick(gen));
      REQUIRE(f.db->replace("pages", id, document{{"_id", id}, {"title", value(text(2))}, {"body", value(text(400))}}).ok());
      REQUIRE(f.db->insert("pages", document{{"_id", value(next++)}, {"title", value(text(3))}, {"body", value(text(30))}}).ok());
    }
    es::search_request r;
    r.collection = "pages";
    r.index = "text";
    r.query = "w" + std::to_string(word(gen));
    auto out = m->run(r, nullptr);  // catches the generation up
    REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
    CHECK_MESSAGE(out->notes.empty(), (out->notes.empty() ? "" : out->notes.front()));
    const auto dir = m->internals().dir("pages", "text");
    auto pages = es::check_pages(es::manager::impl::gen_file(dir, es::manager::impl::current(dir)));
    REQUIRE(pages.ok());
    CHECK_MESSAGE(pages->ok, pages->why);
    if (round % 4 == 3) {
      auto v = f.db->verify();
      REQUIRE(v.ok());
      REQUIRE(v->caches.size() == 1);
      CHECK_MESSAGE(v->caches[0].state == "fresh", v->caches[0].detail);
      REQUIRE(m->rebuild("pages", "text", es::k_min_writer_memory).ok());
    }
  }
}
