// omgdb engine — the one write path: every mutating call is one write_session.
//
// A write_session takes the store's writer lock for its whole life (RAII: the only place in
// the engine that takes it), gathers everything one call writes — documents, counters,
// catalog entries, index entries, op-log records, meta records and what derived structures
// add — into ONE rocksdb::WriteBatch, and commits it with sync = true. commit() is the only
// function in the engine that advances the op-log sequence and the batch id. Nothing reaches
// the database unless commit() succeeds; after the batch is written nothing turns the call
// into an error (see commit). Included by store_detail.hpp; not a public header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/write_batch.h>

#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {

class index_upkeep;  // engine/index/index.hpp

// The WriteBatch of one write, with its byte budget (store_options::max_write_bytes): every
// put, delete and held copy is counted as it is added, and the first one past the budget is
// refused, so a write too large to hold is stopped while it is built, before anything is
// written. Derived structures add their records through it too.
class staged_batch {
 public:
  explicit staged_batch(std::uint64_t budget) : budget_(budget) {}
  // Inline: two of them per document an update writes.
  status put(rocksdb::ColumnFamilyHandle* cf, std::string_view key, std::string_view value) {
    auto st = batch_.Put(cf, rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size()));
    if (!st.ok()) [[unlikely]] return refused(st);
    return within_budget();
  }
  status del(rocksdb::ColumnFamilyHandle* cf, std::string_view key) {
    auto st = batch_.Delete(cf, rocksdb::Slice(key.data(), key.size()));
    if (!st.ok()) [[unlikely]] return refused(st);
    return within_budget();
  }
  status del_range(rocksdb::ColumnFamilyHandle* cf, std::string_view from, std::string_view to);
  // Bytes the write keeps beside the batch until its commit (read-your-writes copies, the
  // records handed to derived hooks), counted against the same budget.
  status hold(std::size_t bytes) {
    held_ += bytes;
    return within_budget();
  }
  void release(std::size_t bytes) noexcept { held_ -= bytes < held_ ? bytes : held_; }
  // The batch's bytes plus the held ones.
  std::uint64_t bytes() const noexcept { return batch_.GetDataSize() + held_; }
  std::uint64_t budget() const noexcept { return budget_; }
  std::uint32_t count() const { return batch_.Count(); }
  // The error for a write past the budget, or ok.
  status check() const { return within_budget(); }
  rocksdb::WriteBatch& raw() noexcept { return batch_; }

 private:
  status within_budget() const {
    if (bytes() > budget_) [[unlikely]] return over_budget();
    return {};
  }
  failure over_budget() const;
  static failure refused(const rocksdb::Status& st);

  rocksdb::WriteBatch batch_;
  std::uint64_t budget_;
  std::uint64_t held_ = 0;
};

// One op-log record of the batch being built, as a derived hook sees it.
struct oplog_entry {
  std::uint64_t seq = 0;
  std::string record;  // the stored BSON (oplog_after reads its after image)
};

// The hook of a derived structure (search generations, vectors): before every commit that
// writes op-log records it sees them, in seq order, and may add its own records to the same
// batch (so derived data is exactly as durable as the change it derives from). An error
// refuses the write: nothing is committed. Registered with add_derived_hook.
class derived_hook {
 public:
  virtual ~derived_hook() = default;
  virtual status stage(const store::impl& s, const std::vector<oplog_entry>& records, staged_batch& batch) = 0;
};

// Registers `hook` on an open store; every later commit calls it (serialized with writes).
void add_derived_hook(store::impl& s, std::shared_ptr<derived_hook> hook);

// Field-name and `_id` rules for documents written by updates, bulk steps and imports (the
// same rules insert applies): no field name starting with '$' or containing '.', at any
// depth; `_id` not an array or regex. Errors name the field.
status check_document_rules(const document& doc);
// Puts `_id` first, generating an ObjectId when absent, and checks the rules above.
result<value> prepare_new_document(document& doc);

// The validation check (check_rules) for the documents of one mutating call. Whether a
// collection has rules is read once per collection: nothing changes them while the writer
// lock is held, so a collection without rules costs no read per document.
class rules_checker {
 public:
  explicit rules_checker(const store::impl& s) : s_(s) {}
  status check(const catalog_entry& c, const document& doc);
  // Whether the collection has validation rules (read once per collection, as check does).
  result<bool> has_rules(const catalog_entry& c);

