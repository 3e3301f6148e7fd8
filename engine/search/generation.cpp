// omgdb search — a generation's SQLite file (generation.hpp).
#include "engine/search/generation.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

#include "common/call_budget.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "engine/search/page_check.hpp"
#include "engine/search/tokenizer.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;

namespace {

bool same_file_state(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

constexpr std::string_view k_repair = "; it is no longer served: the next search rebuilds the index (rebuild_search_index rebuilds it now)";

failure damaged_error(const fs::path& file, const std::string& why) {
  return make_error("search generation `" + file.string() + "` is damaged (" + why + ")" + std::string(k_repair),
                    failure_kind::corrupt);
}

}  // namespace

failure sqlite_error(sqlite3* db, const fs::path& file, std::string_view what) {
  const int rc = db != nullptr ? sqlite3_errcode(db) : SQLITE_ERROR;
  const int ext = db != nullptr ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || ext == SQLITE_IOERR_DATA) {
    // The VFS marked a page that failed its checksum already (and keeps that first reason).
    mark_damaged(file, std::string(what) + " failed: " + sqlite3_errmsg(db));
    return damaged_error(file, damage_of(file).value_or(std::string(what) + " failed: " + sqlite3_errmsg(db)));
  }
  return make_error("search generation `" + file.string() + "`: " + std::string(what) + " failed: " +
                        (db != nullptr ? sqlite3_errmsg(db) : "cannot open"),
                    failure_kind::io);
}

namespace {

sqlite3* open_db(const fs::path& file, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, checked_vfs()) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  sqlite3_extended_result_codes(db, 0);
  return db;
}

}  // namespace

generation::~generation() {
  if (in_txn_) rollback();
  for (auto* st : {find_, ins_map_, upd_map_, del_map_, ins_fts_, del_fts_}) sqlite3_finalize(st);
  sqlite3_close_v2(db_);
}

status generation::exec(const std::string& sql) const {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (!in_txn_) seal();
  if (rc != SQLITE_OK) {
    sqlite3_free(err);
    return sqlite_error(db_, file_, "a statement");
  }
  return {};
}

void generation::seal() const {
  struct stat now {};
  if (::stat(file_.c_str(), &now) != 0) {
    sealed_ = {};
    return;
  }
  if (same_file_state(now, sealed_)) return;  // nothing written since the last seal
  // Our own write: set the modification time one second back, to a time no later write can
  // be stamped with, so that any write by anything else (even within the file system's
  // timestamp granularity) changes it. Best effort: when it cannot be set, the real time is
  // recorded.
  const timespec times[2] = {{0, UTIME_OMIT}, {now.st_mtim.tv_sec - 1, now.st_mtim.tv_nsec}};
  if (::utimensat(AT_FDCWD, file_.c_str(), times, 0) != 0 || ::stat(file_.c_str(), &now) != 0) {
    (void)::stat(file_.c_str(), &now);
  }
  sealed_ = now;
}

void generation::record_file_state() const {
  if (::stat(file_.c_str(), &sealed_) != 0) sealed_ = {};
}

bool generation::unchanged_on_disk() const {
  if (damage_of(file_)) return false;
  struct stat now {};
  if (::stat(file_.c_str(), &now) != 0) return false;
  return same_file_state(now, sealed_);
}

result<sqlite3_stmt*> generation::prepare(const char* sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) != SQLITE_OK) {
    return sqlite_error(db_, file_, "reading the schema");
  }
  return st;
}

