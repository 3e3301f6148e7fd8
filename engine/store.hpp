// omgdb engine — one document store: a RocksDB directory holding collections of documents.
//
// Layout (column families): `meta` (format version, catalog of collections, counters),
// `docs` (key: collection id u32 big-endian + keystring(_id); value: BSON document),
// `idx` (secondary indexes, later), `oplog` (key: sequence u64 big-endian; value: BSON record
// {seq, op, collection, _id, before?, after?, batch} written in the same atomic WriteBatch as
// the change it records).
//
// Thread safety: a `store` may be used from many threads at once. Writes to one store are
// serialized by a writer mutex; reads take a RocksDB snapshot and never block writers.
// Durability: every mutating call returns only after its one atomic WriteBatch has been
// written with `sync = true` (it is in the fsynced WAL); a failed call writes nothing.
// Ownership: an open store holds an exclusive lock file (`omgdb.lock`, flock) recording the
// owner's pid and command line, so a second process gets a clear error naming the owner.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/value.hpp"

namespace omgdb::engine {

// Hooks a long operation polls: `cancelled` (checked every few hundred documents; a set flag
// makes the call fail with "cancelled") and `progress(done, total)` (called now and then;
// `total` is 0 when unknown). Both are optional.
struct scan_control {
  const std::atomic<bool>* cancelled = nullptr;
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct collection_info {
  std::string name;
  std::uint64_t documents = 0;
};

struct find_options {
  document filter;                      // empty: every document
  document sort;                        // empty: `_id` ascending
  std::uint64_t skip = 0;
  std::optional<std::uint64_t> limit;   // none or 0: no limit (MongoDB treats 0 as none)
  std::size_t max_bytes = 1 << 20;      // cap on `ndjson`; the page ends at a document boundary
                                        // (a first document larger than the cap is returned
                                        // alone, so paging always advances)
  // --- read side (projection, keyset, distinct) ---
  // Keyset pagination: only documents strictly after (sort key, `_id`) in the query's order.
  // after_id alone pages an `_id`-only sort ({} or {_id: ±1}); any other sort also needs
  // after_sort_key, holding a value for exactly each sort key (the values find_page::
  // last_sort_key reported). after_sort_key without after_id, or with other keys, is an error.
  std::optional<value> after_id;
  std::optional<document> after_sort_key;
  document projection;                  // engine/projection.hpp; {}: whole documents
  // --- end of read side ---
};

struct find_page {
  std::string ndjson;                   // relaxed Extended JSON, one document per line, '\n' after each
  std::uint64_t returned = 0;
  bool truncated = false;               // stopped by max_bytes before the last match
  std::uint64_t next_skip = 0;          // when truncated: the `skip` that continues the result
  // --- read side (projection, keyset, distinct) ---
  bool more = false;                    // more documents match after this page (cut by limit
                                        // or max_bytes)
  // When more: where the next page starts, for find_options::after_id / after_sort_key. The
  // sort values are those the sort used for the last document returned (min/max rule
  // applied; an empty array stands for an empty array at the end of the path); absent for an
  // `_id`-only sort.
  value last_id;
  std::optional<document> last_sort_key;
  // --- end of read side ---
};

struct replace_outcome {
  std::uint64_t matched = 0;
  std::uint64_t modified = 0;
};

class store {
 public:
  // Create an empty store at `path`. Errors: the path exists and is not an empty directory
  // ("`app.omgdb` already exists"), parent directory missing or not writable.
  static status create(const std::string& path);

  // Open an existing store. Errors: no such path ("no store at `app.omgdb`: create one with
  // `omgdb create app.omgdb`"), a directory that is not an omgdb store, a store from a newer
  // format, a store held by another process ("store `app.omgdb` is in use by process 1234
  // (omgdb mcp); stop it or connect through it").
  static result<std::shared_ptr<store>> open(const std::string& path);

  ~store();
  store(const store&) = delete;
  store& operator=(const store&) = delete;

  const std::string& path() const noexcept;

  // Collection names: 1–120 bytes of UTF-8, no NUL, no '$', not starting with "system." or
  // '.', not ending with '.'; a bad name is an error saying which rule it breaks.

  // The document with `_id` equal (by value: 1 == 1.0) to `id`, or nullopt.
  result<std::optional<document>> get(std::string_view collection, const value& id) const;