 private:
  const store::impl& s_;
  std::map<std::uint32_t, bool> has_rules_;
};

// The greatest docs key of the collection at the latest state ("" when it holds none). A
// writer that inserts a key above it knows, without a read, that the key is not stored yet:
// ascending `_id`s (imports, fresh ObjectIds) skip the duplicate-key read.
result<std::string> last_doc_key(const store::impl& s, std::uint32_t collection_id);

// Whether `key` (a docs key of the collection) may be stored at the latest state: false,
// without a read, when it sorts above the collection's last stored key, which is read into
// `last` the first time (then reused). True means: read it to know.
result<bool> may_be_stored(const store::impl& s, std::uint32_t collection_id, const std::string& key,
                           std::optional<std::string>& last);

// A stored document as a write session sees it.
struct session_doc {
  std::string key;    // docs key
  std::string bytes;  // stored BSON
  document doc;
};

// One mutating call. Reads see the database (latest state: the lock keeps everything else
// out) plus this call's own writes; writes go to the staged batch.
class write_session {
 public:
  // Takes the store's writer lock until destruction.
  explicit write_session(store::impl& s, const scan_control& control = {});
  ~write_session();
  write_session(const write_session&) = delete;
  write_session& operator=(const write_session&) = delete;

  // --- collections ---
  // The collection's catalog entry (its name checked once), cataloging it in this batch
  // when `create`; nullptr when it does not exist and !create. Valid for the session.
  result<catalog_entry*> collection(std::string_view name, bool create);
  // The existing collection, or the unknown-collection error (did-you-mean).
  result<catalog_entry*> existing(std::string_view name);
  // Lets this session write `C.__vectors` collections (engine/vector's sync only); every
  // other session is refused them by collection() (docs/vectors.md).
  void allow_vectors() noexcept { vectors_ok_ = true; }
  // Whether this session cataloged `c`.
  bool created(const catalog_entry& c) const { return created_.count(c.id) != 0; }
  // Deletes the collection, its documents, counter, rules and indexes; logs drop_collection.
  status drop(const catalog_entry& c);

  // --- documents ---
  // Visits the documents of `c` in `_id` order (only the one with `_id` == *point when
  // given). `visit` returns true to go on. Polls the scan_control every k_poll_every docs.
  // With `filter` (and no point), an index the planner chooses narrows the scan, as long as
  // this session has not written to the collection yet; the visit order stays `_id` order.
  // With `decode` false the visit gets the stored bytes only (session_doc::doc empty) and
  // decodes them itself, reporting corruption as the scan would (corrupt_document).
  status scan(const catalog_entry& c, const value* point,
              const std::function<result<bool>(session_doc&)>& visit, const document* filter = nullptr,
              bool decode = true);
  // Inserts a new document (prepare_new_document rules; duplicate `_id` is an error).
  result<value> insert(catalog_entry& c, document doc);
  // Writes `next` over `old` (same `_id`) unless its bytes are identical; logs `op` with both
  // images. Returns whether anything was written.
  result<bool> overwrite(const catalog_entry& c, const session_doc& old, const document& next,
                         std::string_view op);
  // overwrite() with the new stored bytes already built (update_raw.hpp) and checked
  // against the document rules; only for a collection that is bare() (no validation rules,
  // no indexes: there is nothing else to check or maintain).
  // `id`: the stored `_id` when the caller has it decoded (else read from old.bytes).
  result<bool> overwrite_bytes(const catalog_entry& c, const session_doc& old, std::string bytes,
                               std::string_view op, const value* id = nullptr);
  // True when `c` has neither validation rules nor indexes.
  result<bool> bare(const catalog_entry& c);
  status remove(catalog_entry& c, const session_doc& old);
  result<std::optional<session_doc>> get(const catalog_entry& c, const value& id);
  // The validation check of this session (rules read once per collection).
  status validate(const catalog_entry& c, const document& doc) { return rules_.check(c, doc); }

  // For a call of one step that never reads its own writes (update_many, delete_many,
  // insert_many): overwrites and removals skip the read-your-writes overlay, and inserts
  // keep only their keys (duplicate `_id`s within the call are still found).
  void no_read_back() noexcept { read_back_ = false; }

