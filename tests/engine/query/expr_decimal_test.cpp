// Decimal128 in aggregation expressions: MongoDB's widening (any decimal operand gives a
// decimal), its conversions and errors. Golden values from MongoDB's manual pages for each
// operator, its jstests (add_with_date.js, log_pow_exp.js, round_trunc.js) and IEEE 754-2008
// decimal128 (34 digits, round half to even).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

namespace {

// {"$numberDecimal": "<text>"} as expression JSON.
std::string nd(std::string_view text) { return R"({"$numberDecimal":")" + std::string(text) + R"("})"; }

// The canonical result of `op` applied to the JSON argument list `args`.
std::string op(std::string_view name, const std::string& args) {
  return canon(R"({")" + std::string(name) + R"(": )" + args + "}");
}

}  // namespace

TEST_CASE("arithmetic with a decimal operand is exact decimal arithmetic") {
  CHECK(op("$add", "[" + nd("0.1") + ", " + nd("0.2") + "]") == nd("0.3"));
  CHECK(op("$divide", "[" + nd("1") + ", 3]") == nd("0.3333333333333333333333333333333333"));
  CHECK(op("$multiply", "[" + nd("9.999999999999999999999999999999999E+6144") + ", 10]") == nd("Infinity"));
  CHECK(op("$subtract", "[" + nd("1.10") + ", 1]") == nd("0.10"));
  CHECK(op("$multiply", "[2, " + nd("1.25") + ", {\"$numberLong\": \"4\"}]") == nd("10.00"));
  CHECK(op("$mod", "[" + nd("10") + ", 3]") == nd("1"));
  CHECK(op("$mod", "[" + nd("-5.5") + ", 2]") == nd("-1.5"));
  CHECK(op("$abs", nd("-2.50")) == nd("2.50"));
  // Integers widen exactly: int64's largest value plus one does not round.
  CHECK(op("$add", R"([{"$numberLong": "9223372036854775807"}, )" + nd("1") + "]") ==
        nd("9223372036854775808"));
}

TEST_CASE("a double meeting a decimal becomes a decimal with 15 significant digits") {
  CHECK(op("$add", "[" + nd("1") + ", 0.1]") == nd("1.100000000000000"));
  // The partial product 0.5 becomes 0.500000000000000, then × 3.
  CHECK(op("$multiply", "[0.5, " + nd("3") + "]") == nd("1.500000000000000"));
  CHECK(op("$subtract", "[" + nd("1") + ", 0.25]") == nd("0.750000000000000"));
  CHECK(op("$divide", "[1, " + nd("4") + "]") == nd("0.25"));
}

TEST_CASE("division and modulo of a decimal by zero are errors") {
  CHECK(err(R"({"$divide": [1, )" + nd("0") + "]}") == "can't $divide by zero");
  CHECK(err(R"({"$divide": [)" + nd("1") + ", 0]}") == "can't $divide by zero");
  CHECK(err(R"({"$mod": [)" + nd("1") + ", " + nd("0.00") + "]}") == "can't $mod by zero");
  CHECK(err(R"({"$add": [)" + nd("1") + R"(, "x"]})") == "$add only supports numeric or date types, not string");
  CHECK(ev(R"({"$add": [)" + nd("1") + ", null]}") == "null");
}

TEST_CASE("a decimal added to a date is rounded to whole milliseconds") {
  // jstests/aggregation/add_with_date.js
  const std::string date = R"({"$date": "2019-01-30T07:30:10.137Z"})";
  CHECK(ev(R"({"$add": [)" + nd("819.5359123621083") + ", " + date + "]}") ==
        R"({"$date":"2019-01-30T07:30:10.957Z"})");
  CHECK(ev(R"({"$add": [)" + date + ", " + nd("819.5359123621083") + "]}") ==
        R"({"$date":"2019-01-30T07:30:10.957Z"})");
  CHECK(ev(R"({"$add": [)" + nd("819.5359123621083") + R"(, 819.536, {"$numberLong": "820"}, )" + date + "]}") ==
        R"({"$date":"2019-01-30T07:30:12.596Z"})");
  CHECK(err(R"({"$add": [)" + date + ", " + nd("1e5000") + "]}") == "date overflow in $add");
  CHECK(err(R"({"$add": [)" + date + ", " + nd("NaN") + "]}") == "date overflow in $add");
  CHECK(ev(R"({"$subtract": [)" + date + ", " + nd("137.4") + "]}") == R"({"$date":"2019-01-30T07:30:10.000Z"})");
}

