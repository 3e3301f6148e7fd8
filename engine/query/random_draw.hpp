// omgdb engine — the random numbers of $rand and {$sampleRate} (engine/query).
//
// Each thread owns a 64-bit Mersenne Twister (std::mt19937_64) seeded once from
// std::random_device when the thread first draws; a draw takes the generator's top 53 bits
// and scales them by 2^-53, so every result is a double in [0, 1) on the 2^-53 grid. The
// sequence is not reproducible between runs (like MongoDB's, which also seeds from the
// system), and no seed can be set: tests bound the outcomes statistically instead
// (tests/engine/query/expr_random_test.cpp).
#pragma once

namespace omgdb::engine {

// A uniform double in [0, 1). Thread-safe (one generator per thread).
double random_unit();

}  // namespace omgdb::engine