  // --- the batch ---
  store::impl& target() noexcept { return s_; }
  staged_batch& batch() noexcept { return batch_; }
  // Appends the op-log record {seq, op, collection, _id?, before?, after? | afterPatch?,
  // count?, batch, change?, undo?, ts} (store_oplog.cpp). `before` / `after` are stored BSON
  // bytes, copied in.
  status log(std::string_view op, std::string_view collection, const value* id = nullptr,
             std::string_view before = {}, std::string_view after = {},
             std::optional<std::uint64_t> count = std::nullopt);
  // Index upkeep of one document write in this batch (index_upkeep.cpp): the old and new
  // versions (nullptr / empty: absent). A unique violation is an error.
  status index(const catalog_entry& c, const document* before, const document* after);
  status index_bytes(const catalog_entry& c, std::string_view before, std::string_view after);
  // Marks every later op-log record with `change` (and `undo: true`) and reserves the batch
  // id even if no record follows (apply, rollback).
  void mark_change(std::string change_id, bool undo);
  std::uint64_t batch_id() const noexcept { return batch_id_; }
  std::uint64_t first_seq() const noexcept { return base_seq_ + 1; }
  std::uint64_t last_seq() const noexcept { return seq_; }  // first_seq() - 1: no records

  std::int64_t now_millis() const noexcept { return now_millis_; }
  std::uint64_t mutations() const noexcept { return mutations_; }

  // Writes the batch (sync = true) and advances the store's op-log sequence and batch id:
  // the one commit of the engine. An error means nothing was written. Once the batch is in
  // the database the call succeeds: a fault after that (an exception, a failed derived
  // notification) is logged to stderr as a warning, never reported. A session commits once.
  status commit();

 private:
  result<std::optional<std::string>> read(const std::string& key);
  // Whether `key` (a docs key of `c`) holds a document, reading the database only when the
  // key is not above the collection's last stored key.
  result<bool> holds(const catalog_entry& c, const std::string& key);
  // Records a write in the read-your-writes overlay, its bytes counted against the budget.
  status remember(std::string key, std::optional<std::string> bytes);
  status stage_derived();
  // After an exception from the write: whether the batch is in the database anyway.
  bool landed() const noexcept;

  store::impl& s_;
  std::unique_lock<std::mutex> lock_;
  scan_control control_;  // a copy: callers may pass a temporary (the default {})
  staged_batch batch_;
  rules_checker rules_;
  std::shared_ptr<index_upkeep> indexes_;
  std::uint64_t base_seq_;
  std::uint64_t seq_;
  std::uint64_t batch_id_;
  bool reserve_batch_ = false;
  std::optional<std::string> change_id_;
  bool undo_ = false;
  std::optional<std::uint32_t> next_collection_id_;
  std::string record_;               // the op-log record being built, reused
  std::vector<oplog_entry> records_;  // kept only when derived hooks are registered
  std::map<std::string, std::optional<std::string>> overlay_;  // key -> bytes; nullopt: deleted
  std::map<std::string, catalog_entry, std::less<>> collections_;
  std::map<std::string, std::uint64_t, std::less<>> base_counts_;  // counts at first touch
  std::set<std::uint32_t> created_;
  std::map<std::uint32_t, std::optional<std::string>> last_keys_;  // may_be_stored's, per collection id
  std::int64_t now_millis_;
  std::uint64_t mutations_ = 0;
  bool read_back_ = true;
  bool committed_ = false;
  bool vectors_ok_ = false;
};

// Bounds of one filter step; exceeding one is an error naming the bound and its value.
struct write_bounds {
  std::optional<std::uint64_t> max_scanned;
  std::string scanned_name = "maxScannedDocuments";
  std::optional<std::uint64_t> max_mutations;  // counted as session.mutations() - mutations_base
  std::string mutations_name = "maxMutations";
  std::uint64_t mutations_base = 0;
};

// The filter-driven writes on a session (store_update.cpp), shared by the single-call tools
// and bulk_write. `images`, when given, receives the first match's before/after images.
result<store::update_result> run_update(write_session& w, std::string_view collection,
                                        const store::update_request& request, bool many,
                                        const write_bounds& bounds,
                                        store::find_and_update_result* images = nullptr);
result<std::uint64_t> run_delete_many(write_session& w, std::string_view collection,
                                      const document& filter, const write_bounds& bounds);
// Replaces `old` by `doc` keeping the stored `_id` (an equal one in `doc` is allowed, a
// different one is "_id is immutable"); logs "replace". Returns whether anything changed.
result<bool> replace_document(write_session& w, const catalog_entry& c, const session_doc& old,
                              const document& doc);

}  // namespace omgdb::engine::detail
