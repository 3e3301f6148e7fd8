// Aggregation expressions (engine/query/expr.hpp). Expected values are the examples of MongoDB's
// reference pages for each operator (reference/operator/aggregation/<name>/) and the
// comparison rules of bson-type-comparison-order.
#include <doctest/doctest.h>

#include "engine/query/expr.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

value json_value(std::string_view text) {
  auto j = omgdb::json::parse_strict(text);
  REQUIRE_MESSAGE(j.ok(), "bad JSON in test: ", text);
  auto v = from_json(*j);
  REQUIRE_MESSAGE(v.ok(), "bad value in test: ", text);
  return std::move(*v);
}

expr_value eval(std::string_view expr_json, std::string_view doc_json = "{}") {
  auto e = expression::compile(json_value(expr_json));
  REQUIRE_MESSAGE(e.ok(), expr_json, " -> ", (e.ok() ? "" : e.error().message));
  auto v = e->evaluate(doc(doc_json));
  REQUIRE_MESSAGE(v.ok(), expr_json, " failed: ", (v.ok() ? "" : v.error().message));
  return std::move(*v);
}

// The result in canonical Extended JSON (so types show), or "missing".
std::string canon(std::string_view expr_json, std::string_view doc_json = "{}") {
  expr_value v = eval(expr_json, doc_json);
  return v ? to_json(*v, ejson_mode::canonical) : "missing";
}

std::string run_error(std::string_view expr_json, std::string_view doc_json = "{}") {
  auto e = expression::compile(json_value(expr_json));
  REQUIRE_MESSAGE(e.ok(), expr_json, " -> ", (e.ok() ? "" : e.error().message));
  auto v = e->evaluate(doc(doc_json));
  REQUIRE_MESSAGE(!v.ok(), "expected a run-time error from ", expr_json);
  return v.error().message;
}

std::string compile_error_of(std::string_view expr_json) {
  auto e = expression::compile(json_value(expr_json));
  REQUIRE_MESSAGE(!e.ok(), "expected a compile error for ", expr_json);
  return e.error().message;
}

const char* k_true = "true";
const char* k_false = "false";

}  // namespace

TEST_CASE("field paths read fields by name and map over arrays of documents") {
  CHECK(canon(R"("$a.b")", R"({"a": {"b": 5}})") == R"({"$numberInt":"5"})");
  CHECK(canon(R"("$a.b")", R"({"a": 5})") == "missing");
  CHECK(canon(R"("$x")", R"({"a": 5})") == "missing");
  CHECK(to_json(*eval(R"("$a.b")", R"({"a": [{"b": 1}, {"c": 2}, {"b": 3}, 5]})")) == "[1,3]");
  CHECK(to_json(*eval(R"("$a.b")", R"({"a": [[{"b": 1}]]})")) == "[]");
  // Numeric components are field names in expressions, never array indexes.
  CHECK(to_json(*eval(R"("$a.0")", R"({"a": [1, 2]})")) == "[]");
  CHECK(to_json(*eval(R"("$a.0")", R"({"a": {"0": 7}})")) == "7");
  CHECK(to_json(*eval(R"("$$ROOT")", R"({"_id": 1, "a": 2})")) == R"({"_id":1,"a":2})");
  CHECK(to_json(*eval(R"("$$CURRENT.a")", R"({"_id": 1, "a": 2})")) == "2");
}

TEST_CASE("literals, $literal, arrays and documents of expressions") {
  CHECK(to_json(*eval(R"({"$literal": "$a"})", R"({"a": 1})")) == R"("$a")");
  CHECK(to_json(*eval(R"({"$literal": {"$add": [1, 2]}})")) == R"({"$add":[1,2]})");
  CHECK(to_json(*eval(R"(["$a", "$missing", 3])", R"({"a": 1})")) == "[1,null,3]");
  CHECK(to_json(*eval(R"({"x": "$a", "y": "$missing"})", R"({"a": 1})")) == R"({"x":1})");
  CHECK(to_json(*eval(R"("plain")")) == R"("plain")");
}

