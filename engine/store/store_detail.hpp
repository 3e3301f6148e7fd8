// omgdb engine — store internals shared by the store_*.cpp files. Not a public header.
//
// Key formats (all integers big-endian so that byte order is numeric order):
//   meta   "format_version"        → u32             (store format; see k_format_version)
//          "next_collection_id"    → u32             (next id to hand out; ids are never reused)
//          "oplog_last_seq"        → u64             (seq of the newest op-log record)
//          "oplog_last_batch"      → u64             (batch id of the newest mutating call)
//          "catalog/" + name       → BSON {id: int64} (one entry per collection)
//          "count/" + u32 id       → u64             (document counter of that collection)
//   docs   u32 id + keystring(_id) → BSON document
//   oplog  u64 seq                 → BSON {seq, op, collection, _id?, before?, after? | afterPatch?,
//                                          count?, batch, ts} (afterPatch: see oplog_after)
#pragma once

#include <atomic>
#include <condition_variable>
#include <thread>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>

#include "common/result.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::detail {

inline constexpr std::uint32_t k_format_version = 1;

inline constexpr std::string_view k_meta_format_version = "format_version";
inline constexpr std::string_view k_meta_next_collection = "next_collection_id";
inline constexpr std::string_view k_meta_last_seq = "oplog_last_seq";
inline constexpr std::string_view k_meta_last_batch = "oplog_last_batch";
inline constexpr std::string_view k_meta_catalog_prefix = "catalog/";
inline constexpr std::string_view k_meta_count_prefix = "count/";

inline constexpr std::string_view k_lock_file = "omgdb.lock";
inline constexpr std::size_t k_poll_every = 256;  // documents between scan_control polls

void put_u32(std::string& out, std::uint32_t v);
void put_u64(std::string& out, std::uint64_t v);
// Decode a big-endian integer; nullopt when `bytes` has the wrong length.
std::optional<std::uint32_t> get_u32(std::string_view bytes);
std::optional<std::uint64_t> get_u64(std::string_view bytes);

std::string catalog_key(std::string_view collection);
std::string count_key(std::uint32_t collection_id);
std::string docs_prefix(std::uint32_t collection_id);
std::string doc_key(std::uint32_t collection_id, const value& id);
std::string oplog_key(std::uint64_t seq);

std::string hex(std::string_view bytes);
inline rocksdb::Slice slice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

// `name` in backticks, for messages.
std::string quoted_name(std::string_view name);

// The error for a stored document whose bytes do not decode.
failure corrupt_document(std::string_view collection, std::string_view key, const failure& why);
// The error for a RocksDB failure during `what` (e.g. "read", "write").
failure storage_error(const std::string& path, std::string_view what, const rocksdb::Status& s);

// Collection-name rules of store.hpp; the error says which rule `name` breaks.
status check_collection_name(std::string_view name);

// Polls a scan_control: an error "cancelled" when its flag is set; calls progress.
status poll(const scan_control& control, std::uint64_t done, std::uint64_t total);
// The flag alone (a relaxed load): cheap enough to check for every document.
inline bool cancelled(const scan_control& control) noexcept {
  return control.cancelled != nullptr && control.cancelled->load(std::memory_order_relaxed);
}

struct catalog_entry {
  std::string name;
  std::uint32_t id = 0;
  std::uint64_t documents = 0;
};

// One collection's catalog entry (and, when `counted`, its document counter) as read under a
// snapshot of sequence number `seq`; `exists` false records that there was none
// (store_catalog.cpp).
struct index_def;  // engine/index/index.hpp

// A collection's index definitions as read under a snapshot of sequence number `seq`
// (index_def.cpp).
struct defs_memo_entry {
  std::uint64_t seq = 0;
  std::shared_ptr<const std::vector<index_def>> defs;
};

struct catalog_memo_entry {
  std::uint64_t seq = 0;
  bool exists = false;
  bool counted = false;
  std::uint32_t id = 0;
  std::uint64_t documents = 0;
};

// A released-on-scope-exit RocksDB snapshot. Declare it before any iterator reading through
// it, so the iterator is destroyed first.
class derived_hook;  // write_session.hpp

class snapshot_guard {
 public:
  explicit snapshot_guard(rocksdb::DB* db) : db_(db), snap_(db->GetSnapshot()) {}
  ~snapshot_guard() { db_->ReleaseSnapshot(snap_); }
  snapshot_guard(const snapshot_guard&) = delete;
  snapshot_guard& operator=(const snapshot_guard&) = delete;
  const rocksdb::Snapshot* get() const noexcept { return snap_; }
  rocksdb::ReadOptions read_options() const {
    rocksdb::ReadOptions ro;
    ro.snapshot = snap_;
    return ro;
  }

