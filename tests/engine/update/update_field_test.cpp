// The field operators: $set $unset $inc $mul $min $max $rename $currentDate $setOnInsert $bit.
// Expected values are MongoDB's documented results (operator reference pages) and those of
// mongo's src/mongo/db/update/*_node_test.cpp.
#include "tests/engine/update/update_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("$set replaces a value and creates missing paths as documents") {
  CHECK(applied(R"({"$set":{"a":2}})", R"({"a":5})") == R"({"a":2})");
  CHECK(applied(R"({"$set":{"a.b":6}})", R"({})") == R"({"a":{"b":6}})");
  CHECK(applied(R"({"$set":{"a.0":1}})", R"({})") == R"({"a":{"0":1}})");
  CHECK(applied(R"({"$set":{"a.b.c":1}})", R"({"a":{"x":1}})") == R"({"a":{"x":1,"b":{"c":1}}})");
}

TEST_CASE("$set into an array index past the end pads with nulls") {
  CHECK(applied(R"({"$set":{"a.2":7}})", R"({"a":[0]})") == R"({"a":[0,null,7]})");
  CHECK(applied(R"({"$set":{"a.3.b":1}})", R"({"a":[]})") == R"({"a":[null,null,null,{"b":1}]})");
  CHECK(applied(R"({"$set":{"a.1":"x"}})", R"({"a":[1,2,3]})") == R"({"a":[1,"x",3]})");
}

TEST_CASE("$set through a scalar or a non-index field of an array is an error") {
  CHECK(update_error(R"({"$set":{"a.b":1}})", R"({"a":1})") ==
        "$set at `a.b`: cannot create field `b` in element {a: 1}");
  CHECK(update_error(R"({"$set":{"a.b":1}})", R"({"a":null})") != "");
  CHECK(update_error(R"({"$set":{"a.b":1}})", R"({"a":[1,2]})") ==
        "$set at `a.b`: cannot create field `b` in element {a: [1,2]}");
}

TEST_CASE("new fields are added in lexicographic order, numeric names numerically") {
  CHECK(applied(R"({"$set":{"b":1,"a":2}})", R"({"_id":1})") == R"({"_id":1,"a":2,"b":1})");
  CHECK(applied(R"({"$set":{"a.10":1,"a.2":2,"a.b":3}})", R"({"a":{}})") ==
        R"({"a":{"2":2,"10":1,"b":3}})");
  CHECK(applied(R"({"$inc":{"z":1},"$set":{"m":1}})", R"({})") == R"({"m":1,"z":1})");
}

TEST_CASE("an update that changes nothing reports no change") {
  auto same = update_case{R"({"$set":{"a":5}})"}.on(R"({"a":5})");
  REQUIRE(same.ok);
  CHECK_FALSE(same.changed);
  auto retyped = update_case{R"({"$set":{"a":5.0}})"}.on(R"({"a":5})");
  REQUIRE(retyped.ok);
  CHECK(retyped.changed);  // int 5 became double 5.0
  auto empty = update_case{R"({"$set":{}})"}.on(R"({"a":1})");
  REQUIRE(empty.ok);
  CHECK_FALSE(empty.changed);
  CHECK(empty.doc == R"({"a":1})");
}

TEST_CASE("_id is immutable") {
  CHECK(update_error(R"({"$set":{"_id":2}})", R"({"_id":1})") ==
        "performing an update on the path `_id` would modify the immutable field `_id`");
  CHECK(update_error(R"({"$unset":{"_id":1}})", R"({"_id":1})") != "");
  CHECK(update_error(R"({"$set":{"_id.a":2}})", R"({"_id":{"a":1}})") != "");
  CHECK(update_error(R"({"$rename":{"_id":"x"}})", R"({"_id":1})") != "");
  CHECK(update_error(R"({"$set":{"_id":1.0}})", R"({"_id":1})") != "");
  CHECK(applied(R"({"$set":{"_id":1,"a":2}})", R"({"_id":1})") == R"({"_id":1,"a":2})");
}

TEST_CASE("$unset removes fields and nulls array elements") {
  CHECK(applied(R"({"$unset":{"a":""}})", R"({"a":1,"b":2})") == R"({"b":2})");
  CHECK(applied(R"({"$unset":{"a.1":1}})", R"({"a":[1,2,3]})") == R"({"a":[1,null,3]})");
  CHECK(applied(R"({"$unset":{"a.b":1}})", R"({"a":{"b":1,"c":2}})") == R"({"a":{"c":2}})");
  auto missing = update_case{R"({"$unset":{"x":1,"a.b":1}})"}.on(R"({"a":1})");
  REQUIRE(missing.ok);
  CHECK_FALSE(missing.changed);
}

