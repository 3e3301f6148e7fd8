// $densify: the manual's examples (reference/operator/aggregation/densify/, worked by hand),
// the edges of the grid, the pass-through of null and missing values, and the errors.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {
constexpr std::string_view k_weather = R"([
  {"_id": 1, "timestamp": {"$date": "2021-05-18T00:00:00Z"}, "temp": 12},
  {"_id": 2, "timestamp": {"$date": "2021-05-18T04:00:00Z"}, "temp": 11},
  {"_id": 3, "timestamp": {"$date": "2021-05-18T08:00:00Z"}, "temp": 11},
  {"_id": 4, "timestamp": {"$date": "2021-05-18T12:00:00Z"}, "temp": 12}])";

constexpr std::string_view k_coffee = R"([
  {"_id": 1, "altitude": 600, "variety": "Arabica Typica", "score": 68.3},
  {"_id": 2, "altitude": 750, "variety": "Arabica Typica", "score": 69.5},
  {"_id": 3, "altitude": 950, "variety": "Arabica Typica", "score": 70.5},
  {"_id": 4, "altitude": 1250, "variety": "Gesha", "score": 88.15},
  {"_id": 5, "altitude": 1700, "variety": "Gesha", "score": 95.5, "price": 1029}])";

std::string densify_error(std::string_view collection_json, std::string_view spec_json) {
  fixture f;
  f.with("c", collection_json);
  return f.error("[{\"$densify\": " + std::string(spec_json) + "}]");
}
}  // namespace

TEST_CASE("densify fills hourly gaps of time series data within explicit date bounds (manual example)") {
  fixture f;
  f.with("c", k_weather);
  CHECK(f.run(R"([{"$densify": {"field": "timestamp", "range": {"step": 1, "unit": "hour",
                   "bounds": [{"$date": "2021-05-18T00:00:00Z"}, {"$date": "2021-05-18T08:00:00Z"}]}}}])") ==
        lines({R"({"_id":1,"timestamp":{"$date":"2021-05-18T00:00:00.000Z"},"temp":12})",
               R"({"timestamp":{"$date":"2021-05-18T01:00:00.000Z"}})", R"({"timestamp":{"$date":"2021-05-18T02:00:00.000Z"}})",
               R"({"timestamp":{"$date":"2021-05-18T03:00:00.000Z"}})",
               R"({"_id":2,"timestamp":{"$date":"2021-05-18T04:00:00.000Z"},"temp":11})",
               R"({"timestamp":{"$date":"2021-05-18T05:00:00.000Z"}})", R"({"timestamp":{"$date":"2021-05-18T06:00:00.000Z"}})",
               R"({"timestamp":{"$date":"2021-05-18T07:00:00.000Z"}})",
               R"({"_id":3,"timestamp":{"$date":"2021-05-18T08:00:00.000Z"},"temp":11})",
               R"({"_id":4,"timestamp":{"$date":"2021-05-18T12:00:00.000Z"},"temp":12})"}));
}

// The manual lists the same 16 documents, with Arabica Typica's 1000…1600 last (MongoDB
// streams them at the end of its input); omgdb emits partition by partition.
TEST_CASE("full bounds densify every partition over the range of all documents, on the grid of the smallest value") {
  fixture f;
  f.with("c", k_coffee);
  CHECK(f.run(R"([{"$densify": {"field": "altitude", "partitionByFields": ["variety"], "range": {"bounds": "full", "step": 200}}}])") ==
        lines({R"({"_id":1,"altitude":600,"variety":"Arabica Typica","score":68.3})",
               R"({"_id":2,"altitude":750,"variety":"Arabica Typica","score":69.5})",
               R"({"variety":"Arabica Typica","altitude":800})",
               R"({"_id":3,"altitude":950,"variety":"Arabica Typica","score":70.5})",
               R"({"variety":"Arabica Typica","altitude":1000})", R"({"variety":"Arabica Typica","altitude":1200})",
               R"({"variety":"Arabica Typica","altitude":1400})", R"({"variety":"Arabica Typica","altitude":1600})",
               R"({"variety":"Gesha","altitude":600})", R"({"variety":"Gesha","altitude":800})",
               R"({"variety":"Gesha","altitude":1000})", R"({"variety":"Gesha","altitude":1200})",
               R"({"_id":4,"altitude":1250,"variety":"Gesha","score":88.15})",
               R"({"variety":"Gesha","altitude":1400})", R"({"variety":"Gesha","altitude":1600})",
               R"({"_id":5,"altitude":1700,"variety":"Gesha","score":95.5,"price":1029})"}));
}