 private:
  rocksdb::DB* db_;
  const rocksdb::Snapshot* snap_;
};

}  // namespace omgdb::engine::detail

namespace omgdb::engine {

struct store::impl {
  std::string path;  // as the caller spelled it, for messages
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // every open family, destroyed on close
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* docs = nullptr;
  rocksdb::ColumnFamilyHandle* idx = nullptr;
  rocksdb::ColumnFamilyHandle* oplog = nullptr;
  int lock_fd = -1;

  // The writer lock: serializes every mutating call and guards last_seq / last_batch and
  // `derived`. Only detail::write_session takes it (write_session.hpp).
  std::mutex write_lock;
  // The op-log position: the seq of the newest record and the newest batch id. Loaded at
  // open; advanced only by write_session::commit.
  std::uint64_t last_seq = 0;
  std::uint64_t last_batch = 0;
  // The write budget of one call (store_options::max_write_bytes).
  std::atomic<std::uint64_t> max_write_bytes{store_options::k_default_max_write_bytes};
  // Hooks of derived structures, called by every commit that writes op-log records.
  std::vector<std::shared_ptr<detail::derived_hook>> derived;
  // Op-log retention (store_retention.cpp): the newest trimmed seq (loaded at open from meta
  // `oplog_trim`), one trim at a time, and the background trimmer: after `auto_trim_every`
  // bytes of op-log were committed, commit wakes the thread, which trims off the writer's path.
  std::atomic<std::uint64_t> trimmed_through{0};
  std::mutex trim_lock;
  std::atomic<std::uint64_t> auto_trim_every{0};
  std::atomic<std::uint64_t> oplog_since_trim{0};
  std::mutex trim_mu;
  std::condition_variable trim_cv;
  bool trim_stop = false;
  bool trim_wanted = false;
  std::atomic<bool> trim_cancel{false};           // set at close: a running background trim stops
  std::atomic<std::uint64_t> trim_due_bytes{0};   // op-log bytes before the next background trim
  std::thread trim_thread;
  // Commits whose batch exceeds this many bytes flush the memtables before they return, so
  // that no later open replays them from the write-ahead log (store_options).
  std::atomic<std::uint64_t> flush_after_bytes{std::uint64_t{64} << 20};
  // Test-only fault injection of write_session::commit: called with "write" right after the
  // batch is written (as if the write had thrown after landing) and with "after_commit"
  // once the counters moved; a throw at either never turns a committed write into an error.
  std::function<void(std::string_view stage)> fault;

  // lookup()'s answers per collection name, reused by a later lookup under a snapshot of the
  // same sequence number: the same sequence number is the same state of this open database
  // (every write moves it on), so a read never sees a catalog other than its snapshot's.
  mutable std::mutex catalog_memo_mu;
  mutable std::map<std::string, detail::catalog_memo_entry, std::less<>> catalog_memo;
  // read_index_defs()'s answers per collection id, reused the same way (a memo of this open
  // database, not of its identity: a copied store directory has the same identity).
  mutable std::mutex defs_memo_mu;
  mutable std::map<std::uint32_t, detail::defs_memo_entry> defs_memo;

  impl() = default;
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  ~impl();  // closes the database, then releases the lock (store_open.cpp)

  // Catalog (store_catalog.cpp). `ro` selects the snapshot; writers pass default options
  // (latest state) while holding `writer`.
  // `with_count` false skips reading the document count (`documents` is then 0): a point
  // read by `_id` needs only the collection id.
  result<std::optional<detail::catalog_entry>> lookup(const rocksdb::ReadOptions& ro, std::string_view name,
                                                      bool with_count = true) const;
  result<std::vector<detail::catalog_entry>> list(const rocksdb::ReadOptions& ro) const;
  result<std::uint64_t> read_count(const rocksdb::ReadOptions& ro, std::uint32_t id) const;
  result<std::uint32_t> read_next_collection_id(const rocksdb::ReadOptions& ro) const;
  // "collection `x` does not exist" plus a did-you-mean hint when a close name exists.
  failure unknown_collection(std::string_view name) const;

  // Reads and decodes one stored document (store_read.cpp); nullopt when absent.
  result<std::optional<document>> read_document(const rocksdb::ReadOptions& ro,
                                                std::string_view collection,
                                                std::uint32_t id, const value& doc_id) const;
};

}  // namespace omgdb::engine

