// $fill and the window operators behind it ($locf, $linearFill): the manual's examples
// (reference/operator/aggregation/fill/, worked by hand), null and missing at the edges of a
// partition, and the errors.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {
constexpr std::string_view k_reviews = R"([
  {"_id": 1, "date": {"$date": "2021-03-08T00:00:00Z"}, "score": 90},
  {"_id": 2, "date": {"$date": "2021-03-09T00:00:00Z"}, "score": 92},
  {"_id": 3, "date": {"$date": "2021-03-10T00:00:00Z"}},
  {"_id": 4, "date": {"$date": "2021-03-11T00:00:00Z"}},
  {"_id": 5, "date": {"$date": "2021-03-12T00:00:00Z"}, "score": 85},
  {"_id": 6, "date": {"$date": "2021-03-13T00:00:00Z"}}])";

std::string fill_error(std::string_view collection_json, std::string_view spec_json) {
  fixture f;
  f.with("c", collection_json);
  return f.error("[{\"$fill\": " + std::string(spec_json) + "}]");
}
}  // namespace

TEST_CASE("fill sets missing fields to a constant value, appended after the existing fields (manual example)") {
  fixture f;
  f.with("c", R"([
    {"_id": 1, "date": {"$date": "2022-02-02T00:00:00Z"}, "bootsSold": 10, "sandalsSold": 20, "sneakersSold": 12},
    {"_id": 2, "date": {"$date": "2022-02-03T00:00:00Z"}, "bootsSold": 7, "sneakersSold": 18},
    {"_id": 3, "date": {"$date": "2022-02-04T00:00:00Z"}, "sneakersSold": 5}])");
  CHECK(f.run(R"([{"$fill": {"output": {"bootsSold": {"value": 0}, "sandalsSold": {"value": 0}, "sneakersSold": {"value": 0}}}}])") ==
        lines({R"({"_id":1,"date":{"$date":"2022-02-02T00:00:00.000Z"},"bootsSold":10,"sandalsSold":20,"sneakersSold":12})",
               R"({"_id":2,"date":{"$date":"2022-02-03T00:00:00.000Z"},"bootsSold":7,"sneakersSold":18,"sandalsSold":0})",
               R"({"_id":3,"date":{"$date":"2022-02-04T00:00:00.000Z"},"sneakersSold":5,"bootsSold":0,"sandalsSold":0})"}));
}

TEST_CASE("linear fill interpolates missing prices between their timed neighbours (manual example)") {
  fixture f;
  f.with("c", R"([
    {"_id": 1, "time": {"$date": "2021-03-08T09:00:00Z"}, "price": 500},
    {"_id": 2, "time": {"$date": "2021-03-08T10:00:00Z"}},
    {"_id": 3, "time": {"$date": "2021-03-08T11:00:00Z"}, "price": 515},
    {"_id": 4, "time": {"$date": "2021-03-08T12:00:00Z"}},
    {"_id": 5, "time": {"$date": "2021-03-08T13:00:00Z"}},
    {"_id": 6, "time": {"$date": "2021-03-08T14:00:00Z"}, "price": 485}])");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"time": 1}, "output": {"price": {"method": "linear"}}}}, {"$project": {"time": 0}}])") ==
        lines({R"({"_id":1,"price":500})", R"({"_id":2,"price":507.5})", R"({"_id":3,"price":515})",
               R"({"_id":4,"price":505.0})", R"({"_id":5,"price":495.0})", R"({"_id":6,"price":485})"}));
}

TEST_CASE("locf carries the last observed score forward (manual example)") {
  fixture f;
  f.with("c", k_reviews);
  CHECK(f.run(R"([{"$fill": {"sortBy": {"date": 1}, "output": {"score": {"method": "locf"}}}}, {"$project": {"date": 0}}])") ==
        lines({R"({"_id":1,"score":90})", R"({"_id":2,"score":92})", R"({"_id":3,"score":92})",
               R"({"_id":4,"score":92})", R"({"_id":5,"score":85})", R"({"_id":6,"score":85})"}));
}

