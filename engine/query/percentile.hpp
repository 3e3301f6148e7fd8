// omgdb engine — MongoDB's percentiles of a list of numbers, shared by the $median and
// $percentile accumulators (engine/aggregate/accumulators_n.cpp) and the expressions of the
// same names (engine/query/expr_percentile.cpp), so both give the same answers.
#pragma once

#include <vector>

#include "engine/value/value.hpp"

namespace omgdb::engine {

// The percentiles `ps` (each in [0, 1]) of `values`, one double per entry of `ps`, or one
// null per entry when `values` is empty. `values` is sorted in place. Discrete
// ("approximate" and "discrete"): the value at rank ceil(p·n) − 1 (at least 0). Continuous:
// linear interpolation between the values at floor and ceil of p·(n − 1). The sort polls the
// thread's current call (common/call_budget.hpp): a cancelled call stops it with call_error.
array percentiles_of(std::vector<double>& values, const std::vector<double>& ps, bool continuous);

}  // namespace omgdb::engine