status generation::prepare_all() {
  OMGDB_TRY(cols, [&]() -> result<std::size_t> {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT * FROM fts LIMIT 0", -1, &st, nullptr) != SQLITE_OK) {
      return make_error("search generation `" + file_.string() + "` is not a generation (" + sqlite3_errmsg(db_) + ")",
                        failure_kind::corrupt);
    }
    const int n = sqlite3_column_count(st);
    sqlite3_finalize(st);
    return static_cast<std::size_t>(n);
  }());
  columns_ = cols;
  std::string ins = "INSERT INTO fts(rowid";
  std::string vals = "VALUES(?1";
  for (std::size_t i = 0; i < columns_; ++i) {
    ins += ", f" + std::to_string(i);
    vals += ", ?" + std::to_string(i + 2);
  }
  const std::string ins_sql = ins + ") " + vals + ")";
  OMGDB_TRY(a, prepare("SELECT rowid, hash FROM docmap WHERE idkey = ?1"));
  find_ = a;
  OMGDB_TRY(b, prepare("INSERT INTO docmap(idkey, id, hash) VALUES(?1, ?2, ?3)"));
  ins_map_ = b;
  OMGDB_TRY(c, prepare("UPDATE docmap SET hash = ?2 WHERE rowid = ?1"));
  upd_map_ = c;
  OMGDB_TRY(d, prepare("DELETE FROM docmap WHERE rowid = ?1"));
  del_map_ = d;
  OMGDB_TRY(e, prepare(ins_sql.c_str()));
  ins_fts_ = e;
  OMGDB_TRY(f, prepare("DELETE FROM fts WHERE rowid = ?1"));
  del_fts_ = f;
  return {};
}

result<std::unique_ptr<generation>> generation::create(const fs::path& file, const definition& d) {
  sqlite3* db = open_db(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (db == nullptr) return make_error("cannot create search generation `" + file.string() + "`", failure_kind::io);
  std::unique_ptr<generation> g(new generation(db, file));
  // Room for every page's checksum (page_check.hpp), set before the first page is written.
  int reserve = k_page_reserve;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve) != SQLITE_OK) {
    return make_error("cannot reserve page checksums in search generation `" + file.string() + "`", failure_kind::io);
  }
  OMGDB_CHECK(register_tokenizer(db));
  OMGDB_CHECK(g->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-32768;"));
  std::string cols, weights;
  for (std::size_t i = 0; i < d.fields.size(); ++i) {
    cols += (i ? ", f" : "f") + std::to_string(i);
    weights += (i ? ", " : "") + std::to_string(d.fields[i].weight);
  }
  OMGDB_CHECK(g->exec("CREATE VIRTUAL TABLE fts USING fts5(" + cols + ", tokenize='omgdb " + d.language + "');"
                      "CREATE TABLE docmap(rowid INTEGER PRIMARY KEY, idkey BLOB NOT NULL UNIQUE, id BLOB NOT NULL, hash INTEGER NOT NULL);"
                      "CREATE TABLE state(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
                      "INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(" + weights + ")');"
                      "INSERT INTO state VALUES('language', '" + d.language + "');"));
  OMGDB_CHECK(g->set_state("definitionVersion", static_cast<std::int64_t>(d.version)));
  OMGDB_CHECK(g->set_state("definitionSeq", static_cast<std::int64_t>(d.seq)));
  OMGDB_CHECK(g->prepare_all());
  return g;
}

result<std::unique_ptr<generation>> generation::open(const fs::path& file, bool* old_format) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return make_error("search generation `" + file.string() + "` is missing", failure_kind::not_found);
  if (auto why = damage_of(file)) return damaged_error(file, *why);
  sqlite3* db = open_db(file, SQLITE_OPEN_READWRITE);
  if (db == nullptr) return make_error("cannot open search generation `" + file.string() + "`", failure_kind::corrupt);
  std::unique_ptr<generation> g(new generation(db, file));
  g->record_file_state();
  OMGDB_CHECK(register_tokenizer(db));
  // A page that failed its checksum on the way is named (the VFS marked the file).
  auto refused = [&](std::string message) {
    if (auto why = damage_of(file)) return damaged_error(file, *why);
    return make_error(std::move(message), failure_kind::corrupt);
  };
  if (auto st = g->exec("PRAGMA synchronous=NORMAL;"); !st) return refused(st.error().message);
  if (auto st = g->prepare_all(); !st) return refused(st.error().message);
  if (!g->state_int("appliedSeq")) return refused("search generation `" + file.string() + "` has no recorded boundary");
  // Only now, after SQLite has read the schema (and rolled back a hot journal a crash left),
  // is the file as SQLite will serve it: check every page.
  OMGDB_TRY(pages, check_pages(file));
  if (!pages.ok) {
    if (pages.old_format) {
      if (old_format != nullptr) *old_format = true;
      return make_error("search generation `" + file.string() + "`: " + pages.why + "; the next search rebuilds the index",
                        failure_kind::corrupt);
    }
    mark_damaged(file, pages.why);
    return damaged_error(file, pages.why);
  }
  g->record_file_state();  // not seal(): opening writes nothing, not even a timestamp
  return g;
}

