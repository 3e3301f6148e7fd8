// A seeded generator of random documents for the engine's property tests: nested documents,
// arrays, repeated field names. The test's own class supplies the leaves — `name()` for field
// names and `scalar()` for values — and `k_scalar_percent`, how often `any` stops at a leaf
// above the depth limit (CRTP: `class generator : public doc_generator<generator>`).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "engine/value/value.hpp"

namespace omgdb::engine::query_test {

template <class Leaves>
class doc_generator {
 public:
  explicit doc_generator(std::uint64_t seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool chance(int percent) { return static_cast<int>(pick(100)) < percent; }

  value any(int depth) {
    if (depth <= 0 || chance(Leaves::k_scalar_percent)) return self().scalar();
    if (chance(50)) {
      array a;
      const std::size_t n = pick(4);
      for (std::size_t i = 0; i < n; ++i) a.push_back(any(depth - 1));
      return value(std::move(a));
    }
    return value(object(depth - 1));
  }

  document object(int depth) {
    document d;
    const std::size_t n = pick(4);
    for (std::size_t i = 0; i < n; ++i) d.push_back(field{self().name(), any(depth)});  // names may repeat
    return d;
  }

 protected:
  std::mt19937_64 rng_;

 private:
  Leaves& self() { return static_cast<Leaves&>(*this); }
};

}  // namespace omgdb::engine::query_test
