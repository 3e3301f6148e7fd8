// omgdb search — the manager's internals shared by index.cpp (definitions, files, catch-up,
// rebuild), run.cpp (search) and status.cpp (status, verify). Not a public header.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/search/generation.hpp"
#include "engine/search/search.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::search {

using clock = std::chrono::steady_clock;

// What a catch-up did.
struct catch_up_report {
  std::uint64_t from = 0, to = 0;  // applied seq before and after
  std::uint64_t last_seq = 0;      // the op-log's newest seq at the start
  std::uint64_t records = 0;       // op-log records read
  bool complete = true;            // false: stopped at the deadline
  bool needs_rebuild = false;      // the op-log no longer reaches back to the boundary
};

// One index's in-memory state; `mu` serializes every use of its files.
struct index_state {
  std::mutex mu;
  std::unique_ptr<generation> open;  // the current generation, opened lazily
  std::uint64_t open_id = 0;
  std::string rebuild = "idle";      // idle | running | failed
  std::uint64_t progress_done = 0, progress_total = 0;
  std::string last_error;
};

struct manager::impl {
  store::impl& s;
  std::filesystem::path root;  // <store>/search
  std::string session;         // the RocksDB session id of the open store
  const store* owner = nullptr;  // the public store (set by manager::of(store&)), for engine/vector
  std::uint64_t catch_up_commit_every = 20000;  // op-log records per catch-up transaction
  std::mutex mu;
  std::map<std::string, std::shared_ptr<index_state>> states;  // by meta key

  explicit impl(store::impl& st);
  std::shared_ptr<index_state> state(const definition& d);
  std::filesystem::path dir(std::string_view collection, std::string_view name) const;
  static std::filesystem::path gen_file(const std::filesystem::path& dir, std::uint64_t id);
  // The generation CURRENT points to (0: none).
  static std::uint64_t current(const std::filesystem::path& dir);
  // Removes temp files, unreferenced generations and directories of dropped indexes, each
  // index's under its lock (skipping one whose lock is held). The caller holds no index lock.
  void clean_orphans();
  // clean_orphans() once per open store, from the first call that writes search files
  // (define, drop, rebuild, search); verify and search_index_status remove nothing.
  void clean_orphans_once();
  bool orphans_cleaned = false;  // guarded by mu

  // The stored definition (nullopt: none); every definition of a collection.
  result<std::optional<definition>> read_definition(std::string_view collection, std::string_view name) const;
  result<std::vector<definition>> definitions(std::string_view collection) const;
  // The not-found error naming the collection's indexes.
  failure unknown_index(std::string_view collection, std::string_view name) const;

  // Opens (or reuses) the current generation into st.open; nullptr when there is none.
  result<generation*> current_generation(const definition& d, index_state& st);
  result<catch_up_report> catch_up(generation& g, const definition& d, std::optional<clock::time_point> deadline,
                                   std::uint64_t commit_every = 0);  // 0: catch_up_commit_every
  // Builds, verifies and installs a new generation (the caller holds st.mu).
  result<build_report> build(const definition& d, index_state& st, std::uint64_t writer_memory,
                             const scan_control& control);
};

// The semantic ranking of `text` (semantic.cpp): best first, with each document's cosine.
inline constexpr double k_hybrid_lexical_weight = 1.0;
inline constexpr double k_hybrid_semantic_weight = 0.2;
struct semantic_list {
  std::vector<ranked> list;
  std::map<std::string, double> similarity;  // by keystring of `_id`
  std::vector<std::string> notes;
};
result<semantic_list> semantic_ranking(const store& st, const definition& d, const embed::model_registry* models,
                                       const std::string& text, const document& filter, std::uint64_t depth,
                                       const scan_control& control);

// Op-log records verify and search_index_status read to count how far a generation is
// behind its own collection (docs/limits.md); past it the count is a floor.
inline constexpr std::uint64_t k_lag_scan_records = 1'000'000;

// The op-log's newest seq (meta) under `ro`.
result<std::uint64_t> last_seq(const store::impl& s, const rocksdb::ReadOptions& ro);
// Fsyncs a file or a directory.
status sync_path(const std::filesystem::path& p);

}  // namespace omgdb::engine::search
