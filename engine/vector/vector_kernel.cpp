// omgdb vectors — exact top-k and the hnswlib wrapper.
#include "engine/vector/vector_kernel.hpp"

#include <algorithm>
#include <mutex>
#include <queue>

#include <immintrin.h>

// hnswlib's own SSE code is left out: its prefetch hints read one link past the end of a full
// link list (AddressSanitizer: heap-buffer-overflow in searchBaseLayer, hnswlib 0.6.2). The
// distance is ours (ip_space below, on the same AVX2 dot product as the exact kernel).
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>

namespace omgdb::engine::vector {

namespace {

float dot_generic(const float* a, const float* b, std::uint32_t dim) noexcept {
  // Eight independent sums let the compiler vectorise without reassociating one sum.
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::uint32_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    for (int j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
  }
  float tail = 0;
  for (; i < dim; ++i) tail += a[i] * b[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail;
}

[[gnu::target("avx2,fma")]] float dot_avx2(const float* a, const float* b, std::uint32_t dim) noexcept {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  std::uint32_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= dim; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  float out = _mm_cvtss_f32(lo);
  for (; i < dim; ++i) out += a[i] * b[i];
  return out;
}

// The scores of `count` rows (row ids from `rows`, or first + i), one kernel call per block.
template <bool Avx2>
[[gnu::always_inline]] inline void score_block(const float* m, std::uint32_t dim, const float* q, const std::uint32_t* rows,
                                               std::size_t first, std::size_t count, float* out) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t r = rows != nullptr ? rows[i] : first + i;
    out[i] = Avx2 ? dot_avx2(m + r * dim, q, dim) : dot_generic(m + r * dim, q, dim);
  }
}
[[gnu::target("avx2,fma")]] void score_avx2(const float* m, std::uint32_t dim, const float* q, const std::uint32_t* rows,
                                            std::size_t first, std::size_t count, float* out) {
  score_block<true>(m, dim, q, rows, first, count, out);
}
void score_generic(const float* m, std::uint32_t dim, const float* q, const std::uint32_t* rows, std::size_t first,
                   std::size_t count, float* out) {
  score_block<false>(m, dim, q, rows, first, count, out);
}

const bool k_has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");

}  // namespace

float dot(const float* a, const float* b, std::uint32_t dim) noexcept {
  return k_has_avx2 ? dot_avx2(a, b, dim) : dot_generic(a, b, dim);
}

namespace {

// Worse first: the heap's top is the candidate to drop.
struct worse {
  bool operator()(const scored& x, const scored& y) const noexcept {
    return x.score > y.score || (x.score == y.score && x.row < y.row);
  }
};

}  // namespace

std::vector<scored> exact_top_k(std::span<const float> matrix, std::uint32_t dim, std::span<const float> query,
                                std::size_t k, const std::vector<std::uint32_t>* rows) {
  std::vector<scored> heap;
  if (k == 0 || dim == 0) return heap;
  heap.reserve(k + 1);
  const std::size_t n = rows != nullptr ? rows->size() : matrix.size() / dim;
  const worse cmp;
  constexpr std::size_t k_block = 1024;
  float scores[k_block];
  for (std::size_t base = 0; base < n; base += k_block) {
    const std::size_t count = std::min(k_block, n - base);
    const std::uint32_t* ids = rows != nullptr ? rows->data() + base : nullptr;
    (k_has_avx2 ? score_avx2 : score_generic)(matrix.data(), dim, query.data(), ids, base, count, scores);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t r = ids != nullptr ? ids[i] : static_cast<std::uint32_t>(base + i);
      const scored c{scores[i], r};
      if (heap.size() < k) {
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), cmp);
      } else if (cmp(c, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), cmp);
        heap.back() = c;
        std::push_heap(heap.begin(), heap.end(), cmp);
      }
    }
  }
  std::sort(heap.begin(), heap.end(), cmp);
  return heap;
}

namespace {
// Inner-product distance, 1 − dot(a, b), for unit vectors.
class ip_space final : public hnswlib::SpaceInterface<float> {
 public:
  explicit ip_space(std::uint32_t dim) : dim_(dim) {}
  size_t get_data_size() override { return static_cast<size_t>(dim_) * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &distance; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  static float distance(const void* a, const void* b, const void* param) {
    return 1.0f - dot(static_cast<const float*>(a), static_cast<const float*>(b),
                      *static_cast<const std::uint32_t*>(param));
  }
  std::uint32_t dim_;
};
}  // namespace

struct hnsw_index::impl {
  std::span<const float> matrix;
  std::uint32_t dim;
  ip_space space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  mutable std::mutex mu;  // setEf and the visited-list pool are per index
  impl(std::span<const float> m, std::uint32_t d) : matrix(m), dim(d), space(d) {}
};

hnsw_index::hnsw_index(std::span<const float> matrix, std::uint32_t dim, params p)
    : impl_(std::make_unique<impl>(matrix, dim)), rows_(dim == 0 ? 0 : matrix.size() / dim), ef_(p.ef_search) {
  impl_->graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&impl_->space, std::max<std::size_t>(rows_, 1), p.m,
                                                                   p.ef_construction);
  for (std::size_t r = 0; r < rows_; ++r) impl_->graph->addPoint(matrix.data() + r * dim, r);
}

hnsw_index::~hnsw_index() = default;

std::vector<scored> hnsw_index::search(std::span<const float> query, std::size_t fetch) const {
  std::vector<scored> out;
  if (rows_ == 0 || fetch == 0) return out;
  fetch = std::min(fetch, rows_);
  std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
  {
    std::lock_guard lock(impl_->mu);
    impl_->graph->setEf(std::max(ef_, fetch));
    found = impl_->graph->searchKnn(query.data(), fetch);
  }
  while (!found.empty()) {
    const auto r = static_cast<std::uint32_t>(found.top().second);
    out.push_back({dot(impl_->matrix.data() + static_cast<std::size_t>(r) * impl_->dim, query.data(), impl_->dim), r});
    found.pop();
  }
  std::sort(out.begin(), out.end(), [](const scored& x, const scored& y) {
    return x.score > y.score || (x.score == y.score && x.row < y.row);
  });
  return out;
}

}  // namespace omgdb::engine::vector