namespace omgdb::engine::detail {

// One consistent read of a store: a snapshot (released at scope exit; declare it before any
// iterator reading through it) and the catalog as of that snapshot. A call checks its
// collection's name and looks its entry up once, here (store_catalog.cpp).
class read_view {
 public:
  explicit read_view(const store::impl& s) : s_(s), snap_(s.db) {}
  const snapshot_guard& snapshot() const noexcept { return snap_; }
  rocksdb::ReadOptions options() const { return snap_.read_options(); }
  // The collection's entry, or nullopt when it does not exist. Error: a bad name.
  // `with_count` false skips the document counter (a point read needs only the id).
  result<std::optional<catalog_entry>> collection(std::string_view name, bool with_count = true) const;
  // The existing collection, or the unknown-collection error (did-you-mean).
  result<catalog_entry> existing(std::string_view name, bool with_count = true) const;
  // Every collection in name order with its counter, and their sum.
  struct listing {
    std::vector<catalog_entry> collections;
    std::uint64_t documents = 0;
  };
  result<listing> catalog() const;

 private:
  const store::impl& s_;
  snapshot_guard snap_;
};

// Op-log retention internals (store_retention.cpp).
inline constexpr std::string_view k_meta_retention = "oplog_retention";
inline constexpr std::string_view k_meta_trim = "oplog_trim";
// Loads trimmed_through at open.
status load_trim_state(store::impl& s);
// Called by write_session::commit after a committed batch of `bytes`: wakes the background
// trimmer when due. Never blocks on a trim.
void note_committed(store::impl& s, std::uint64_t bytes);
// Stops the background trimmer (before the database closes).
void stop_trimmer(store::impl& s);
// The refusal for an op-log position at or before the trimmed prefix.
failure trimmed_error(const store::impl& s, std::uint64_t seq, std::string_view what);
// verify's replay from the trim checkpoint (store_retention.cpp), used when the op-log was
// trimmed: fills the report's collections and mismatches; `mismatch` records one.
status verify_from_checkpoint(const store::impl& s, const rocksdb::ReadOptions& ro, const scan_control& control,
                              store::verify_report& report, const std::function<void(std::string)>& mismatch);

// The after image of the op-log record `record` (store_oplog.cpp), the one function every
// reader of `after` uses: the record's `after` document, or, when it holds `afterPatch`
// instead (the write session writes that when it is smaller), its `before` with the patch
// applied. `out` is left empty when the record has neither; false when the record is corrupt.
bool oplog_after(std::string_view record, std::string& out);

}  // namespace omgdb::engine::detail

// --- read side (projection, keyset, distinct) ---
#include "engine/bson/bson_codec.hpp"
#include "engine/query/filter.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::detail {

// Visits the candidate documents of one collection under a snapshot (store_read.cpp,
// store_distinct.cpp): the single `_id` match for a point lookup, else every document in
// `_id` order, starting strictly after `start_after` when given (a RocksDB seek, not a scan
// from the start). `visit(document&&)` returns false to stop early. Polls `control`.
class collection_scan {
 public:
  collection_scan(const store::impl& s, const snapshot_guard& snap, std::string_view collection,
                  const catalog_entry& entry, const scan_control& control)
      : s_(s), snap_(snap), collection_(collection), entry_(entry), control_(control) {}

  // Visit only these documents (docs-key suffixes, sorted) instead of the whole collection.
  void restrict_to(const std::vector<std::string>* id_keys) noexcept { only_ = id_keys; }

  template <class Visit>
  status run(const value* point_id, Visit&& visit, const value* start_after = nullptr) {
    auto ro = snap_.read_options();
    if (point_id != nullptr) {
      if (start_after != nullptr && compare(*point_id, *start_after) <= 0) return {};
      auto doc = s_.read_document(ro, collection_, entry_.id, *point_id);
      if (!doc) return std::move(doc).error();
      if (doc->has_value()) visit(std::move(**doc));
      return {};
    }
    return scan_bytes(start_after, [&](std::string_view key, std::string_view bytes) -> std::optional<status> {
      auto doc = from_bson(bytes);
      if (!doc) return status(corrupt_document(collection_, key.substr(4), doc.error()));
      if (!visit(std::move(*doc))) return status();
      return std::nullopt;
    });
  }