TEST_CASE("ceil floor round and trunc of decimals keep decimal and follow the place") {
  CHECK(op("$ceil", nd("-1.2")) == nd("-1"));
  CHECK(op("$floor", nd("-1.2")) == nd("-2"));
  CHECK(op("$ceil", nd("0.9")) == nd("1"));
  // jstests/aggregation/expressions/round_trunc.js
  CHECK(op("$trunc", nd("-1.6")) == nd("-1"));
  CHECK(op("$round", nd("-1.6")) == nd("-2"));
  CHECK(op("$round", "[" + nd("1.298") + ", 1]") == nd("1.3"));
  CHECK(op("$trunc", "[" + nd("1.298") + ", 1]") == nd("1.2"));
  CHECK(op("$round", "[" + nd("23.298") + ", -1]") == nd("2E+1"));
  CHECK(op("$round", R"([)" + nd("1.298912343250054252245154325") + R"(, {"$numberLong": "20"}])") ==
        nd("1.29891234325005425225"));
  CHECK(op("$trunc", "[" + nd("1.298") + ", " + nd("100") + "]") == nd("1.298000000000000000000000000000000"));
  CHECK(op("$round", "[" + nd("NaN") + ", 0]") == nd("NaN"));
  CHECK(op("$round", "[" + nd("2.5") + ", 0]") == nd("2"));  // half to even
  CHECK(err(R"({"$round": [1, )" + nd("1.4") + "]}") == "$round needs an integral place, not decimal");
}

TEST_CASE("sqrt pow exp ln log and log10 follow MongoDB's types and domains") {
  CHECK(op("$sqrt", "25") == R"({"$numberDouble":"5.0"})");
  CHECK(op("$sqrt", nd("0.25")) == nd("0.5"));
  CHECK(err(R"({"$sqrt": -1})") == "$sqrt's argument must be greater than or equal to 0");
  CHECK(err(R"({"$sqrt": )" + nd("-1") + "}") == "$sqrt's argument must be greater than or equal to 0");
  CHECK(err(R"({"$sqrt": "x"})") == "$sqrt only supports numeric types, not string");
  // jstests/aggregation/expressions/log_pow_exp.js
  CHECK(op("$exp", nd("1")) == nd("2.718281828459045235360287471352662"));
  CHECK(op("$exp", nd("-1")) == nd("0.3678794411714423215955237701614609"));
  CHECK(op("$ln", nd("10")) == nd("2.302585092994045684017991454684364"));
  CHECK(op("$ln", nd("2.718281828459045235360287471352662")) == nd("0.9999999999999999999999999999999998"));
  CHECK(op("$log10", nd("2.5")) == nd("0.3979400086720376095725222105510140"));
  CHECK(op("$log10", nd("1")) == nd("0"));
  CHECK(op("$log", "[" + nd("1") + ", 8]") == nd("0E+33"));
  CHECK(op("$log", "[64, " + nd("8") + "]") == nd("2.000000000000000000000000000000000"));
  CHECK(op("$log", "[" + nd("2.5") + ", 9]") == nd("0.4170218835732348650487566466679398"));
  CHECK(op("$log", "[8, " + nd("8") + "]") == nd("1"));
  CHECK(op("$log", "[100, 10]") == R"({"$numberDouble":"2.0"})");
  CHECK(op("$log10", "1000") == R"({"$numberDouble":"3.0"})");
  CHECK(err(R"({"$log": [)" + nd("5") + ", " + nd("1") + "]}") ==
        "$log's base must be a positive number not equal to 1, but is 1");
  CHECK(err(R"({"$ln": )" + nd("0") + "}") == "$ln's argument must be a positive number, but is 0");
  CHECK(err(R"({"$log10": -1})") == "$log10's argument must be a positive number, but is -1");
  CHECK(op("$pow", "[" + nd("10.0") + ", -2]") == nd("0.01000000000000000000000000000000000"));
  CHECK(op("$pow", "[-2, " + nd("2") + "]") == nd("4.000000000000000000000000000000000"));
  CHECK(op("$pow", "[5, " + nd("-112") + "]") == nd("5.192296858534827628530496329220096E-79"));
  CHECK(op("$pow", "[" + nd("0.5") + R"(, {"$numberDouble": "NaN"}])") == nd("NaN"));
  CHECK(err(R"({"$pow": [)" + nd("0") + R"(, {"$numberLong": "-1"}]})") ==
        "$pow cannot take a base of 0 and a negative exponent");
  CHECK(op("$pow", R"([{"$numberInt": "3"}, {"$numberInt": "35"}])") == R"({"$numberLong":"50031545098999707"})");
  CHECK(op("$pow", R"([{"$numberInt": "-2"}, {"$numberLong": "63"}])") == R"({"$numberLong":"-9223372036854775808"})");
  CHECK(op("$pow", R"([{"$numberInt": "4"}, {"$numberInt": "2"}])") == R"({"$numberInt":"16"})");
  CHECK(op("$pow", R"([{"$numberInt": "2"}, {"$numberLong": "63"}])") == R"({"$numberDouble":"9223372036854775808.0"})");
  CHECK(op("$pow", R"([{"$numberInt": "-1"}, {"$numberLong": "-3"}])") == R"({"$numberLong":"-1"})");
  CHECK(op("$pow", R"([{"$numberLong": "2"}, {"$numberLong": "-1"}])") == R"({"$numberDouble":"0.5"})");
  CHECK(ev(R"({"$pow": [null, 2]})") == "null");
}

