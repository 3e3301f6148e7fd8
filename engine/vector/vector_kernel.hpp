// omgdb vectors — the two ranking kernels over a contiguous row-major float32 matrix of
// unit vectors: exact (dot product of every candidate row, top k kept in a heap) and an
// HNSW graph (hnswlib, inner-product space) over the same rows. Used by nearest() and by
// bench/vector_bench.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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

// An HNSW index over the rows of a matrix (the matrix must outlive it).
class hnsw_index {
 public:
  struct params {
    std::size_t m = 16;
    std::size_t ef_construction = 200;
    std::size_t ef_search = 64;
  };
  hnsw_index(std::span<const float> matrix, std::uint32_t dim, params p);
  hnsw_index(std::span<const float> matrix, std::uint32_t dim) : hnsw_index(matrix, dim, params{}) {}
  ~hnsw_index();
  // Up to `fetch` nearest rows by the graph, best first (scores recomputed exactly).
  std::vector<scored> search(std::span<const float> query, std::size_t fetch) const;
  std::size_t size() const noexcept { return rows_; }

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::size_t rows_ = 0;
  std::size_t ef_ = 64;
};

}  // namespace omgdb::engine::vector
