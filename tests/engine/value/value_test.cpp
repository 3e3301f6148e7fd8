#include "engine/value/value.hpp"

#include <bson/bson.h>
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace omgdb::engine;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_ = std::numeric_limits<double>::quiet_NaN();

value i64(std::int64_t i) { return value(i); }

value dec(const char* text) {
  bson_decimal128_t d;
  REQUIRE(bson_decimal128_from_string(text, &d));
  return value(decimal128{d.high, d.low});
}

value bin(std::uint8_t subtype, std::string bytes) { return value(binary{subtype, std::move(bytes)}); }

value oid(std::uint8_t last) {
  object_id o;
  o.bytes[11] = last;
  return value(o);
}

int sign(int c) { return (c > 0) - (c < 0); }

// compare(a, b) has sign `expected` and compare(b, a) the opposite one.
void check_order(const value& a, const value& b, int expected) {
  CHECK(sign(compare(a, b)) == expected);
  CHECK(sign(compare(b, a)) == -expected);
  CHECK(equal(a, b) == (expected == 0));
}

}  // namespace

TEST_CASE("type() names the BSON kind held") {
  CHECK(value().type() == kind::null_);
  CHECK(value(true).type() == kind::boolean);
  CHECK(value(1).type() == kind::int32);
  CHECK(i64(1).type() == kind::int64);
  CHECK(value(1.0).type() == kind::double_);
  CHECK(value("s").type() == kind::string);
  CHECK(value(document{}).type() == kind::document);
  CHECK(value(array{}).type() == kind::array);
  CHECK(oid(1).type() == kind::object_id);
  CHECK(value(date_time{1}).type() == kind::date_time);
  CHECK(value(timestamp{1, 2}).type() == kind::timestamp);
  CHECK(bin(0, "x").type() == kind::binary);
  CHECK(value(regex{"a", "i"}).type() == kind::regex);
  CHECK(dec("1").type() == kind::decimal128);
  CHECK(value(min_key{}).type() == kind::min_key);
  CHECK(value(max_key{}).type() == kind::max_key);
}

TEST_CASE("an int32 and a double with the same value compare equal") {
  check_order(value(1), value(1.0), 0);
  check_order(value(1), i64(1), 0);
  check_order(i64(-7), value(-7.0), 0);
  check_order(value(1), value(1.5), -1);
  check_order(value(2), value(1.5), 1);
}

TEST_CASE("int64 values beyond 2^53 compare exactly against doubles") {
  const std::int64_t two53 = std::int64_t{1} << 53;
  check_order(i64(two53 + 1), value(9007199254740992.0), 1);
  check_order(i64(two53), value(9007199254740992.0), 0);
  check_order(i64(-two53 - 1), value(-9007199254740992.0), -1);
  // INT64_MAX is 2^63 - 1, below the double 2^63; INT64_MIN is exactly -2^63.
  check_order(i64(std::numeric_limits<std::int64_t>::max()), value(9223372036854775808.0), -1);
  check_order(i64(std::numeric_limits<std::int64_t>::min()), value(-9223372036854775808.0), 0);
  check_order(i64(std::numeric_limits<std::int64_t>::min()), value(-9223372036854777856.0), 1);
  check_order(i64(std::numeric_limits<std::int64_t>::max()), value(inf), -1);
  check_order(i64(std::numeric_limits<std::int64_t>::min()), value(-inf), 1);
  // A fraction just above and below an integer.
  check_order(i64(3), value(std::nextafter(3.0, 4.0)), -1);
  check_order(i64(-3), value(std::nextafter(-3.0, -4.0)), 1);
}

TEST_CASE("NaN equals NaN and sorts below every other number") {
  check_order(value(nan_), value(nan_), 0);
  check_order(value(nan_), value(-inf), -1);
  check_order(value(nan_), i64(std::numeric_limits<std::int64_t>::min()), -1);
  check_order(value(nan_), value(std::numeric_limits<std::int32_t>::min()), -1);
  check_order(value(nan_), dec("NaN"), 0);
  // Still a number: above null, below strings.
  check_order(value(), value(nan_), -1);
  check_order(value(nan_), value(""), -1);
}

TEST_CASE("negative zero equals zero") {
  check_order(value(-0.0), value(0.0), 0);
  check_order(value(-0.0), value(0), 0);
  check_order(value(-0.0), dec("-0"), 0);
}

TEST_CASE("decimal128 values compare with other numbers by value") {
  check_order(dec("1"), value(1), 0);
  check_order(dec("1.00"), value(1.0), 0);
  check_order(dec("2.5"), value(2), 1);
  check_order(dec("-Infinity"), value(-1e308), -1);
  check_order(dec("Infinity"), value(inf), 0);
}

