// The expression forms of $median and $percentile: the manual's testScores example and the
// same answers as the accumulators (engine/query/percentile.hpp is shared).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

TEST_CASE("percentile over an array gives the manual's test score percentiles") {
  const char* p = R"({"$percentile": {"input": ["$test01", "$test02", "$test03"], "p": [0.5, 0.95], "method": "approximate"}})";
  CHECK(ev(p, R"({"studentId": "2345", "test01": 62, "test02": 81, "test03": 80})") == "[80.0,81.0]");
  CHECK(ev(p, R"({"studentId": "2356", "test01": 60, "test02": 83, "test03": 79})") == "[79.0,83.0]");
  CHECK(ev(p, R"({"studentId": "2369", "test01": 60, "test02": 53, "test03": 72})") == "[60.0,72.0]");
  const char* m = R"({"$median": {"input": ["$test01", "$test02", "$test03"], "method": "approximate"}})";
  CHECK(ev(m, R"({"test01": 64, "test02": 72, "test03": 77})") == "72.0");
  CHECK(ev(m, R"({"test01": 67, "test02": 82, "test03": 78})") == "78.0");
}

TEST_CASE("percentile skips non-numbers and gives null without numbers") {
  CHECK(ev(R"({"$median": {"input": [1, "x", null, 3, 2], "method": "approximate"}})") == "2.0");
  CHECK(ev(R"({"$median": {"input": 7, "method": "approximate"}})") == "7.0");
  CHECK(ev(R"({"$median": {"input": ["x"], "method": "approximate"}})") == "null");
  CHECK(ev(R"({"$median": {"input": "$nope", "method": "approximate"}})") == "null");
  CHECK(ev(R"({"$percentile": {"input": [], "p": [0.1, 0.9], "method": "approximate"}})") == "[null,null]");
}

TEST_CASE("the continuous method interpolates, discrete takes a rank") {
  CHECK(ev(R"({"$median": {"input": [1, 2, 3, 4], "method": "continuous"}})") == "2.5");
  CHECK(ev(R"({"$median": {"input": [1, 2, 3, 4], "method": "discrete"}})") == "2.0");
  CHECK(ev(R"({"$percentile": {"input": [10, 20, 30, 40, 50], "p": [0, 0.25, 1], "method": "continuous"}})") ==
        "[10.0,20.0,50.0]");
}

TEST_CASE("percentile arguments are checked") {
  CHECK(err(R"({"$median": {"input": [1], "method": "exact"}})") ==
        R"(`$median`: `method` must be "approximate", "discrete" or "continuous")");
  CHECK(err(R"({"$median": {"input": [1]}})") == "`$median` is missing `method`");
  CHECK(err(R"({"$percentile": {"input": [1], "method": "approximate"}})") == "`$percentile` is missing `p`");
  CHECK(err(R"({"$percentile": {"input": [1], "p": [1.5], "method": "approximate"}})") ==
        "`$percentile`: `p` must be a non-empty array of numbers in [0, 1]");
  CHECK(err(R"({"$percentile": {"input": [1], "p": "$ps", "method": "approximate"}})", R"({"ps": []})") ==
        "`$percentile`: `p` must be a non-empty array of numbers in [0, 1]");
  CHECK(ev(R"({"$percentile": {"input": [1, 2], "p": "$ps", "method": "approximate"}})", R"({"ps": [1]})") == "[2.0]");
  CHECK(err(R"({"$median": {"input": [1], "method": "approximate", "n": 1}})").find("does not take `n`") != std::string::npos);
}
