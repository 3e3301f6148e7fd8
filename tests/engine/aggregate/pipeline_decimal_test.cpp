// Decimal128 in the pipeline: $sum/$avg widen to decimal when any input is one (MongoDB's
// accumulator rules), $min/$max and $group keys compare numbers by value across types,
// $stdDev* return doubles, and running window accumulators use the same rules.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

TEST_CASE("sum and avg of decimals are exact decimals, and any decimal makes the result one") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": {"$numberDecimal": "0.1"}}, {"_id": 2, "n": {"$numberDecimal": "0.2"}},
                  {"_id": 3, "n": 3}, {"_id": 4, "n": "x"}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}, "a": {"$avg": "$n"}}}])") ==
        lines({R"({"_id":null,"s":{"$numberDecimal":"3.3"},"a":{"$numberDecimal":"1.1"}})"}));
  f.with("c", R"([{"_id": 1, "n": 1}, {"_id": 2, "n": {"$numberDecimal": "1"}}, {"_id": 3, "n": 1}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "a": {"$avg": "$n"}}}])") ==
        lines({R"({"_id":null,"a":{"$numberDecimal":"1"}})"}));
  f.with("c", R"([{"_id": 1, "n": 1}, {"_id": 2, "n": {"$numberDecimal": "2"}}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "a": {"$avg": "$n"}}}])") ==
        lines({R"({"_id":null,"a":{"$numberDecimal":"1.5"}})"}));
  // A double joins the decimal total at its 34-digit value.
  f.with("c", R"([{"_id": 1, "n": 0.5}, {"_id": 2, "n": {"$numberDecimal": "1"}}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}}}])") ==
        lines({R"({"_id":null,"s":{"$numberDecimal":"1.5"}})"}));
  f.with("c", R"([{"_id": 1, "n": {"$numberDecimal": "1"}}, {"_id": 2, "n": {"$numberDecimal": "3"}}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "a": {"$avg": "$n"}}}])") ==
        lines({R"({"_id":null,"a":{"$numberDecimal":"2"}})"}));
  CHECK(f.canonical(R"([{"$project": {"_id": 0, "t": {"$sum": [{"$numberDecimal": "1"}, 2.5]}}}, {"$limit": 1}])") ==
        lines({R"({"t":{"$numberDecimal":"3.5"}})"}));
}

TEST_CASE("min and max pick by value across decimals and other numbers") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": 0.1}, {"_id": 2, "n": {"$numberDecimal": "0.1"}}, {"_id": 3, "n": {"$numberDecimal": "NaN"}}])");
  CHECK(f.run(R"([{"$group": {"_id": null, "lo": {"$min": "$n"}, "hi": {"$max": "$n"}}}])") ==
        lines({R"({"_id":null,"lo":{"$numberDecimal":"NaN"},"hi":0.1})"}));
}

TEST_CASE("standard deviation of decimals is a double") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": {"$numberDecimal": "2"}}, {"_id": 2, "n": {"$numberDecimal": "4"}}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "p": {"$stdDevPop": "$n"}, "s": {"$stdDevSamp": "$n"}}}])") ==
        lines({R"({"_id":null,"p":{"$numberDouble":"1.0"},"s":{"$numberDouble":"1.4142135623730951"}})"}));
}

TEST_CASE("group keys and addToSet treat equal numbers of every type as one value") {
  fixture f;
  f.with("c", R"([{"_id": 1, "k": 1}, {"_id": 2, "k": {"$numberLong": "1"}}, {"_id": 3, "k": 1.0},
                  {"_id": 4, "k": {"$numberDecimal": "1.00"}}, {"_id": 5, "k": {"$numberDecimal": "0.1"}},
                  {"_id": 6, "k": 0.1}])");
  CHECK(f.run(R"([{"$group": {"_id": "$k", "ids": {"$push": "$_id"}}}])") ==
        lines({R"({"_id":1,"ids":[1,2,3,4]})", R"({"_id":{"$numberDecimal":"0.1"},"ids":[5]})",
               R"({"_id":0.1,"ids":[6]})"}));
  CHECK(f.run(R"([{"$group": {"_id": null, "set": {"$addToSet": "$k"}}}])") ==
        lines({R"({"_id":null,"set":[1,{"$numberDecimal":"0.1"},0.1]})"}));
  CHECK(f.run(R"([{"$match": {"k": 1}}, {"$count": "n"}])") == lines({R"({"n":4})"}));
  CHECK(f.run(R"([{"$match": {"k": {"$numberDecimal": "0.1"}}}, {"$project": {"_id": 1}}])") == lines({R"({"_id":5})"}));
  CHECK(f.run(R"([{"$project": {"_id": 0, "u": {"$setUnion": [[1, {"$numberDecimal": "1.0"}, {"$numberLong": "1"}]]}}}, {"$limit": 1}])") ==
        lines({R"({"u":[1]})"}));
}

TEST_CASE("a running window sum over decimals stays decimal") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": {"$numberDecimal": "0.1"}}, {"_id": 2, "n": 1}, {"_id": 3, "n": {"$numberDecimal": "0.2"}}])");
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {
                    "s": {"$sum": "$n", "window": {"documents": ["unbounded", "current"]}},
                    "a": {"$avg": "$n", "window": {"documents": [-1, 0]}}}}},
                  {"$project": {"_id": 1, "s": 1, "a": 1}}])") ==
        lines({R"({"_id":1,"s":{"$numberDecimal":"0.1"},"a":{"$numberDecimal":"0.1"}})",
               R"({"_id":2,"s":{"$numberDecimal":"1.1"},"a":{"$numberDecimal":"0.55"}})",
               R"({"_id":3,"s":{"$numberDecimal":"1.3"},"a":{"$numberDecimal":"0.6"}})"}));
}
