// omgdb vectors — exact top-k and the hnswlib wrapper.
#include "engine/vector/vector_kernel.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
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

using graph_type = hnswlib::HierarchicalNSW<float>;

struct hnsw_index::impl {
  std::uint32_t dim;
  ip_space space;
  std::unique_ptr<graph_type> graph;
  mutable std::mutex mu;  // setEf and the visited-list pool are per index
  explicit impl(std::uint32_t d) : dim(d), space(d) {}
};

hnsw_index::hnsw_index(std::unique_ptr<impl> i, std::size_t ef) : impl_(std::move(i)), ef_(ef) {}

hnsw_index::hnsw_index(std::span<const float> matrix, std::uint32_t dim, params p)
    : impl_(std::make_unique<impl>(dim)), ef_(p.ef_search) {
  const std::size_t rows = dim == 0 ? 0 : matrix.size() / dim;
  impl_->graph = std::make_unique<graph_type>(&impl_->space, std::max<std::size_t>(rows, 1), p.m, p.ef_construction);
  for (std::size_t r = 0; r < rows; ++r) impl_->graph->addPoint(matrix.data() + r * dim, r);
}

hnsw_index::~hnsw_index() = default;

std::size_t hnsw_index::size() const noexcept { return impl_->graph->cur_element_count; }
std::size_t hnsw_index::removed() const noexcept { return impl_->graph->num_deleted_; }

std::vector<scored> hnsw_index::search(std::span<const float> query, std::size_t fetch) const {
  std::vector<scored> out;
  auto& g = *impl_->graph;
  const std::size_t live = g.cur_element_count - g.num_deleted_;
  if (live == 0 || fetch == 0) return out;
  fetch = std::min(fetch, live);
  std::lock_guard lock(impl_->mu);
  g.setEf(std::max(ef_, fetch));
  auto found = g.searchKnn(query.data(), fetch);
  while (!found.empty()) {
    const auto label = found.top().second;
    const auto* v = reinterpret_cast<const float*>(g.getDataByInternalId(g.label_lookup_.at(label)));
    out.push_back({dot(v, query.data(), impl_->dim), static_cast<std::uint32_t>(label)});
    found.pop();
  }
  std::sort(out.begin(), out.end(), [](const scored& x, const scored& y) {
    return x.score > y.score || (x.score == y.score && x.row < y.row);
  });
  return out;
}

void hnsw_index::add(std::uint32_t row, const float* v) {
  auto& g = *impl_->graph;
  if (g.label_lookup_.find(row) == g.label_lookup_.end() && g.cur_element_count >= g.max_elements_) {
    g.resizeIndex(std::max<std::size_t>(g.max_elements_ + g.max_elements_ / 8, g.max_elements_ + 1024));
  }
  g.addPoint(v, row);
}

void hnsw_index::remove(std::uint32_t row) {
  auto& g = *impl_->graph;
  auto it = g.label_lookup_.find(row);
  if (it == g.label_lookup_.end() || g.isMarkedDeleted(it->second)) return;
  g.markDelete(row);
}