result<std::shared_ptr<sqlite3>> generation::reader(int busy_ms) const {
  sqlite3* db = open_db(file_, SQLITE_OPEN_READONLY);
  if (db == nullptr) return make_error("cannot open search generation `" + file_.string() + "`", failure_kind::io);
  std::shared_ptr<sqlite3> out(db, [](sqlite3* d) { sqlite3_close_v2(d); });
  OMGDB_CHECK(register_tokenizer(db));
  sqlite3_busy_timeout(db, busy_ms < 1 ? 1 : busy_ms);
  return out;
}

status generation::begin() {
  OMGDB_CHECK(exec("BEGIN IMMEDIATE"));
  in_txn_ = true;
  return {};
}

status generation::commit() {
  OMGDB_CHECK(exec("COMMIT"));
  in_txn_ = false;
  seal();
  return {};
}

void generation::rollback() noexcept {
  sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  in_txn_ = false;
  seal();
}

std::uint64_t generation::row_hash(const std::string& idkey, const document& doc, const definition& d, std::string* text_out) {
  std::string text = idkey;
  for (const auto& f : d.fields) {
    text.push_back('\x1f');
    text += field_text(doc, f.path);
  }
  const std::uint64_t h = detail::content_hash(text);
  if (text_out != nullptr) *text_out = std::move(text);
  return h;
}

