// omgdb engine — secondary index internals shared by the index_*.cpp and store_*.cpp files.
// Not a public header (the public API is in store.hpp, "indexes and planner").
//
// Key formats (integers big-endian, see store_detail.hpp):
//   meta  "next_index_id"                  → u32   (ids are never reused)
//         "index/" + u32 coll id + name     → BSON {name, id, key: {path: 1|-1, …}, unique,
//                                                  partialFilter?, multikey}
//   idx   u32 index id + K + keystring(_id) → keystring(_id)     (ordinary index)
//         u32 index id + K                  → keystring(_id)     (unique index)
// where K is the concatenation of keystring(value) of each indexed field (every byte
// inverted for a descending field). A document contributes one key per element of the (one)
// array on its indexed paths; a missing field or an empty array keys as null. The value is
// always the document's docs-key suffix, so a scan never decodes a key.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/filter.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {

inline constexpr std::string_view k_meta_next_index = "next_index_id";
inline constexpr std::string_view k_meta_index_prefix = "index/";

// "index/" + u32 collection id (+ name): the prefix of a collection's definitions.
std::string index_def_prefix(std::uint32_t collection_id);
std::string index_def_key(std::uint32_t collection_id, std::string_view name);
std::string idx_prefix(std::uint32_t index_id);

// One index as stored, with its partial filter compiled.
struct index_def {
  store::index_spec spec;
  std::uint32_t id = 0;
  bool multikey = false;
  std::shared_ptr<const filter> partial;  // nullptr: every document is indexed
};

// Checks a spec (fields, directions, partial filter subset) and fills in a default name
// ("a_1_b_-1"). Errors name the offending part.
status normalize_spec(store::index_spec& spec);
// Same definition (fields, directions, unique, partial filter): names are not compared.
bool same_definition(const store::index_spec& a, const store::index_spec& b);
document spec_key_document(const store::index_spec& spec);

result<std::string> encode_index_def(const index_def& d);
result<index_def> decode_index_def(std::string_view bytes);
// Every index of a collection in name order at the state `ro` selects. Under a snapshot the
// decoded definitions are reused while the snapshot's sequence number is the one they were
// read at (same database, same state); without one they are always read.
result<std::vector<index_def>> read_index_defs(const store::impl& s, const rocksdb::ReadOptions& ro,
                                               std::uint32_t collection_id);
result<std::vector<index_def>> read_index_defs_uncached(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                        std::uint32_t collection_id);

// The keys (index id prefix + K, without the `_id` suffix) of `doc` in `def`, sorted and
// distinct; empty when a partial filter excludes the document. `multikey` is set when a
// path went through an array. Error: arrays on two different paths of a compound index.
result<std::vector<std::string>> index_keys(const index_def& def, const document& doc, bool& multikey);
// The full idx key of one entry.
std::string entry_key(const index_def& def, const std::string& key, const std::string& id_key);

// Index upkeep of one atomic write (insert / replace / delete of documents): the entries to
// delete and put go into the caller's WriteBatch; unique keys are checked against the
// database (latest state; the caller holds the writer mutex) plus this batch's own earlier
// changes. A failure leaves the batch in an unspecified state: the caller must not commit it.
class index_upkeep {
 public:
  explicit index_upkeep(const store::impl& s) : s_(s) {}
  // `before` / `after`: the document's old and new versions (nullptr: absent).
  status update(staged_batch& batch, const catalog_entry& c, const document* before,
                const document* after);
  // Same, from stored BSON bytes (empty: absent).
  status update_bytes(staged_batch& batch, const catalog_entry& c, std::string_view before,
                      std::string_view after);

 private:
  result<std::vector<index_def>*> defs(const catalog_entry& c);

  const store::impl& s_;
  std::map<std::uint32_t, std::vector<index_def>> defs_;
  std::map<std::string, std::optional<std::string>> unique_;  // idx key -> owner; nullopt: freed
};

// Visits, in the order given, the idx entries in the half-open byte ranges; `visit(key,
// value)` returns false to stop. Polls `control`.
struct key_range {
  std::string start;
  std::string end;
};

// The next unused index id (meta "next_index_id"; 1 on a store that never had an index).
result<std::uint32_t> read_next_index_id(const store::impl& s);
// Adds an index to the session's batch (store_index.cpp): checks the name against existing
// definitions (same definition: returns created = false), builds the entries over the
// collection's documents unless `fresh` (cataloged in this session), writes the definition
// and next_id + 1.
result<store::create_index_result> stage_index(write_session& w, const catalog_entry& entry,
                                               bool fresh, store::index_spec spec, bool named,
                                               std::uint32_t& next_id, const scan_control& control);

// Deletes every index definition and entry of a collection (drop_collection) into `batch`.
status drop_indexes_of(const store::impl& s, staged_batch& batch, std::uint32_t collection_id);

// verify's index check (index_verify.cpp): every index's entries are exactly those its
// definition derives from the collection's documents (count and a content hash), and no idx
// entry belongs to an index without a definition (a half-built or dropped index).
status verify_indexes(const store::impl& s, const rocksdb::ReadOptions& ro, const scan_control& control,
                      const std::function<void(std::string)>& mismatch);

// The message for a duplicate key: names the index, the collection and the value.
failure duplicate_key(const index_def& def, std::string_view collection, const document& doc);

}  // namespace omgdb::engine::detail