TEST_CASE("partition bounds densify each partition from its own smallest value to its largest (manual example)") {
  fixture f;
  f.with("c", k_coffee);
  CHECK(f.run(R"([{"$densify": {"field": "altitude", "partitionByFields": ["variety"], "range": {"bounds": "partition", "step": 200}}}])") ==
        lines({R"({"_id":1,"altitude":600,"variety":"Arabica Typica","score":68.3})",
               R"({"_id":2,"altitude":750,"variety":"Arabica Typica","score":69.5})",
               R"({"variety":"Arabica Typica","altitude":800})",
               R"({"_id":3,"altitude":950,"variety":"Arabica Typica","score":70.5})",
               R"({"_id":4,"altitude":1250,"variety":"Gesha","score":88.15})",
               R"({"variety":"Gesha","altitude":1450})", R"({"variety":"Gesha","altitude":1650})",
               R"({"_id":5,"altitude":1700,"variety":"Gesha","score":95.5,"price":1029})"}));
}

TEST_CASE("explicit bounds generate the whole range over an empty input, full bounds generate nothing") {
  fixture f;
  f.with("c", "[]");
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 3, "bounds": [0, 10]}}}])") ==
        lines({R"({"x":0})", R"({"x":3})", R"({"x":6})", R"({"x":9})"}));
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 3, "bounds": "full"}}}])").empty());
  // with partitions there is no partition to fill
  CHECK(f.run(R"([{"$densify": {"field": "x", "partitionByFields": ["p"], "range": {"step": 3, "bounds": [0, 10]}}}])").empty());
}

TEST_CASE("a single document is its own full range") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 5}])");
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 1, "bounds": "full"}}}])") == lines({R"({"_id":1,"x":5})"}));
}

TEST_CASE("a step that does not divide the range stops at the last grid value inside it") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 0}, {"_id": 2, "x": 10}])");
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 4, "bounds": "full"}}}])") ==
        lines({R"({"_id":1,"x":0})", R"({"x":4})", R"({"x":8})", R"({"_id":2,"x":10})"}));
  // explicit bounds: the grid starts at the lower bound; the upper one is exclusive
  fixture g;
  g.with("c", R"([{"_id": 1, "x": 5}, {"_id": 2, "x": -3}, {"_id": 3, "x": 40}])");
  CHECK(g.run(R"([{"$densify": {"field": "x", "range": {"step": 4, "bounds": [1, 13]}}}])") ==
        lines({R"({"_id":2,"x":-3})", R"({"x":1})", R"({"_id":1,"x":5})", R"({"x":9})", R"({"_id":3,"x":40})"}));
}

TEST_CASE("documents with the field null or missing pass through unchanged and generate nothing") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 2}, {"_id": 2}, {"_id": 3, "x": null}, {"_id": 4, "x": 0}])");
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 1, "bounds": "full"}}}])") ==
        lines({R"({"_id":2})", R"({"_id":3,"x":null})", R"({"_id":4,"x":0})", R"({"x":1})", R"({"_id":1,"x":2})"}));
}

TEST_CASE("a double step makes double values from an int start") {
  fixture f;
  f.with("c", R"([{"x": 0}, {"x": 1.5}])");
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 0.5, "bounds": "full"}}}, {"$project": {"_id": 0}}])") ==
        lines({R"({"x":0})", R"({"x":0.5})", R"({"x":1.0})", R"({"x":1.5})"}));
}

TEST_CASE("month steps add months one after the other, clamping to the end of the month as $dateAdd does") {
  fixture f;
  f.with("c", "[]");
  CHECK(f.run(R"([{"$densify": {"field": "d", "range": {"step": 1, "unit": "month",
                   "bounds": [{"$date": "2021-01-31T10:00:00Z"}, {"$date": "2021-05-01T00:00:00Z"}]}}}])") ==
        lines({R"({"d":{"$date":"2021-01-31T10:00:00.000Z"}})", R"({"d":{"$date":"2021-02-28T10:00:00.000Z"}})",
               R"({"d":{"$date":"2021-03-28T10:00:00.000Z"}})", R"({"d":{"$date":"2021-04-28T10:00:00.000Z"}})"}));
}

