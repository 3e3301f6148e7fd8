// omgdb engine — one document store: a RocksDB directory holding collections of documents.
//
// Layout (column families): `meta` (format version, catalog of collections, counters),
// `docs` (key: collection id u32 big-endian + keystring(_id); value: BSON document),
// `idx` (secondary index entries, engine/index/index.hpp), `oplog` (key: sequence u64 big-endian; value: BSON record
// {seq, op, collection, _id, before?, after?, batch} written in the same atomic WriteBatch as
// the change it records).
//
// Thread safety: a `store` may be used from many threads at once. Writes to one store are
// serialized by a writer lock (each mutating call is one write session, write_session.hpp);
// reads take a RocksDB snapshot and never block writers.
// Durability: every mutating call returns only after its one atomic WriteBatch has been
// written with `sync = true` (it is in the fsynced WAL); a failed call writes nothing, and a
// call whose batch was written never reports a failure. A call whose batch would exceed the
// write budget (store_options::max_write_bytes) is refused before anything is written.
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

#include "common/call_budget.hpp"
#include "common/result.hpp"
#include "engine/query/sort.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

namespace detail {
struct store_access;  // store_detail.hpp
}  // namespace detail

// Hooks a long operation polls: `cancelled` (checked every few hundred documents; a set flag
// makes the call fail with "cancelled") and `progress(done, total)` (called now and then;
// `total` is 0 when unknown). Both are optional.
// `budget`: the call's budget (common/call_budget.hpp) — what it may build and its stop flag;
// null: the thread's current budget (current_budget()), which a tool call installs.
struct scan_control {
  const std::atomic<bool>* cancelled = nullptr;
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  call_budget* budget = nullptr;
  call_budget& call() const noexcept { return budget != nullptr ? *budget : current_budget(); }
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
  document projection;                  // engine/query/projection.hpp; {}: whole documents
  // --- end of read side ---
  // The bytes of sort keys an unindexed sort may hold (k_max_sort_bytes; tests lower it). Last,
  // so positional initializers of the fields above stay valid.
  std::size_t max_sort_bytes = k_max_sort_bytes;
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

// Settings of an open store (store::configure).
struct store_options {
  // The write budget: the most bytes one mutating call may hold before its commit — its
  // WriteBatch (documents, index entries, op-log records, counters) plus the copies it keeps
  // to read its own writes. The budget is checked while the batch is built; a call that
  // would go past it is refused ("… more than the write budget …; nothing was written")
  // before anything is written. 1 GiB: an atomic update_many of 1,000,000 documents of
  // ~200 bytes holds ~600 MB (docs/storage.md, "The write budget").
  static constexpr std::uint64_t k_default_max_write_bytes = std::uint64_t{1} << 30;
  std::uint64_t max_write_bytes = k_default_max_write_bytes;  // at least 1 MiB
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
  // Open, then configure(options).
  static result<std::shared_ptr<store>> open(const std::string& path, const store_options& options);

  // Changes the settings of this open store; later calls use them. Error: a budget below
  // 1 MiB.
  status configure(const store_options& options);
  store_options options() const;

  ~store();
  store(const store&) = delete;
  store& operator=(const store&) = delete;

  const std::string& path() const noexcept;

  // Collection names: 1–120 bytes of UTF-8, no NUL, no '$', not starting with "system." or
  // '.', not ending with '.'; a bad name is an error saying which rule it breaks.

