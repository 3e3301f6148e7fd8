// Decimal128 arithmetic: golden values from IEEE 754-2008 decimal128 (34 digits, round half
// to even) and from MongoDB's manual and its jstests (log_pow_exp.js, round_trunc.js).
#include "engine/value/decimal_math.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace omgdb::engine;
namespace dm = omgdb::engine::decimal_math;

namespace {

decimal128 d(const char* text) {
  auto v = dm::parse(text);
  REQUIRE_MESSAGE(v.has_value(), "bad decimal in test: ", text);
  return *v;
}

std::string s(const decimal128& x) { return dm::to_string(x); }

}  // namespace

TEST_CASE("decimal arithmetic rounds to 34 digits half to even") {
  CHECK(s(dm::div(d("1"), d("3"))) == "0.3333333333333333333333333333333333");
  CHECK(s(dm::div(d("2"), d("3"))) == "0.6666666666666666666666666666666667");
  CHECK(s(dm::add(d("0.1"), d("0.2"))) == "0.3");
  CHECK(s(dm::add(d("1.10"), d("2.205"))) == "3.305");
  CHECK(s(dm::sub(d("1"), d("1.00"))) == "0.00");
  CHECK(s(dm::mul(d("1.5"), d("2.0"))) == "3.00");
  // 10^34 + 0.5 rounds to even (the coefficient 1000…0 stays even).
  CHECK(s(dm::add(d("1E+34"), d("0.5"))) == "1.000000000000000000000000000000000E+34");
  CHECK(s(dm::add(d("1E+34"), d("1.5"))) == "1.000000000000000000000000000000000E+34");
  CHECK(s(dm::add(d("1E+34"), d("2.5"))) == "1.000000000000000000000000000000000E+34");
  CHECK(s(dm::add(d("1E+34"), d("5.000001"))) == "1.000000000000000000000000000000001E+34");
}

TEST_CASE("decimal overflow gives infinity and division by zero is infinite or NaN") {
  CHECK(s(dm::mul(d("9.999999999999999999999999999999999E+6144"), d("10"))) == "Infinity");
  CHECK(s(dm::mul(d("-9.999999999999999999999999999999999E+6144"), d("10"))) == "-Infinity");
  CHECK(s(dm::div(d("1"), d("0"))) == "Infinity");
  CHECK(s(dm::div(d("-1"), d("0"))) == "-Infinity");
  CHECK(dm::is_nan(dm::div(d("0"), d("0"))));
  CHECK(dm::is_inf(d("-Infinity")));
  CHECK_FALSE(dm::is_inf(d("NaN")));
}

TEST_CASE("decimal mod has the sign of the dividend like fmod") {
  CHECK(s(dm::mod(d("10"), d("3"))) == "1");
  CHECK(s(dm::mod(d("-10"), d("3"))) == "-1");
  CHECK(s(dm::mod(d("10"), d("-3"))) == "1");
  CHECK(s(dm::mod(d("5.5"), d("2"))) == "1.5");
  CHECK(dm::is_nan(dm::mod(d("1"), d("0"))));
}

TEST_CASE("integers convert to decimal exactly and doubles with 15 significant digits") {
  CHECK(s(dm::from_int64(INT64_MAX)) == "9223372036854775807");
  CHECK(s(dm::from_int64(INT64_MIN)) == "-9223372036854775808");
  CHECK(s(dm::from_int32(-7)) == "-7");
  // MongoDB's manual ($toDecimal): 2.5 → NumberDecimal("2.50000000000000").
  CHECK(s(dm::from_double(2.5)) == "2.50000000000000");
  CHECK(s(dm::from_double(0.1)) == "0.100000000000000");
  CHECK(s(dm::from_double(1.0 / 3)) == "0.333333333333333");
  CHECK(s(dm::from_double(123456789.123456789)) == "123456789.123457");
  CHECK(s(dm::from_double(1e20)) == "1.00000000000000E+20");
  // Rounding carries into a 16th digit: one place up.
  CHECK(s(dm::from_double(9.9999999999999999e5)) == "1000000.00000000");
  CHECK(s(dm::from_double(0.0)) == "0");
  CHECK(s(dm::from_double(-std::numeric_limits<double>::infinity())) == "-Infinity");
  CHECK(dm::is_nan(dm::from_double(std::nan(""))));
  CHECK(s(dm::from_double_34(0.1)) == "0.1000000000000000055511151231257827");
}

