// Bitwise expression operators ($bitAnd $bitOr $bitXor $bitNot): the manual's examples
// (a: 0, 1, 2 … with b) and mongod's errors and identities.
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

TEST_CASE("bitwise operators combine ints into an int") {
  CHECK(canon(R"({"$bitAnd": [12, 10]})") == R"({"$numberInt":"8"})");
  CHECK(canon(R"({"$bitOr": [12, 10]})") == R"({"$numberInt":"14"})");
  CHECK(canon(R"({"$bitXor": [12, 10]})") == R"({"$numberInt":"6"})");
  CHECK(canon(R"({"$bitAnd": [15, 7, 3]})") == R"({"$numberInt":"3"})");
  CHECK(canon(R"({"$bitNot": 12})") == R"({"$numberInt":"-13"})");
  CHECK(canon(R"({"$bitNot": -1})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$bitOr": [-2147483648, 1]})") == R"({"$numberInt":"-2147483647"})");
  // The manual's switches collection: {a: 0, b: 127} … $bitAnd [a, b], $bitOr, $bitXor.
  CHECK(canon(R"({"$bitAnd": ["$a", "$b"]})", R"({"a": 2, "b": 127})") == R"({"$numberInt":"2"})");
  CHECK(canon(R"({"$bitXor": ["$a", "$b"]})", R"({"a": 3, "b": 3})") == R"({"$numberInt":"0"})");
}

TEST_CASE("a long operand makes the result a long") {
  CHECK(canon(R"({"$bitAnd": [12, {"$numberLong": "10"}]})") == R"({"$numberLong":"8"})");
  CHECK(canon(R"({"$bitOr": [-1, {"$numberLong": "4294967296"}]})") == R"({"$numberLong":"-1"})");
  CHECK(canon(R"({"$bitXor": [{"$numberLong": "4294967296"}, 1]})") == R"({"$numberLong":"4294967297"})");
  CHECK(canon(R"({"$bitNot": {"$numberLong": "0"}})") == R"({"$numberLong":"-1"})");
}

TEST_CASE("no operands give the identity, one operand itself") {
  CHECK(canon(R"({"$bitAnd": []})") == R"({"$numberInt":"-1"})");
  CHECK(canon(R"({"$bitOr": []})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$bitXor": []})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$bitAnd": 5})") == R"({"$numberInt":"5"})");
}

TEST_CASE("null or missing operands give null") {
  CHECK(ev(R"({"$bitAnd": [1, null]})") == "null");
  CHECK(ev(R"({"$bitOr": ["$nope", 1]})") == "null");
  CHECK(ev(R"({"$bitNot": "$nope"})") == "null");
  // Null wins over a later bad operand (the operands are read in order).
  CHECK(ev(R"({"$bitXor": [null, 1.5]})") == "null");
}

TEST_CASE("doubles, decimals and other types are refused") {
  CHECK(err(R"({"$bitAnd": [1, 1.5]})") == "$bitAnd only supports int and long operands.");
  CHECK(err(R"({"$bitOr": [1, 2.0]})") == "$bitOr only supports int and long operands.");
  CHECK(err(R"({"$bitXor": ["a"]})") == "$bitXor only supports int and long operands.");
  CHECK(err(R"({"$bitAnd": [true]})") == "$bitAnd only supports int and long operands.");
  CHECK(err(R"({"$bitAnd": [{"$numberDecimal": "1"}]})") == "$bitAnd only supports int and long operands.");
  CHECK(err(R"({"$bitNot": 1.5})") == "$bitNot only supports int and long, not: double.");
  CHECK(err(R"({"$bitNot": {"$numberDecimal": "1"}})") == "$bitNot only supports int and long, not: decimal.");
  CHECK(err(R"({"$bitNot": "abc"})") == "$bitNot only supports numeric types, not string");
}