  // The document with `_id` equal (by value: 1 == 1.0) to `id`, or nullopt.
  result<std::optional<document>> get(std::string_view collection, const value& id) const;
  // The same document as its relaxed Extended JSON text (to_json), written straight from the
  // stored bytes when they hold only the common types (engine/bson/bson_json.hpp).
  result<std::optional<std::string>> get_json(std::string_view collection, const value& id) const;

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
  // Writes by filter (engine/store/store_update.cpp, store_bulk*.cpp, store_import.cpp). Each call
  // is one atomic WriteBatch (sync = true) holding the documents, counters and op-log records
  // (op "update" with before/after images, "insert", "delete"; one batch id per call); a
  // failed call writes nothing. Filters and updates follow docs/query-language.md and
  // docs/update-language.md; documents are visited in `_id` order.
  struct update_request {
    document filter;                      // {}: every document
    document update;                      // operators only (engine/update/update.hpp)
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
  // Lines before `from_line` (1-based) are read but not imported: resuming an import that
  // stopped ("resume from line N") with from_line N.
  result<import_result> import_jsonl(std::string_view collection, const std::string& file,
                                     std::uint64_t batch_size, const scan_control& control = {},
                                     std::uint64_t from_line = 1);
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

  // --- cursors and validation ---
  // Persisted keyset cursors (store_cursor.cpp, docs/cursors.md). A cursor is the meta key
  // "cursor/<token>" holding the collection, filter, sort, projection, the last (sort key,
  // `_id`) returned and its created / last-used times; never a snapshot of documents. Each
  // batch is a find() that starts strictly after the stored position, so a cursor survives a
  // restart and never returns the same position twice. Cursor state is not data: it is
  // written outside the op-log and not part of dump().
  static constexpr std::int64_t k_cursor_idle_millis = 10 * 60 * 1000;  // idle expiry
  static constexpr std::uint64_t k_cursor_default_batch = 100;
  static constexpr std::uint64_t k_cursor_max_batch = 10000;
  // Open (unexpired) cursors one store holds, and one session (cursor_request::owner) holds
  // in one store; the bytes one cursor's stored state (filter, sort, projection, position)
  // may take. docs/limits.md.
  static constexpr std::size_t k_cursor_max_per_store = 1000;
  static constexpr std::size_t k_cursor_max_per_owner = 64;
  static constexpr std::size_t k_cursor_max_state_bytes = 64 * 1024;
  struct cursor_request {
    document filter;                       // {}: every document
    document sort;                         // {}: `_id` ascending
    document projection;                   // {}: whole documents
    // 1..k_cursor_max_batch; none: k_cursor_default_batch for cursor_open, the size the
    // cursor was opened with for cursor_next
    std::optional<std::uint64_t> batch_size;
    std::size_t max_bytes = 1 << 20;       // a batch may end earlier at this many bytes
    std::optional<std::int64_t> now_millis;  // the clock (tests); default: the system clock
    std::string owner;  // who opens it (an MCP session id), for the per-owner cap; "": not counted
  };
  struct cursor_batch {
    std::string token;                     // 32 lowercase hex digits (128 random bits)
    std::string ndjson;                    // relaxed Extended JSON, one document per line
    std::uint64_t returned = 0;
    bool exhausted = false;                // no more documents: the cursor was removed
  };
  // Opens a cursor and returns its first batch. Errors as find() (bad filter, sort,
  // projection, collection name) and a batch size outside 1..k_cursor_max_batch. An exhausted
  // first batch stores nothing. Also removes cursors idle longer than k_cursor_idle_millis.
  // Refused before anything runs: a state larger than k_cursor_max_state_bytes, a store with
  // k_cursor_max_per_store open cursors, an owner with k_cursor_max_per_owner open cursors.
  result<cursor_batch> cursor_open(std::string_view collection, const cursor_request& request,
                                   const scan_control& control = {});
  // The next batch of the cursor `token` (request.filter / sort / projection are ignored:
  // the cursor's own are used). Errors: an unknown token ("no cursor `…`: …"), a cursor idle
  // for more than k_cursor_idle_millis (removed, "cursor `…` expired: …").
  result<cursor_batch> cursor_next(std::string_view token, const cursor_request& request,
                                   const scan_control& control = {});
  // Removes the cursor; an unknown (or expired) token is an error.
  status cursor_close(std::string_view token, std::optional<std::int64_t> now_millis = {});

