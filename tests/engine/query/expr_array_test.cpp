// Array, set, object and variable-binding expression operators
// (reference/operator/aggregation/<name>/ examples).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

TEST_CASE("map, filter and reduce bind this, value and as-named variables") {
  CHECK(ev(R"({"$map": {"input": "$q", "as": "g", "in": {"$add": ["$$g", 2]}}})", R"({"q": [5, 6, 7]})") == "[7,8,9]");
  CHECK(ev(R"({"$filter": {"input": [1, "a", 2, null, 3.1], "cond": {"$eq": [{"$type": "$$this"}, "int"]}}})") == "[1,2]");
  CHECK(ev(R"({"$filter": {"input": [1, 2, 3, 4], "as": "x", "cond": {"$gt": ["$$x", 1]}, "limit": 2}})") == "[2,3]");
  CHECK(ev(R"({"$reduce": {"input": ["a", "b", "c"], "initialValue": "", "in": {"$concat": ["$$value", "$$this"]}}})") == R"("abc")");
  CHECK(ev(R"({"$reduce": {"input": [[3, 4], [5]], "initialValue": [1, 2], "in": {"$concatArrays": ["$$value", "$$this"]}}})") ==
        "[1,2,3,4,5]");
  CHECK(ev(R"({"$map": {"input": null, "in": 1}})") == "null");
  CHECK(err(R"({"$map": {"input": 5, "in": 1}})") == "input to $map must be an array not int");
  CHECK(err(R"({"$map": {"input": [], "in": "$$nope"}})").find("unknown variable `$$nope`") == 0);
}

TEST_CASE("let binds variables for its in expression, nested scopes shadowing") {
  CHECK(ev(R"({"$let": {"vars": {"total": {"$add": ["$price", "$tax"]}, "discounted": {"$cond": {"if": "$applyDiscount", "then": 0.9, "else": 1}}},
                "in": {"$multiply": ["$$total", "$$discounted"]}}})", R"({"price": 10, "tax": 0.5, "applyDiscount": true})") == "9.450000000000001");
  CHECK(ev(R"({"$let": {"vars": {"x": 1}, "in": {"$let": {"vars": {"x": 2}, "in": "$$x"}}}})") == "2");
  CHECK(err(R"({"$let": {"vars": {"X": 1}, "in": 1}})").find("`$let`: variable name `X` must start with a lower-case letter") == 0);
}

TEST_CASE("switch takes the first true branch, else default, else fails") {
  const char* e = R"({"$switch": {"branches": [{"case": {"$gte": ["$s", 90]}, "then": "A"}, {"case": {"$gte": ["$s", 80]}, "then": "B"}], "default": "C"}})";
  CHECK(ev(e, R"({"s": 95})") == R"("A")");
  CHECK(ev(e, R"({"s": 85})") == R"("B")");
  CHECK(ev(e, R"({"s": 5})") == R"("C")");
  CHECK(err(R"({"$switch": {"branches": [{"case": false, "then": 1}]}})") ==
        "$switch could not find a matching branch for an input, and no default was specified.");
}

TEST_CASE("array operators index, slice, search and build arrays") {
  CHECK(ev(R"({"$size": [[1, 2, 3]]})") == "3");
  CHECK(err(R"({"$size": "$nope"})") == "The argument to $size must be an array. The argument was of type: missing");
  CHECK(ev(R"({"$arrayElemAt": [[1, 2, 3], -1]})") == "3");
  CHECK(ev(R"({"$arrayElemAt": [[1, 2, 3], 15]})") == "missing");
  CHECK(ev(R"({"$first": [[1, 2]]})") == "1");
  CHECK(ev(R"({"$last": [[1, 2]]})") == "2");
  CHECK(ev(R"({"$in": [2.0, [1, 2, 3]]})") == "true");
  CHECK(ev(R"({"$slice": [[1, 2, 3, 4], -2]})") == "[3,4]");
  CHECK(ev(R"({"$slice": [[1, 2, 3, 4], 1, 2]})") == "[2,3]");
  CHECK(ev(R"({"$concatArrays": [[1], [2, [3]]]})") == "[1,2,[3]]");
  CHECK(ev(R"({"$range": [0, 10, 4]})") == "[0,4,8]");
  CHECK(ev(R"({"$range": [5, 0, -2]})") == "[5,3,1]");
  CHECK(ev(R"({"$reverseArray": [[1, 2, 3]]})") == "[3,2,1]");
  CHECK(ev(R"({"$indexOfArray": [["a", "b", "a"], "a", 1]})") == "2");
  CHECK(ev(R"({"$isArray": [[1]]})") == "true");
  CHECK(ev(R"({"$zip": {"inputs": [[1, 2], ["a"]]}})") == R"([[1,"a"]])");
  CHECK(ev(R"({"$zip": {"inputs": [[1, 2], ["a"]], "useLongestLength": true, "defaults": [0, "z"]}})") == R"([[1,"a"],[2,"z"]])");
  CHECK(ev(R"({"$firstN": {"n": 2, "input": [5, 6, 7]}})") == "[5,6]");
  CHECK(ev(R"({"$maxN": {"n": 2, "input": [5, null, 7, 6]}})") == "[7,6]");
}

