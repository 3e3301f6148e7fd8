// omgdb vectors — nearest(): which documents may be ranked (the filter, then freshness
// against the current text), then exact cosine over the cache, or HNSW with over-fetch and
// an exact fallback.
#include <algorithm>
#include <cmath>

#include "engine/index/keystring.hpp"
#include "engine/vector/vector_cache.hpp"

namespace omgdb::engine::vector {

using namespace detail;
using engine::detail::store_access;

namespace {

constexpr std::size_t k_over_fetch = 4;  // HNSW fetches k × 4 (at least 64) before the filter

}  // namespace

result<nearest_result> nearest(const store& s, const nearest_request& request, const scan_control& control) {
  if (request.k == 0 || request.k > k_max_k) {
    return make_error("k must be 1 to " + std::to_string(k_max_k) + ", got " + std::to_string(request.k));
  }
  if (is_vectors_collection(request.collection)) {
    return make_error("collection `" + request.collection + "` is a vectors collection; name the collection whose text it embeds");
  }
  const auto& impl = store_access::of(const_cast<store&>(s));
  read_view view(impl);
  // The binding as of this snapshot.
  nearest_result out;
  {
    OMGDB_TRY(vc, view.collection(vectors_collection(request.collection), false));
    std::optional<document> bdoc;
    if (vc) {
      OMGDB_TRY(d, impl.read_document(view.options(), vectors_collection(request.collection), vc->id,
                                      binding_id(request.field)));
      bdoc = std::move(d);
    }
    if (!bdoc) {
      return make_error("field `" + request.field + "` of `" + request.collection +
                            "` has no embeddings: run vsync with `model` (an installed model) first",
                        failure_kind::not_found);
    }
    out.bound = parse_binding(request.field, *bdoc);
  }
  if (request.query.size() != out.bound.dim) {
    return make_error("the query vector has " + std::to_string(request.query.size()) + " components; field `" +
                      request.field + "` holds vectors of " + std::to_string(out.bound.dim));
  }
  OMGDB_TRY(lease, load_cache(impl, view, request.collection, out.bound, control, &out.notes));
  const std::span<const float> query(request.query);
  std::vector<scored> best;
  for (int attempt = 0;; ++attempt) {
    // The rows that may be ranked: matching documents whose vector is fresh.
    out.candidates = out.missing = out.stale = 0;
    std::vector<std::uint32_t> rows;
    std::vector<bool> allowed(lease->rows(), false);
    OMGDB_CHECK(scan_source(impl, view, request.collection, &request.filter, control, [&](document&& d) {
      ++out.candidates;
      auto text = text_at(d, request.field);
      if (!text) return true;
      auto it = lease->row_of.find(encode_key(d.front().val));
      if (it == lease->row_of.end()) {
        ++out.missing;
      } else if (lease->hashes[it->second] != text_hash(*text)) {
        ++out.stale;
      } else {
        rows.push_back(it->second);
        allowed[it->second] = true;
      }
      return true;
    }));
    // Rows whose vector was written with another model than the binding's are not in the
    // cache: they count as stale.
    out.ranked = rows.size();
    std::sort(rows.begin(), rows.end());
    const std::span<const float> matrix(lease->matrix);
    bool use_hnsw = lease->live() >= request.hnsw_min_vectors && rows.size() * 2 >= lease->live();
    if (use_hnsw && !lease->hnsw) {
      if (!ensure_graph(impl, request.collection, lease, &out.notes)) {
        if (attempt < 2) {  // the rows changed meanwhile: take the current cache and scan again
          lease = cache_lease{};
          OMGDB_TRY(again, load_cache(impl, view, request.collection, out.bound, control, &out.notes));
          lease = std::move(again);
          continue;
        }
        use_hnsw = false;
      }
    }
    if (use_hnsw && lease->hnsw) {
      const std::size_t fetch = std::max<std::size_t>(request.k * k_over_fetch, 64);
      for (const auto& c : lease->hnsw->search(query, fetch)) {
        if (c.row < allowed.size() && allowed[c.row] && best.size() < request.k) best.push_back(c);
      }
      out.method = "hnsw";
      if (best.size() < std::min(request.k, rows.size())) {
        best = exact_top_k(matrix, lease->bound.dim, query, request.k, &rows);
        out.method = "hnsw+exact";
      }
    } else {
      best = exact_top_k(matrix, lease->bound.dim, query, request.k, &rows);
      out.method = "exact";
    }
    break;
  }
  for (const auto& c : best) out.hits.push_back({lease->ids[c.row], static_cast<double>(c.score)});
  return out;
}

result<nearest_result> search_text(const store& s, const embed::model_registry& models, std::string_view collection,
                                   std::string_view field, std::string_view query, std::size_t k,
                                   const document& filter, const scan_control& control) {
  OMGDB_TRY(bound, read_binding(s, collection, field));
  if (!bound) {
    return make_error("field `" + std::string(field) + "` of `" + std::string(collection) +
                          "` has no embeddings: run vsync with `model` (an installed model) first",
                      failure_kind::not_found);
  }
  OMGDB_TRY(model, models.open(bound->model));
  if (model->info().sha256 != bound->model_sha256) {
    return make_error("model `" + bound->model + "` was reinstalled with other weights since field `" +
                          std::string(field) + "` was embedded: run vsync to re-embed it with the installed model",
                      failure_kind::conflict);
  }
  nearest_request r;
  r.collection = std::string(collection);
  r.field = std::string(field);
  r.query = model->embed(query);
  r.k = k;
  r.filter = filter;
  return nearest(s, r, control);
}

}  // namespace omgdb::engine::vector