  // Every cataloged collection in name order with its document count (kept as a counter).
  result<std::vector<collection_info>> collections() const;
  bool has_collection(std::string_view collection) const;

  // Matching documents in sort order; an unknown collection yields an empty page.
  result<find_page> find(std::string_view collection, const find_options& options,
                         const scan_control& control = {}) const;
  result<std::uint64_t> count(std::string_view collection, const document& filter,
                              const scan_control& control = {}) const;

  // Insert one document; `_id` is generated (ObjectId, placed first) when absent. Errors:
  // `_id` is an array/regex/undefined, a field name that starts with '$' or contains '.',
  // a duplicate `_id` ("duplicate _id 5 in collection `users`"). The collection is created
  // (cataloged) on first insert. Returns the `_id`.
  result<value> insert(std::string_view collection, document doc);
  // All or nothing: any bad document or duplicate (also within the batch) fails the call
  // naming the index of the document, and nothing is written. Returns the `_id`s in order.
  result<std::vector<value>> insert_many(std::string_view collection, std::vector<document> docs,
                                         const scan_control& control = {});
  // Replace the document with `_id` == id, keeping `_id` first. `doc` may repeat the same
  // `_id`; a different one is an error ("_id is immutable"). No match: matched = 0.
  result<replace_outcome> replace(std::string_view collection, const value& id, document doc);
  // Delete by `_id`; returns the number deleted (0 or 1).
  result<std::uint64_t> remove(std::string_view collection, const value& id);
  // Catalog an (empty) collection; false when it already existed.
  result<bool> create_collection(std::string_view collection);
  // Drop a collection, its documents and metadata; returns how many documents were removed.
  // An unknown collection is an error with a did-you-mean hint when a close name exists.
  result<std::uint64_t> drop_collection(std::string_view collection);

  // A Markdown manual: collections, counts, sampled field paths with their types, indexes.
  result<std::string> describe() const;

  // Deterministic canonical export: for each collection in name order a header line
  // {"collection":"users","count":N}, then its documents in `_id` order, each as one line of
  // canonical Extended JSON. Byte-identical for the same data whatever the insertion order.
  // `sink` gets one line at a time without the '\n'; returning false stops the dump early.
  status dump(const std::function<bool(std::string_view line)>& sink,
              const scan_control& control = {}) const;

  // Op-log records with seq > `after_seq` in seq order, at most `limit` of them (0: no
  // limit), each as stored: {seq, op, collection, _id?, before?, after?, count?, batch, ts}
  // where op is "insert" | "replace" | "delete" | "create_collection" | "drop_collection",
  // before/after are whole documents, count (drop_collection only) the documents dropped,
  // and batch the id shared by every record of one mutating call. For verify and rollback.
  result<std::vector<document>> oplog(std::uint64_t after_seq = 0, std::size_t limit = 0) const;

  // --- write side (updates, bulk, import) ---
  // Writes by filter (engine/store_update.cpp, store_bulk*.cpp, store_import.cpp). Each call
  // is one atomic WriteBatch (sync = true) holding the documents, counters and op-log records
  // (op "update" with before/after images, "insert", "delete"; one batch id per call); a
  // failed call writes nothing. Filters and updates follow docs/query-language.md and
  // docs/update-language.md; documents are visited in `_id` order.
  struct update_request {
    document filter;                      // {}: every document
    document update;                      // operators only (engine/update.hpp)
    array array_filters;
    // update_one only: when nothing matches, this document with the update applied in
    // inserting mode ($setOnInsert applies) is inserted. Without it there is no upsert.
    std::optional<document> upsert_document;
    // Exceeding a bound is an error that writes nothing and names the bound and its value.
    std::optional<std::uint64_t> max_scanned_documents;  // documents examined; default: none
    std::optional<std::uint64_t> max_mutations;          // documents modified; default: none
  };
  struct update_result {
    std::uint64_t matched = 0;
    std::uint64_t modified = 0;
    std::optional<value> upserted_id;
  };
  struct delete_request {
    document filter;
    std::optional<std::uint64_t> max_scanned_documents;
    std::optional<std::uint64_t> max_mutations;  // documents deleted
  };
  struct find_and_update_result {
    std::optional<document> before;  // nullopt: nothing matched
    std::optional<document> after;   // equal to before when the update changed nothing
  };
  // One step of a bulk_write program (the JSON format is docs/bulk-write.md).
  struct bulk_step {
    enum class kind { insert, insert_many, update_one, update_many, replace, delete_one, delete_many };
    kind op = kind::insert;
    std::string collection;
    std::vector<document> documents;  // insert: one; insert_many: all; replace: the new one
    value id;                         // replace, delete
    update_request update;            // update_one, update_many; delete_many uses its filter
  };
  struct bulk_options {
    std::uint64_t max_operations = 1000;                              // steps in the program
    std::optional<std::uint64_t> max_scanned_documents_per_operation;  // per filter step
    std::optional<std::uint64_t> max_mutations;  // documents inserted + modified + deleted in all
  };
  struct bulk_step_result {
    bulk_step::kind op = bulk_step::kind::insert;
    std::vector<value> inserted_ids;  // insert, insert_many, and an upsert's id
    std::uint64_t matched = 0;
    std::uint64_t modified = 0;
    std::uint64_t deleted = 0;
    std::optional<value> upserted_id;
  };
  struct import_result {
    std::uint64_t imported = 0;  // documents
    std::uint64_t batches = 0;   // committed batches
    std::uint64_t lines = 0;     // lines read, blank ones included
  };