TEST_CASE("sortArray sorts values in BSON order or documents by fields, stably") {
  CHECK(ev(R"({"$sortArray": {"input": [20, 4, {"a": "Free"}, 6, 21, 5, "Gratis", {"a": null}, {"a": {"sale": true, "price": 19}}, 10.23, {"a": "On sale"}], "sortBy": 1}})") ==
        R"([4,5,6,10.23,20,21,"Gratis",{"a":null},{"a":"Free"},{"a":"On sale"},{"a":{"sale":true,"price":19}}])");
  CHECK(ev(R"({"$sortArray": {"input": [{"n": "b", "age": 30}, {"n": "a", "age": 30}, {"n": "c", "age": 25}], "sortBy": {"age": -1}}})") ==
        R"([{"n":"b","age":30},{"n":"a","age":30},{"n":"c","age":25}])");
}

TEST_CASE("set operators treat arrays as sets compared by value") {
  CHECK(ev(R"({"$setUnion": [[1, 2], [2.0, 3]]})") == "[1,2,3]");
  CHECK(ev(R"({"$setIntersection": [["a", "b", "a"], ["b", "a", "c"]]})") == R"(["a","b"])");
  CHECK(ev(R"({"$setDifference": [["a", "b"], ["b"]]})") == R"(["a"])");
  CHECK(ev(R"({"$setEquals": [["a", "b", "a"], ["b", "a"]]})") == "true");
  CHECK(ev(R"({"$setIsSubset": [["a"], ["a", "b"]]})") == "true");
  CHECK(ev(R"({"$anyElementTrue": [[0, false, 1]]})") == "true");
  CHECK(ev(R"({"$allElementsTrue": [[1, [], ""]]})") == "true");
  CHECK(ev(R"({"$setUnion": [[1], null]})") == "null");
}

TEST_CASE("object operators merge, read, set and convert documents") {
  CHECK(ev(R"({"$mergeObjects": [{"a": 1, "b": 1}, null, {"b": 2}]})") == R"({"a":1,"b":2})");
  CHECK(ev(R"({"$getField": "price.usd"})", R"({"price.usd": 45})") == "45");
  CHECK(ev(R"({"$getField": {"field": "a", "input": {"a": 7}}})") == "7");
  CHECK(ev(R"({"$setField": {"field": "a.b", "input": {"x": 1}, "value": 2}})") == R"({"x":1,"a.b":2})");
  CHECK(ev(R"({"$setField": {"field": "x", "input": {"x": 1, "y": 2}, "value": "$$REMOVE"}})") == R"({"y":2})");
  CHECK(ev(R"({"$objectToArray": {"a": 1, "b": {"c": 2}}})") == R"([{"k":"a","v":1},{"k":"b","v":{"c":2}}])");
  CHECK(ev(R"({"$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]})") == R"({"a":3,"b":2})");
  CHECK(ev(R"({"$arrayToObject": [[{"k": "x", "v": 1}]]})") == R"({"x":1})");
}

TEST_CASE("accumulator-named operators work over an array or a list of arguments") {
  CHECK(ev(R"({"$sum": [[1, 2, "x", 3.5]]})") == "6.5");
  CHECK(ev(R"({"$sum": ["$a", "$b"]})", R"({"a": 1, "b": 2})") == "3");
  CHECK(ev(R"({"$avg": [[]]})") == "null");
  CHECK(ev(R"({"$max": [1, null, 5, "$nope"]})") == "5");
  CHECK(ev(R"({"$min": [[4, 2, 8]]})") == "2");
}

TEST_CASE("system variables NOW and REMOVE exist for pipelines, not for find filters") {
  CHECK(ev(R"("$$NOW")") == R"({"$date":"2023-11-14T22:13:20.000Z"})");
  CHECK(ev(R"({"a": "$$REMOVE", "b": 1})") == R"({"b":1})");
  CHECK(err(R"("$$CLUSTER_TIME")").find("unknown variable `$$CLUSTER_TIME`") == 0);
  CHECK(!expression::compile(json_value(R"("$$NOW")")).ok());
}