  // Validation rules (store_validate.cpp, engine/query/validation.hpp, docs/validation.md). The spec
  // is kept in meta "rules/" + u32 collection id. Every document write (insert, insert_many,
  // replace, updates, bulk_write, import_jsonl) is checked against it before it is written;
  // a violation fails the call, naming the document's `_id`, the field and the rule, and the
  // call writes nothing. Existing documents are not checked when rules are defined.
  struct define_result {
    bool created = false;  // the collection did not exist and was cataloged
    bool removed = false;  // an empty spec {}: the rules were removed
  };
  // Sets (replaces) the rules of `collection`, cataloging it when it does not exist. The
  // change is op-logged as op "define_collection" (before / after: the old / new spec).
  // `unique` entries (a field name, or an array of names) create unique indexes named as
  // create_index names them, built in the same atomic batch; an existing equal index is kept,
  // and an entry left out later does not drop its index (drop_index does). Errors: a bad spec
  // (naming the keyword), a unique index the existing documents violate, a bad collection name.
  result<define_result> define_collection(std::string_view collection, const document& spec);
  // The collection's spec as defined, or nullopt when it has none.
  result<std::optional<document>> collection_rules(std::string_view collection) const;
  struct validate_report {
    struct entry {
      value id;
      std::vector<std::string> reasons;  // at most k_validate_max_reasons
    };
    std::uint64_t checked = 0;           // documents examined
    std::uint64_t violating = 0;         // documents breaking a rule (all of them counted)
    std::vector<entry> documents;        // the first max_documents of them, in `_id` order
  };
  static constexpr std::size_t k_validate_max_reasons = 10;
  // Checks every document of `collection` against its rules under one snapshot. Errors: an
  // unknown collection (did-you-mean), a collection without rules.
  result<validate_report> validate(std::string_view collection, std::size_t max_documents,
                                   const scan_control& control = {}) const;
  // --- end of cursors and validation ---

  // --- verify, plan, apply, rollback ---
  // verify (store_verify.cpp, docs/changes.md): replays the op-log from empty into memory
  // (per collection a map keystring(_id) -> hash of the document's BSON, so memory grows with
  // the number of documents, not with their size) under one snapshot, and compares it with
  // the live documents and the meta counters. Mismatches name the collection and the `_id`;
  // at most verify_report::k_max_mismatches are listed, `more_mismatches` counts the rest.
  struct verify_collection {
    std::string name;
    std::uint64_t documents = 0;         // live documents
    std::uint64_t oplog_documents = 0;   // documents after replaying the op-log
    std::uint64_t counter = 0;           // the meta document counter
    bool hash_matches = false;           // same `_id`s with the same bytes, live and replayed
    bool counter_matches = false;        // counter == live documents
  };
  // A derived, rebuildable cache (a search generation, vectors): reported, never "not ok".
  struct verify_cache {
    std::string kind;        // "search"
    std::string collection, name;
    std::string state;       // fresh | behind | missing | corrupt | definitionMismatch
    std::uint64_t expected = 0;  // documents in the collection
    std::uint64_t indexed = 0;   // rows in the cache
    std::uint64_t built_through = 0;  // op-log seq the cache is built through
    std::string detail;      // what is wrong, and the repair (rebuild_search_index)
  };
  struct verify_report {
    static constexpr std::size_t k_max_mismatches = 100;
    std::vector<verify_cache> caches;  // every search generation (engine/search)
    bool ok = false;
    std::vector<verify_collection> collections;  // cataloged or replayed, in name order
    std::uint64_t oplog_records = 0;
    std::uint64_t last_seq = 0;          // seq of the newest record (0: empty op-log)
    std::uint64_t meta_last_seq = 0;     // what meta records as the newest seq
    std::vector<std::string> mismatches;
    std::uint64_t more_mismatches = 0;
    // 0: replayed from an empty store; else the op-log was trimmed through verified_from - 1
    // and the replay started from the checkpoint recorded at that seq (store_retention.cpp).
    std::uint64_t verified_from = 0;
  };
  result<verify_report> verify(const scan_control& control = {}) const;

