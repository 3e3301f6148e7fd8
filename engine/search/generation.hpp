// omgdb search — one generation: a SQLite file holding
//   fts(f0, f1, …)  FTS5, tokenizer `omgdb <language>`, rank = bm25 with the field weights
//   docmap(rowid, idkey UNIQUE, id, hash)   idkey: keystring of `_id`; id: BSON {_id}; hash:
//                                           content_hash of idkey + the indexed text
//   state(k, v)     appliedSeq (built through this op-log seq, in the same transaction as the
//                   rows), definitionVersion, definitionSeq, language, snapshotSeq, rows and
//                   contentHash at the snapshot, createdMillis, verifiedMillis
// Not thread-safe: the index's mutex serializes every use (index.cpp).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
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
  // An existing file; corrupt or foreign files are a `corrupt` failure.
  static result<std::unique_ptr<generation>> open(const std::filesystem::path& file);
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
  // FTS5's integrity-check and SQLite's quick_check; a `corrupt` failure names what failed.
  status integrity() const;
  // Merges the FTS5 segments (after a build: faster queries).
  status optimize();
  // Leaves bulk mode: a rollback journal and normal syncing, so later catch-ups are atomic.
  status finish_build();

  sqlite3* db() const noexcept { return db_; }
  const std::filesystem::path& file() const noexcept { return file_; }
  std::size_t columns() const noexcept { return columns_; }

  // The row hash of one document's index entry.
  static std::uint64_t row_hash(const std::string& idkey, const document& doc, const definition& d, std::string* text_out = nullptr);

 private:
  generation(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}
  status exec(const std::string& sql) const;
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
};

// A SQLite error as a failure naming the generation file.
failure sqlite_error(sqlite3* db, const std::filesystem::path& file, std::string_view what);

}  // namespace omgdb::engine::search
