#include "engine/query/random_draw.hpp"

#include <cstdint>
#include <random>

namespace omgdb::engine {

double random_unit() {
  thread_local std::mt19937_64 gen{[] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }()};
  return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}

}  // namespace omgdb::engine
