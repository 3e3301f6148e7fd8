// Trigonometric expression operators. Golden values from mathematics (sin π/2 = 1, 180° = π
// rad …) and from MongoDB's manual pages for $degreesToRadians / $radiansToDegrees (their
// decimal examples); error texts from mongod (expression_trigonometric.h, error 50989).
#include <cmath>

#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

namespace {

std::string nd(std::string_view text) { return R"({"$numberDecimal":")" + std::string(text) + R"("})"; }

// The double result of an expression (fails the test for any other kind).
double dbl(const std::string& expr) {
  auto v = try_eval(expr, "{}");
  REQUIRE_MESSAGE(v.ok(), expr, " failed");
  REQUIRE(*v);
  REQUIRE_MESSAGE((*v)->is_double(), expr, " did not give a double");
  return (*v)->as_double();
}

constexpr double k_pi = 3.141592653589793;

}  // namespace

TEST_CASE("the trigonometric functions give the textbook values as doubles") {
  CHECK(dbl(R"({"$sin": 1.5707963267948966})") == 1.0);
  CHECK(dbl(R"({"$cos": 0})") == 1.0);  // an int argument gives a double
  CHECK(dbl(R"({"$tan": 0.7853981633974483})") == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(dbl(R"({"$asin": 1})") == k_pi / 2);
  CHECK(dbl(R"({"$acos": 1})") == 0.0);
  CHECK(dbl(R"({"$acos": -1})") == k_pi);
  CHECK(dbl(R"({"$atan": 1})") == k_pi / 4);
  CHECK(dbl(R"({"$atan2": [1, 1]})") == k_pi / 4);
  CHECK(dbl(R"({"$atan2": [0, -1]})") == k_pi);
  CHECK(dbl(R"({"$sinh": 0})") == 0.0);
  CHECK(dbl(R"({"$cosh": 0})") == 1.0);
  CHECK(dbl(R"({"$tanh": {"$numberLong": "0"}})") == 0.0);
  CHECK(dbl(R"({"$asinh": 0})") == 0.0);
  CHECK(dbl(R"({"$acosh": 1})") == 0.0);
  CHECK(dbl(R"({"$atanh": 0})") == 0.0);
  CHECK(dbl(R"({"$sinh": 1})") == doctest::Approx((std::exp(1.0) - std::exp(-1.0)) / 2).epsilon(1e-15));
}

TEST_CASE("degrees and radians convert with mongod's factors") {
  CHECK(dbl(R"({"$degreesToRadians": 180})") == k_pi);
  CHECK(dbl(R"({"$degreesToRadians": 90})") == 1.5707963267948966);
  CHECK(dbl(R"({"$radiansToDegrees": 3.141592653589793})") == 180.0);
  // The manual's trigonometry collection, in decimal.
  CHECK(canon(R"({"$degreesToRadians": )" + nd("53.13010235415597870314438744090659") + "}") ==
        nd("0.9272952180016122324285124629224290"));
  CHECK(canon(R"({"$degreesToRadians": )" + nd("36.86989764584402129685561255909341") + "}") ==
        nd("0.6435011087932843868028092287173227"));
  CHECK(canon(R"({"$degreesToRadians": )" + nd("90") + "}") == nd("1.570796326794896619231321691639752"));
  CHECK(canon(R"({"$radiansToDegrees": )" + nd("0.9272952180016122324285124629224290") + "}") ==
        nd("53.13010235415597870314438744090660"));
  CHECK(canon(R"({"$radiansToDegrees": )" + nd("1.570796326794896619231321691639752") + "}") ==
        nd("90.00000000000000000000000000000003"));
  // ±Infinity and NaN pass through (the manual's behaviour table).
  CHECK(canon(R"({"$radiansToDegrees": {"$numberDouble": "Infinity"}})") == R"({"$numberDouble":"Infinity"})");
  CHECK(canon(R"({"$degreesToRadians": {"$numberDouble": "-Infinity"}})") == R"({"$numberDouble":"-Infinity"})");
  CHECK(canon(R"({"$degreesToRadians": {"$numberDouble": "NaN"}})") == R"({"$numberDouble":"NaN"})");
}

TEST_CASE("a decimal argument gives a decimal result computed in decimal") {
  CHECK(canon(R"({"$sin": )" + nd("0") + "}") == nd("0"));
  CHECK(ev(R"({"$type": {"$cos": )" + nd("0") + "}}") == R"("decimal")");
  CHECK(ev(R"({"$eq": [{"$cos": )" + nd("0") + "}, 1]}") == "true");
  // sin 1 = 0.84147098480789650665250232163029899962… (34 digits: …3029900 ±1 unit).
  const std::string s = canon(R"({"$sin": )" + nd("1") + "}");
  CHECK(s.rfind(R"({"$numberDecimal":"0.84147098480789650665250232163029)", 0) == 0);
  // atan2 with one decimal operand is decimal: atan2(1, 1) = π/4 = 0.78539816339744830961566084581987572…
  const std::string a = canon(R"({"$atan2": [)" + nd("1") + ", 1]}");
  CHECK(a.rfind(R"({"$numberDecimal":"0.78539816339744830961566084581987)", 0) == 0);
  CHECK(canon(R"({"$acos": )" + nd("NaN") + "}") == nd("NaN"));
}

TEST_CASE("null and missing give null, NaN gives NaN") {
  CHECK(ev(R"({"$sin": null})") == "null");
  CHECK(ev(R"({"$acos": "$nope"})") == "null");
  CHECK(ev(R"({"$atan2": [1, "$nope"]})") == "null");
  CHECK(ev(R"({"$atan2": [null, 1]})") == "null");
  CHECK(canon(R"({"$asin": {"$numberDouble": "NaN"}})") == R"({"$numberDouble":"NaN"})");
  CHECK(canon(R"({"$tanh": {"$numberDouble": "NaN"}})") == R"({"$numberDouble":"NaN"})");
}

TEST_CASE("arguments outside a function's domain are refused with mongod's message") {
  CHECK(err(R"({"$acos": -2})") == "cannot apply $acos to -2, value must in [-1,1]");
  CHECK(err(R"({"$asin": 1.5})") == "cannot apply $asin to 1.5, value must in [-1,1]");
  CHECK(err(R"({"$atanh": 2})") == "cannot apply $atanh to 2, value must in [-1,1]");
  CHECK(err(R"({"$acosh": 0.5})") == "cannot apply $acosh to 0.5, value must in [1,inf]");
  CHECK(err(R"({"$sin": {"$numberDouble": "Infinity"}})") == "cannot apply $sin to inf, value must in (-inf,inf)");
  CHECK(err(R"({"$cos": {"$numberDouble": "-Infinity"}})") == "cannot apply $cos to -inf, value must in (-inf,inf)");
  CHECK(err(R"({"$acos": )" + nd("1.0001") + "}") == "cannot apply $acos to 1.0001, value must in [-1,1]");
  CHECK(err(R"({"$tan": )" + nd("-Infinity") + "}") == "cannot apply $tan to -Infinity, value must in (-inf,inf)");
  // The unbounded ones take infinities.
  CHECK(dbl(R"({"$atan": {"$numberDouble": "Infinity"}})") == k_pi / 2);
  CHECK(dbl(R"({"$acosh": {"$numberDouble": "Infinity"}})") == HUGE_VAL);
}

TEST_CASE("non-numeric arguments are type errors") {
  CHECK(err(R"({"$sin": "1"})") == "$sin only supports numeric types, not string");
  CHECK(err(R"({"$degreesToRadians": true})") == "$degreesToRadians only supports numeric types, not bool");
  CHECK(err(R"({"$atan2": [1, "x"]})") == "$atan2 only supports numeric types, not string");
  CHECK(err(R"({"$atan2": [1]})") == "`$atan2` takes exactly 2 arguments, got 1");
}
