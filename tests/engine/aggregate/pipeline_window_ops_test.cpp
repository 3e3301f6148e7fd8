// The window-only operators of $setWindowFields, each on its manual page's example
// (reference/operator/aggregation/<name>/; outputs worked by hand from the manual, doubles
// compared after $round), then the edge cases and the errors mongod gives for bad specs.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {
constexpr std::string_view k_cakes = R"([
  {"_id": 0, "orderDate": {"$date": "2020-05-18T14:10:30Z"}, "state": "CA", "price": 13, "quantity": 120},
  {"_id": 1, "orderDate": {"$date": "2021-03-20T11:30:05Z"}, "state": "WA", "price": 14, "quantity": 140},
  {"_id": 2, "orderDate": {"$date": "2021-01-11T06:31:15Z"}, "state": "CA", "price": 12, "quantity": 145},
  {"_id": 3, "orderDate": {"$date": "2020-02-08T13:13:23Z"}, "state": "WA", "price": 13, "quantity": 104},
  {"_id": 4, "orderDate": {"$date": "2019-05-18T16:09:01Z"}, "state": "CA", "price": 41, "quantity": 162},
  {"_id": 5, "orderDate": {"$date": "2019-01-08T06:12:03Z"}, "state": "WA", "price": 43, "quantity": 134}])";

constexpr std::string_view k_trucks = R"([
  {"_id": 1, "truckID": "1", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "miles": 1295.1},
  {"_id": 2, "truckID": "1", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "miles": 1295.63},
  {"_id": 3, "truckID": "1", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "miles": 1296.25},
  {"_id": 4, "truckID": "1", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "miles": 1296.76},
  {"_id": 5, "truckID": "2", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "miles": 10234.1},
  {"_id": 6, "truckID": "2", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "miles": 10234.33},
  {"_id": 7, "truckID": "2", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "miles": 10234.73},
  {"_id": 8, "truckID": "2", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "miles": 10235.13}])";

constexpr std::string_view k_power = R"([
  {"_id": 1, "powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "kilowatts": 2.95},
  {"_id": 2, "powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "kilowatts": 2.7},
  {"_id": 3, "powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "kilowatts": 2.6},
  {"_id": 4, "powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "kilowatts": 2.98},
  {"_id": 5, "powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "kilowatts": 2.5},
  {"_id": 6, "powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "kilowatts": 2.25},
  {"_id": 7, "powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "kilowatts": 2.75},
  {"_id": 8, "powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "kilowatts": 2.82}])";

constexpr std::string_view k_stocks = R"([
  {"_id": 1, "stock": "ABC", "date": {"$date": "2020-05-18T20:00:00Z"}, "price": 13},
  {"_id": 2, "stock": "ABC", "date": {"$date": "2020-05-19T20:00:00Z"}, "price": 15.4},
  {"_id": 3, "stock": "ABC", "date": {"$date": "2020-05-20T20:00:00Z"}, "price": 12},
  {"_id": 4, "stock": "ABC", "date": {"$date": "2020-05-21T20:00:00Z"}, "price": 11.7},
  {"_id": 5, "stock": "DEF", "date": {"$date": "2020-05-18T20:00:00Z"}, "price": 82},
  {"_id": 6, "stock": "DEF", "date": {"$date": "2020-05-19T20:00:00Z"}, "price": 94},
  {"_id": 7, "stock": "DEF", "date": {"$date": "2020-05-20T20:00:00Z"}, "price": 112},
  {"_id": 8, "stock": "DEF", "date": {"$date": "2020-05-21T20:00:00Z"}, "price": 97.3}])";

// The manual's $locf / $linearFill collection: hourly prices with gaps.
constexpr std::string_view k_gaps = R"([
  {"_id": 1, "time": {"$date": "2021-03-08T09:00:00Z"}, "price": 500}, {"_id": 2, "time": {"$date": "2021-03-08T10:00:00Z"}},
  {"_id": 3, "time": {"$date": "2021-03-08T11:00:00Z"}, "price": 515}, {"_id": 4, "time": {"$date": "2021-03-08T12:00:00Z"}, "price": null},
  {"_id": 5, "time": {"$date": "2021-03-08T13:00:00Z"}}, {"_id": 6, "time": {"$date": "2021-03-08T14:00:00Z"}, "price": 485}])";

const std::string k_p = "stage 1 (`$setWindowFields`): ";

// The error of one output spec over k_cakes (sortBy and the rest given as JSON members).
std::string spec_error(std::string_view members, std::string_view output) {
  fixture f;
  f.with("c", k_cakes);
  return f.error(std::string(R"([{"$setWindowFields": {)") + std::string(members) + R"("output": {"o": )" + std::string(output) + "}}}]");
}
}  // namespace

TEST_CASE("shift reads the quantity one document later in each state, or the default past the end") {
  fixture f;
  f.with("c", k_cakes);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
                   "output": {"shiftQuantityForState": {"$shift": {"output": "$quantity", "by": 1, "default": "Not available"}}}}},
                  {"$project": {"_id": 1, "quantity": 1, "shiftQuantityForState": 1}}])") ==
        lines({R"({"_id":4,"quantity":162,"shiftQuantityForState":145})", R"({"_id":2,"quantity":145,"shiftQuantityForState":120})",
               R"({"_id":0,"quantity":120,"shiftQuantityForState":"Not available"})", R"({"_id":1,"quantity":140,"shiftQuantityForState":134})",
               R"({"_id":5,"quantity":134,"shiftQuantityForState":104})", R"({"_id":3,"quantity":104,"shiftQuantityForState":"Not available"})"}));
  // by: -1 looks back; without a default the value is null; a missing output leaves the field out.
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
                   "output": {"prev": {"$shift": {"output": "$quantity", "by": -1}}, "gone": {"$shift": {"output": "$nope", "by": 0}}}}},
                  {"$project": {"_id": 1, "prev": 1, "gone": 1}}])") ==
        lines({R"({"_id":4,"prev":null})", R"({"_id":2,"prev":162})", R"({"_id":0,"prev":145})", R"({"_id":1,"prev":null})",
               R"({"_id":5,"prev":140})", R"({"_id":3,"prev":134})"}));
}