namespace {
struct stmt_reset {
  sqlite3_stmt* st;
  ~stmt_reset() {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
};
void bind_blob(sqlite3_stmt* st, int i, const std::string& s) {
  sqlite3_bind_blob(st, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
}
}  // namespace

result<std::size_t> generation::insert_new(const std::string& idkey, const value& id, const document& doc,
                                           const definition& d, std::uint64_t& hash) {
  return write_row(idkey, id, doc, d, false, &hash);
}

result<std::size_t> generation::upsert(const std::string& idkey, const value& id, const document& doc, const definition& d) {
  return write_row(idkey, id, doc, d, true, nullptr);
}

result<std::size_t> generation::write_row(const std::string& idkey, const value& id, const document& doc,
                                          const definition& d, bool lookup, std::uint64_t* hash_out) {
  std::vector<std::string> texts;
  texts.reserve(d.fields.size());
  std::string all = idkey;
  for (const auto& f : d.fields) {
    texts.push_back(field_text(doc, f.path));
    all.push_back('\x1f');
    all += texts.back();
  }
  const auto h = static_cast<std::int64_t>(detail::content_hash(all));
  if (hash_out != nullptr) *hash_out = static_cast<std::uint64_t>(h);
  std::optional<std::int64_t> rowid;
  if (lookup) {
    stmt_reset r{find_};
    bind_blob(find_, 1, idkey);
    const int rc = sqlite3_step(find_);
    if (rc == SQLITE_ROW) {
      if (sqlite3_column_int64(find_, 1) == h) return std::size_t{0};
      rowid = sqlite3_column_int64(find_, 0);
    } else if (rc != SQLITE_DONE) {
      return sqlite_error(db_, file_, "reading a row");
    }
  }
  if (rowid) {
    stmt_reset r{del_fts_};
    sqlite3_bind_int64(del_fts_, 1, *rowid);
    if (sqlite3_step(del_fts_) != SQLITE_DONE) return sqlite_error(db_, file_, "replacing a row");
    stmt_reset u{upd_map_};
    sqlite3_bind_int64(upd_map_, 1, *rowid);
    sqlite3_bind_int64(upd_map_, 2, h);
    if (sqlite3_step(upd_map_) != SQLITE_DONE) return sqlite_error(db_, file_, "replacing a row");
  } else {
    auto idbson = to_bson(document{{"_id", id}});
    if (!idbson) return std::move(idbson).error();
    stmt_reset r{ins_map_};
    bind_blob(ins_map_, 1, idkey);
    bind_blob(ins_map_, 2, *idbson);
    sqlite3_bind_int64(ins_map_, 3, h);
    if (sqlite3_step(ins_map_) != SQLITE_DONE) return sqlite_error(db_, file_, "adding a row");
    rowid = sqlite3_last_insert_rowid(db_);
  }
  stmt_reset r{ins_fts_};
  sqlite3_bind_int64(ins_fts_, 1, *rowid);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < texts.size() && i < columns_; ++i) {
    sqlite3_bind_text(ins_fts_, static_cast<int>(i + 2), texts[i].data(), static_cast<int>(texts[i].size()), SQLITE_STATIC);
    bytes += texts[i].size();
  }
  if (sqlite3_step(ins_fts_) != SQLITE_DONE) return sqlite_error(db_, file_, "indexing a row");
  return bytes + idkey.size() + 64;
}

status generation::remove(const std::string& idkey) {
  std::int64_t rowid = 0;
  {
    stmt_reset r{find_};
    bind_blob(find_, 1, idkey);
    const int rc = sqlite3_step(find_);
    if (rc == SQLITE_DONE) return {};
    if (rc != SQLITE_ROW) return sqlite_error(db_, file_, "reading a row");
    rowid = sqlite3_column_int64(find_, 0);
  }
  stmt_reset a{del_fts_};
  sqlite3_bind_int64(del_fts_, 1, rowid);
  if (sqlite3_step(del_fts_) != SQLITE_DONE) return sqlite_error(db_, file_, "removing a row");
  stmt_reset b{del_map_};
  sqlite3_bind_int64(del_map_, 1, rowid);
  if (sqlite3_step(del_map_) != SQLITE_DONE) return sqlite_error(db_, file_, "removing a row");
  return {};
}

status generation::clear() { return exec("DELETE FROM fts; DELETE FROM docmap;"); }

std::optional<std::int64_t> generation::state_int(const std::string& key) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT v FROM state WHERE k = ?1", -1, &st, nullptr) != SQLITE_OK) return std::nullopt;
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  std::optional<std::int64_t> out;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) out = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return out;
}

std::string generation::language() const {
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db_, "SELECT v FROM state WHERE k = 'language'", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return out;
}

status generation::set_state(const std::string& key, std::int64_t v) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO state(k, v) VALUES(?1, ?2)", -1, &st, nullptr) != SQLITE_OK) {
    return sqlite_error(db_, file_, "recording state");
  }
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, v);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (!in_txn_) seal();
  if (rc != SQLITE_DONE) return sqlite_error(db_, file_, "recording state");
  return {};
}

result<std::uint64_t> generation::rows() const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM docmap", -1, &st, nullptr) != SQLITE_OK) {
    return sqlite_error(db_, file_, "counting rows");
  }
  std::uint64_t n = 0;
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) n = static_cast<std::uint64_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return sqlite_error(db_, file_, "counting rows");
  return n;
}

result<std::uint64_t> generation::content_hash() const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT hash FROM docmap", -1, &st, nullptr) != SQLITE_OK) {
    return sqlite_error(db_, file_, "hashing rows");
  }
  std::uint64_t sum = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) sum += static_cast<std::uint64_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sqlite_error(db_, file_, "hashing rows");
  return sum;
}