// $densify has no timezone: a day is 24 hours of UTC, also across a DST change elsewhere
// (the United States moved their clocks on 2021-03-14).
TEST_CASE("day steps are 24 hours in UTC across a daylight saving change") {
  fixture f;
  f.with("c", R"([{"d": {"$date": "2021-03-13T12:00:00Z"}}, {"d": {"$date": "2021-03-16T12:00:00Z"}}])");
  CHECK(f.run(R"([{"$densify": {"field": "d", "range": {"step": 1, "unit": "day", "bounds": "full"}}}, {"$project": {"_id": 0}}])") ==
        lines({R"({"d":{"$date":"2021-03-13T12:00:00.000Z"}})", R"({"d":{"$date":"2021-03-14T12:00:00.000Z"}})",
               R"({"d":{"$date":"2021-03-15T12:00:00.000Z"}})", R"({"d":{"$date":"2021-03-16T12:00:00.000Z"}})"}));
}

TEST_CASE("partitions by a dotted field keep a missing partition field apart and copy the fields into generated documents") {
  fixture f;
  f.with("c", R"([{"_id": 1, "g": {"k": 1}, "x": 0}, {"_id": 2, "g": {"k": 1}, "x": 2}, {"_id": 3, "x": 0}, {"_id": 4, "x": 3}])");
  CHECK(f.run(R"([{"$densify": {"field": "x", "partitionByFields": ["g.k"], "range": {"step": 1, "bounds": "full"}}}])") ==
        lines({R"({"_id":3,"x":0})", R"({"x":1})", R"({"x":2})", R"({"_id":4,"x":3})",
               R"({"_id":1,"g":{"k":1},"x":0})", R"({"g":{"k":1},"x":1})", R"({"_id":2,"g":{"k":1},"x":2})", R"({"g":{"k":1},"x":3})"}));
}

TEST_CASE("a nested densify field is generated as a nested document") {
  fixture f;
  f.with("c", R"([{"_id": 1, "m": {"t": 1}}, {"_id": 2, "m": {"t": 3}}])");
  CHECK(f.run(R"([{"$densify": {"field": "m.t", "range": {"step": 1, "bounds": "full"}}}])") ==
        lines({R"({"_id":1,"m":{"t":1}})", R"({"m":{"t":2}})", R"({"_id":2,"m":{"t":3}})"}));
}