TEST_CASE("decimals convert to doubles and integers with truncation and range checks") {
  CHECK(dm::to_double(d("0.1")) == 0.1);
  CHECK(dm::to_double(d("1E+400")) == std::numeric_limits<double>::infinity());
  CHECK(dm::to_int64_trunc(d("-5.9")) == -5);
  CHECK(dm::to_int64_trunc(d("9223372036854775807")) == INT64_MAX);
  CHECK_FALSE(dm::to_int64_trunc(d("9223372036854775808")).has_value());
  CHECK_FALSE(dm::to_int64_trunc(d("NaN")).has_value());
  CHECK_FALSE(dm::to_int64_trunc(d("Infinity")).has_value());
  CHECK(dm::to_int32_trunc(d("2147483647.9")) == INT32_MAX);
  CHECK_FALSE(dm::to_int32_trunc(d("2147483648")).has_value());
  CHECK(dm::to_int64_round(d("2.5")) == 2);
  CHECK(dm::to_int64_round(d("3.5")) == 4);
  CHECK(dm::exact_int64(d("1.00")) == 1);
  CHECK_FALSE(dm::exact_int64(d("1.5")).has_value());
}

TEST_CASE("decimal rounding to a place follows MongoDB's $round and $trunc") {
  using dm::rounding;
  CHECK(s(dm::round_to_place(d("1.298"), 1, rounding::half_even)) == "1.3");
  CHECK(s(dm::round_to_place(d("1.298"), 1, rounding::toward_zero)) == "1.2");
  CHECK(s(dm::round_to_place(d("1.298"), 0, rounding::half_even)) == "1");
  CHECK(s(dm::round_to_place(d("23.298"), -1, rounding::half_even)) == "2E+1");
  CHECK(s(dm::round_to_place(d("-1.6"), 0, rounding::half_even)) == "-2");
  CHECK(s(dm::round_to_place(d("-1.6"), 0, rounding::toward_zero)) == "-1");
  CHECK(s(dm::round_to_place(d("2.5"), 0, rounding::half_even)) == "2");
  CHECK(s(dm::round_to_place(d("1.298912343250054252245154325"), 20, rounding::half_even)) ==
        "1.29891234325005425225");
  CHECK(s(dm::round_to_place(d("1.298912343250054252245154325"), 20, rounding::toward_zero)) ==
        "1.29891234325005425224");
  CHECK(s(dm::round_to_place(d("1.298"), 100, rounding::half_even)) == "1.298000000000000000000000000000000");
  CHECK(s(dm::round_to_place(d("-1.2"), 0, rounding::up)) == "-1");
  CHECK(s(dm::round_to_place(d("-1.2"), 0, rounding::down)) == "-2");
  CHECK(s(dm::round_to_place(d("1E+40"), 0, rounding::up)) == "1.000000000000000000000000000000000E+40");
  CHECK(s(dm::round_to_place(d("9.999999999999999999999999999999999"), 33, rounding::up)) ==
        "9.999999999999999999999999999999999");
  CHECK(s(dm::round_to_place(d("Infinity"), 0, rounding::half_even)) == "Infinity");
  CHECK(dm::is_nan(dm::round_to_place(d("NaN"), 2, rounding::half_even)));
}