TEST_CASE("type brackets follow MongoDB's comparison order") {
  const value ordered[] = {value(min_key{}),   value(),          value(-inf),        value(""),
                           value(document{}),  value(array{}),   bin(0, ""),         oid(0),
                           value(false),       value(date_time{-5}), value(timestamp{0, 0}),
                           value(regex{"", ""}), value(max_key{})};
  const std::size_t n = std::size(ordered);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(sign(compare(ordered[i], ordered[j])) == (i < j ? -1 : (i > j ? 1 : 0)));
      CHECK(sign(type_rank(ordered[i]) - type_rank(ordered[j])) == (i < j ? -1 : (i > j ? 1 : 0)));
    }
  }
  CHECK(type_rank(value(1)) == type_rank(dec("5")));
  CHECK(type_rank(value(true)) == type_rank(value(false)));
}

TEST_CASE("strings compare by their UTF-8 bytes") {
  check_order(value("a"), value("b"), -1);
  check_order(value("Z"), value("a"), -1);
  check_order(value("z"), value("\xc3\xa9"), -1);  // é (U+00E9) is above every ASCII letter
  check_order(value("a"), value("ab"), -1);
  check_order(value("a"), value(std::string("a\0", 2)), -1);
  check_order(value(std::string("a\0", 2)), value("a\x01"), -1);
  check_order(value("abc"), value("abc"), 0);
}

TEST_CASE("documents compare field by field: type bracket, then name, then value") {
  // Numbers sort before strings whatever the names are.
  check_order(value(document{{"b", 1}}), value(document{{"a", "x"}}), -1);
  // Same bracket: the name decides before the value.
  check_order(value(document{{"a", 9}}), value(document{{"b", 0}}), -1);
  check_order(value(document{{"a", 1}}), value(document{{"a", 2.5}}), -1);
  check_order(value(document{{"a", 1}}), value(document{{"a", 1.0}}), 0);
  // A prefix sorts first; the empty document is the smallest.
  check_order(value(document{{"a", 1}}), value(document{{"a", 1}, {"b", 1}}), -1);
  check_order(value(document{}), value(document{{"a", value(min_key{})}}), -1);
  // Field order is significant.
  check_order(value(document{{"a", 1}, {"b", 2}}), value(document{{"b", 2}, {"a", 1}}), -1);
  CHECK(compare(document{{"x", 1}}, document{{"x", 2}}) < 0);
}

TEST_CASE("arrays compare element by element, shorter first") {
  check_order(value(array{1, 2}), value(array{1, 3}), -1);
  check_order(value(array{1}), value(array{1, 0}), -1);
  check_order(value(array{}), value(array{value()}), -1);
  check_order(value(array{1, "a"}), value(array{1, 2}), 1);
  check_order(value(array{1, 2}), value(array{1.0, i64(2)}), 0);
}

TEST_CASE("binary compares by length, then subtype, then bytes") {
  check_order(bin(5, "\x01"), bin(0, std::string("\0\0", 2)), -1);
  check_order(bin(0, "\xff"), bin(4, std::string("\0", 1)), -1);
  check_order(bin(4, "ab"), bin(4, "ac"), -1);
  check_order(bin(4, "ab"), bin(4, "ab"), 0);
}

TEST_CASE("other scalar types compare by their natural order") {
  check_order(oid(1), oid(2), -1);
  check_order(value(false), value(true), -1);
  check_order(value(date_time{-1}), value(date_time{0}), -1);
  check_order(value(timestamp{1, 9}), value(timestamp{2, 0}), -1);
  check_order(value(timestamp{2, 1}), value(timestamp{2, 0}), 1);
  check_order(value(timestamp{0xFFFFFFFF, 0}), value(timestamp{1, 0}), 1);
  check_order(value(regex{"a", "x"}), value(regex{"b", ""}), -1);
  check_order(value(regex{"a", "i"}), value(regex{"a", "m"}), -1);
  check_order(value(min_key{}), value(min_key{}), 0);
  check_order(value(max_key{}), value(max_key{}), 0);
}

TEST_CASE("number_as_double converts every numeric kind and gives NaN otherwise") {
  CHECK(value(3).number_as_double() == 3.0);
  CHECK(i64(std::int64_t{1} << 60).number_as_double() == std::ldexp(1.0, 60));
  CHECK(value(0.25).number_as_double() == 0.25);
  CHECK(dec("1.5E+3").number_as_double() == 1500.0);
  CHECK(dec("-0.125").number_as_double() == -0.125);
  CHECK(std::isinf(dec("-Infinity").number_as_double()));
  CHECK(std::isnan(dec("NaN").number_as_double()));
  CHECK(std::isnan(value("3").number_as_double()));
}

TEST_CASE("find_field returns the first field with the name or nothing") {
  document d{{"a", 1}, {"b", 2}, {"a", 3}};
  REQUIRE(find_field(d, "a") != nullptr);
  CHECK(find_field(d, "a")->as_int32() == 1);
  CHECK(find_field(d, "b")->as_int32() == 2);
  CHECK(find_field(d, "c") == nullptr);
  CHECK(find_field(d, "") == nullptr);
  value* m = find_field(d, "b");
  REQUIRE(m != nullptr);
  *m = value("changed");
  CHECK(d[1].val.as_string() == "changed");
}
