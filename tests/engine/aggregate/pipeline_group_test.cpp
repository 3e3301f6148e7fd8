// $group, its accumulators, $sortByCount, $bucket and $bucketAuto. Expected values follow the
// examples of MongoDB's manual (reference/operator/aggregation/<name>/).
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {

// The $group page's sales collection.
constexpr std::string_view k_sales = R"([
  {"_id": 1, "item": "abc", "price": 10, "quantity": 2, "date": {"$date": "2014-03-01T08:00:00Z"}},
  {"_id": 2, "item": "jkl", "price": 20, "quantity": 1, "date": {"$date": "2014-03-01T09:00:00Z"}},
  {"_id": 3, "item": "xyz", "price": 5, "quantity": 10, "date": {"$date": "2014-03-15T09:00:00Z"}},
  {"_id": 4, "item": "xyz", "price": 5, "quantity": 20, "date": {"$date": "2014-04-04T11:21:39Z"}},
  {"_id": 5, "item": "abc", "price": 10, "quantity": 10, "date": {"$date": "2014-04-04T21:23:13Z"}},
  {"_id": 6, "item": "def", "price": 7.5, "quantity": 5, "date": {"$date": "2015-06-04T05:08:13Z"}},
  {"_id": 7, "item": "def", "price": 7.5, "quantity": 10, "date": {"$date": "2015-09-10T08:43:00Z"}},
  {"_id": 8, "item": "abc", "price": 10, "quantity": 5, "date": {"$date": "2016-02-06T20:20:13Z"}}])";

}  // namespace

TEST_CASE("group by item sums the sale amounts and keeps groups in first-seen order") {
  fixture f;
  f.with("c", k_sales);
  CHECK(f.run(R"([{"$group": {"_id": "$item", "totalSaleAmount": {"$sum": {"$multiply": ["$price", "$quantity"]}}}},
                  {"$match": {"totalSaleAmount": {"$gte": 100}}}])") ==
        lines({R"({"_id":"abc","totalSaleAmount":170})", R"({"_id":"xyz","totalSaleAmount":150})",
               R"({"_id":"def","totalSaleAmount":112.5})"}));
}

TEST_CASE("group with a null key puts every document in one group") {
  fixture f;
  f.with("c", k_sales);
  CHECK(f.run(R"([{"$group": {"_id": null, "total": {"$sum": {"$multiply": ["$price", "$quantity"]}},
                   "averageQuantity": {"$avg": "$quantity"}, "count": {"$count": {}}}}])") ==
        lines({R"({"_id":null,"total":452.5,"averageQuantity":7.875,"count":8})"}));
}

TEST_CASE("grouping on a missing field puts missing and null together under null") {
  fixture f;
  f.with("c", R"([{"_id": 1, "k": null}, {"_id": 2}, {"_id": 3, "k": 1}, {"_id": 4, "k": 1.0},
                  {"_id": 5, "k": {"$numberLong": "1"}}])");
  CHECK(f.run(R"([{"$group": {"_id": "$k", "ids": {"$push": "$_id"}}}])") ==
        lines({R"({"_id":null,"ids":[1,2]})", R"({"_id":1,"ids":[3,4,5]})"}));
}

TEST_CASE("sum widens int to long on overflow and ignores non-numbers") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": 2147483647}, {"_id": 2, "n": 1}, {"_id": 3, "n": "x"}, {"_id": 4}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}, "a": {"$avg": "$n"}}}])") ==
        lines({R"({"_id":null,"s":{"$numberLong":"2147483648"},"a":{"$numberDouble":"1073741824.0"}})"}));
  f.with("c", R"([{"_id": 1, "n": {"$numberLong": "9223372036854775807"}}, {"_id": 2, "n": 1}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}}}])") ==
        lines({R"({"_id":null,"s":{"$numberDouble":"9223372036854775808.0"}})"}));
  f.with("c", R"([{"_id": 1, "n": 1}, {"_id": 2, "n": 2.5}])");
  CHECK(f.canonical(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}}}])") ==
        lines({R"({"_id":null,"s":{"$numberDouble":"3.5"}})"}));
}

