// $setWindowFields range windows: the manual's range and time-range examples (cakeSales,
// reference/operator/aggregation/setWindowFields/, outputs worked by hand from the manual),
// ties, bounds past the partition, month arithmetic, the UTC calendar of `unit`, the memory
// bound and the errors for bad specs and bad sort values.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {
constexpr std::string_view k_cakes = R"([
  {"_id": 0, "type": "chocolate", "orderDate": {"$date": "2020-05-18T14:10:30Z"}, "state": "CA", "price": 13, "quantity": 120},
  {"_id": 1, "type": "chocolate", "orderDate": {"$date": "2021-03-20T11:30:05Z"}, "state": "WA", "price": 14, "quantity": 140},
  {"_id": 2, "type": "vanilla", "orderDate": {"$date": "2021-01-11T06:31:15Z"}, "state": "CA", "price": 12, "quantity": 145},
  {"_id": 3, "type": "vanilla", "orderDate": {"$date": "2020-02-08T13:13:23Z"}, "state": "WA", "price": 13, "quantity": 104},
  {"_id": 4, "type": "strawberry", "orderDate": {"$date": "2019-05-18T16:09:01Z"}, "state": "CA", "price": 41, "quantity": 162},
  {"_id": 5, "type": "strawberry", "orderDate": {"$date": "2019-01-08T06:12:03Z"}, "state": "WA", "price": 43, "quantity": 134}])";

constexpr std::string_view k_ties = R"([{"_id": 1, "s": 1}, {"_id": 2, "s": 2}, {"_id": 3, "s": 2}, {"_id": 4, "s": 3}])";

// {$setWindowFields} over k_ties pushing `_id` through `window`, then only `_id` and `w`.
std::string over_ties(fixture& f, std::string_view window) {
  return f.run(std::string(R"([{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"w": {"$push": "$_id", "window": )") +
               std::string(window) + R"(}}}}, {"$project": {"_id": 1, "w": 1}}])");
}

std::string d(std::string_view iso) { return R"({"$date":")" + std::string(iso) + R"("})"; }
}  // namespace

TEST_CASE("a numeric range window sums the quantities of orders priced within 10 of each order") {
  fixture f;
  f.with("c", k_cakes);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"price": 1},
                   "output": {"quantityFromSimilarOrders": {"$sum": "$quantity", "window": {"range": [-10, 10]}}}}},
                  {"$project": {"_id": 1, "price": 1, "quantityFromSimilarOrders": 1}}])") ==
        lines({R"({"_id":2,"price":12,"quantityFromSimilarOrders":265})", R"({"_id":0,"price":13,"quantityFromSimilarOrders":265})",
               R"({"_id":4,"price":41,"quantityFromSimilarOrders":162})", R"({"_id":3,"price":13,"quantityFromSimilarOrders":244})",
               R"({"_id":1,"price":14,"quantityFromSimilarOrders":244})", R"({"_id":5,"price":43,"quantityFromSimilarOrders":134})"}));
}

TEST_CASE("a time range window with a month unit takes the orders up to ten months after each one") {
  fixture f;
  f.with("c", k_cakes);
  const std::string ca4 = d("2019-05-18T16:09:01.000Z"), ca0 = d("2020-05-18T14:10:30.000Z"), ca2 = d("2021-01-11T06:31:15.000Z");
  const std::string wa5 = d("2019-01-08T06:12:03.000Z"), wa3 = d("2020-02-08T13:13:23.000Z"), wa1 = d("2021-03-20T11:30:05.000Z");
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
                   "output": {"recentOrders": {"$push": "$orderDate", "window": {"range": ["unbounded", 10], "unit": "month"}}}}},
                  {"$project": {"_id": 1, "recentOrders": 1}}])") ==
        lines({R"({"_id":4,"recentOrders":[)" + ca4 + "]}", R"({"_id":0,"recentOrders":[)" + ca4 + "," + ca0 + "," + ca2 + "]}",
               R"({"_id":2,"recentOrders":[)" + ca4 + "," + ca0 + "," + ca2 + "]}", R"({"_id":5,"recentOrders":[)" + wa5 + "]}",
               R"({"_id":3,"recentOrders":[)" + wa5 + "," + wa3 + "]}", R"({"_id":1,"recentOrders":[)" + wa5 + "," + wa3 + "," + wa1 + "]}"}));
  // A negative upper bound: only the orders at least ten months older; none for the first.
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
                   "output": {"recentOrders": {"$push": "$orderDate", "window": {"range": ["unbounded", -10], "unit": "month"}}}}},
                  {"$project": {"_id": 1, "recentOrders": 1}}])") ==
        lines({R"({"_id":4,"recentOrders":[]})", R"({"_id":0,"recentOrders":[)" + ca4 + "]}", R"({"_id":2,"recentOrders":[)" + ca4 + "]}",
               R"({"_id":5,"recentOrders":[]})", R"({"_id":3,"recentOrders":[)" + wa5 + "]}",
               R"({"_id":1,"recentOrders":[)" + wa5 + "," + wa3 + "]}"}));
}

