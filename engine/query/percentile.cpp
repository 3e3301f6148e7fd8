#include "engine/query/percentile.hpp"

#include <algorithm>
#include <cmath>

#include "common/call_budget.hpp"

namespace omgdb::engine {

array percentiles_of(std::vector<double>& values, const std::vector<double>& ps, bool continuous) {
  if (values.empty()) return array(ps.size(), value());
  // The sort polls the call's flag (a call's values may number millions).
  const call_budget& budget = current_budget();
  std::size_t steps = 0;
  std::sort(values.begin(), values.end(), [&](double a, double b) {
    if ((++steps & 4095) == 0) budget.poll();
    return a < b;
  });
  const double n = static_cast<double>(values.size());
  array out;
  out.reserve(ps.size());
  for (double p : ps) {
    if (continuous) {
      const double rank = p * (n - 1);
      const auto lo = static_cast<std::size_t>(std::floor(rank));
      const auto hi = static_cast<std::size_t>(std::ceil(rank));
      out.emplace_back(values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo)));
    } else {
      const double rank = std::max(0.0, std::ceil(p * n) - 1);
      out.emplace_back(values[static_cast<std::size_t>(std::min(rank, n - 1))]);
    }
  }
  return out;
}

}  // namespace omgdb::engine
