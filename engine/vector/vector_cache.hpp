// omgdb vectors — the rebuildable float32 cache of one (collection, field): the fresh-model
// vectors of `C.__vectors` as one contiguous row-major matrix, with each row's source _id and
// text hash, stamped with the binding's generation (bumped by every vsync batch) and the
// op-log seq it reflects; and, once a search needed it, the HNSW graph over its rows.
//
// Files under <store>/caches/vectors/ keep both across restarts: `<hex C>.<hex F>.f32` (the
// rows) and `<hex C>.<hex F>.hnsw` (the graph, naming the checksum of the .f32 file it was
// built over). Every file carries a checksum of all its bytes, compared once per load (not per
// query): a file whose bytes do not match is never used; it is rebuilt.
//
// Small changes are absorbed, not rebuilt: when the binding's generation moved, the op-log
// records of `C.__vectors` since the cache's seq are applied to the rows in place (a changed
// vector overwrites its row, a new one is appended, a removed one leaves a dead row) and to the
// graph (hnswlib addPoint / markDelete). A rebuild from `C.__vectors` happens only when the
// model changed, the op-log does not reach back, or the change is large (k_delta_max_share of
// the rows, or dead rows past k_dead_max_share). The files are rewritten after a rebuild, a
// graph build, or once k_unsaved_changes changes are only in memory (a restart replays the
// rest from the op-log).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <utility>

#include "engine/vector/vector_detail.hpp"
#include "engine/vector/vector_kernel.hpp"

namespace omgdb::engine::vector::detail {

inline constexpr std::uint64_t k_delta_scan_max = 1'000'000;  // op-log records read to update a cache
inline constexpr double k_delta_max_share = 0.5;                 // changed rows past this share: rebuild
inline constexpr double k_dead_max_share = 0.25;                 // dead rows past this share: rebuild
inline constexpr std::uint64_t k_unsaved_changes = 64;           // at least; or rows / 1000

// An allocator whose resize() leaves floats uninitialised: a load reads every byte of the
// matrix from the file right after, and zero-filling 150 MB first costs a tenth of a restart.
template <class T>
struct uninit_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = uninit_allocator<U>;
  };
  uninit_allocator() = default;
  template <class U>
  uninit_allocator(const uninit_allocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

struct vector_cache {
  std::uint64_t generation = 0;  // the binding's generation it is current for
  std::uint64_t seq = 0;         // the op-log seq it reflects (0: unknown, rebuild to update)
  binding bound;
  std::vector<float, uninit_allocator<float>> matrix;  // rows × bound.dim
  std::vector<value> ids;                           // per row
  std::vector<std::string> hashes;                  // per row; "" marks a dead row
  std::unordered_map<std::string, std::uint32_t> row_of;  // encode_key(_id) -> live row
  std::size_t dead = 0;
  std::unique_ptr<hnsw_index> hnsw;   // null until a search needs it (labels are rows)
  std::uint64_t version = 0;          // bumped by every change in place
  std::uint64_t unsaved = 0;          // changes in memory only
  std::optional<std::uint64_t> file_sum;  // checksum of the .f32 file holding exactly these rows
  std::size_t rows() const noexcept { return ids.size(); }
  std::size_t live() const noexcept { return ids.size() - dead; }
};

struct cache_slot;  // one per cache file, in memory (vector_cache_load.cpp)

// A cache held for reading: while the lease lives no one changes it.
struct cache_lease {
  std::shared_ptr<cache_slot> slot;  // null for a private cache (built for an older snapshot)
  std::shared_lock<std::shared_mutex> lock;
  std::shared_ptr<const vector_cache> cache;
  const vector_cache* operator->() const noexcept { return cache.get(); }
  const vector_cache& operator*() const noexcept { return *cache; }
};

// The current cache of (collection, field) for `bound` as of `view`: from memory, the files,
// or updated from the op-log, or rebuilt from `C.__vectors` (and written to the files). A file
// that fails its checksum (or that verify found damaged: cache_status) is not used: the cache
// or graph is rebuilt and `notes` say so; when the rebuild fails, the error names the damage.
result<cache_lease> load_cache(const store::impl& s, const read_view& view, std::string_view collection,
                               const binding& bound, const scan_control& control, std::vector<std::string>* notes);

// Gives the leased cache its HNSW graph (loaded from its file when one pairs with the rows,
// else built and written). The lease is released meanwhile and taken again: true when the
// cache is still the same rows (the caller's row numbers hold), false when it changed.
bool ensure_graph(const store::impl& s, std::string_view collection, cache_lease& lease, std::vector<std::string>* notes);

// Drops every cache held in memory, so the next search loads (and checks) the files, as after
// a restart. For tests and benchmarks.
void forget_loaded_caches();

// --- the files (vector_cache.cpp) ---
// The cache file and the graph file of (collection, field) in store `store_path`.
std::filesystem::path cache_file(const std::string& store_path, std::string_view collection, std::string_view field);
std::filesystem::path graph_file(const std::string& store_path, std::string_view collection, std::string_view field);

// Reads `file` whole and checks it: nullopt when it is a sound cache file of the current
// format, else what is wrong. `decode` also decodes every row (what a load does).
std::optional<std::string> check_cache_file(const std::filesystem::path& file, bool decode);

enum class file_state { ok, missing, old_format, stale, damaged };
struct file_header {
  std::string collection, field, model, sha;
  std::uint64_t generation = 0, seq = 0, rows = 0, sum = 0;  // sum: the file's checksum (graph: its .f32's)
  std::uint32_t dim = 0;
};
struct checked_file {
  file_state state = file_state::missing;
  file_header h;
  std::string why;                       // damaged: what failed
  std::shared_ptr<vector_cache> cache;   // ok and asked to build
};
// Reads and checks a cache file. With `bound`, a header for another model, dimension or field
// is `stale` (the rest is not read); another generation is read (the op-log brings it up to
// date). With `build`, the rows are decoded into `cache`, otherwise only hashed.
checked_file read_cache_file(const std::filesystem::path& file, const binding* bound, bool build);
// Writes `c` as the cache file (a temporary file, then a rename) and returns its checksum;
// nullopt when it could not be written (the cache is optional: the next load rebuilds it).
std::optional<std::uint64_t> write_cache_file(const std::filesystem::path& file, std::string_view collection,
                                              const vector_cache& c);

// Reads and checks a graph file; with `rows_sum`, only one built over the .f32 file of that
// checksum and `rows` rows is loaded into `graph` (another one is `stale`).
struct checked_graph {
  file_state state = file_state::missing;
  file_header h;  // h.sum: the checksum of the .f32 file it pairs with
  std::string why;
  std::unique_ptr<hnsw_index> graph;
};
checked_graph read_graph_file(const std::filesystem::path& file, const std::optional<std::uint64_t>& rows_sum,
                              std::size_t rows, std::uint32_t dim, bool build);
// Writes `c`'s graph paired with the .f32 file of checksum `rows_sum`; false when it could not.
bool write_graph_file(const std::filesystem::path& file, std::string_view collection, const vector_cache& c,
                      std::uint64_t rows_sum);

// verify's damage marks (in memory, by file): the next load ignores the marked file and
// rebuilds it, saying what verify found.
void mark_damaged(const store::impl& s, const std::filesystem::path& file, std::string why);
std::optional<std::string> take_damage_mark(const store::impl& s, const std::filesystem::path& file);
bool has_damage_mark(const store::impl& s, const std::filesystem::path& file);

}  // namespace omgdb::engine::vector::detail
