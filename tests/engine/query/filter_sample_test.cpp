// {$sampleRate: r} in filters: each document kept with probability r. The draws are random
// (engine/query/random_draw.hpp), so the counts are checked against the binomial
// distribution: out of 10,000 documents at r = 0.33 the count has mean 3,300 and standard
// deviation 47; the bounds below are ±6σ (a false failure about once in 10^9 runs).
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

int kept(const filter& f, int n) {
  const document d = doc(R"({"a": 1})");
  int count = 0;
  for (int i = 0; i < n; ++i) count += f.matches(d) ? 1 : 0;
  return count;
}

}  // namespace

TEST_CASE("sampleRate keeps about the given fraction of 10,000 documents") {
  const int k = kept(compile(R"({"$sampleRate": 0.33})"), 10000);
  CHECK(k > 3300 - 282);
  CHECK(k < 3300 + 282);
}

TEST_CASE("sampleRate 0 keeps nothing and 1 keeps everything") {
  CHECK(kept(compile(R"({"$sampleRate": 0})"), 1000) == 0);
  CHECK(kept(compile(R"({"$sampleRate": 1})"), 1000) == 1000);
}

TEST_CASE("sampleRate combines with other conditions") {
  const filter f = compile(R"({"a": 2, "$sampleRate": 1})");
  CHECK_FALSE(f.matches(doc(R"({"a": 1})")));
  CHECK(f.matches(doc(R"({"a": 2})")));
}

TEST_CASE("sampleRate must be a number in [0, 1]") {
  CHECK(compile_error(R"({"$sampleRate": 1.5})") == "numeric argument to $sampleRate must be in [0, 1]");
  CHECK(compile_error(R"({"$sampleRate": -0.1})") == "numeric argument to $sampleRate must be in [0, 1]");
  CHECK(compile_error(R"({"$sampleRate": "0.5"})") == "argument to $sampleRate must be a numeric type");
  CHECK(compile_error(R"({"a": {"$elemMatch": {"$sampleRate": 0.5}}})").find("$sampleRate") != std::string::npos);
}