  // The first match in `_id` order. No match and no upsert_document: matched = 0.
  result<update_result> update_one(std::string_view collection, const update_request& request,
                                   const scan_control& control = {});
  // Every match (upsert_document must be absent).
  result<update_result> update_many(std::string_view collection, const update_request& request,
                                    const scan_control& control = {});
  // Returns the number of documents deleted.
  result<std::uint64_t> delete_many(std::string_view collection, const delete_request& request,
                                    const scan_control& control = {});
  // update_one without upsert, returning the first match's images.
  result<find_and_update_result> find_one_and_update(std::string_view collection,
                                                     const update_request& request,
                                                     const scan_control& control = {});
  // Runs the steps in order as one atomic transaction; later steps see earlier writes. An
  // error in step k fails the whole program ("step 3 (update_one on `users`): …") and
  // writes nothing.
  result<std::vector<bulk_step_result>> bulk_write(const std::vector<bulk_step>& steps,
                                                   const bulk_options& options,
                                                   const scan_control& control = {});
  // Parses a bulk_write program (docs/bulk-write.md); `version` must be 1.
  static result<std::vector<bulk_step>> parse_bulk(std::int64_t version, const array& operations);
  // Imports a JSON Lines file (one document per line, blank lines skipped) in atomic batches
  // of `batch_size` documents (0 means 1000). A bad line (JSON, document rules, duplicate
  // _id) fails its whole batch; the error lists the bad lines of that batch by line number
  // and says how many documents and batches were committed before it. Progress reports
  // bytes read of the file's size. A relative `file` is resolved against the working directory.
  result<import_result> import_jsonl(std::string_view collection, const std::string& file,
                                     std::uint64_t batch_size, const scan_control& control = {});
  // --- end of write side ---

  // --- read side (projection, keyset, distinct) ---
  struct distinct_result {
    array values;                       // distinct by value (1 == 1.0), in BSON order
    bool truncated = false;             // more distinct values exist beyond `values`
  };
  // The distinct values at dotted `field` among the documents matching `filter`, MongoDB's
  // way: arrays on the path are traversed, an array at the end contributes its elements
  // (one level), missing fields contribute nothing. The first `max_values` (≥ 1) in BSON order
  // are returned; of equal values (1 and 1.0) the first in `_id` order is kept. Errors: a bad
  // path (empty, empty component, starting with '$'), max_values 0, a bad filter.
  result<distinct_result> distinct(std::string_view collection, std::string_view field,
                                   const document& filter, std::uint64_t max_values,
                                   const scan_control& control = {}) const;
  // --- end of read side ---

  struct impl;

 private:
  explicit store(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

// Open stores shared across threads, one per canonical path, opened on first use and kept
// open until close_all() or destruction. Thread-safe.
class store_registry {
 public:
  store_registry();
  ~store_registry();
  result<std::shared_ptr<store>> open(const std::string& path);
  void close_all();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The closest name to `name` among `candidates` (edit distance ≤ 2, or a case-insensitive
// match), or "" — for did-you-mean hints.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace omgdb::engine