TEST_CASE("avg of no numbers is null and sum of none is zero") {
  fixture f;
  f.with("c", R"([{"_id": 1, "n": "a"}, {"_id": 2}])");
  CHECK(f.run(R"([{"$group": {"_id": null, "s": {"$sum": "$n"}, "a": {"$avg": "$n"}, "m": {"$max": "$n"},
                   "lo": {"$min": "$missing"}}}])") == lines({R"({"_id":null,"s":0,"a":null,"m":"a","lo":null})"}));
}

TEST_CASE("first, last, push, addToSet and mergeObjects collect in arrival order") {
  fixture f;
  f.with("c", R"([{"_id": 1, "g": "a", "v": 1, "o": {"x": 1}}, {"_id": 2, "g": "a", "v": 1.0, "o": {"y": 2}},
                  {"_id": 3, "g": "a", "o": {"x": 3}}])");
  CHECK(f.run(R"([{"$group": {"_id": "$g", "f": {"$first": "$v"}, "l": {"$last": "$v"}, "p": {"$push": "$v"},
                   "s": {"$addToSet": "$v"}, "m": {"$mergeObjects": "$o"}}}])") ==
        lines({R"({"_id":"a","f":1,"l":null,"p":[1,1.0],"s":[1],"m":{"x":3,"y":2}})"}));
}

TEST_CASE("stdDevPop and stdDevSamp give the population and sample deviations") {
  fixture f;
  f.with("c", R"([{"_id": 1, "quiz": 1, "score": 85}, {"_id": 2, "quiz": 1, "score": 96},
                  {"_id": 3, "quiz": 1, "score": 71}, {"_id": 4, "quiz": 1, "score": 56}])");
  auto r = f.try_run(R"([{"$group": {"_id": "$quiz", "pop": {"$stdDevPop": "$score"}, "samp": {"$stdDevSamp": "$score"}}}])");
  REQUIRE(r.ok());
  CHECK(find_field(r->front(), "pop")->as_double() == doctest::Approx(15.0166).epsilon(0.0001));
  CHECK(find_field(r->front(), "samp")->as_double() == doctest::Approx(17.3397).epsilon(0.0001));
}

TEST_CASE("top, bottom and their n forms pick by sortBy within each group") {
  fixture f;
  f.with("c", R"([{"_id": 1, "game": "G1", "player": "PlayerA", "score": 31},
                  {"_id": 2, "game": "G1", "player": "PlayerB", "score": 33},
                  {"_id": 3, "game": "G1", "player": "PlayerC", "score": 99},
                  {"_id": 4, "game": "G1", "player": "PlayerD", "score": 1}])");
  CHECK(f.run(R"([{"$group": {"_id": "$game",
                   "top": {"$top": {"output": ["$player", "$score"], "sortBy": {"score": -1}}},
                   "bottom": {"$bottom": {"output": "$player", "sortBy": {"score": -1}}},
                   "top2": {"$topN": {"output": "$player", "sortBy": {"score": -1}, "n": 2}},
                   "bottom2": {"$bottomN": {"output": "$player", "sortBy": {"score": -1}, "n": 2}}}}])") ==
        lines({R"({"_id":"G1","top":["PlayerC",99],"bottom":"PlayerD","top2":["PlayerC","PlayerB"],"bottom2":["PlayerA","PlayerD"]})"}));
}

TEST_CASE("firstN, lastN, maxN and minN keep n values; maxN skips null") {
  fixture f;
  f.with("c", R"([{"_id": 1, "s": 3}, {"_id": 2, "s": null}, {"_id": 3, "s": 9}, {"_id": 4, "s": 5}])");
  CHECK(f.run(R"([{"$group": {"_id": null, "f": {"$firstN": {"input": "$s", "n": 2}},
                   "l": {"$lastN": {"input": "$s", "n": 2}}, "mx": {"$maxN": {"input": "$s", "n": 2}},
                   "mn": {"$minN": {"input": "$s", "n": 5}}}}])") ==
        lines({R"({"_id":null,"f":[3,null],"l":[9,5],"mx":[9,5],"mn":[3,5,9]})"}));
  CHECK(f.error(R"([{"$group": {"_id": null, "f": {"$firstN": {"input": "$s", "n": 0}}}}])") ==
        "'n' of $firstN must be a positive integer, found int");
}

