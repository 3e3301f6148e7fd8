// {$sampleRate: r} in a filter (MongoDB's top-level match expression, usable in `$match`,
// `find`, …): each document is kept with probability r, drawn independently per document from
// engine/query/random_draw.hpp's generator (per-thread mt19937_64, seeded from
// std::random_device), so the count kept out of n is Binomial(n, r): r = 0 keeps none, r = 1
// keeps all. Not reproducible between runs; docs/aggregation.md.
#include <cmath>

#include "engine/query/filter_detail.hpp"
#include "engine/query/random_draw.hpp"

namespace omgdb::engine::filter_detail {

bool sample_rate_node::matches(const path::object_view&) const {
  if (rate >= 1) return true;
  return random_unit() < rate;
}

result<node_ptr> parse_sample_rate(const value& arg) {
  if (!arg.is_number()) return make_error("argument to $sampleRate must be a numeric type");
  const double r = arg.number_as_double();
  if (!(r >= 0 && r <= 1)) return make_error("numeric argument to $sampleRate must be in [0, 1]");
  auto n = std::make_unique<sample_rate_node>();
  n->rate = r;
  return node_ptr(std::move(n));
}

}  // namespace omgdb::engine::filter_detail
