// $setWindowFields: running and sliding document windows, whole-partition windows and the
// rank operators (after the cakeSales examples of reference/operator/aggregation/setWindowFields/).
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {
constexpr std::string_view k_cakes = R"([
  {"_id": 0, "state": "CA", "y": 2020, "q": 120}, {"_id": 1, "state": "WA", "y": 2021, "q": 140},
  {"_id": 2, "state": "CA", "y": 2021, "q": 145}, {"_id": 3, "state": "WA", "y": 2020, "q": 104},
  {"_id": 4, "state": "CA", "y": 2019, "q": 162}, {"_id": 5, "state": "WA", "y": 2019, "q": 134}])";
}

TEST_CASE("a running window sums quantities per state in date order") {
  fixture f;
  f.with("c", k_cakes);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"y": 1},
                   "output": {"total": {"$sum": "$q", "window": {"documents": ["unbounded", "current"]}}}}},
                  {"$project": {"q": 0, "state": 0}}])") ==
        lines({R"({"_id":4,"y":2019,"total":162})", R"({"_id":0,"y":2020,"total":282})", R"({"_id":2,"y":2021,"total":427})",
               R"({"_id":5,"y":2019,"total":134})", R"({"_id":3,"y":2020,"total":238})", R"({"_id":1,"y":2021,"total":378})"}));
}

TEST_CASE("a sliding window averages the neighbours and a whole-partition window sees all") {
  fixture f;
  f.with("c", k_cakes);
  CHECK(f.run(R"([{"$match": {"state": "CA"}},
                  {"$setWindowFields": {"sortBy": {"y": 1}, "output": {
                      "avg": {"$avg": "$q", "window": {"documents": [-1, 1]}},
                      "all": {"$push": "$q"}, "prev": {"$sum": "$q", "window": {"documents": [-1, -1]}}}}},
                  {"$project": {"_id": 1, "avg": 1, "all": 1, "prev": 1}}])") ==
        lines({R"({"_id":4,"avg":141.0,"all":[162,120,145],"prev":0})", R"({"_id":0,"avg":142.33333333333334,"all":[162,120,145],"prev":162})",
               R"({"_id":2,"avg":132.5,"all":[162,120,145],"prev":120})"}));
}

TEST_CASE("rank, denseRank and documentNumber number the sorted documents, ties ranking equal") {
  fixture f;
  f.with("c", R"([{"_id": 1, "s": 10}, {"_id": 2, "s": 30}, {"_id": 3, "s": 30}, {"_id": 4, "s": 5}])");
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"s": -1}, "output": {"r": {"$rank": {}}, "d": {"$denseRank": {}},
                   "n": {"$documentNumber": {}}}}}])") ==
        lines({R"({"_id":2,"s":30,"r":1,"d":1,"n":1})", R"({"_id":3,"s":30,"r":1,"d":1,"n":2})",
               R"({"_id":1,"s":10,"r":3,"d":2,"n":3})", R"({"_id":4,"s":5,"r":4,"d":3,"n":4})"}));
  CHECK(f.error(R"([{"$setWindowFields": {"output": {"r": {"$rank": {}}}}}])") ==
        "stage 1 (`$setWindowFields`): `$rank` needs a `sortBy`");
}