TEST_CASE("comparisons order values across types and put missing below null") {
  CHECK(to_json(*eval(R"({"$gt": ["x", 1]})")) == k_true);
  CHECK(to_json(*eval(R"({"$lt": ["$missing", 5]})")) == k_true);
  CHECK(to_json(*eval(R"({"$lt": [null, 5]})")) == k_true);
  CHECK(to_json(*eval(R"({"$eq": ["$missing", null]})")) == k_false);
  CHECK(to_json(*eval(R"({"$lt": ["$missing", null]})")) == k_true);
  CHECK(to_json(*eval(R"({"$eq": ["$m1", "$m2"]})")) == k_true);
  CHECK(to_json(*eval(R"({"$gt": ["$missing", {"$minKey": 1}]})")) == k_true);
  CHECK(to_json(*eval(R"({"$eq": [1, 1.0]})")) == k_true);
  CHECK(to_json(*eval(R"({"$ne": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]})")) == k_true);
  CHECK(to_json(*eval(R"({"$gte": [[1, 2], [1]]})")) == k_true);
  // The $cmp page: qty against 250.
  CHECK(canon(R"({"$cmp": ["$qty", 250]})", R"({"qty": 300})") == R"({"$numberInt":"1"})");
  CHECK(canon(R"({"$cmp": ["$qty", 250]})", R"({"qty": 250})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$cmp": ["$qty", 250]})", R"({"qty": 200})") == R"({"$numberInt":"-1"})");
}

TEST_CASE("boolean operators use aggregation truthiness") {
  CHECK(to_json(*eval(R"({"$and": [1, "green"]})")) == k_true);
  CHECK(to_json(*eval(R"({"$and": []})")) == k_true);
  CHECK(to_json(*eval(R"({"$and": [null, true]})")) == k_false);
  CHECK(to_json(*eval(R"({"$and": [0, true]})")) == k_false);
  CHECK(to_json(*eval(R"({"$and": ["$missing", true]})")) == k_false);
  CHECK(to_json(*eval(R"({"$or": []})")) == k_false);
  CHECK(to_json(*eval(R"({"$or": [0, ""]})")) == k_true);
  // The $not page.
  CHECK(to_json(*eval(R"({"$not": [true]})")) == k_false);
  CHECK(to_json(*eval(R"({"$not": [[false]]})")) == k_false);
  CHECK(to_json(*eval(R"({"$not": [false]})")) == k_true);
  CHECK(to_json(*eval(R"({"$not": [null]})")) == k_true);
  CHECK(to_json(*eval(R"({"$not": [0]})")) == k_true);
  // Doubles and decimals: zero is false, anything else (NaN included) true; the double case
  // once read the value as a decimal and threw (found by fuzz/aggregate.cpp).
  CHECK(to_json(*eval(R"({"$and": [1.5, {"$numberDouble": "-0.25"}]})")) == k_true);
  CHECK(to_json(*eval(R"({"$and": [{"$numberDouble": "0.0"}]})")) == k_false);
  CHECK(to_json(*eval(R"({"$and": [{"$numberDouble": "-0.0"}]})")) == k_false);
  CHECK(to_json(*eval(R"({"$or": [{"$numberDouble": "NaN"}]})")) == k_true);
  CHECK(to_json(*eval(R"({"$not": ["$x"]})", R"({"x": 2.5})")) == k_false);
  CHECK(to_json(*eval(R"({"$cond": [0.5, "yes", "no"]})")) == "\"yes\"");
  CHECK(to_json(*eval(R"({"$and": [{"$numberDecimal": "0.00"}]})")) == k_false);
  CHECK(to_json(*eval(R"({"$and": [{"$numberDecimal": "-0.001"}]})")) == k_true);
  CHECK(to_json(*eval(R"({"$or": [{"$numberDecimal": "NaN"}]})")) == k_true);
}

TEST_CASE("$cond and $ifNull choose between expressions") {
  const char* cond = R"({"$cond": {"if": {"$gte": ["$qty", 250]}, "then": 30, "else": 20}})";
  CHECK(to_json(*eval(cond, R"({"qty": 300})")) == "30");
  CHECK(to_json(*eval(cond, R"({"qty": 100})")) == "20");
  CHECK(to_json(*eval(R"({"$cond": [{"$gte": ["$qty", 250]}, 30, 20]})", R"({"qty": 250})")) == "30");
  CHECK(to_json(*eval(R"({"$ifNull": ["$description", "Unspecified"]})", R"({"description": null})")) ==
        R"("Unspecified")");
  CHECK(to_json(*eval(R"({"$ifNull": ["$description", "Unspecified"]})", R"({"description": "x"})")) ==
        R"("x")");
  CHECK(to_json(*eval(R"({"$ifNull": ["$description", "$quantity", "Unspecified"]})",
                      R"({"quantity": 5})")) == "5");
  CHECK(canon(R"({"$ifNull": ["$a", "$b"]})") == "missing");
}

