// omgdb vectors — the rebuildable float32 cache of one (collection, field): the fresh-model
// vectors of `C.__vectors` as one contiguous row-major matrix in _id order, with each row's
// source _id and text hash, stamped with the binding's generation (bumped by every vsync
// batch). A file under <store>/caches/vectors/ keeps it across restarts; a stamp that no
// longer matches the binding, a damaged or missing file, is rebuilt from `C.__vectors`.
// Every file carries a checksum of all its bytes, compared once per load (not per query):
// a file whose bytes do not match is never used.
#pragma once

#include <memory>
#include <optional>
#include <mutex>
#include <unordered_map>

#include "engine/vector/vector_detail.hpp"
#include "engine/vector/vector_kernel.hpp"

namespace omgdb::engine::vector::detail {

struct vector_cache {
  std::uint64_t generation = 0;
  binding bound;
  std::vector<float> matrix;                        // rows × bound.dim
  std::vector<value> ids;                           // per row
  std::vector<std::string> hashes;                  // per row
  std::unordered_map<std::string, std::uint32_t> row_of;  // encode_key(_id) -> row
  mutable std::once_flag hnsw_once;
  mutable std::unique_ptr<hnsw_index> hnsw;          // built on first need
  std::size_t rows() const noexcept { return ids.size(); }
};

// The current cache of (collection, field) for `bound` (stamped bound.generation), from memory,
// the file, or rebuilt from `C.__vectors` under `view` (and written to the file). A file
// that fails its checksum (or that verify found damaged: cache_status) is not used: the
// cache is rebuilt and `note` says so; when the rebuild fails, the error names the damage.
result<std::shared_ptr<const vector_cache>> load_cache(const store::impl& s, const read_view& view,
                                                       std::string_view collection, const binding& bound,
                                                       const scan_control& control, std::string* note = nullptr);

// Drops every cache held in memory, so the next search loads (and checks) the file, as after
// a restart. For tests.
void forget_loaded_caches();

// Reads `file` whole and checks it: nullopt when it is a sound cache file of the current
// format, else what is wrong. `decode` also decodes every row (what a load does).
std::optional<std::string> check_cache_file(const std::filesystem::path& file, bool decode);
// Writes `c` as the cache file `file` (a temporary file, then a rename); failures are silent
// (the cache is optional: the next load rebuilds it).
void write_cache_file(const std::filesystem::path& file, std::string_view collection, const vector_cache& c);

// The cache file of (collection, field) in store `store_path`.
std::filesystem::path cache_file(const std::string& store_path, std::string_view collection, std::string_view field);

}  // namespace omgdb::engine::vector::detail