TEST_CASE("numeric bounds take every tie of a sort value while current is the document itself") {
  fixture f;
  f.with("c", k_ties);
  CHECK(over_ties(f, R"({"range": [0, 0]})") == lines({R"({"_id":1,"w":[1]})", R"({"_id":2,"w":[2,3]})", R"({"_id":3,"w":[2,3]})", R"({"_id":4,"w":[4]})"}));
  CHECK(over_ties(f, R"({"range": ["unbounded", "current"]})") ==
        lines({R"({"_id":1,"w":[1]})", R"({"_id":2,"w":[1,2]})", R"({"_id":3,"w":[1,2,3]})", R"({"_id":4,"w":[1,2,3,4]})"}));
  CHECK(over_ties(f, R"({"range": ["current", 1]})") ==
        lines({R"({"_id":1,"w":[1,2,3]})", R"({"_id":2,"w":[2,3,4]})", R"({"_id":3,"w":[3,4]})", R"({"_id":4,"w":[4]})"}));
  CHECK(over_ties(f, R"({"range": [-0.5, 0.5]})") == lines({R"({"_id":1,"w":[1]})", R"({"_id":2,"w":[2,3]})", R"({"_id":3,"w":[2,3]})", R"({"_id":4,"w":[4]})"}));
}

TEST_CASE("bounds beyond the partition give empty windows or the whole partition") {
  fixture f;
  f.with("c", k_ties);
  CHECK(over_ties(f, R"({"range": [100, 200]})") == lines({R"({"_id":1,"w":[]})", R"({"_id":2,"w":[]})", R"({"_id":3,"w":[]})", R"({"_id":4,"w":[]})"}));
  CHECK(over_ties(f, R"({"range": [-50, 50]})") ==
        lines({R"({"_id":1,"w":[1,2,3,4]})", R"({"_id":2,"w":[1,2,3,4]})", R"({"_id":3,"w":[1,2,3,4]})", R"({"_id":4,"w":[1,2,3,4]})"}));
  // An empty window sums to 0 and averages to null, as mongod's empty accumulators do.
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"t": {"$sum": "$s", "window": {"range": [5, 6]}},
                   "a": {"$avg": "$s", "window": {"range": [5, 6]}}}}}, {"$limit": 1}])") == lines({R"({"_id":1,"s":1,"t":0,"a":null})"}));
  // No input: no partitions, no output.
  fixture empty;
  empty.with("c", "[]");
  CHECK(over_ties(empty, R"({"range": [-1, 1]})").empty());
}

TEST_CASE("month bounds clamp to the end of the month and day bounds are UTC days across a DST change") {
  fixture f;
  f.with("c", R"([{"_id": 1, "t": {"$date": "2024-01-31T00:00:00Z"}}, {"_id": 2, "t": {"$date": "2024-02-29T00:00:00Z"}},
                  {"_id": 3, "t": {"$date": "2024-03-01T00:00:00Z"}}])");
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"w": {"$push": "$_id", "window": {"range": [0, 1], "unit": "month"}}}}},
                  {"$project": {"w": 1}}])") == lines({R"({"_id":1,"w":[1,2]})", R"({"_id":2,"w":[2,3]})", R"({"_id":3,"w":[3]})"}));
  // America/New_York moved to daylight time on 2024-03-10; a window's day is 24 hours of UTC.
  fixture g;
  g.with("c", R"([{"_id": 1, "t": {"$date": "2024-03-09T12:00:00Z"}}, {"_id": 2, "t": {"$date": "2024-03-10T11:00:00Z"}},
                  {"_id": 3, "t": {"$date": "2024-03-10T13:00:00Z"}}])");
  CHECK(g.run(R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"w": {"$push": "$_id", "window": {"range": [-1, 0], "unit": "day"}}}}},
                  {"$project": {"w": 1}}])") == lines({R"({"_id":1,"w":[1]})", R"({"_id":2,"w":[1,2]})", R"({"_id":3,"w":[2,3]})"}));
  // Bounds far past any date: everything before, nothing after.
  CHECK(g.run(R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"w": {"$push": "$_id", "window": {"range": [-1e30, 0], "unit": "year"}},
                   "v": {"$push": "$_id", "window": {"range": [300000000, 400000000], "unit": "year"}}}}}, {"$project": {"w": 1, "v": 1}}])") ==
        lines({R"({"_id":1,"w":[1],"v":[]})", R"({"_id":2,"w":[1,2],"v":[]})", R"({"_id":3,"w":[1,2,3],"v":[]})"}));
}