  // plan_update (store_plan.cpp) computes an update without writing documents and persists
  // the plan in meta `plan/<token>`: collection, filter, update, arrayFilters, the matched
  // `_id`s with a fingerprint (64-bit hash of the stored BSON) of each, created time. The
  // collection must exist; at most plan_result::k_max_matches documents may match. Errors
  // are those of update_many (filter, update, a document the update fails on).
  struct plan_request {
    document filter;  // the tool requires it; {} means every document
    document update;
    array array_filters;
  };
  struct plan_sample {
    document before;
    document after;
  };
  struct plan_result {
    static constexpr std::uint64_t k_max_matches = 100000;
    static constexpr std::size_t k_sample_size = 3;
    std::string token;                // 32 lowercase hex digits (128 random bits)
    std::uint64_t matched = 0;
    std::uint64_t would_modify = 0;
    std::vector<plan_sample> sample;  // the first matches in `_id` order
  };
  result<plan_result> plan_update(std::string_view collection, const plan_request& request,
                                  const scan_control& control = {});

  // apply (store_plan_apply.cpp) applies a plan exactly once. It re-runs the filter and
  // refuses, writing nothing, when a planned document changed or was deleted or another one
  // now matches, naming the `_id`s. The documents, their op-log records (op "update" with a
  // `change` field), the used plan and the change record (meta `change/<id>`: the `_id`s
  // with before/after fingerprints) are one atomic batch. Unknown or used tokens are errors.
  struct apply_result {
    std::string change_id;            // 32 lowercase hex digits
    std::uint64_t matched = 0;
    std::uint64_t modified = 0;
  };
  result<apply_result> apply(std::string_view token, const scan_control& control = {});

  // rollback restores every document of a change to its before image in one atomic batch
  // (op-log records op "update" with `change` and `undo: true`), refusing, writing nothing,
  // when any of them changed after the apply (naming them). A change is rolled back at most
  // once; an unknown change id is an error.
  struct rollback_result {
    std::string change_id;
    std::uint64_t restored = 0;
  };
  result<rollback_result> rollback(std::string_view change_id, const scan_control& control = {});
  // --- end of verify, plan, apply, rollback ---

  // --- aggregation (store_scan.cpp) ---
  // The decoded documents (exact BSON types: an int64 stays an int64) matching `filter`, in
  // `_id` order, pulled one at a time under one snapshot taken by scan(). The candidates are
  // chosen as find() chooses them: a point lookup when the filter pins `_id`, an index the
  // planner picks, else the whole collection; documents are read and decoded a page (at most
  // 256 documents or 4 MiB of stored bytes) at a time, so memory stays at one page. An unknown
  // collection yields nothing. The stream reads through this store, which must outlive it.
  class document_stream {
   public:
    enum class access { full_scan, id_lookup, index_scan };
    virtual ~document_stream() = default;
    // false at the end. Errors: a document that does not decode, a storage error, "cancelled".
    virtual result<bool> next(document& out) = 0;
    virtual access how() const noexcept = 0;  // how the candidates were chosen
  };
  // `fields`, when given (sorted top-level names), decodes only those fields of each
  // document (from_bson_fields): for a reader that needs no others (the pipeline's
  // source_fields); the filter still sees whole documents.
  // Errors: a bad collection name, a bad filter.
  result<std::unique_ptr<document_stream>> scan(std::string_view collection, const document& filter,
                                                const scan_control& control = {},
                                                const std::vector<std::string>* fields = nullptr) const;

  // `$lookup`'s foreign side through an index (store_lookup.cpp): `_id`, or an index leading
  // with one path (not partial) chosen once when opened, read under one snapshot taken then, and sought
  // once per value of each call — no planning per call.
  class equality_reader {
   public:
    virtual ~equality_reader() = default;
    // Appends to `out` the stored documents (BSON bytes) with an index key equal to one of
    // `values`, each once, in `_id` order: a superset of {path: {$in: values}}'s matches
    // (numbers equal by value share a key; a caller confirms with the filter). false (and
    // nothing appended) when some value has no index point — null (it also matches missing
    // fields), an array, a regex, MinKey / MaxKey: read those another way. Errors: a storage
    // error; more than `max_bytes` of documents for one call.
    virtual result<bool> read(const array& values, std::vector<std::string>& out, std::size_t max_bytes) = 0;
  };
  // nullptr when the collection does not exist or has no such index. `_id` always has one:
  // the documents' own keys (a Get per value; every value has a point there, and an array or
  // a regex, never a stored `_id`, matches nothing). Error: a bad name.
  result<std::unique_ptr<equality_reader>> equality_reader_for(std::string_view collection, std::string_view path) const;
  // --- end of aggregation ---