TEST_CASE("$add and $multiply promote int to long and long to double on overflow") {
  CHECK(canon(R"({"$add": ["$price", "$fee"]})", R"({"price": 10, "fee": 2})") == R"({"$numberInt":"12"})");
  CHECK(canon(R"({"$add": [2147483647, 1]})") == R"({"$numberLong":"2147483648"})");
  CHECK(canon(R"({"$add": [{"$numberLong": "1"}, 1]})") == R"({"$numberLong":"2"})");
  CHECK(canon(R"({"$add": [9223372036854775807, 1]})") == R"({"$numberDouble":"9223372036854775808.0"})");
  CHECK(canon(R"({"$add": [1, 0.5]})") == R"({"$numberDouble":"1.5"})");
  CHECK(canon(R"({"$add": []})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$add": [1, null]})") == "null");
  CHECK(canon(R"({"$add": [1, "$missing"]})") == "null");
  CHECK(canon(R"({"$multiply": ["$price", "$quantity"]})", R"({"price": 10, "quantity": 2})") ==
        R"({"$numberInt":"20"})");
  CHECK(canon(R"({"$multiply": [65536, 65536]})") == R"({"$numberLong":"4294967296"})");
  CHECK(canon(R"({"$multiply": [4294967296, 4294967296]})") == R"({"$numberDouble":"18446744073709551616.0"})");
  CHECK(canon(R"({"$multiply": [2, 2.5]})") == R"({"$numberDouble":"5.0"})");
}

TEST_CASE("$add and $subtract do date arithmetic in milliseconds") {
  CHECK(to_json(*eval(R"({"$add": ["$date", 259200000]})", R"({"date": {"$date": "2014-03-01T08:00:00Z"}})")) ==
        R"({"$date":"2014-03-04T08:00:00.000Z"})");
  CHECK(to_json(*eval(R"({"$subtract": ["$date", 300000]})", R"({"date": {"$date": "2014-03-01T08:00:00Z"}})")) ==
        R"({"$date":"2014-03-01T07:55:00.000Z"})");
  CHECK(canon(R"({"$subtract": ["$b", "$a"]})",
              R"({"a": {"$date": "2014-03-01T08:00:00Z"}, "b": {"$date": "2014-03-01T09:00:00Z"}})") ==
        R"({"$numberLong":"3600000"})");
  CHECK(run_error(R"({"$add": ["$a", "$a"]})", R"({"a": {"$date": "2014-03-01T08:00:00Z"}})") ==
        "only one date allowed in an $add expression");
  CHECK(run_error(R"({"$subtract": [1, "$a"]})", R"({"a": {"$date": "2014-03-01T08:00:00Z"}})") ==
        "can't $subtract date from int");
}

TEST_CASE("$subtract, $divide and $mod follow MongoDB's result types") {
  CHECK(canon(R"({"$subtract": [5, 7]})") == R"({"$numberInt":"-2"})");
  CHECK(canon(R"({"$subtract": [-2147483648, 1]})") == R"({"$numberLong":"-2147483649"})");
  CHECK(canon(R"({"$subtract": [5, 0.5]})") == R"({"$numberDouble":"4.5"})");
  CHECK(canon(R"({"$divide": ["$hours", 8]})", R"({"hours": 80})") == R"({"$numberDouble":"10.0"})");
  CHECK(canon(R"({"$divide": [1, 4]})") == R"({"$numberDouble":"0.25"})");
  CHECK(canon(R"({"$mod": ["$hours", "$tasks"]})", R"({"hours": 80, "tasks": 7})") == R"({"$numberInt":"3"})");
  CHECK(canon(R"({"$mod": [-13, 9]})") == R"({"$numberInt":"-4"})");
  CHECK(canon(R"({"$mod": [{"$numberLong": "10"}, 3]})") == R"({"$numberLong":"1"})");
  CHECK(canon(R"({"$mod": [5.5, 2]})") == R"({"$numberDouble":"1.5"})");
  CHECK(canon(R"({"$divide": [null, 2]})") == "null");
  CHECK(run_error(R"({"$divide": [1, 0]})") == "can't $divide by zero");
  CHECK(run_error(R"({"$mod": [1, 0]})") == "can't $mod by zero");
  CHECK(run_error(R"({"$add": [1, "x"]})") == "$add only supports numeric or date types, not string");
  CHECK(run_error(R"({"$multiply": [1, true]})") == "$multiply only supports numeric types, not bool");
}