namespace {

template <class T>
void put_pod(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct byte_reader {
  std::string_view in;
  std::size_t at = 0;
  template <class T>
  bool get(T& v) {
    if (in.size() - at < sizeof v) return false;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return true;
  }
  const char* take(std::size_t n) {
    if (in.size() - at < n) return nullptr;
    const char* p = in.data() + at;
    at += n;
    return p;
  }
};

// Whether a link list (count word, then ids) names only elements below `count`.
bool links_ok(const char* list, std::size_t max_links, std::size_t count) {
  unsigned short n = 0;
  std::memcpy(&n, list, sizeof n);
  if (n > max_links) return false;
  for (std::size_t i = 0; i < n; ++i) {
    hnswlib::tableint id = 0;
    std::memcpy(&id, list + sizeof(hnswlib::linklistsizeint) + i * sizeof id, sizeof id);
    if (id >= count) return false;
  }
  return true;
}

}  // namespace

std::string hnsw_index::save() const {
  const auto& g = *impl_->graph;
  std::string out;
  std::size_t links = 0;
  for (std::size_t i = 0; i < g.cur_element_count; ++i) {
    links += sizeof(unsigned) + (g.element_levels_[i] > 0 ? g.size_links_per_element_ * g.element_levels_[i] : 0);
  }
  out.reserve(128 + g.cur_element_count * g.size_data_per_element_ + links);
  // hnswlib's saveIndex, field for field.
  put_pod(out, g.offsetLevel0_);
  put_pod(out, g.max_elements_);
  put_pod(out, g.cur_element_count);
  put_pod(out, g.size_data_per_element_);
  put_pod(out, g.label_offset_);
  put_pod(out, g.offsetData_);
  put_pod(out, g.maxlevel_);
  put_pod(out, g.enterpoint_node_);
  put_pod(out, g.maxM_);
  put_pod(out, g.maxM0_);
  put_pod(out, g.M_);
  put_pod(out, g.mult_);
  put_pod(out, g.ef_construction_);
  out.append(g.data_level0_memory_, g.cur_element_count * g.size_data_per_element_);
  for (std::size_t i = 0; i < g.cur_element_count; ++i) {
    const unsigned size = g.element_levels_[i] > 0 ? static_cast<unsigned>(g.size_links_per_element_ * g.element_levels_[i]) : 0;
    put_pod(out, size);
    if (size != 0) out.append(g.linkLists_[i], size);
  }
  return out;
}

std::unique_ptr<hnsw_index> hnsw_index::load(std::string_view bytes, std::uint32_t dim, params p, std::size_t rows,
                                             std::string& why) {
  byte_reader r{bytes};
  std::size_t offset0 = 0, max_elements = 0, count = 0, per_element = 0, label_offset = 0, data_offset = 0, max_m = 0,
              max_m0 = 0, m = 0, ef_construction = 0;
  int max_level = 0;
  hnswlib::tableint entry = 0;
  double mult = 0;
  if (!r.get(offset0) || !r.get(max_elements) || !r.get(count) || !r.get(per_element) || !r.get(label_offset) ||
      !r.get(data_offset) || !r.get(max_level) || !r.get(entry) || !r.get(max_m) || !r.get(max_m0) || !r.get(m) ||
      !r.get(mult) || !r.get(ef_construction)) {
    why = "its header is cut short";
    return nullptr;
  }
  if (count > rows || count > (std::size_t{1} << 31)) {
    why = "it holds more elements than the cache has rows";
    return nullptr;
  }
  auto i = std::make_unique<impl>(dim);
  i->graph = std::make_unique<graph_type>(&i->space, std::max<std::size_t>(count + count / 8, count + 1024), p.m,
                                          p.ef_construction);
  auto& g = *i->graph;
  if (offset0 != g.offsetLevel0_ || per_element != g.size_data_per_element_ || label_offset != g.label_offset_ ||
      data_offset != g.offsetData_ || max_m != g.maxM_ || max_m0 != g.maxM0_ || m != g.M_ ||
      ef_construction != g.ef_construction_ || max_level < -1 || max_level > 64 ||
      (count > 0 && (entry >= count || max_level < 0))) {
    why = "its shape is not that of this graph (dimension, M, ef_construction) or its entry point is out of range";
    return nullptr;
  }
  const char* level0 = r.take(count * per_element);
  if (level0 == nullptr) {
    why = "its vectors are cut short";
    return nullptr;
  }
  std::vector<std::pair<const char*, unsigned>> upper(count, {nullptr, 0});
  for (std::size_t e = 0; e < count; ++e) {
    const char* el = level0 + e * per_element;
    hnswlib::labeltype label = 0;
    std::memcpy(&label, el + label_offset, sizeof label);
    if (label >= rows || !links_ok(el + offset0, max_m0, count)) {
      why = "element " + std::to_string(e) + " has a label or a link out of range";
      return nullptr;
    }
    unsigned size = 0;
    if (!r.get(size) || size % g.size_links_per_element_ != 0 || size / g.size_links_per_element_ > std::size_t(max_level)) {
      why = "element " + std::to_string(e) + "'s upper levels are cut short or out of range";
      return nullptr;
    }
    const char* lists = r.take(size);
    if (lists == nullptr) {
      why = "element " + std::to_string(e) + "'s upper levels are cut short";
      return nullptr;
    }
    upper[e] = {lists, size};
  }
  // An upper-level link must name an element that has that level; the entry point has the top one.
  auto level_of = [&](std::size_t e) { return upper[e].second / g.size_links_per_element_; };
  if (count > 0 && level_of(entry) != std::size_t(max_level)) {
    why = "its entry point is not on its top level";
    return nullptr;
  }
  for (std::size_t e = 0; e < count; ++e) {
    for (std::size_t l = 0; l < level_of(e); ++l) {
      const char* list = upper[e].first + l * g.size_links_per_element_;
      bool ok = links_ok(list, max_m, count);
      unsigned short n = 0;
      std::memcpy(&n, list, sizeof n);
      for (std::size_t k = 0; ok && k < n; ++k) {
        hnswlib::tableint id = 0;
        std::memcpy(&id, list + sizeof(hnswlib::linklistsizeint) + k * sizeof id, sizeof id);
        ok = level_of(id) >= l + 1;
      }
      if (!ok) {
        why = "element " + std::to_string(e) + " has a link out of range";
        return nullptr;
      }
    }
  }
  if (r.at != bytes.size()) {
    why = "it has bytes after its last element";
    return nullptr;
  }
  // Checked: fill the graph the constructor allocated (hnswlib's loadIndex, from memory).
  std::memcpy(g.data_level0_memory_, level0, count * per_element);
  for (std::size_t e = 0; e < count; ++e) {
    g.linkLists_[e] = nullptr;
    g.element_levels_[e] = 0;
  }
  g.cur_element_count = count;
  for (std::size_t e = 0; e < count; ++e) {
    const auto [lists, size] = upper[e];
    if (size != 0) {
      g.linkLists_[e] = static_cast<char*>(std::malloc(size));
      if (g.linkLists_[e] == nullptr) throw std::bad_alloc();
      std::memcpy(g.linkLists_[e], lists, size);
      g.element_levels_[e] = static_cast<int>(size / g.size_links_per_element_);
    }
    g.label_lookup_[g.getExternalLabel(static_cast<hnswlib::tableint>(e))] = static_cast<hnswlib::tableint>(e);
    if (g.isMarkedDeleted(static_cast<hnswlib::tableint>(e))) ++g.num_deleted_;
  }
  if (g.label_lookup_.size() != count) {
    why = "two elements have the same label";
    return nullptr;  // the destructor frees what was allocated (cur_element_count is set)
  }
  g.maxlevel_ = max_level;
  g.enterpoint_node_ = entry;
  return std::unique_ptr<hnsw_index>(new hnsw_index(std::move(i), p.ef_search));
}

}  // namespace omgdb::engine::vector