TEST_CASE("decimal transcendental functions match MongoDB's results") {
  // jstests/aggregation/expressions/log_pow_exp.js
  CHECK(s(dm::exp(d("1"))) == "2.718281828459045235360287471352662");
  CHECK(s(dm::exp(d("-1"))) == "0.3678794411714423215955237701614609");
  CHECK(s(dm::ln(d("10"))) == "2.302585092994045684017991454684364");
  CHECK(s(dm::log10(d("2.5"))) == "0.3979400086720376095725222105510140");
  CHECK(s(dm::log10(d("100"))) == "2");
  CHECK(s(dm::pow(d("10.0"), d("-2"))) == "0.01000000000000000000000000000000000");
  // MongoDB: NumberDecimal("5192296858534827628530496329220096E-112"), the same decimal.
  CHECK(s(dm::pow(d("5"), d("-112"))) == "5.192296858534827628530496329220096E-79");
  CHECK(s(dm::pow(d("-2"), d("2"))) == "4.000000000000000000000000000000000");
  CHECK(s(dm::pow(d("0.5"), d("-1"))) == "2.000000000000000000000000000000000");
  CHECK(s(dm::pow(d("10.0"), d("2"))) == "100.0000000000000000000000000000000");
  CHECK(dm::is_nan(dm::pow(d("NaN"), d("2"))));
  CHECK(s(dm::sqrt(d("2"))) == "1.414213562373095048801688724209698");
  CHECK(s(dm::sqrt(d("0.25"))) == "0.5");
  CHECK(dm::is_nan(dm::sqrt(d("-1"))));
}

TEST_CASE("parsing rounds more than 34 digits half to even and refuses what is not a number") {
  CHECK(s(d("1.0000000000000000000000000000000015")) == "1.000000000000000000000000000000002");
  CHECK(s(d("1.0000000000000000000000000000000025")) == "1.000000000000000000000000000000002");
  CHECK(s(d("-12345678901234567890123456789012345678")) == "-1.234567890123456789012345678901235E+37");
  CHECK(s(d("-Infinity")) == "-Infinity");
  CHECK_FALSE(dm::parse("").has_value());
  CHECK_FALSE(dm::parse("1.2.3").has_value());
  CHECK_FALSE(dm::parse("0x10").has_value());
  CHECK_FALSE(dm::parse("1e").has_value());
  CHECK_FALSE(dm::parse(" 1").has_value());
  CHECK_FALSE(dm::parse("12345678901234567890123456789012345678x").has_value());
}

TEST_CASE("decimal comparison is by value with NaN lowest") {
  CHECK(dm::compare(d("1.0"), d("1.00")) == 0);
  CHECK(dm::compare(d("-0"), d("0")) == 0);
  CHECK(dm::compare(d("NaN"), d("NaN")) == 0);
  CHECK(dm::compare(d("NaN"), d("-Infinity")) < 0);
  CHECK(dm::compare(d("-Infinity"), d("NaN")) > 0);
  CHECK(dm::compare(d("0.1"), d("0.09999999999999999999999999999999999")) > 0);
  CHECK(dm::compare(d("9223372036854775807"), INT64_MAX) == 0);
  CHECK(dm::compare(d("9223372036854775806.5"), INT64_MAX) < 0);
  CHECK(dm::compare(d("0.1"), 0.1) < 0);  // the double 0.1 is 0.1000000000000000055…
  CHECK(dm::compare(d("0.5"), 0.5) == 0);
  CHECK(dm::compare(d("NaN"), std::nan("")) == 0);
  CHECK(dm::compare(d("Infinity"), std::numeric_limits<double>::infinity()) == 0);
}

TEST_CASE("decimal functions give the same answers from many threads at once") {
  // The library variant passes rounding mode and flags per call: no shared state to race on.
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ok, t] {
      for (int i = 0; i < 2000; ++i) {
        const auto third = dm::div(dm::from_int32(1), dm::from_int32(3));
        const auto r = dm::round_to_place(dm::from_double(2.5 + i), 0, dm::rounding::half_even);
        if (dm::to_string(third) == "0.3333333333333333333333333333333333" && dm::to_int64_trunc(r).has_value()) ++ok[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) CHECK(ok[t] == 2000);
}
