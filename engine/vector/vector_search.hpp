// omgdb vectors — persisted embeddings of one text field and nearest-neighbour search over
// them (issue 18; docs/vectors.md). The API vsync / vsearch / vstale (tools/vector_tools.cpp)
// and the search index's semantic half call.
//
// Storage. The vectors of collection C live in the ordinary collection `C.__vectors`,
// written only through the one write path (write_session) by sync(), in atomic batches with
// op-log records; the ordinary write tools refuse that name. Documents there:
//   binding  {_id: {binding: FIELD}, field, model, modelSha256, dim, generation}
//            which installed model embeds FIELD (set by sync's `model`; changing it makes
//            every vector of FIELD stale until the next sync, never mixed)
//   vector   {_id: {field: FIELD, id: <the source document's _id>}, field, model,
//            modelSha256, dim, textHash, vector: BinData(0, dim little-endian float32)}
// A vector is fresh when its model and modelSha256 are the binding's and its textHash is the
// hash of the source document's current text at FIELD; otherwise stale. A source document
// with text and no vector is missing. Non-string or absent text has no vector (sync removes
// one left from earlier text).
//
// Search. Exact cosine (the vectors are unit length: a dot product) over a contiguous float32
// cache (vector_cache.hpp: `<store>/caches/vectors/…`, rebuildable, checksummed, reported by
// verify as a cache; a file that fails its checksum is rebuilt, never ranked from), brought up
// to date from the op-log after a vsync. Only fresh vectors of documents matching the filter
// are ranked. Above k_hnsw_min_vectors fresh rows with no filter (or a filter keeping most
// documents) an HNSW graph over the same rows answers, over-fetching and falling back to exact
// when too few survive the filter; the graph is saved with the cache, so a restart loads it,
// and a small vsync changes it in place.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/embed/embedder.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::vector {

inline constexpr std::string_view k_vectors_suffix = ".__vectors";
inline constexpr std::size_t k_max_k = 1000;                       // neighbours one search returns
inline constexpr std::uint64_t k_hnsw_min_vectors = 50'000;        // HNSW above this many rows
inline constexpr std::size_t k_sync_batch = 256;                   // documents per vsync batch
inline constexpr std::size_t k_stale_list_max = 1000;              // _ids vstale lists

// "C.__vectors" for collection C.
std::string vectors_collection(std::string_view collection);
// Whether `name` is a vectors collection (ends with ".__vectors").
bool is_vectors_collection(std::string_view name);

// The hash of a field's text that a vector records (FNV-1a 64 of the UTF-8 bytes, as 16 hex
// digits).
std::string text_hash(std::string_view text);

struct binding {
  std::string field;
  std::string model;
  std::string model_sha256;
  std::uint32_t dim = 0;
  std::uint64_t generation = 0;  // bumped by every vsync batch: the cache's stamp
};
// The model bound to `field` of `collection`, or nullopt.
result<std::optional<binding>> read_binding(const store& s, std::string_view collection, std::string_view field);

struct neighbour {
  value id;            // the source document's _id
  double score = 0;    // cosine similarity, -1 … 1
};

struct nearest_request {
  std::string collection;
  std::string field;
  std::vector<float> query;  // the binding's dimension, unit length (embedder::embed)
  std::size_t k = 5;         // 1 … k_max_k
  document filter;           // ranks only matching documents; {}: all
  std::uint64_t hnsw_min_vectors = k_hnsw_min_vectors;  // HNSW from this many cached rows (tests lower it)
};

struct nearest_result {
  std::vector<neighbour> hits;    // best first; equal scores in _id order
  std::uint64_t candidates = 0;   // documents matching the filter
  std::uint64_t ranked = 0;       // of them, with a fresh vector (the ones scored)
  std::uint64_t stale = 0;        // with a vector that is stale (not ranked)
  std::uint64_t missing = 0;      // with text but no vector (not ranked)
  std::string method;             // "exact", "hnsw" or "hnsw+exact" (fallback)
  binding bound;
  std::vector<std::string> notes;  // e.g. the cache file was damaged and rebuilt for this search
};

// The k nearest fresh vectors among the documents of `collection` matching the filter.
// Errors: no binding for the field ("run vsync with `model` first"), a query of the wrong
// dimension, k out of range, a bad filter.
result<nearest_result> nearest(const store& s, const nearest_request& request, const scan_control& control = {});

// Embeds `query` with the field's bound model (opened from `models`) and calls nearest().
result<nearest_result> search_text(const store& s, const embed::model_registry& models, std::string_view collection,
                                   std::string_view field, std::string_view query, std::size_t k,
                                   const document& filter, const scan_control& control = {});

// --- sync and staleness (vector_sync.cpp) ---
struct sync_request {
  std::string collection;
  std::string field;
  // (Re)binds the field to this installed model. Absent: the field's binding, else the
  // registry's default model ([vectors] default_model), else the only installed model; an
  // error (listing the installed models) when none of these decides.
  std::optional<std::string> model;
  std::size_t batch = k_sync_batch;  // documents per atomic batch
};
struct sync_result {
  std::uint64_t embedded = 0;    // vectors written (new or refreshed)
  std::uint64_t unchanged = 0;   // fresh already
  std::uint64_t removed = 0;     // vectors of deleted documents or of documents without text
  std::uint64_t no_text = 0;     // source documents without a string at the field
  std::uint64_t batches = 0;     // committed batches
  binding bound;
  bool rebound = false;          // the binding changed in this call
};
// Embeds what is missing or stale and removes what is orphaned, in atomic batches of
// `batch` documents (each its own write session, op-logged). Progress: documents visited of
// the collection's count; cancellation stops between batches (committed batches stay).
result<sync_result> sync(store& s, const embed::model_registry& models, const sync_request& request,
                         const scan_control& control = {});

struct stale_result {
  std::vector<value> ids;        // missing or stale, in _id order, at most `limit`
  bool truncated = false;        // more exist beyond `ids`
  std::uint64_t missing = 0;     // counts of all of them
  std::uint64_t stale = 0;
  std::uint64_t fresh = 0;
  std::optional<binding> bound;  // none: every document with text is missing
};
result<stale_result> stale(const store& s, std::string_view collection, std::string_view field,
                           std::size_t limit = k_stale_list_max, const scan_control& control = {});

// --- the cache (vector_cache.cpp) ---
// verify's entries for the vector caches of a store: one per cache file {name, kind:
// "vectors", rebuildable: true, collection, field, rows, current, damaged, note?}. Each file
// is read whole and its checksum compared. A cache that is not current is not an integrity
// failure: the next vsearch rebuilds it. A damaged one (damaged: true) is marked in memory
// (nothing is written or removed): the next vsearch of it rebuilds it and says so.
std::vector<document> cache_status(const store& s);

}  // namespace omgdb::engine::vector
