// omgdb vectors — the two ranking kernels over a contiguous row-major float32 matrix of
// unit vectors: exact (dot product of every candidate row, top k kept in a heap) and an
// HNSW graph (hnswlib, inner-product space) over the same rows. Used by nearest() and by
// bench/vector_bench.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omgdb::engine::vector {

struct scored {
  float score = 0;
  std::uint32_t row = 0;
};

// Dot product of two `dim`-long vectors (AVX2/FMA when the CPU has it).
float dot(const float* a, const float* b, std::uint32_t dim) noexcept;

// The k best rows (highest dot product, ties by lower row) among `rows` (all rows of the
// matrix when `rows` is null), best first.
std::vector<scored> exact_top_k(std::span<const float> matrix, std::uint32_t dim, std::span<const float> query,
                                std::size_t k, const std::vector<std::uint32_t>* rows = nullptr);

// An HNSW graph over rows of a matrix; a row's number is its label. The graph keeps its own
// copy of each vector (hnswlib's level-0 block), so the matrix may move or grow after it is
// built. Not thread-safe for writers: add() and remove() need the caller's exclusive lock;
// search() may run concurrently with other searches.
class hnsw_index {
 public:
  struct params {
    std::size_t m = 16;
    std::size_t ef_construction = 200;
    std::size_t ef_search = 64;
  };
  // Every row of `matrix` (row-major, `dim` wide), labels 0 … rows − 1.
  hnsw_index(std::span<const float> matrix, std::uint32_t dim, params p);
  hnsw_index(std::span<const float> matrix, std::uint32_t dim) : hnsw_index(matrix, dim, params{}) {}
  ~hnsw_index();
  hnsw_index(const hnsw_index&) = delete;
  hnsw_index& operator=(const hnsw_index&) = delete;

  // Up to `fetch` nearest live rows by the graph, best first (scores recomputed exactly).
  std::vector<scored> search(std::span<const float> query, std::size_t fetch) const;
  // Inserts row `row` with vector `v` (dim floats), or replaces the vector of a row already in
  // the graph (its links are repaired); a removed row comes back. Grows the graph as needed.
  void add(std::uint32_t row, const float* v);
  // Leaves row `row` out of every later search (hnswlib markDelete); no-op for an unknown row.
  void remove(std::uint32_t row);
  std::size_t size() const noexcept;     // rows in the graph, removed ones included
  std::size_t removed() const noexcept;  // rows marked removed

  // The graph in hnswlib's saveIndex layout.
  std::string save() const;
  // A graph from save()'s bytes for vectors of `dim` with the same params, whose labels are
  // all below `rows`, or nullptr and `why` (wrong shape, cut short, a link or label out of
  // range). The bytes' integrity is the caller's (a checksum): this checks only that they
  // describe a graph it can walk safely.
  static std::unique_ptr<hnsw_index> load(std::string_view bytes, std::uint32_t dim, params p, std::size_t rows,
                                          std::string& why);

 private:
  struct impl;
  explicit hnsw_index(std::unique_ptr<impl> i, std::size_t ef);
  std::unique_ptr<impl> impl_;
  std::size_t ef_ = 64;
};

}  // namespace omgdb::engine::vector