TEST_CASE("$inc adds, creates missing fields and keeps integer types") {
  CHECK(applied_canonical(R"({"$inc":{"a":1}})", R"({"a":5})") == canonical(R"({"a":6})"));
  CHECK(applied(R"({"$inc":{"a":-2}})", R"({})") == R"({"a":-2})");
  CHECK(applied(R"({"$inc":{"a":1.5}})", R"({"a":1})") == R"({"a":2.5})");
  CHECK(applied_canonical(R"({"$inc":{"a":{"$numberLong":"1"}}})", R"({"a":1})") ==
        R"({"a":{"$numberLong":"2"}})");
  CHECK(applied_canonical(R"({"$inc":{"a":1}})", R"({"a":1.0})") == R"({"a":{"$numberDouble":"2.0"}})");
}

TEST_CASE("int32 overflow becomes int64 and int64 overflow is an error") {
  CHECK(applied_canonical(R"({"$inc":{"a":1}})", R"({"a":2147483647})") ==
        R"({"a":{"$numberLong":"2147483648"}})");
  CHECK(applied_canonical(R"({"$mul":{"a":65536}})", R"({"a":65536})") ==
        R"({"a":{"$numberLong":"4294967296"}})");
  CHECK(update_error(R"({"$inc":{"a":1}})", R"({"a":9223372036854775807})") ==
        "`$inc` at `a`: integer overflow (9223372036854775807 + 1 does not fit in a 64-bit integer)");
  CHECK(update_error(R"({"$mul":{"a":2}})", R"({"a":{"$numberLong":"5000000000000000000"}})") != "");
}

TEST_CASE("$inc and $mul refuse non-numbers") {
  CHECK(update_error(R"({"$inc":{"a":1}})", R"({"a":"x"})") ==
        "cannot apply $inc to a value of non-numeric type: `a` has type string");
  CHECK(update_error(R"({"$mul":{"a":2}})", R"({"a":null})") != "");
  CHECK(update_error(R"({"$inc":{"a":"1"}})") == "`$inc` at `a` needs a number, not \"1\"");
}

TEST_CASE("$mul multiplies and creates a zero of the multiplier's type") {
  CHECK(applied(R"({"$mul":{"price":1.25,"qty":2}})", R"({"price":10.0,"qty":25})") ==
        R"({"price":12.5,"qty":50})");
  CHECK(applied_canonical(R"({"$mul":{"price":100}})", R"({"_id":2})") ==
        canonical(R"({"_id":2,"price":0})"));
  CHECK(applied_canonical(R"({"$mul":{"a":2.5}})", R"({})") == R"({"a":{"$numberDouble":"0.0"}})");
  CHECK(applied_canonical(R"({"$mul":{"a":{"$numberLong":"3"}}})", R"({})") ==
        R"({"a":{"$numberLong":"0"}})");
  // Docs: a long multiplied by an int stays a long.
  CHECK(applied_canonical(R"({"$mul":{"price":5}})", R"({"price":{"$numberLong":"10"}})") ==
        R"({"price":{"$numberLong":"50"}})");
}

TEST_CASE("$min and $max compare in BSON order and create missing fields") {
  CHECK(applied(R"({"$max":{"a":2}})", R"({"a":1})") == R"({"a":2})");
  CHECK(applied(R"({"$max":{"a":1}})", R"({"a":2})") == R"({"a":2})");
  CHECK(applied(R"({"$min":{"a":1}})", R"({"a":2})") == R"({"a":1})");
  CHECK(applied(R"({"$min":{"a":null}})", R"({"a":1})") == R"({"a":null})");
  CHECK(applied(R"({"$max":{"a":"x"}})", R"({"a":1})") == R"({"a":"x"})");
  CHECK(applied(R"({"$min":{"a":5}})", R"({})") == R"({"a":5})");
  auto equal_value = update_case{R"({"$max":{"a":1.0}})"}.on(R"({"a":1})");
  REQUIRE(equal_value.ok);
  CHECK_FALSE(equal_value.changed);  // equal by value: the int stays
  // Docs: {_id: 1, highScore: 800, lowScore: 200}.
  CHECK(applied(R"({"$min":{"lowScore":150}})", R"({"_id":1,"highScore":800,"lowScore":200})") ==
        R"({"_id":1,"highScore":800,"lowScore":150})");
  CHECK(applied(R"({"$max":{"highScore":870}})", R"({"_id":1,"highScore":800,"lowScore":200})") ==
        R"({"_id":1,"highScore":870,"lowScore":200})");
}