TEST_CASE("range windows refuse specs mongod refuses, naming the problem") {
  fixture f;
  f.with("c", k_ties);
  auto spec = [&](std::string_view sort, std::string_view window) {
    return f.error(std::string(R"([{"$setWindowFields": {)") + std::string(sort) + R"("output": {"w": {"$sum": 1, "window": )" +
                   std::string(window) + "}}}}]");
  };
  const std::string p = "stage 1 (`$setWindowFields`): ";
  CHECK(spec("", R"({"range": [-1, 1]})") == p + "a `range` window needs a `sortBy` on exactly one field");
  CHECK(spec(R"("sortBy": {"s": 1, "_id": 1}, )", R"({"range": [-1, 1]})") == p + "a `range` window needs a `sortBy` on exactly one field");
  CHECK(spec(R"("sortBy": {"s": -1}, )", R"({"range": [-1, 1]})") == p + "a `range` window needs an ascending `sortBy`");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": [1, -1]})") == p + "the lower window bound must not be above the upper one");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": ["current", -1]})") == p + "the lower window bound must not be above the upper one");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": ["x", 1]})") == p + "range bounds must be \"unbounded\", \"current\" or a number");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": [-1]})") == p + "`range` must be [lower, upper]");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": [-1.5, 1], "unit": "day"})") == p + "with `unit`, range bounds must be integers");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": [-1, 1], "unit": "fortnight"})") ==
        p + "`unit` must be one of year, quarter, month, week, day, hour, minute, second, millisecond");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"range": [-1, 1], "documents": [-1, 1]})") == p + "a window takes `documents` or `range`, not both");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"documents": [-1, 1], "unit": "day"})") == p + "a window takes `unit` only with `range`");
  CHECK(spec(R"("sortBy": {"s": 1}, )", R"({"rows": [-1, 1]})") == p + "unknown window argument `rows`");
  CHECK(spec("", R"({"documents": [-1, 1]})") == p + "a `documents` window needs a `sortBy`");
}

TEST_CASE("range windows refuse sort values that are not numbers, or not dates with a unit") {
  fixture f;
  f.with("c", R"([{"_id": 1, "s": 1}, {"_id": 2, "s": "two"}])");
  const std::string sum = R"([{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"w": {"$sum": 1, "window": {"range": [-1, 1]}}}}}])";
  CHECK(f.error(sum).find("Invalid range: Expected the sortBy field to be a number, but it was string") != std::string::npos);
  fixture g;
  g.with("c", R"([{"_id": 1, "s": 1}, {"_id": 2}])");
  CHECK(g.error(sum).find("Invalid range: Expected the sortBy field to be a number, but it was missing") != std::string::npos);
  fixture h;
  h.with("c", R"([{"_id": 1, "s": {"$date": "2024-01-01T00:00:00Z"}}])");
  CHECK(h.error(sum).find("Invalid range: For windows that involve date or time ranges, a unit must be provided.") != std::string::npos);
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"w": {"$sum": 1, "window": {"range": [-1, 1], "unit": "day"}}}}}])")
            .find("Invalid range: Expected the sortBy field to be a Date, but it was int") != std::string::npos);
}

TEST_CASE("a range window over more documents than the stage's memory limit is refused") {
  fixture f;
  std::string many = "[";
  for (int i = 0; i < 3000; ++i) many += (i ? "," : "") + std::string(R"({"s": )") + std::to_string(i) + R"(, "pad": ")" + std::string(500, 'x') + "\"}";
  f.with("c", many + "]");
  f.options.max_stage_bytes = std::size_t{1} << 20;
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"w": {"$sum": "$s", "window": {"range": [-5, 5]}}}}}])")
            .find("stage `$setWindowFields` exceeded its memory limit of 1 MiB") != std::string::npos);
}