  // run(), visiting only the documents `match` accepts. Without a point id the filter is
  // evaluated over the stored bytes (filter::matches_bson) and only matching documents are
  // decoded; with `decode` false not even those (visit then gets an empty document: for
  // counting). Documents the raw matcher cannot judge are decoded and matched as usual.
  // filter::matches may throw expression_error, as with run().
  template <class Visit>
  status run_matching(const filter& match, const value* point_id, Visit&& visit,
                      const value* start_after = nullptr, bool decode = true) {
    if (point_id != nullptr) {
      return run(point_id, [&](document&& doc) { return !match.matches(doc) || visit(std::move(doc)); },
                 start_after);
    }
    return scan_bytes(start_after, [&](std::string_view key, std::string_view bytes) -> std::optional<status> {
      const std::optional<bool> raw = match.matches_bson(bytes);
      if (raw && !*raw) return std::nullopt;
      if (raw && !decode) return visit(document()) ? std::nullopt : std::optional<status>(status());
      auto doc = from_bson(bytes);
      if (!doc) return status(corrupt_document(collection_, key.substr(4), doc.error()));
      if (!raw && !match.matches(*doc)) return std::nullopt;
      if (!visit(std::move(*doc))) return status();
      return std::nullopt;
    });
  }

  // The stored bytes of the documents `match` accepts, without a point id: `visit(key,
  // bytes)` (the whole docs key, slices valid during the call) returns nullopt to go on, or a
  // status to stop with (an ok one: stop early). Documents the raw matcher cannot judge are
  // decoded to be matched. filter::matches may throw expression_error, as with run().
  template <class Visit>
  status run_matching_bytes(const filter& match, const value* start_after, Visit&& visit) {
    return scan_bytes(start_after, [&](std::string_view key, std::string_view bytes) -> std::optional<status> {
      std::optional<bool> ok = match.matches_bson(bytes);
      if (!ok) {
        auto doc = from_bson(bytes);
        if (!doc) return status(corrupt_document(collection_, key.substr(4), doc.error()));
        ok = match.matches(*doc);
      }
      if (!*ok) return std::nullopt;
      return visit(key, bytes);
    });
  }

 private:
  // scan_candidates when restricted to an index's candidates, else scan_all.
  template <class Step>
  status scan_bytes(const value* start_after, Step&& step) {
    return only_ != nullptr ? scan_candidates(start_after, step) : scan_all(start_after, step);
  }

  // The documents an index scan selected (docs-key suffixes in `_id` order), after
  // `start_after` when given, each read by key into a pinned slice; `step` as for scan_all.
  template <class Step>
  status scan_candidates(const value* start_after, Step&& step) {
    const auto ro = snap_.read_options();
    const std::string after = start_after != nullptr ? encode_key(*start_after) : std::string();
    std::string key = docs_prefix(entry_.id);
    const std::size_t prefix_size = key.size();
    rocksdb::PinnableSlice bytes;
    std::uint64_t seen = 0;
    for (const auto& id_key : *only_) {
      if (start_after != nullptr && id_key <= after) continue;
      if (seen % k_poll_every == 0) {
        if (auto p = poll(control_, seen, only_->size()); !p) return p;
      } else if (cancelled(control_)) {
        return make_error("cancelled", failure_kind::cancelled);
      }
      ++seen;
      key.resize(prefix_size);
      key += id_key;
      bytes.Reset();
      auto st = s_.db->Get(ro, s_.docs, key, &bytes);
      if (st.IsNotFound()) continue;
      if (!st.ok()) return storage_error(s_.path, "read", st);
      if (auto done = step(std::string_view(key), bytes.ToStringView())) return std::move(*done);
    }
    return {};
  }

  // Iterates the collection's docs keys in order, after `start_after` when given, calling
  // `step(key, bytes)` on slices of the iterator (no copy); a status from it ends the scan.
  template <class Step>
  status scan_all(const value* start_after, Step&& step) {
    auto ro = snap_.read_options();
    std::string upper = docs_prefix(entry_.id + 1);
    rocksdb::Slice upper_slice(upper);
    ro.iterate_upper_bound = &upper_slice;  // must outlive the iterator
    std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(ro, s_.docs));
    if (start_after != nullptr) {
      const std::string from = doc_key(entry_.id, *start_after);
      it->Seek(from);
      if (it->Valid() && it->key() == rocksdb::Slice(from)) it->Next();
    } else {
      it->Seek(docs_prefix(entry_.id));
    }
    for (std::uint64_t seen = 0; it->Valid(); it->Next()) {
      if (seen % k_poll_every == 0) {
        if (auto p = poll(control_, seen, entry_.documents); !p) return p;
      } else if (cancelled(control_)) {
        return make_error("cancelled", failure_kind::cancelled);  // every document: one may take the regex limit's time
      }
      ++seen;
      const rocksdb::Slice v = it->value();
      if (auto done = step(it->key().ToStringView(), std::string_view(v.data(), v.size()))) return std::move(*done);
    }
    if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
    return {};
  }

  const store::impl& s_;
  const snapshot_guard& snap_;
  std::string_view collection_;
  const catalog_entry& entry_;
  const scan_control& control_;
  const std::vector<std::string>* only_ = nullptr;
};

}  // namespace omgdb::engine::detail
// --- end of read side ---

