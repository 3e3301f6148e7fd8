// The operators of expr_trig/bits/misc/hash/percentile and {$sampleRate} inside pipelines.
#include <string>

#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

TEST_CASE("a $match with $sampleRate keeps about a third of 10,000 documents") {
  std::string many = "[";
  for (int i = 0; i < 10000; ++i) many += (i ? ",{\"_id\":" : "{\"_id\":") + std::to_string(i) + "}";
  many += "]";
  fixture f;
  f.with("c", many);
  auto r = f.try_run(R"([{"$match": {"$sampleRate": 0.33}}, {"$count": "n"}])");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  const value* n = find_field(r->front(), "n");
  REQUIRE(n != nullptr);
  // Binomial(10000, 0.33): mean 3300, σ 47; ±6σ.
  CHECK(n->number_as_double() > 3300 - 282);
  CHECK(n->number_as_double() < 3300 + 282);
}

TEST_CASE("the $median expression agrees with the $median accumulator") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 5}, {"_id": 2, "x": 1}, {"_id": 3, "x": 4}, {"_id": 4, "x": 2}])");
  const std::string grouped =
      f.run(R"([{"$group": {"_id": null, "m": {"$median": {"input": "$x", "method": "approximate"}},
                             "c": {"$percentile": {"input": "$x", "p": [0.5, 1], "method": "continuous"}}}}])");
  const std::string projected = f.run(R"([{"$group": {"_id": null, "xs": {"$push": "$x"}}},
        {"$project": {"m": {"$median": {"input": "$xs", "method": "approximate"}},
                      "c": {"$percentile": {"input": "$xs", "p": [0.5, 1], "method": "continuous"}}}}])");
  CHECK(grouped == projected);
  CHECK(grouped == "{\"_id\":null,\"m\":2.0,\"c\":[3.0,5.0]}\n");
}

TEST_CASE("pipeline stages use the new operators") {
  fixture f;
  f.with("c", R"([{"_id": 1, "deg": 180, "flags": 12, "name": "abc"}])");
  CHECK(f.run(R"([{"$project": {"_id": 0, "rad": {"$degreesToRadians": "$deg"}, "low": {"$bitAnd": ["$flags", 10]},
                                "size": {"$bsonSize": "$$ROOT"}, "bytes": {"$binarySize": "$name"}}}])") ==
        "{\"rad\":3.141592653589793,\"low\":8,\"size\":48,\"bytes\":3}\n");
  CHECK(f.error(R"([{"$project": {"s": {"$meta": "textScore"}}}])").find("`search` tool") != std::string::npos);
}