  // --- indexes and planner (store_index.cpp, index_*.cpp, docs/indexes.md) ---
  struct index_field {
    std::string path;  // dotted
    bool descending = false;
  };
  struct index_spec {
    std::string name;                      // empty: generated from the fields ("a_1_b_-1")
    std::vector<index_field> fields;       // 1..32, distinct paths, not `_id` alone
    bool unique = false;                   // a missing field counts as null
    std::optional<document> partial_filter;  // only documents matching it are indexed
  };
  struct index_info {
    index_spec spec;
    bool multikey = false;  // some document put an array on an indexed path
  };
  struct create_index_result {
    std::string name;
    bool created = false;              // false: the same definition already existed
    bool collection_created = false;
    std::uint64_t documents_indexed = 0;
    std::uint64_t keys = 0;
  };
  // Builds the index over the existing documents and writes its definition and every entry
  // in one atomic batch (a crash mid-build leaves no trace). Reports progress per document.
  // Errors: a bad spec, a name used by a different definition, a unique violation among the
  // existing documents (naming the value), a document with parallel arrays.
  result<create_index_result> create_index(std::string_view collection, index_spec spec,
                                           const scan_control& control = {});
  // The collection's indexes in name order (not `_id_`). Error: an unknown collection
  // (did-you-mean).
  result<std::vector<index_info>> list_indexes(std::string_view collection) const;
  // Removes a definition and its entries atomically. Errors: unknown collection or index.
  status drop_index(std::string_view collection, std::string_view name);

  // The planner (index_plan.cpp) as JSON-ready documents (docs/indexes.md has the shapes).
  // explain and diagnose refuse an unknown collection with a did-you-mean hint.
  result<document> explain(std::string_view collection, const document& filter,
                           const document& sort, const scan_control& control = {}) const;
  result<document> suggest_indexes(std::string_view collection, const document& filter,
                                   const document& sort) const;
  result<document> diagnose(std::string_view collection, const document& filter,
                            const scan_control& control = {}) const;
  // --- end of indexes and planner ---

  // --- a store's life: backup, load, op-log retention, sizes (store_backup.cpp,
  // store_load.cpp, store_retention.cpp, store_sizes.cpp; docs/backup.md) ---
  struct backup_result {
    std::uint32_t backup_id = 0;   // RocksDB BackupEngine id in the backup directory
    std::uint64_t seq = 0;         // the op-log seq the backup is consistent at
    std::uint64_t bytes = 0;       // the backup's size (files shared with older backups included)
    std::uint64_t new_bytes = 0;   // bytes copied by this backup (the incremental part)
    std::uint32_t kept = 0;        // backups in the directory after purging
  };
  // A consistent copy of this store as of one op-log seq, added to the BackupEngine directory
  // `dir` (created when missing; table files shared with earlier backups are not copied
  // again). Writers are never blocked: a RocksDB checkpoint (hard links) is taken, opened to
  // read its seq, and backed up. `keep` > 0: only the newest `keep` backups stay.
  result<backup_result> backup(const std::string& dir, std::uint32_t keep = 0) const;
  // A new store at `path` from the newest backup in `dir` (or backup `id`). An existing
  // `path` is refused unless `force`; then it is renamed aside (`<path>.replaced-<time>`,
  // reported in `moved_aside`) rather than deleted, and must not be in use.
  struct restore_result {
    std::uint32_t backup_id = 0;
    std::uint64_t seq = 0;
    std::string moved_aside;
  };
  static result<restore_result> restore(const std::string& dir, const std::string& path, bool force,
                                        std::optional<std::uint32_t> id = std::nullopt);

