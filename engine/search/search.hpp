// omgdb search indexes (docs/search.md) — the public API the tools call.
//
// A search index is a versioned definition (meta "search/<collection>\0<name>", written through
// the op-log by the one write path) plus derived *generations*: one SQLite FTS5 file each,
// under <store>/search/<dir of the index>/, built through op-log sequence N and caught up from
// the op-log at search time. Generations are caches: deleting one loses nothing, a rebuild
// makes it again from the documents.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/search/definition.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::embed {
class model_registry;
}

namespace omgdb::engine::search {

inline constexpr std::uint64_t k_default_limit = 10;
inline constexpr std::uint64_t k_max_limit = 1000;
inline constexpr std::uint64_t k_default_timeout_ms = 2000;
inline constexpr std::uint64_t k_max_timeout_ms = 60000;
inline constexpr std::uint64_t k_default_writer_memory = 64ull << 20;
inline constexpr std::uint64_t k_min_writer_memory = 1ull << 20;
inline constexpr std::uint64_t k_max_writer_memory = 1ull << 30;

struct define_result {
  definition def;       // as stored (version, seq filled in)
  bool created = false;  // no definition of that name existed
  bool changed = false;  // false: the same definition was already stored (nothing written)
  bool built = false;    // a generation of this version was built and verified
  std::string build_error;  // when the build failed (the old generation keeps serving)
};

struct build_report {
  std::uint64_t generation = 0;
  std::uint64_t snapshot_seq = 0;   // documents read at this op-log sequence
  std::uint64_t built_through = 0;  // then caught up to this one
  std::uint64_t documents = 0;      // rows after catch-up
  std::uint64_t commits = 0;        // periodic commits while building (writerMemoryBytes)
  std::uint64_t file_bytes = 0;
  std::string content_hash;         // hex, of (_id, indexed text) over the rows at snapshot_seq
  double millis = 0;
};

enum class search_mode { lexical, semantic, hybrid };

struct search_request {
  std::string collection, index, query;
  std::optional<search_mode> mode;   // default: hybrid with a semantic part, else lexical
  document filter;                   // {}: every document
  std::uint64_t limit = k_default_limit;
  std::optional<double> min_score;
  bool highlight = false;
  bool explain = false;
  std::uint64_t timeout_ms = k_default_timeout_ms;
};

struct hit {
  value id;
  double score = 0;
  std::vector<std::pair<std::string, std::string>> highlights;  // field -> snippet
  std::optional<document> explain;
};

struct search_result {
  std::vector<hit> hits;
  std::string mode;
  std::uint64_t searched_seq = 0;  // the generation's boundary: built through this op-log seq
  std::uint64_t last_seq = 0;      // the op-log's newest seq when the search ran
  bool caught_up = true;           // false: timeoutMs ran out while catching up (lag > 0)
  bool definition_mismatch = false;  // the generation is of an older definition version
  std::uint64_t generation = 0;
  std::vector<std::string> notes;
};

// The search indexes of one open store. Thread-safe; one per store path (of(store)).
class manager {
 public:
  static std::shared_ptr<manager> of(store& s);
  // As of(), for verify (the store's internals), never creating files.
  static std::shared_ptr<manager> of(const store::impl& s);
  ~manager();

  result<define_result> define(const document& spec, const scan_control& control = {});
  status drop(std::string_view collection, std::string_view name);
  result<build_report> rebuild(std::string_view collection, std::string_view name,
                               std::uint64_t writer_memory_bytes, const scan_control& control = {});
  result<search_result> run(const search_request& req, const embed::model_registry* models,
                            const scan_control& control = {});
  // The collection's search-index definitions, in name order (no status work: no file is
  // opened, no vector counted).
  result<std::vector<definition>> definitions(std::string_view collection) const;
  // search_index_status: every index of the collection, or the one named.
  result<std::vector<document>> index_status(std::string_view collection, std::optional<std::string_view> name);

  struct impl;
  explicit manager(std::unique_ptr<impl> p);
  impl& internals() { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};

// Reciprocal Rank Fusion (deterministic): score(d) = Σ_i w_i / (k + rank_i(d)), ranks from 1;
// ties broken by the `_id` order (keystring). Each list is in rank order; `key` is the
// keystring of the `_id`.
struct ranked {
  std::string key;
  value id;
};
struct fused {
  std::string key;
  value id;
  double score = 0;
  std::vector<std::optional<std::uint64_t>> ranks;  // per list, 1-based; nullopt: absent
};
std::vector<fused> rrf(const std::vector<std::vector<ranked>>& lists, const std::vector<double>& weights,
                       double k = 60);

}  // namespace omgdb::engine::search
