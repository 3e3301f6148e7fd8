// omgdb search — Reciprocal Rank Fusion (search.hpp rrf): deterministic, ties by `_id`.
#include <algorithm>
#include <map>

#include "engine/search/search.hpp"

namespace omgdb::engine::search {

std::vector<fused> rrf(const std::vector<std::vector<ranked>>& lists, const std::vector<double>& weights, double k) {
  std::map<std::string, fused> by_key;
  for (std::size_t l = 0; l < lists.size(); ++l) {
    const double w = l < weights.size() ? weights[l] : 1.0;
    std::uint64_t rank = 0;
    for (const auto& r : lists[l]) {
      ++rank;
      auto [it, fresh] = by_key.try_emplace(r.key);
      fused& f = it->second;
      if (fresh) {
        f.key = r.key;
        f.id = r.id;
        f.ranks.assign(lists.size(), std::nullopt);
      }
      if (f.ranks[l]) continue;  // a list naming a document twice counts its best rank
      f.ranks[l] = rank;
      f.score += w / (k + static_cast<double>(rank));
    }
  }
  std::vector<fused> out;
  out.reserve(by_key.size());
  for (auto& [key, f] : by_key) out.push_back(std::move(f));
  std::stable_sort(out.begin(), out.end(), [](const fused& a, const fused& b) {
    return a.score != b.score ? a.score > b.score : a.key < b.key;
  });
  return out;
}

}  // namespace omgdb::engine::search
