// omgdb search — the semantic half: nearest neighbours from the vectors of the index's
// semantic field (engine/vector, `<collection>.__vectors`, written by vsync), and the fused
// hybrid ranking. Never downloads: a model that is not installed is the registry's error
// naming `omgdb model add`.
#include "engine/embed/embedder.hpp"
#include "engine/index/keystring.hpp"
#include "engine/search/index.hpp"
#include "engine/vector/vector_search.hpp"

namespace omgdb::engine::search {
using detail::quoted_name;

result<semantic_list> semantic_ranking(const store& st, const definition& d, const embed::model_registry* models,
                                       const std::string& text, const document& filter, std::uint64_t depth,
                                       const scan_control& control) {
  const std::string& field = d.semantic->fields.front();
  const std::string& model = d.semantic->model;
  if (models == nullptr) {
    return make_error("search: mode semantic needs the model " + quoted_name(model) +
                          ", and this server has no models directory; install one with `omgdb model add " + model + " PATH`",
                      failure_kind::unavailable);
  }
  OMGDB_TRY(found, models->open(model));  // not installed: not_found naming `omgdb model add`
  (void)found;
  semantic_list out;
  OMGDB_TRY(bound, vector::read_binding(st, d.collection, field));
  if (!bound) {
    return make_error("search: the semantic field `" + field + "` of `" + d.collection +
                          "` has no vectors yet; run vsync {collection: \"" + d.collection + "\", field: \"" + field +
                          "\", model: \"" + model + "\"} first",
                      failure_kind::not_found);
  }
  if (bound->model != model) {
    out.notes.push_back("the vectors of `" + field + "` are of model `" + bound->model + "`, not the index's `" + model +
                        "`; vsync with model `" + model + "` to use it");
  }
  if (text.empty()) return out;
  const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(depth, vector::k_max_k));
  OMGDB_TRY(near, vector::search_text(st, *models, d.collection, field, text, k, filter, control));
  for (const auto& h : near.hits) {
    const std::string key = encode_key(h.id);
    out.list.push_back({key, h.id});
    out.similarity.emplace(key, h.score);
  }
  out.notes.insert(out.notes.end(), near.notes.begin(), near.notes.end());
  if (near.stale > 0 || near.missing > 0) {
    out.notes.push_back(std::to_string(near.stale) + " stale and " + std::to_string(near.missing) +
                        " missing vectors were not ranked semantically; vsync refreshes them");
  }
  return out;
}

}  // namespace omgdb::engine::search