TEST_CASE("median and percentile take the discrete rank of the sorted numbers") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 10}, {"_id": 2, "x": 20}, {"_id": 3, "x": 30}, {"_id": 4, "x": 40}, {"_id": 5, "x": "no"}])");
  CHECK(f.run(R"([{"$group": {"_id": null, "m": {"$median": {"input": "$x", "method": "approximate"}},
                   "p": {"$percentile": {"input": "$x", "p": [0.25, 0.75, 1], "method": "approximate"}},
                   "c": {"$median": {"input": "$x", "method": "continuous"}}}}])") ==
        lines({R"({"_id":null,"m":20.0,"p":[10.0,30.0,40.0],"c":25.0})"}));
}

TEST_CASE("an accumulator with an empty field name is an error, as in MongoDB 9.0") {
  fixture f;
  f.with("c", k_sales);
  CHECK(f.error(R"([{"$group": {"_id": null, "": {"$sum": 1}}}])") ==
        "stage 1 (`$group`): an accumulator field name must not be empty");
  CHECK(f.error(R"([{"$group": {"total": {"$sum": 1}}}])") ==
        "stage 1 (`$group`): a group specification must include an `_id`");
  CHECK(f.error(R"([{"$group": {"_id": null, "t": {"$accumulator": {}}}}])") ==
        "stage 1 (`$group`): `t`: `$accumulator` is not supported: omgdb runs no JavaScript");
  CHECK(f.error(R"([{"$group": {"_id": null, "t": {"$summ": 1}}}])") ==
        "stage 1 (`$group`): `t`: unknown accumulator `$summ`");
}

TEST_CASE("sortByCount groups and orders by count, largest first") {
  fixture f;
  f.with("c", R"([{"_id": 1, "tags": ["a", "b"]}, {"_id": 2, "tags": ["b"]}, {"_id": 3, "tags": ["b", "c"]}])");
  CHECK(f.run(R"([{"$unwind": "$tags"}, {"$sortByCount": "$tags"}])") ==
        lines({R"({"_id":"b","count":3})", R"({"_id":"a","count":1})", R"({"_id":"c","count":1})"}));
}

TEST_CASE("bucket puts values into lower-inclusive intervals and the rest into default") {
  fixture f;
  f.with("c", R"([{"_id": 1, "year": 1926}, {"_id": 2, "year": 1902}, {"_id": 3, "year": 1880},
                  {"_id": 4, "year": 1960}, {"_id": 5}, {"_id": 6, "year": 1900}])");
  CHECK(f.run(R"([{"$bucket": {"groupBy": "$year", "boundaries": [1840, 1850, 1900, 1920, 1940],
                   "default": "Other", "output": {"count": {"$sum": 1}, "ids": {"$push": "$_id"}}}}])") ==
        lines({R"({"_id":1850,"count":1,"ids":[3]})", R"({"_id":1900,"count":2,"ids":[2,6]})",
               R"({"_id":1920,"count":1,"ids":[1]})", R"({"_id":"Other","count":2,"ids":[4,5]})"}));
  CHECK(f.error(R"([{"$bucket": {"groupBy": "$year", "boundaries": [1840, 1900]}}])") ==
        "$bucket could not find a matching branch for an input, and no default was specified.");
}

TEST_CASE("bucketAuto splits sorted values into buckets of about equal size") {
  fixture f;
  f.with("c", R"([{"_id": 1, "p": 1}, {"_id": 2, "p": 2}, {"_id": 3, "p": 3}, {"_id": 4, "p": 4}, {"_id": 5, "p": 5}])");
  CHECK(f.run(R"([{"$bucketAuto": {"groupBy": "$p", "buckets": 2}}])") ==
        lines({R"({"_id":{"min":1,"max":4},"count":3})", R"({"_id":{"min":4,"max":5},"count":2})"}));
}