TEST_CASE("$rename moves a value, replacing an existing target in place") {
  CHECK(applied(R"({"$rename":{"a":"b"}})", R"({"a":2})") == R"({"b":2})");
  CHECK(applied(R"({"$rename":{"a":"b"}})", R"({"a":2,"b":1})") == R"({"b":2})");
  CHECK(applied(R"({"$rename":{"c.d":"a.b.c"}})", R"({"a":{"b":{"c":1,"d":2}},"b":3,"c":{"d":4}})") ==
        R"({"a":{"b":{"c":4,"d":2}},"b":3,"c":{}})");
  CHECK(applied(R"({"$rename":{"a":"c.r.d"}})", R"({"a":2,"b":1,"c":{}})") == R"({"b":1,"c":{"r":{"d":2}}})");
  CHECK(applied(R"({"$rename":{"a.c":"b"}})", R"({"a":{"c":{"d":6}},"b":1})") == R"({"a":{},"b":{"d":6}})");
  CHECK(applied(R"({"$rename":{"a":"b"}})", R"({"a":[],"b":2})") == R"({"b":[]})");
  auto missing = update_case{R"({"$rename":{"x":"y"}})"}.on(R"({"a":1})");
  REQUIRE(missing.ok);
  CHECK_FALSE(missing.changed);
}

TEST_CASE("$rename cannot move into or out of an array") {
  CHECK(update_error(R"({"$rename":{"b":"a.2"}})", R"({"_id":"t","a":[1,2],"b":2})") ==
        "`$rename`: the destination field cannot be an array element: `a.2` goes through the array `a`");
  CHECK(update_error(R"({"$rename":{"a.0":"b"}})", R"({"_id":"t","a":[1,2]})") ==
        "`$rename`: the source field cannot be an array element: `a.0` goes through the array `a`");
  CHECK(update_error(R"({"$rename":{"a.a":"b"}})", R"({"a":[{"a":1},{"b":2}]})") != "");
}

TEST_CASE("$rename paths must differ and not contain each other") {
  CHECK(update_error(R"({"$rename":{"b.a":"b.a"}})") ==
        "the source and target field for `$rename` must differ: `b.a`");
  CHECK(update_error(R"({"$rename":{"b.a":"b"}})") != "");
  CHECK(update_error(R"({"$rename":{"b":"b.a"}})") != "");
  CHECK(update_error(R"({"$rename":{"a":1}})") != "");
  CHECK(update_error(R"({"$rename":{"a.$[i]":"b"}})", "{}", R"([{"i":1}])") != "");
}

TEST_CASE("$currentDate writes the call's time as a date or a timestamp") {
  update_case c{R"({"$currentDate":{"a":true,"b":{"$type":"timestamp"},"c":{"$type":"date"}}})"};
  c.options.now_millis = 1700000000123;
  auto r = c.on(R"({"a":1})");
  REQUIRE(r.ok);
  CHECK(r.doc == R"({"a":{"$date":"2023-11-14T22:13:20.123Z"},"b":{"$timestamp":{"t":1700000000,"i":1}},)"
                 R"("c":{"$date":"2023-11-14T22:13:20.123Z"}})");
  CHECK(update_error(R"({"$currentDate":{"a":{"$type":"time"}}})") != "");
  CHECK(update_error(R"({"$currentDate":{"a":1}})") != "");
}

TEST_CASE("$setOnInsert applies only when an upsert inserts") {
  update_case c{R"({"$set":{"a":1},"$setOnInsert":{"b":2}})"};
  auto updating = c.on(R"({"_id":1})");
  REQUIRE(updating.ok);
  CHECK(updating.doc == R"({"_id":1,"a":1})");
  c.options.inserting = true;
  auto inserting = c.on(R"({"_id":1})");
  REQUIRE(inserting.ok);
  CHECK(inserting.doc == R"({"_id":1,"a":1,"b":2})");
}

TEST_CASE("$bit combines integers with and, or and xor") {
  CHECK(applied_canonical(R"({"$bit":{"e":{"and":10}}})", R"({"e":13})") == canonical(R"({"e":8})"));
  CHECK(applied_canonical(R"({"$bit":{"e":{"or":5}}})", R"({"e":{"$numberLong":"3"}})") ==
        R"({"e":{"$numberLong":"7"}})");
  CHECK(applied_canonical(R"({"$bit":{"e":{"xor":5}}})", R"({"e":{"$numberLong":"1"}})") ==
        R"({"e":{"$numberLong":"4"}})");
  CHECK(update_error(R"({"$bit":{"e":{"and":1}}})", R"({"e":1.5})") != "");
  CHECK(update_error(R"({"$bit":{"e":{"nand":1}}})") != "");
}
