// Type expression operators: $type, $isNumber, $convert and its shorthands
// (reference/operator/aggregation/convert/ table).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

TEST_CASE("type names every value and missing") {
  CHECK(ev(R"({"$type": "$a"})", R"({"a": 1})") == R"("int")");
  CHECK(ev(R"({"$type": "$a"})") == R"("missing")");
  CHECK(ev(R"({"$type": [[1]]})") == R"("array")");
  CHECK(ev(R"({"$isNumber": 1.5})") == "true");
  CHECK(ev(R"({"$isNumber": "1"})") == "false");
}

TEST_CASE("convert follows MongoDB's conversion table") {
  CHECK(canon(R"({"$toInt": "42"})") == R"({"$numberInt":"42"})");
  CHECK(canon(R"({"$toInt": 4.9})") == R"({"$numberInt":"4"})");
  CHECK(canon(R"({"$toLong": true})") == R"({"$numberLong":"1"})");
  CHECK(canon(R"({"$toDouble": "2.5"})") == R"({"$numberDouble":"2.5"})");
  CHECK(ev(R"({"$toString": 2.5})") == R"("2.5")");
  CHECK(ev(R"({"$toString": {"$date": "2018-03-27T16:58:51.538Z"}})") == R"("2018-03-27T16:58:51.538Z")");
  CHECK(ev(R"({"$toBool": ""})") == "true");
  CHECK(ev(R"({"$toBool": 0})") == "false");
  CHECK(ev(R"({"$toDate": {"$numberLong": "1522169931538"}})") == R"({"$date":"2018-03-27T16:58:51.538Z"})");
  CHECK(ev(R"({"$toObjectId": "5ab9cbfa31c2ab715d42129e"})") == R"({"$oid":"5ab9cbfa31c2ab715d42129e"})");
  CHECK(canon(R"({"$toDecimal": 2})") == R"({"$numberDecimal":"2"})");
  CHECK(ev(R"({"$toInt": null})") == "null");
  CHECK(err(R"({"$toInt": "4.5"})") ==
        "Failed to parse number '4.5' in $convert with no onError value: cannot convert to int");
  CHECK(err(R"({"$toInt": 3000000000})") == "Conversion would overflow target type in $convert with no onError value");
}

TEST_CASE("convert uses onError and onNull when given") {
  CHECK(ev(R"({"$convert": {"input": "abc", "to": "int", "onError": -1}})") == "-1");
  CHECK(ev(R"({"$convert": {"input": "$nope", "to": "int", "onNull": 0}})") == "0");
  CHECK(ev(R"({"$convert": {"input": "7", "to": 16}})") == "7");
  CHECK(err(R"({"$convert": {"input": 1, "to": "frob"}})").find("$convert: unknown target type \"frob\"") == 0);
}