status generation::integrity() const {
  auto fail = [&](const std::string& what) {
    mark_damaged(file_, "it failed its " + what + ": " + sqlite3_errmsg(db_));
    return damaged_error(file_, damage_of(file_).value_or("it failed its " + what + ": " + sqlite3_errmsg(db_)));
  };
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "PRAGMA quick_check", -1, &st, nullptr) != SQLITE_OK) return fail("quick_check");
  const bool ok = sqlite3_step(st) == SQLITE_ROW &&
                  std::strcmp(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok") == 0;
  sqlite3_finalize(st);
  if (!ok) return fail("quick_check");
  if (sqlite3_exec(db_, "INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail("FTS5 integrity-check");
  }
  return {};
}

result<generation::row_report> generation::check_rows(const document_source* next_document) const {
  row_report out;
  auto differ = [&](std::string why) -> result<row_report> {
    out.ok = false;
    out.why = std::move(why);
    return out;
  };
  sqlite3_stmt* st = nullptr;
  struct finalizer {
    sqlite3_stmt*& st;
    ~finalizer() { sqlite3_finalize(st); }
  } fin{st};
  std::uint64_t fts_rows = 0;
  if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM fts", -1, &st, nullptr) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
    return sqlite_error(db_, file_, "counting the full-text rows");
  }
  fts_rows = static_cast<std::uint64_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  st = nullptr;
  const std::string sql =
      "SELECT d.idkey, d.id, d.hash, f.rowid IS NULL, f.* FROM docmap d LEFT JOIN fts f ON f.rowid = d.rowid "
      "ORDER BY d.idkey";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return sqlite_error(db_, file_, "reading the row map");
  const int columns = sqlite3_column_count(st) - 4;
  auto blob = [&](int i) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st, i));
    return std::string(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(st, i)));
  };
  std::optional<expected_row> doc;
  auto next_doc = [&]() -> status {
    doc.reset();
    if (next_document == nullptr) return {};
    OMGDB_TRY(d, (*next_document)());
    doc = std::move(d);
    return {};
  };
  OMGDB_CHECK(next_doc());
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (++out.rows % 256 == 0) OMGDB_CHECK(current_budget().check());
    const std::string idkey = blob(0);
    const std::string idbson = blob(1);
    const auto hash = static_cast<std::uint64_t>(sqlite3_column_int64(st, 2));
    value id;
    if (!bson_get_field(idbson, "_id", id)) return differ("row " + std::to_string(out.rows) + " of the row map has no readable _id");
    const std::string name = to_json(id);
    if (encode_key(id) != idkey) return differ("the row map's row of _id " + name + " is filed under another _id's key");
    if (sqlite3_column_int(st, 3) != 0) return differ("the row map names _id " + name + " but the full-text table has no such row");
    std::string text = idkey;
    for (int i = 0; i < columns; ++i) {
      text.push_back('\x1f');
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 4 + i));
      if (t != nullptr) text.append(t, static_cast<std::size_t>(sqlite3_column_bytes(st, 4 + i)));
    }
    if (detail::content_hash(text) != hash) {
      return differ("the full-text row of _id " + name + " holds other text than the row map records");
    }
    if (next_document == nullptr) continue;
    if (doc && doc->idkey < idkey) return differ("document _id " + to_json(doc->id) + " has no row");
    if (!doc || doc->idkey != idkey) return differ("the row of _id " + name + " has no document");
    if (doc->hash != hash) return differ("the indexed text of _id " + name + " differs from the document's");
    OMGDB_CHECK(next_doc());
  }
  if (rc != SQLITE_DONE) return sqlite_error(db_, file_, "reading the row map");
  if (doc) return differ("document _id " + to_json(doc->id) + " has no row");
  if (fts_rows != out.rows) {
    return differ("the full-text table holds " + std::to_string(fts_rows) + " rows, the row map " + std::to_string(out.rows));
  }
  return out;
}

status generation::optimize() { return exec("INSERT INTO fts(fts) VALUES('optimize')"); }

status generation::finish_build() { return exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;"); }

}  // namespace omgdb::engine::search