TEST_CASE("locf fills each partition on its own, output partition by partition (manual example)") {
  fixture f;
  f.with("c", R"([
    {"_id": 1, "date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 90},
    {"_id": 2, "date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Sally's Deli", "score": 75},
    {"_id": 3, "date": {"$date": "2021-03-09T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 92},
    {"_id": 4, "date": {"$date": "2021-03-09T00:00:00Z"}, "restaurant": "Sally's Deli"},
    {"_id": 5, "date": {"$date": "2021-03-10T00:00:00Z"}, "restaurant": "Joe's Pizza"},
    {"_id": 6, "date": {"$date": "2021-03-10T00:00:00Z"}, "restaurant": "Sally's Deli", "score": 68},
    {"_id": 7, "date": {"$date": "2021-03-11T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 93},
    {"_id": 8, "date": {"$date": "2021-03-11T00:00:00Z"}, "restaurant": "Sally's Deli"}])");
  const std::string expected = lines({R"({"_id":1,"restaurant":"Joe's Pizza","score":90})", R"({"_id":3,"restaurant":"Joe's Pizza","score":92})",
                                      R"({"_id":5,"restaurant":"Joe's Pizza","score":92})", R"({"_id":7,"restaurant":"Joe's Pizza","score":93})",
                                      R"({"_id":2,"restaurant":"Sally's Deli","score":75})", R"({"_id":4,"restaurant":"Sally's Deli","score":75})",
                                      R"({"_id":6,"restaurant":"Sally's Deli","score":68})", R"({"_id":8,"restaurant":"Sally's Deli","score":68})"});
  CHECK(f.run(R"([{"$fill": {"sortBy": {"date": 1}, "partitionBy": {"restaurant": "$restaurant"}, "output": {"score": {"method": "locf"}}}},
                  {"$project": {"date": 0}}])") == expected);
  CHECK(f.run(R"([{"$fill": {"sortBy": {"date": 1}, "partitionByFields": ["restaurant"], "output": {"score": {"method": "locf"}}}},
                  {"$project": {"date": 0}}])") == expected);
}

TEST_CASE("a flag set before fill tells filled values from observed ones (manual example)") {
  fixture f;
  f.with("c", k_reviews);
  CHECK(f.run(R"([{"$set": {"valueExisted": {"$ifNull": [{"$toBool": {"$toString": "$score"}}, false]}}},
                  {"$fill": {"sortBy": {"date": 1}, "output": {"score": {"method": "locf"}}}}, {"$project": {"date": 0}}])") ==
        lines({R"({"_id":1,"score":90,"valueExisted":true})", R"({"_id":2,"score":92,"valueExisted":true})",
               R"({"_id":3,"valueExisted":false,"score":92})", R"({"_id":4,"valueExisted":false,"score":92})",
               R"({"_id":5,"score":85,"valueExisted":true})", R"({"_id":6,"valueExisted":false,"score":85})"}));
}

TEST_CASE("linear fill accepts the same sort value in different partitions (manual example, 8.1)") {
  fixture f;
  f.with("c", R"([
    {"_id": 1, "date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Steve's Pizza", "score": 90},
    {"_id": 2, "date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Sally's Deli", "score": 75}])");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"date": 1}, "partitionBy": {"restaurant": "$restaurant"}, "output": {"score": {"method": "linear"}}}},
                  {"$project": {"date": 0}}])") ==
        lines({R"({"_id":2,"restaurant":"Sally's Deli","score":75})", R"({"_id":1,"restaurant":"Steve's Pizza","score":90})"}));
}