TEST_CASE("derivative gives each truck's speed in miles per hour over the last 30 seconds") {
  fixture f;
  f.with("c", k_trucks);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$truckID", "sortBy": {"timeStamp": 1},
                   "output": {"truckAverageSpeed": {"$derivative": {"input": "$miles", "unit": "hour"}, "window": {"range": [-30, 0], "unit": "second"}}}}},
                  {"$match": {"truckAverageSpeed": {"$gt": 50}}},
                  {"$project": {"_id": 1, "speed": {"$round": ["$truckAverageSpeed", 1]}}}])") ==
        lines({R"({"_id":2,"speed":63.6})", R"({"_id":3,"speed":74.4})", R"({"_id":4,"speed":61.2})"}));
  // The first document's window holds only itself: no run, no rate.
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$truckID", "sortBy": {"timeStamp": 1},
                   "output": {"s": {"$derivative": {"input": "$miles", "unit": "hour"}, "window": {"range": [-30, 0], "unit": "second"}}}}},
                  {"$limit": 1}, {"$project": {"s": 1}}])") == lines({R"({"_id":1,"s":null})"}));
}

TEST_CASE("integral gives each meter's kilowatt-hours by the trapezoidal rule up to each reading") {
  fixture f;
  f.with("c", k_power);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$powerMeterID", "sortBy": {"timeStamp": 1},
                   "output": {"kwh": {"$integral": {"input": "$kilowatts", "unit": "hour"}, "window": {"range": ["unbounded", "current"], "unit": "minute"}}}}},
                  {"$project": {"_id": 1, "kwh": {"$round": ["$kwh", 6]}}}])") ==
        lines({R"({"_id":1,"kwh":0.0})", R"({"_id":2,"kwh":0.023542})", R"({"_id":3,"kwh":0.045625})", R"({"_id":4,"kwh":0.068875})",
               R"({"_id":5,"kwh":0.0})", R"({"_id":6,"kwh":0.019792})", R"({"_id":7,"kwh":0.040625})", R"({"_id":8,"kwh":0.063833})"}));
  // Numeric sort values and the default window (the whole partition): (1+3)*1/2 + (3+5)*2/2 = 10.
  fixture g;
  g.with("c", R"([{"_id": 1, "x": 0, "y": 1}, {"_id": 2, "x": 1, "y": 3}, {"_id": 3, "x": 3, "y": 5}])");
  CHECK(g.run(R"([{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"area": {"$integral": {"input": "$y"}}}}}, {"$project": {"area": 1}}])") ==
        lines({R"({"_id":1,"area":10.0})", R"({"_id":2,"area":10.0})", R"({"_id":3,"area":10.0})"}));
}