// --- verify, plan, apply, rollback ---
namespace omgdb::engine::detail {

// meta "plan/" + token      → BSON {collection, filter, update, arrayFilters, matches:
//                              [{_id, fp}], created, applied?: change id}
// meta "change/" + id       → BSON {token, collection, batch, firstSeq, lastSeq, created,
//                              docs: [{_id, before: fp, after: fp}], rolledBack?: {batch, at}}
inline constexpr std::string_view k_meta_plan_prefix = "plan/";
inline constexpr std::string_view k_meta_change_prefix = "change/";

// A 64-bit hash of `bytes` (FNV-1a, then a 64-bit finalizer), stable across builds and
// platforms: fingerprints are persisted. Not cryptographic: it detects change, not forgery.
std::uint64_t content_hash(std::string_view bytes);
// 32 lowercase hex digits from 128 bits of std::random_device.
std::string random_hex128();

// A plan as persisted under meta "plan/" + token (store_plan.cpp).
struct plan_record {
  std::string collection;
  document filter;
  document update;
  array array_filters;
  std::vector<std::pair<value, std::uint64_t>> matches;  // _id, fingerprint; `_id` order
  std::int64_t created_millis = 0;
  std::optional<std::string> applied;  // the change id, once applied
};
result<std::string> encode_plan(const plan_record& p);
// nullopt when there is no such plan.
result<std::optional<plan_record>> read_plan(const store::impl& s, std::string_view token);

// A change as persisted under meta "change/" + id (store_plan_apply.cpp).
struct change_record {
  struct entry {
    value id;
    std::uint64_t before = 0;  // fingerprints
    std::uint64_t after = 0;
  };
  std::string token;
  std::string collection;
  std::uint64_t batch = 0;
  std::uint64_t first_seq = 0;  // its op-log records: [first_seq, last_seq]
  std::uint64_t last_seq = 0;
  std::int64_t created_millis = 0;
  std::vector<entry> docs;  // modified documents, `_id` order
  std::optional<std::int64_t> rolled_back_millis;
  std::uint64_t rolled_back_batch = 0;
};
result<std::string> encode_change(const change_record& c);
result<std::optional<change_record>> read_change(const store::impl& s, std::string_view id);

// One stored document met by plan_scan.
struct plan_doc {
  std::string key;    // docs key
  std::string bytes;  // stored BSON
  document doc;
};
// Visits the documents of `c` in `_id` order at the latest state (the caller holds the
// writer mutex), polling `control`. `visit` returns false to stop.
status plan_scan(const store::impl& s, const catalog_entry& c, const scan_control& control,
                 const std::function<result<bool>(plan_doc&)>& visit);
// "document with _id 5" style naming for messages.
std::string id_list(const std::vector<value>& ids, std::size_t max_named = 20);

}  // namespace omgdb::engine::detail
// --- end of verify, plan, apply, rollback ---

// --- cursors and validation ---
// Meta keys: "cursor/" + token → BSON cursor state (store_cursor.cpp);
//            "rules/" + u32 collection id → BSON validation spec (store_validate.cpp).
namespace omgdb::engine::detail {

inline constexpr std::string_view k_meta_rules_prefix = "rules/";
std::string rules_key(std::uint32_t collection_id);

// The write-path hook: refuses `doc`, about to be written to collection `c`, when it breaks
// the collection's validation rules ("document _id 5 breaks the validation rules of `users`:
// field `age` must be at least 0 (minimum), got -3"). Reads the latest state (the caller holds
// store::impl::writer); compiled rules are cached by their bytes. No rules: ok.
status check_rules(const store::impl& s, const catalog_entry& c, const document& doc);

}  // namespace omgdb::engine::detail
// --- end of cursors and validation ---

namespace omgdb::engine::detail {

// The implementation of a public store, for the engine's own tests and hooks.
struct store_access {
  static store::impl& of(store& s) noexcept { return *s.impl_; }
};

}  // namespace omgdb::engine::detail

#include "engine/store/write_session.hpp"