TEST_CASE("a bad densify specification is refused with MongoDB's message") {
  const std::string_view c = R"([{"x": 1}])";
  const std::string p = "stage 1 (`$densify`): ";
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 0, "bounds": "full"}})") ==
        p + "The step parameter in a range statement must be a strictly positive numeric value");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": -2, "bounds": "full"}})") ==
        p + "The step parameter in a range statement must be a strictly positive numeric value");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": "1", "bounds": "full"}})") ==
        p + "The step parameter in a range statement must be a strictly positive numeric value");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "unit": "hour", "bounds": [0, 10]}})") ==
        p + "Numeric bounds may not have unit parameter");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "unit": "hour", "bounds": [0, {"$date": "2021-01-01T00:00:00Z"}]}})") ==
        p + "Numeric bounds may not have unit parameter");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": [0, {"$date": "2021-01-01T00:00:00Z"}]}})") ==
        p + "A bounding array must contain either both dates or both numeric types");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": [{"$date": "2021-01-01T00:00:00Z"}, 5]}})") ==
        p + "A bounding array must be an ascending array of either two dates or two numbers");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": [{"$date": "2021-01-01T00:00:00Z"}, {"$date": "2021-01-02T00:00:00Z"}]}})") ==
        p + "A bounding array of dates must specify a unit");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": [10, 0]}})") ==
        p + "A bounding array must be an ascending array of either two dates or two numbers");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": [0, 1, 2]}})") ==
        p + "A bounding array in a range statement must have exactly two elements");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": ["a", "b"]}})") ==
        p + "Explicit bounds must be numeric or dates");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": "all"}})") ==
        p + "Bounds string must either be 'full' or 'partition'");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1}})") ==
        p + "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": "partition"}})") ==
        p + "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. "
            "You may have meant to specify 'full' bounds.");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1.5, "unit": "day", "bounds": "full"}})") ==
        p + "The step parameter in a range statement must be a whole number when densifying a date range");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "unit": "fortnight", "bounds": "full"}})") ==
        p + "`unit` must be one of millisecond, second, minute, hour, day, week, month, quarter, year");
  CHECK(densify_error(c, R"({"field": "x", "partitionByFields": ["x"], "range": {"step": 1, "bounds": "full"}})") ==
        p + "`field` `x` must not be in `partitionByFields` (`x`), nor a prefix of one or have one as its prefix");
  CHECK(densify_error(c, R"({"field": "a.b", "partitionByFields": ["a"], "range": {"step": 1, "bounds": "full"}})") ==
        p + "`field` `a.b` must not be in `partitionByFields` (`a`), nor a prefix of one or have one as its prefix");
  CHECK(densify_error(c, R"({"field": "$x", "range": {"step": 1, "bounds": "full"}})") ==
        p + "`field` `$x` has a component starting with '$'");
  CHECK(densify_error(c, R"({"range": {"step": 1, "bounds": "full"}})") == p + "`field` is required: the name of the field to densify");
  CHECK(densify_error(c, R"({"field": "x"})") == p + "`range` is required: {\"step\": …, \"bounds\": …, \"unit\": …}");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": 1, "bounds": "full"}, "sortBy": {"x": 1}})") ==
        p + "unknown argument `sortBy` (expected `field`, `partitionByFields`, `range`)");
  CHECK(densify_error(c, R"({"field": "x", "range": {"step": {"$numberDecimal": "1"}, "bounds": "full"}})") ==
        p + "a Decimal128 `step` is not supported yet; give an int, a long or a double");
}

TEST_CASE("a value of the wrong kind in the densified field fails the call") {
  CHECK(densify_error(R"([{"x": 1}, {"x": "two"}])", R"({"field": "x", "range": {"step": 1, "bounds": "full"}})") ==
        "`$densify`: the field `x` holds a value of type string; densify field type must be numeric or a date");
  CHECK(densify_error(R"([{"x": {"$date": "2021-01-01T00:00:00Z"}}])", R"({"field": "x", "range": {"step": 1, "bounds": "full"}})") ==
        "`$densify`: the field `x` holds a date but the range has no `unit`: give one, for example \"unit\": \"day\"");
  CHECK(densify_error(R"([{"x": 3}])", R"({"field": "x", "range": {"step": 1, "unit": "day", "bounds": "full"}})") ==
        "`$densify`: the field `x` holds a number but the range has a `unit`, which densifies dates");
  CHECK(densify_error(R"([{"x": [1, 2]}])", R"({"field": "x", "range": {"step": 1, "bounds": "full"}})") ==
        "`$densify`: the field `x` holds a value of type array; densify field type must be numeric or a date");
}

TEST_CASE("densify refuses to generate past the stage memory limit and names the stage") {
  fixture f;
  f.with("c", "[]");
  f.options.max_stage_bytes = 1 << 20;
  const std::string e = f.error(R"([{"$densify": {"field": "x", "range": {"step": 1, "bounds": [0, 1000000000000]}}}])");
  CHECK(e.find("stage `$densify` exceeded its memory limit of 1 MiB after generating ") == 0);
  CHECK(e.find(" documents (it holds its input and the documents it generates in memory and does not spill to disk): "
               "use a larger `step` or narrower `bounds`, or add a `$match` before it") != std::string::npos);
  // a range that fits is generated in full
  CHECK(f.run(R"([{"$densify": {"field": "x", "range": {"step": 1, "bounds": [0, 1000]}}}, {"$count": "n"}])") == lines({R"({"n":1000})"}));
}

TEST_CASE("densify is suggested for a misspelt stage name") {
  fixture f;
  f.with("c", "[]");
  CHECK(f.error(R"([{"$densfy": {}}])") == "stage 1: unknown stage `$densfy` (did you mean `$densify`?)");
}
