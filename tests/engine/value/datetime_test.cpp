#include "engine/value/datetime.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <random>

using namespace omgdb::engine;

namespace {

std::int64_t parsed(std::string_view text) {
  auto r = parse_iso8601(text);
  REQUIRE_MESSAGE(r.ok(), text, ": ", (r.ok() ? "" : r.error().message));
  return *r;
}

std::string parse_error(std::string_view text) {
  auto r = parse_iso8601(text);
  REQUIRE_MESSAGE(!r.ok(), text, " parsed as ", (r.ok() ? *r : 0));
  return r.error().message;
}

}  // namespace

TEST_CASE("the epoch formats with three fraction digits as in the BSON corpus") {
  CHECK(format_iso8601(0) == "1970-01-01T00:00:00.000Z");
}

TEST_CASE("BSON corpus datetimes format as their relaxed Extended JSON strings") {
  // bson-corpus datetime.json: "positive ms" and "negative".
  CHECK(format_iso8601(1356351330500) == "2012-12-24T12:15:30.500Z");
  CHECK(format_iso8601(-284643869500) == "1960-12-24T12:15:30.500Z");
  // The Extended JSON spec example: datetime.max and datetime.min of Python.
  CHECK(format_iso8601(253402300799999) == "9999-12-31T23:59:59.999Z");
  CHECK(format_iso8601(-62135596800000) == "0001-01-01T00:00:00.000Z");
}

TEST_CASE("one millisecond before the epoch is the last millisecond of 1969") {
  CHECK(format_iso8601(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(parsed("1969-12-31T23:59:59.999Z") == -1);
}

TEST_CASE("years outside 0000-9999 use the expanded ISO-8601 form with a sign") {
  CHECK(format_iso8601(253402300800000) == "+10000-01-01T00:00:00.000Z");
  CHECK(format_iso8601(-62167219200000) == "0000-01-01T00:00:00.000Z");
  CHECK(format_iso8601(-62167219200001) == "-0001-12-31T23:59:59.999Z");
  // The int64 extremes (the same text as java.time.Instant.ofEpochMilli).
  CHECK(format_iso8601(std::numeric_limits<std::int64_t>::max()) == "+292278994-08-17T07:12:55.807Z");
  CHECK(format_iso8601(std::numeric_limits<std::int64_t>::min()) == "-292275055-05-16T16:47:04.192Z");
}

TEST_CASE("a UTC date-time parses to milliseconds since the epoch") {
  CHECK(parsed("2024-01-02T03:04:05Z") == 1704164645000);
  CHECK(parsed("2024-01-02t03:04:05z") == 1704164645000);
  CHECK(parsed("2012-12-24T12:15:30.500Z") == 1356351330500);
  CHECK(parsed("0001-01-01T00:00:00Z") == -62135596800000);
  CHECK(parsed("9999-12-31T23:59:59.999Z") == 253402300799999);
}

TEST_CASE("a date alone is midnight UTC") {
  CHECK(parsed("2024-01-02") == 1704153600000);
  CHECK(parsed("1970-01-01") == 0);
}

TEST_CASE("fractions of a second keep milliseconds and truncate finer digits") {
  CHECK(parsed("2024-01-02T03:04:05.1Z") == 1704164645100);
  CHECK(parsed("2024-01-02T03:04:05.12Z") == 1704164645120);
  CHECK(parsed("2024-01-02T03:04:05.123Z") == 1704164645123);
  CHECK(parsed("2024-01-02T03:04:05.123999999Z") == 1704164645123);
  CHECK(parsed("1969-12-31T23:59:59.9999Z") == -1);
}

TEST_CASE("UTC offsets with and without a colon are applied") {
  CHECK(parsed("2024-01-02T03:04:05+05:30") == 1704144845000);
  CHECK(parsed("2024-01-02T03:04:05+0530") == 1704144845000);
  CHECK(parsed("2024-01-02T03:04:05-08:00") == 1704193445000);
  CHECK(parsed("2024-01-02T03:04:05-0800") == 1704193445000);
  CHECK(parsed("2024-01-02T03:04:05+00:00") == parsed("2024-01-02T03:04:05Z"));
}

TEST_CASE("leap days exist only in leap years") {
  CHECK(parsed("2024-02-29T23:59:59.999Z") == 1709251199999);
  CHECK(parsed("2000-02-29") + 86'400'000 == parsed("2000-03-01"));
  CHECK(parsed("2000-03-01") == 951868800000);
  CHECK(parsed("1900-03-01") == -2203891200000);
  CHECK(parse_error("2023-02-29").find("day 29") != std::string::npos);
  CHECK(parse_error("1900-02-29").find("day 29") != std::string::npos);
}

TEST_CASE("malformed dates are errors that quote the text and say what is wrong") {
  CHECK(parse_error("2024-13-01") ==
        "\"2024-13-01\" is not an ISO-8601 date: month 13 is out of range 01-12 "
        "(expected e.g. \"2024-01-02T03:04:05Z\" or \"2024-01-02\")");
  CHECK(parse_error("2024-01-02T03:04:05").find("a time zone is required") != std::string::npos);
  CHECK(parse_error("2024-01-02T24:00:00Z").find("out of range") != std::string::npos);
  CHECK(parse_error("2024-01-02T23:59:60Z").find("leap seconds") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04:05.Z").find("1 to 9 digits") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04:05.1234567890Z").find("1 to 9 digits") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04:05Zjunk").find("unexpected text") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04:05+24:00").find("offset") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04:05+5").find("offset") != std::string::npos);
  CHECK(parse_error("2024-01-02T03:04Z").find("HH:MM:SS") != std::string::npos);
  CHECK(parse_error("2024-01-02 03:04:05Z").find("'T'") != std::string::npos);
  CHECK(parse_error("").find("YYYY-MM-DD") != std::string::npos);
  CHECK(parse_error("24-01-02").find("YYYY-MM-DD") != std::string::npos);
  CHECK(parse_error("+2024-01-02").find("YYYY-MM-DD") != std::string::npos);
  CHECK(parse_error("2024-00-10").find("month 00") != std::string::npos);
  CHECK(parse_error("2024-04-31").find("day 31") != std::string::npos);
}

TEST_CASE("days_from_civil and civil_from_days are inverse over many millennia") {
  CHECK(days_from_civil(1970, 1, 1) == 0);
  CHECK(days_from_civil(2000, 3, 1) == 11017);
  CHECK(days_from_civil(0, 3, 1) == -719468);
  std::mt19937_64 rng(20240102);
  std::uniform_int_distribution<std::int64_t> days(-5'000'000, 5'000'000);
  for (int n = 0; n < 20000; ++n) {
    const std::int64_t d = days(rng);
    const civil_date c = civil_from_days(d);
    REQUIRE(c.month >= 1);
    REQUIRE(c.month <= 12);
    REQUIRE(c.day >= 1);
    REQUIRE(c.day <= 31);
    REQUIRE(days_from_civil(c.year, c.month, c.day) == d);
    // Consecutive days are consecutive calendar dates.
    const civil_date next = civil_from_days(d + 1);
    REQUIRE((next.day == c.day + 1 || (next.day == 1 && (next.month == c.month % 12 + 1))));
  }
}

TEST_CASE("formatting then parsing gives back the same milliseconds from year 0 to 9999") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> millis(-62167219200000, 253402300799999);
  for (int n = 0; n < 5000; ++n) {
    const std::int64_t m = millis(rng);
    REQUIRE(parsed(format_iso8601(m)) == m);
  }
}