TEST_CASE("expMovingAvg weighs each price by N or by alpha") {
  fixture f;
  f.with("c", k_stocks);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$stock", "sortBy": {"date": 1},
                   "output": {"ema": {"$expMovingAvg": {"input": "$price", "N": 2}}}}},
                  {"$project": {"_id": 1, "ema": {"$round": ["$ema", 6]}}}])") ==
        lines({R"({"_id":1,"ema":13.0})", R"({"_id":2,"ema":14.6})", R"({"_id":3,"ema":12.866667})", R"({"_id":4,"ema":12.088889})",
               R"({"_id":5,"ema":82.0})", R"({"_id":6,"ema":90.0})", R"({"_id":7,"ema":104.666667})", R"({"_id":8,"ema":99.755556})"}));
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$stock", "sortBy": {"date": 1},
                   "output": {"ema": {"$expMovingAvg": {"input": "$price", "alpha": 0.75}}}}},
                  {"$project": {"_id": 1, "ema": {"$round": ["$ema", 6]}}}])") ==
        lines({R"({"_id":1,"ema":13.0})", R"({"_id":2,"ema":14.8})", R"({"_id":3,"ema":12.7})", R"({"_id":4,"ema":11.95})",
               R"({"_id":5,"ema":82.0})", R"({"_id":6,"ema":91.0})", R"({"_id":7,"ema":106.75})", R"({"_id":8,"ema":99.6625})"}));
  // Non-numbers are skipped: the average so far stands, null before any number.
  fixture g;
  g.with("c", R"([{"_id": 1, "p": "n/a"}, {"_id": 2, "p": 10}, {"_id": 3}, {"_id": 4, "p": 20}])");
  CHECK(g.run(R"([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"e": {"$expMovingAvg": {"input": "$p", "alpha": 0.5}}}}},
                  {"$project": {"e": 1}}])") ==
        lines({R"({"_id":1,"e":null})", R"({"_id":2,"e":10.0})", R"({"_id":3,"e":10.0})", R"({"_id":4,"e":15.0})"}));
}

TEST_CASE("covariancePop and covarianceSamp relate order year and quantity per state as the orders come") {
  fixture f;
  f.with("c", k_cakes);
  CHECK(f.run(R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
                     "pop": {"$covariancePop": [{"$year": "$orderDate"}, "$quantity"], "window": {"documents": ["unbounded", "current"]}},
                     "samp": {"$covarianceSamp": [{"$year": "$orderDate"}, "$quantity"], "window": {"documents": ["unbounded", "current"]}}}}},
                  {"$project": {"_id": 1, "pop": {"$round": ["$pop", 6]}, "samp": {"$round": ["$samp", 6]}}}])") ==
        lines({R"({"_id":4,"pop":0.0,"samp":null})", R"({"_id":0,"pop":-10.5,"samp":-21.0})", R"({"_id":2,"pop":-5.666667,"samp":-8.5})",
               R"({"_id":5,"pop":0.0,"samp":null})", R"({"_id":3,"pop":-7.5,"samp":-15.0})", R"({"_id":1,"pop":2.0,"samp":3.0})"}));
}

TEST_CASE("locf carries the last price forward and linearFill draws the line between known prices") {
  fixture f;
  f.with("c", k_gaps);
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"time": 1}, "output": {"price": {"$locf": "$price"}}}}, {"$project": {"price": 1}}])") ==
        lines({R"({"_id":1,"price":500})", R"({"_id":2,"price":500})", R"({"_id":3,"price":515})", R"({"_id":4,"price":515})",
               R"({"_id":5,"price":515})", R"({"_id":6,"price":485})"}));
  CHECK(f.run(R"([{"$setWindowFields": {"sortBy": {"time": 1}, "output": {"price": {"$linearFill": "$price"}}}},
                  {"$project": {"price": {"$round": ["$price", 6]}}}])") ==
        lines({R"({"_id":1,"price":500})", R"({"_id":2,"price":507.5})", R"({"_id":3,"price":515})", R"({"_id":4,"price":505.0})",
               R"({"_id":5,"price":495.0})", R"({"_id":6,"price":485})"}));
  // Before the first and after the last known value there is no line: null stays null.
  fixture g;
  g.with("c", R"([{"_id": 1, "x": 1}, {"_id": 2, "x": 2, "y": 4}, {"_id": 3, "x": 3}])");
  CHECK(g.run(R"([{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"y": {"$linearFill": "$y"}, "l": {"$locf": "$y"}}}}])") ==
        lines({R"({"_id":1,"x":1,"y":null,"l":null})", R"({"_id":2,"x":2,"y":4,"l":4})", R"({"_id":3,"x":3,"y":null,"l":4})"}));
}

TEST_CASE("linearFill refuses repeated sort values and values it cannot interpolate") {
  fixture f;
  f.with("c", R"([{"_id": 1, "x": 1, "y": 1}, {"_id": 2, "x": 1}, {"_id": 3, "x": 2, "y": 3}])");
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"y": {"$linearFill": "$y"}}}}])")
            .find("`$linearFill`: there can be no repeated values in the sort field") != std::string::npos);
  fixture g;
  g.with("c", R"([{"_id": 1, "x": 1, "y": "high"}])");
  CHECK(g.error(R"([{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"y": {"$linearFill": "$y"}}}}])")
            .find("`$linearFill`: value to be filled must be numeric or nullish, but found string") != std::string::npos);
}