TEST_CASE("linear fill spreads several consecutive nulls evenly (manual behaviour example)") {
  fixture f;
  f.with("c", R"([{"_id": 4, "index": 4, "value": 10}, {"_id": 0, "index": 0, "value": 0}, {"_id": 1, "index": 1, "value": null},
                  {"_id": 2, "index": 2, "value": null}, {"_id": 3, "index": 3, "value": null}])");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"index": 1}, "output": {"value": {"method": "linear"}}}}, {"$project": {"_id": 0}}])") ==
        lines({R"({"index":0,"value":0})", R"({"index":1,"value":2.5})", R"({"index":2,"value":5.0})",
               R"({"index":3,"value":7.5})", R"({"index":4,"value":10})"}));
}

TEST_CASE("nulls and missing values without a neighbour to fill from become null") {
  fixture f;
  f.with("c", R"([{"_id": 1}, {"_id": 2, "v": 1}, {"_id": 3}, {"_id": 4, "v": 3}, {"_id": 5, "v": null}])");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"_id": 1}, "output": {"v": {"method": "linear"}}}}])") ==
        lines({R"({"_id":1,"v":null})", R"({"_id":2,"v":1})", R"({"_id":3,"v":2.0})", R"({"_id":4,"v":3})", R"({"_id":5,"v":null})"}));
  CHECK(f.run(R"([{"$fill": {"sortBy": {"_id": 1}, "output": {"v": {"method": "locf"}}}}])") ==
        lines({R"({"_id":1,"v":null})", R"({"_id":2,"v":1})", R"({"_id":3,"v":1})", R"({"_id":4,"v":3})", R"({"_id":5,"v":3})"}));
  // a descending sort fills from the other side
  CHECK(f.run(R"([{"$fill": {"sortBy": {"_id": -1}, "output": {"v": {"method": "locf"}}}}])") ==
        lines({R"({"_id":5,"v":null})", R"({"_id":4,"v":3})", R"({"_id":3,"v":3})", R"({"_id":2,"v":1})", R"({"_id":1,"v":1})"}));
}

TEST_CASE("fill over an empty input or one document") {
  fixture f;
  f.with("c", "[]");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "linear"}, "w": {"value": 1}}}}])").empty());
  fixture g;
  g.with("c", R"([{"_id": 1, "t": 1}])");
  CHECK(g.run(R"([{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "linear"}, "w": {"value": "$t"}}}}])") ==
        lines({R"({"_id":1,"t":1,"v":null,"w":1})"}));
}

TEST_CASE("a value fill keeps the input order and fills nulls too; its expression reads the document") {
  fixture f;
  f.with("c", R"([{"_id": 2, "a": null, "b": 5}, {"_id": 1, "b": 7}, {"_id": 3, "a": 1}])");
  CHECK(f.run(R"([{"$fill": {"sortBy": {"_id": 1}, "output": {"a": {"value": {"$multiply": ["$b", 2]}}}}}])") ==
        lines({R"({"_id":2,"a":10,"b":5})", R"({"_id":1,"b":7,"a":14})", R"({"_id":3,"a":1})"}));
}

TEST_CASE("$setWindowFields runs $locf and $linearFill into other fields") {
  fixture f;
  f.with("c", R"([{"_id": 1, "v": 10}, {"_id": 2}, {"_id": 3, "v": 30}])");
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"l": {"$locf": "$v"}, "i": {"$linearFill": "$v"}}}}])") ==
        lines({R"({"_id":1,"v":10,"l":10,"i":10})", R"({"_id":2,"l":10,"i":20.0})", R"({"_id":3,"v":30,"l":30,"i":30})"}));
}

