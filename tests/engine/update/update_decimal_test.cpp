// $inc $mul $min $max on decimal128 values: any decimal operand or field makes the result a
// decimal (integers converted exactly, doubles with 15 significant digits), as MongoDB's
// update operators widen; $min/$max compare by value across number types.
#include "tests/engine/update/update_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("$inc and $mul on decimals compute in decimal") {
  CHECK(applied(R"({"$inc":{"a":{"$numberDecimal":"0.2"}}})", R"({"a":{"$numberDecimal":"0.1"}})") ==
        R"({"a":{"$numberDecimal":"0.3"}})");
  CHECK(applied(R"({"$inc":{"a":1}})", R"({"a":{"$numberDecimal":"1.50"}})") == R"({"a":{"$numberDecimal":"2.50"}})");
  CHECK(applied(R"({"$inc":{"a":{"$numberDecimal":"1"}}})", R"({"a":{"$numberLong":"9223372036854775807"}})") ==
        R"({"a":{"$numberDecimal":"9223372036854775808"}})");
  CHECK(applied(R"({"$inc":{"a":0.1}})", R"({"a":{"$numberDecimal":"1"}})") ==
        R"({"a":{"$numberDecimal":"1.100000000000000"}})");
  CHECK(applied(R"({"$mul":{"a":{"$numberDecimal":"1.5"}}})", R"({"a":2})") == R"({"a":{"$numberDecimal":"3.0"}})");
  CHECK(applied(R"({"$mul":{"a":10}})", R"({"a":{"$numberDecimal":"9.999999999999999999999999999999999E+6144"}})") ==
        R"({"a":{"$numberDecimal":"Infinity"}})");
}

TEST_CASE("$inc and $mul create a missing field from a decimal operand") {
  CHECK(applied(R"({"$inc":{"a":{"$numberDecimal":"1.5"}}})", R"({})") == R"({"a":{"$numberDecimal":"1.5"}})");
  CHECK(applied(R"({"$mul":{"a":{"$numberDecimal":"1.50"}}})", R"({})") == R"({"a":{"$numberDecimal":"0.00"}})");
}

TEST_CASE("$min and $max compare decimals with other numbers by value") {
  CHECK(applied(R"({"$min":{"a":{"$numberDecimal":"0.5"}}})", R"({"a":1})") == R"({"a":{"$numberDecimal":"0.5"}})");
  CHECK(applied(R"({"$max":{"a":{"$numberDecimal":"0.5"}}})", R"({"a":1})") == R"({"a":1})");
  // Equal by value: the stored value stays.
  CHECK(applied(R"({"$max":{"a":{"$numberDecimal":"1.00"}}})", R"({"a":1})") == R"({"a":1})");
  // The double 0.1 is a little above the decimal 0.1.
  CHECK(applied(R"({"$max":{"a":0.1}})", R"({"a":{"$numberDecimal":"0.1"}})") == R"({"a":0.1})");
  auto same = update_case{R"({"$min":{"a":{"$numberDecimal":"1.0"}}})"}.on(R"({"a":{"$numberLong":"1"}})");
  REQUIRE(same.ok);
  CHECK_FALSE(same.changed);
}

TEST_CASE("$inc on a non-number is still refused when the operand is a decimal") {
  CHECK(update_error(R"({"$inc":{"a":{"$numberDecimal":"1"}}})", R"({"a":"x"})") ==
        "cannot apply $inc to a value of non-numeric type: `a` has type string");
}