  // Reads a dump() text back (store_load.cpp): collections, documents with their exact types
  // and field order, indexes and validation rules, so dump → load → dump is byte-identical.
  // The store must hold no collection. `next_line` yields one line at a time (false: end).
  struct load_result {
    std::uint64_t collections = 0;
    std::uint64_t documents = 0;
    std::uint64_t indexes = 0;
  };
  result<load_result> load(const std::function<result<bool>(std::string& line)>& next_line,
                           const scan_control& control = {});

  // Op-log retention (store_retention.cpp). Records beyond either bound are trimmed: older
  // than max_age_seconds, or outside the newest max_bytes of records. max_bytes 0 means
  // "auto": twice the live data's size (documents + indexes), at least k_retention_floor_bytes.
  struct retention {
    static constexpr std::uint64_t k_retention_floor_bytes = std::uint64_t{64} << 20;
    static constexpr std::uint64_t k_default_max_age_seconds = 30ull * 24 * 3600;
    std::uint64_t max_bytes = 0;
    std::uint64_t max_age_seconds = k_default_max_age_seconds;  // 0: no age bound
  };
  // Persisted in meta `oplog_retention`; later trims use it.
  status set_retention(const retention& r);
  result<retention> retention_setting() const;
  struct trim_result {
    std::uint64_t trimmed_through = 0;  // newest seq no longer kept (0: nothing ever trimmed)
    std::uint64_t records = 0;          // records this trim removed
    std::uint64_t bytes = 0;            // their bytes
    std::uint64_t kept_records = 0;
    std::uint64_t kept_bytes = 0;
    std::uint64_t limit_bytes = 0;      // the byte bound applied (auto resolved)
  };
  // Applies the retention now: deletes the records outside it in one batch with a checkpoint
  // (per collection: documents and a digest of their state at the trim seq) that verify
  // replays from. Never blocks writers. `dry_run`: only says what would go.
  result<trim_result> trim_oplog(bool dry_run = false, const scan_control& control = {});
  // The newest trimmed seq (0: nothing trimmed): op-log positions at or before it are gone.
  std::uint64_t oplog_trimmed_through() const;
  // Background trimming: after about `every_bytes` of op-log written, a background thread of
  // this store applies the retention (0: off, the default; the daemon turns it on).
  void auto_trim(std::uint64_t every_bytes);

  // Disk use by part (store_sizes.cpp), from RocksDB's file and memtable sizes.
  struct size_report {
    std::uint64_t total_bytes = 0;     // every file in the store directory
    std::uint64_t documents = 0;       // docs family
    std::uint64_t indexes = 0;         // idx family
    std::uint64_t oplog = 0;           // oplog family
    std::uint64_t meta = 0;            // catalog, plans, changes, search definitions
    std::uint64_t search = 0;          // search generation files beside the store
    std::uint64_t vectors = 0;         // `C.__vectors` documents and vector cache files
    std::uint64_t wal = 0;             // write-ahead log files
    std::uint64_t oplog_records = 0;
    std::uint64_t trimmable_bytes = 0;  // what the retention would free now (record bytes)
    std::uint64_t trimmed_through = 0;
  };
  result<size_report> sizes() const;
  // Flushes every memtable to table files and waits (the write-ahead log is then not
  // replayed at the next open).
  status flush();
  // Compacts every family (the tests compare sizes after it).
  status compact();
  // --- end of a store's life ---

  struct impl;

 private:
  friend struct detail::store_access;
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

// The pid of the process holding the store's lock (`omgdb.lock`), or nullopt when nobody
// holds it (store_backup.cpp): for commands that ask the owner to act on a store it serves.
std::optional<long> store_lock_holder(const std::string& path);

// The closest name to `name` among `candidates` (edit distance ≤ 2, or a case-insensitive
// match), or "" — for did-you-mean hints.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace omgdb::engine