TEST_CASE("conversions to and from decimal follow MongoDB's table and errors") {
  // reference/operator/aggregation/toDecimal/: 2.5 → NumberDecimal("2.50000000000000").
  CHECK(op("$toDecimal", "2.5") == nd("2.50000000000000"));
  CHECK(op("$toDecimal", "true") == nd("1"));
  CHECK(op("$toDecimal", R"({"$numberLong": "-9223372036854775808"})") == nd("-9223372036854775808"));
  CHECK(op("$toDecimal", R"("5.5")") == nd("5.5"));
  CHECK(op("$toDecimal", R"({"$date": "2018-03-26T00:00:00Z"})") == nd("1522022400000"));
  CHECK(op("$toInt", nd("-5.5")) == R"({"$numberInt":"-5"})");
  CHECK(op("$toLong", nd("9223372036854775807.9")) == R"({"$numberLong":"9223372036854775807"})");
  CHECK(op("$toDouble", nd("0.1")) == R"({"$numberDouble":"0.1"})");
  CHECK(op("$toString", nd("1.10")) == R"("1.10")");
  CHECK(op("$toString", nd("1E+3")) == R"("1E+3")");
  CHECK(op("$toBool", nd("0.00")) == "false");
  CHECK(op("$toBool", nd("1E-6000")) == "true");
  CHECK(op("$toBool", nd("NaN")) == "true");
  CHECK(ev(R"({"$toDate": )" + nd("1522039108044.9") + "}") == R"({"$date":"2018-03-26T04:38:28.044Z"})");
  CHECK(err(R"({"$toInt": )" + nd("2147483648") + "}") == "Conversion would overflow target type in $convert with no onError value");
  CHECK(err(R"({"$toLong": )" + nd("1E+19") + "}") == "Conversion would overflow target type in $convert with no onError value");
  CHECK(err(R"({"$toInt": )" + nd("NaN") + "}") == "Attempt to convert NaN value to integer type in $convert with no onError value");
  CHECK(err(R"({"$toLong": )" + nd("-Infinity") + "}") ==
        "Attempt to convert infinity value to integer type in $convert with no onError value");
  CHECK(err(R"({"$toDouble": )" + nd("1E+400") + "}") == "Conversion would overflow target type in $convert with no onError value");
  CHECK(err(R"({"$toDouble": )" + nd("1E-400") + "}") == "Conversion would underflow target type in $convert with no onError value");
  CHECK(op("$toDouble", nd("Infinity")) == R"({"$numberDouble":"Infinity"})");
  CHECK(ev(R"({"$convert": {"input": )" + nd("1E+19") + R"(, "to": "long", "onError": "bad"}})") == R"("bad")");
  CHECK(op("$convert", R"({"input": 7, "to": 19})") == nd("7"));
  CHECK(ev(R"({"$isNumber": )" + nd("1") + "}") == "true");
  CHECK(ev(R"({"$type": )" + nd("1") + "}") == R"("decimal")");
}

TEST_CASE("an integral decimal serves where an integer argument is needed") {
  CHECK(ev(R"({"$arrayElemAt": [[10, 20, 30], )" + nd("2.0") + "]}") == "30");
  CHECK(ev(R"({"$range": [0, )" + nd("3") + "]}") == "[0,1,2]");
  CHECK(err(R"({"$arrayElemAt": [[10], )" + nd("0.5") + "]}") ==
        "$arrayElemAt's second argument requires an integral number, not decimal");
}