TEST_CASE("a bad fill specification is refused with a precise message") {
  const std::string_view c = R"([{"_id": 1, "t": 1, "v": 1}])";
  const std::string p = "stage 1 (`$fill`): ";
  CHECK(fill_error(c, R"({"partitionBy": "$a", "partitionByFields": ["a"], "output": {"v": {"value": 0}}})") ==
        p + "at most one of `partitionBy` and `partitionByFields` may be given");
  CHECK(fill_error(c, R"({"sortBy": {"t": 1}, "output": {"v": {"method": "nearest"}}})") ==
        p + "output `v`: `method` must be either \"locf\" or \"linear\"");
  CHECK(fill_error(c, R"({"sortBy": {"t": 1}, "output": {"v": {"method": "locf", "value": 1}}})") ==
        p + "output `v` must have exactly one of `method` or `value`");
  CHECK(fill_error(c, R"({"output": {"v": {}}})") == p + "output `v` must have exactly one of `method` or `value`");
  CHECK(fill_error(c, R"({"output": {"v": 0}})") ==
        p + "output `v` must be a document: {\"value\": <expression>} or {\"method\": \"locf\" | \"linear\"}");
  CHECK(fill_error(c, R"({"output": {"v": {"value": 0, "default": 1}}})") == p + "output `v`: unknown argument `default`");
  CHECK(fill_error(c, R"({"output": {}})") == p + "`output` must be a document with at least one field to fill");
  CHECK(fill_error(c, R"({"sortBy": {"t": 1}})") == p + "`output` must be a document with at least one field to fill");
  CHECK(fill_error(c, R"({"output": {"v": {"method": "linear"}}})") == p + "`$linearFill` requires a sortBy");
  CHECK(fill_error(c, R"({"sortBy": {"t": 1, "v": 1}, "output": {"v": {"method": "linear"}}})") ==
        p + "`$linearFill` requires a non-compound sortBy");
  CHECK(fill_error(c, R"({"output": {"v": {"value": 0}}, "window": {}})") ==
        p + "unknown argument `window` (expected `partitionBy`, `partitionByFields`, `sortBy`, `output`)");
  CHECK(fill_error(c, R"({"partitionByFields": ["$a"], "output": {"v": {"method": "locf"}}})") ==
        p + "partitionByFields field `$a` has a component starting with '$'");
  CHECK(fill_error(c, R"({"partitionBy": 5, "output": {"v": {"method": "locf"}}})") ==
        p + "`partitionBy` must be an expression given as a string (\"$field\") or a document, got int");
  CHECK(fill_error(c, R"({"sortBy": "t", "output": {"v": {"value": 1}}})") == p + "`sortBy` must be a sort document such as {\"time\": 1}");
  CHECK(fill_error(c, R"({"partitionByFields": "a", "output": {"v": {"method": "locf"}}})") ==
        p + "`partitionByFields` must be an array of field names");
}

TEST_CASE("linear fill fails on values it cannot interpolate") {
  const std::string_view spec = R"({"sortBy": {"t": 1}, "output": {"v": {"method": "linear"}}})";
  CHECK(fill_error(R"([{"t": 1, "v": 1}, {"t": 1}, {"t": 2, "v": 3}])", spec) ==
        "`$linearFill`: there can be no repeated values in the sort field");
  CHECK(fill_error(R"([{"t": 1, "v": "one"}, {"t": 2}])", spec) ==
        "`$linearFill`: value to be filled must be numeric or nullish, but found string");
  CHECK(fill_error(R"([{"t": "a", "v": 1}, {"t": "b"}])", spec) ==
        "`$linearFill`: value of the sortBy field must be numeric or a date, but found string");
  CHECK(fill_error(R"([{"v": 1}])", spec) == "`$linearFill`: value of the sortBy field must be numeric or a date, but found missing");
  CHECK(fill_error(R"([{"t": 1, "v": 1}, {"t": {"$date": "2021-01-01T00:00:00Z"}}])", spec) ==
        "`$linearFill`: conflicting sort value types, previously received type int, but found date");
}

TEST_CASE("fill holds its input within the stage memory limit and names itself past it") {
  fixture f;
  std::string many = "[";
  for (int i = 0; i < 2000; ++i) many += (i ? ",{\"t\":" : "{\"t\":") + std::to_string(i) + ",\"pad\":\"" + std::string(100, 'x') + "\"}";
  f.with("c", many + "]");
  f.options.max_stage_bytes = 64 * 1024;
  CHECK(f.error(R"([{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "locf"}}}}])").find("stage `$fill` exceeded its memory limit of ") == 0);
}