TEST_CASE("$abs, $ceil, $floor, $round and $trunc") {
  // The $abs page: the difference of two temperatures.
  CHECK(canon(R"({"$abs": {"$subtract": ["$startTemp", "$endTemp"]}})", R"({"startTemp": 40, "endTemp": 50})") ==
        R"({"$numberInt":"10"})");
  CHECK(canon(R"({"$abs": -2147483648})") == R"({"$numberLong":"2147483648"})");
  CHECK(canon(R"({"$abs": null})") == "null");
  CHECK(run_error(R"({"$abs": {"$numberLong": "-9223372036854775808"}})") == "can't take $abs of long long min");
  // The $ceil and $floor pages.
  CHECK(to_json(*eval(R"({"$ceil": -5.34})")) == "-5.0");
  CHECK(to_json(*eval(R"({"$ceil": 9.25})")) == "10.0");
  CHECK(to_json(*eval(R"({"$floor": -5.34})")) == "-6.0");
  CHECK(to_json(*eval(R"({"$floor": 8.73})")) == "8.0");
  CHECK(canon(R"({"$floor": 7})") == R"({"$numberInt":"7"})");
  // The $round page: one place, minus one place, halves to even.
  CHECK(to_json(*eval(R"({"$round": [19.25, 1]})")) == "19.2");
  CHECK(to_json(*eval(R"({"$round": [28.73, 1]})")) == "28.7");
  CHECK(to_json(*eval(R"({"$round": [-45.39, 1]})")) == "-45.4");
  CHECK(to_json(*eval(R"({"$round": [19.25, -1]})")) == "20.0");
  CHECK(to_json(*eval(R"({"$round": [-45.39, -1]})")) == "-50.0");
  CHECK(to_json(*eval(R"({"$round": [10.5, 0]})")) == "10.0");
  CHECK(to_json(*eval(R"({"$round": [11.5, 0]})")) == "12.0");
  CHECK(to_json(*eval(R"({"$round": [-10.5]})")) == "-10.0");
  CHECK(canon(R"({"$round": [25, -1]})") == R"({"$numberInt":"20"})");
  CHECK(canon(R"({"$round": [35, -1]})") == R"({"$numberInt":"40"})");
  // The $trunc page.
  CHECK(to_json(*eval(R"({"$trunc": [19.25, 1]})")) == "19.2");
  CHECK(to_json(*eval(R"({"$trunc": [-45.39, 1]})")) == "-45.3");
  CHECK(to_json(*eval(R"({"$trunc": [28.73, -1]})")) == "20.0");
  CHECK(to_json(*eval(R"({"$trunc": [-45.39, -1]})")) == "-40.0");
  CHECK(canon(R"({"$trunc": [-45, -1]})") == R"({"$numberInt":"-40"})");
}

TEST_CASE("malformed expressions are compile errors that name the operator") {
  CHECK(compile_error_of(R"({"$foo": 1})") == "unknown expression operator `$foo`");
  CHECK(compile_error_of(R"({"$eq": [1]})") == "`$eq` takes exactly 2 arguments, got 1");
  CHECK(compile_error_of(R"({"$not": [1, 2]})") == "`$not` takes exactly 1 argument, got 2");
  CHECK(compile_error_of(R"({"$ifNull": [1]})") == "`$ifNull` takes at least 2 arguments, got 1");
  CHECK(compile_error_of(R"({"$round": [1, 2, 3]})") == "`$round` takes 1 to 2 arguments, got 3");
  CHECK(compile_error_of(R"({"$add": [1], "x": 2})") ==
        "an expression operator object must have exactly one field, got `$add`, `x`");
  CHECK(compile_error_of(R"("$$NOW")") == "unknown variable `$$NOW` (only `$$ROOT` and `$$CURRENT` are available)");
  CHECK(compile_error_of(R"("$a..b")") == "field path `$a..b` has an empty component");
  CHECK(compile_error_of(R"("$")") == "field path `$` names no field");
  CHECK(compile_error_of(R"({"a.b": 1})") == "field name `a.b` in an expression object must not contain '.'");
  CHECK(compile_error_of(R"({"$cond": {"if": true, "then": 1}})") == "`$cond` is missing `else`");
  CHECK(compile_error_of(R"({"$cond": {"if": true, "then": 1, "else": 2, "x": 3}})") ==
        "`$cond` does not take `x` (it takes `if`, `then` and `else`)");
  // Decimal operands widen the result to decimal (they were refused before Decimal128 arithmetic).
  CHECK(canon(R"({"$add": [{"$numberDecimal": "1"}, 1]})") == R"({"$numberDecimal":"2"})");
}