TEST_CASE("window-only operators refuse the specs mongod refuses") {
  const std::string by_q = R"("sortBy": {"quantity": 1}, )";
  CHECK(spec_error(by_q, R"({"$shift": {"output": "$quantity", "by": 1}, "window": {"documents": [-1, 1]}})") == k_p + "`$shift` does not take a window");
  CHECK(spec_error("", R"({"$shift": {"output": "$quantity", "by": 1}})") == k_p + "`$shift` needs a `sortBy`");
  CHECK(spec_error(by_q, R"({"$shift": {"output": "$quantity", "by": 1.5}})") == k_p + "`$shift`'s `by` must be an integer");
  CHECK(spec_error(by_q, R"({"$shift": {"output": "$quantity"}})") == k_p + "`$shift` requires `by`, an integer");
  CHECK(spec_error(by_q, R"({"$shift": {"by": 1}})") == k_p + "`$shift` requires an `output` expression");
  CHECK(spec_error(by_q, R"({"$shift": {"output": "$quantity", "by": 1, "default": "$price"}})") ==
        k_p + "`$shift`'s `default` must be a constant expression");
  CHECK(spec_error(by_q, R"({"$derivative": {"input": "$quantity"}})") == k_p + "`$derivative` requires explicit window bounds");
  CHECK(spec_error(by_q, R"({"$derivative": {"input": "$quantity", "unit": "month"}, "window": {"documents": [-1, 0]}})") ==
        k_p + "`$derivative`'s `unit` must be 'week' or smaller");
  CHECK(spec_error(R"("sortBy": {"quantity": 1, "price": 1}, )", R"({"$integral": {"input": "$quantity"}})") ==
        k_p + "`$integral` needs a `sortBy` on exactly one field");
  CHECK(spec_error(by_q, R"({"$integral": {"value": "$quantity"}})") ==
        k_p + "`$integral` got unexpected argument `value` (it takes `input` and `unit`)");
  CHECK(spec_error("", R"({"$expMovingAvg": {"input": "$price", "N": 2}})") == k_p + "`$expMovingAvg` needs a `sortBy`");
  CHECK(spec_error(by_q, R"({"$expMovingAvg": {"input": "$price", "N": 0}})") == k_p + "`$expMovingAvg`'s `N` must be greater than zero");
  CHECK(spec_error(by_q, R"({"$expMovingAvg": {"input": "$price", "N": 2.5}})") ==
        k_p + "`$expMovingAvg`'s `N` must be an integer; for a fraction give `alpha`");
  CHECK(spec_error(by_q, R"({"$expMovingAvg": {"input": "$price", "alpha": 1}})") ==
        k_p + "`$expMovingAvg`'s `alpha` must be between 0 and 1 (exclusive)");
  CHECK(spec_error(by_q, R"({"$expMovingAvg": {"input": "$price", "N": 2, "alpha": 0.5}})") ==
        k_p + "`$expMovingAvg` takes a document with exactly two fields: `input`, and either `N` or `alpha`");
  CHECK(spec_error(by_q, R"({"$covariancePop": "$price"})") == k_p + "`$covariancePop` takes an array of two expressions");
  CHECK(spec_error(by_q, R"({"$locf": "$price", "window": {"documents": [-1, 0]}})") == k_p + "`window` is not allowed in `$locf`");
  CHECK(spec_error("", R"({"$linearFill": "$price"})") == k_p + "`$linearFill` requires a sortBy");
  CHECK(spec_error(R"("sortBy": {"quantity": 1, "price": 1}, )", R"({"$linearFill": "$price"})") == k_p + "`$linearFill` requires a non-compound sortBy");
}

TEST_CASE("derivative and integral check the sort values against their unit") {
  fixture f;
  f.with("c", k_trucks);
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"timeStamp": 1}, "output": {"s": {"$derivative": {"input": "$miles"}, "window": {"documents": [-1, 0]}}}}}])")
            .find("$derivative where the sortBy is a Date requires an 'unit'") != std::string::npos);
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"miles": 1}, "output": {"s": {"$integral": {"input": "$miles", "unit": "hour"}}}}}])")
            .find("$integral with 'unit' expects the sortBy field to be a Date") != std::string::npos);
  CHECK(f.error(R"([{"$setWindowFields": {"sortBy": {"miles": 1}, "output": {"s": {"$derivative": {"input": "$nope"}, "window": {"documents": [-1, 0]}}}}}])")
            .find("$derivative input must not be null or missing") != std::string::npos);
}
