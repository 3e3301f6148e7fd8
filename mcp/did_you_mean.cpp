#include "mcp/did_you_mean.hpp"

#include <algorithm>

namespace omgdb::mcp {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(std::string_view name, const std::vector<std::string>& candidates) {
  std::size_t limit = name.size() <= 4 ? 1 : 2;
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= limit ? best : std::string();
}

}  // namespace omgdb::mcp
