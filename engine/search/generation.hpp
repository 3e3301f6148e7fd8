// omgdb search — one generation: a SQLite file holding
//   fts(f0, f1, …)  FTS5, tokenizer `omgdb <language>`, rank = bm25 with the field weights
//   docmap(rowid, idkey UNIQUE, id, hash)   idkey: keystring of `_id`; id: BSON {_id}; hash:
//                                           content_hash of idkey + the indexed text
//   state(k, v)     appliedSeq (built through this op-log seq, in the same transaction as the
//                   rows), definitionVersion, definitionSeq, language, snapshotSeq, rows and
//                   contentHash at the snapshot, createdMillis, verifiedMillis
// Every page carries a checksum, written and checked by the VFS of page_check.hpp; a file
// found damaged is marked and never opened again (docs/decisions.md "Derived data proves
// itself").
// Not thread-safe: the index's mutex serializes every use (index.cpp).
#pragma once

#include <sqlite3.h>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "engine/search/definition.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::search {

class generation {
 public:
  // A new file at `file` (which must not exist), for `d`, tuned for bulk loading.
  static result<std::unique_ptr<generation>> create(const std::filesystem::path& file, const definition& d);
  // An existing file; corrupt or foreign files are a `corrupt` failure. Before it is served,
  // every page's checksum is checked (one sequential read of the file: the per-open cost in
  // docs/search.md); a file marked damaged, one whose pages fail, and one without page
  // checksums (an older omgdb's: `old_format` is set) are refused, and a failing one is marked.
  static result<std::unique_ptr<generation>> open(const std::filesystem::path& file, bool* old_format = nullptr);
  ~generation();
  generation(const generation&) = delete;
  generation& operator=(const generation&) = delete;

  status begin();
  status commit();
  void rollback() noexcept;
  // Inserts or replaces the row of `_id` (skipped when its text is unchanged). The definition
  // must be the file's. Returns the bytes of text indexed.
  result<std::size_t> upsert(const std::string& idkey, const value& id, const document& doc, const definition& d);
  // Adds the row of an `_id` the file does not hold yet (a build: no lookup first). Returns
  // the bytes of text indexed; `hash` receives the row hash.
  result<std::size_t> insert_new(const std::string& idkey, const value& id, const document& doc, const definition& d,
                                 std::uint64_t& hash);
  status remove(const std::string& idkey);
  status clear();

  std::optional<std::int64_t> state_int(const std::string& key) const;
  status set_state(const std::string& key, std::int64_t v);
  std::uint64_t applied_seq() const { return static_cast<std::uint64_t>(state_int("appliedSeq").value_or(0)); }
  std::uint64_t definition_version() const {
    return static_cast<std::uint64_t>(state_int("definitionVersion").value_or(0));
  }
  std::string language() const;

  result<std::uint64_t> rows() const;
  // The sum (mod 2^64) of the rows' hashes.
  result<std::uint64_t> content_hash() const;
  // FTS5's integrity-check and SQLite's quick_check (every page read is checksum-checked); a
  // `corrupt` failure names what failed, and the file is marked damaged.
  status integrity() const;

  // verify's row check, O(rows), reading every row: each row of the row map must name the
  // `_id` its BSON holds (idkey is that _id's keystring), and its hash must be the hash of
  // that key and of the text the full-text table holds for the row; the full-text table holds
  // no other rows. With `next_document` (documents in key order, nullopt at the end), the rows
  // must also be exactly the documents, hash for hash. `why` names the first difference (and
  // its `_id`); the caller marks the file. Polls the call's cancellation.
  struct expected_row {
    std::string idkey;
    std::uint64_t hash = 0;
    value id;
  };
  struct row_report {
    bool ok = true;
    std::uint64_t rows = 0;
    std::string why;
  };
  using document_source = std::function<result<std::optional<expected_row>>()>;
  result<row_report> check_rows(const document_source* next_document) const;

  // Whether the file is as this handle last left it: not marked damaged, and the same file
  // (device, inode), size and modification time as after this handle's own last write or its
  // open. One stat(2): what a search checks before reusing an open handle (index.cpp); a
  // change made by anything else means the file is opened (and checked) again.
  bool unchanged_on_disk() const;
  // Merges the FTS5 segments (after a build: faster queries).
  status optimize();
  // Leaves bulk mode: a rollback journal and normal syncing, so later catch-ups are atomic.
  status finish_build();

  // A read-only connection to this file for one search's ranking (run.cpp), so that the
  // ranking runs without the index's mutex: a long ranking does not make every other search
  // of the index wait. Its reads are page-checked by the same VFS; it may outlive this handle
  // (an unlinked file stays readable through it). Waits for a writer's commit at most
  // `busy_ms`.
  result<std::shared_ptr<sqlite3>> reader(int busy_ms) const;

  sqlite3* db() const noexcept { return db_; }
  const std::filesystem::path& file() const noexcept { return file_; }
  std::size_t columns() const noexcept { return columns_; }

  // The row hash of one document's index entry.
  static std::uint64_t row_hash(const std::string& idkey, const document& doc, const definition& d, std::string* text_out = nullptr);

 private:
  generation(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}
  status exec(const std::string& sql) const;
  void seal() const;               // after this handle's own write: records the file's state
  void record_file_state() const;  // on open: records it without touching the file
  result<sqlite3_stmt*> prepare(const char* sql);
  status prepare_all();
  result<std::size_t> write_row(const std::string& idkey, const value& id, const document& doc, const definition& d,
                                bool lookup, std::uint64_t* hash_out);

  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
  std::size_t columns_ = 0;
  sqlite3_stmt* find_ = nullptr;
  sqlite3_stmt* ins_map_ = nullptr;
  sqlite3_stmt* upd_map_ = nullptr;
  sqlite3_stmt* del_map_ = nullptr;
  sqlite3_stmt* ins_fts_ = nullptr;
  sqlite3_stmt* del_fts_ = nullptr;
  bool in_txn_ = false;
  mutable struct stat sealed_ {};
};

// A SQLite error as a failure naming the generation file. Corruption (SQLite's, or a page
// failing its checksum) is a `corrupt` failure that marks the file damaged and says that the
// next search rebuilds the index.
failure sqlite_error(sqlite3* db, const std::filesystem::path& file, std::string_view what);

}  // namespace omgdb::engine::search
