#include "mcp/did_you_mean.hpp"

#include <algorithm>

namespace omgdb::mcp {

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
