// Date expression operators with time zones, including arithmetic across daylight saving
// time changes (reference/operator/aggregation/<name>/ examples; zones from the system's
// /usr/share/zoneinfo).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

namespace {
constexpr const char* k_doc = R"({"d": {"$date": "2014-01-01T08:15:39.736Z"}})";
}

TEST_CASE("date parts read the UTC calendar, or a zone's local one") {
  CHECK(ev(R"({"$year": "$d"})", k_doc) == "2014");
  CHECK(ev(R"({"$month": "$d"})", k_doc) == "1");
  CHECK(ev(R"({"$dayOfMonth": "$d"})", k_doc) == "1");
  CHECK(ev(R"({"$hour": "$d"})", k_doc) == "8");
  CHECK(ev(R"({"$minute": "$d"})", k_doc) == "15");
  CHECK(ev(R"({"$second": "$d"})", k_doc) == "39");
  CHECK(ev(R"({"$millisecond": "$d"})", k_doc) == "736");
  CHECK(ev(R"({"$dayOfYear": "$d"})", k_doc) == "1");
  CHECK(ev(R"({"$dayOfWeek": "$d"})", k_doc) == "4");
  CHECK(ev(R"({"$week": "$d"})", k_doc) == "0");
  CHECK(ev(R"({"$hour": {"date": "$d", "timezone": "America/New_York"}})", k_doc) == "3");
  CHECK(ev(R"({"$hour": {"date": "$d", "timezone": "+05:30"}})", k_doc) == "13");
  CHECK(ev(R"({"$hour": {"date": {"$toDate": "2024-07-01T10:00:00Z"}, "timezone": "Europe/Paris"}})") == "12");
  CHECK(ev(R"({"$hour": {"date": {"$toDate": "2024-01-01T10:00:00Z"}, "timezone": "Europe/Paris"}})") == "11");
  CHECK(err(R"({"$hour": {"date": "$d", "timezone": "Mars/Olympus"}})", k_doc).find("unrecognized time zone identifier: \"Mars/Olympus\"") == 0);
}

TEST_CASE("ISO week fields follow ISO 8601 around the new year") {
  const char* d = R"({"d": {"$date": "2016-01-01T00:00:00Z"}})";
  CHECK(ev(R"({"$isoWeek": "$d"})", d) == "53");
  CHECK(ev(R"({"$isoWeekYear": "$d"})", d) == "2015");
  CHECK(ev(R"({"$isoDayOfWeek": "$d"})", d) == "5");
  CHECK(ev(R"({"$dateToParts": {"date": "$d", "iso8601": true}})", d) ==
        R"({"isoWeekYear":2015,"isoWeek":53,"isoDayOfWeek":5,"hour":0,"minute":0,"second":0,"millisecond":0})");
}

TEST_CASE("dateToString formats in a zone") {
  CHECK(ev(R"({"$dateToString": {"format": "%Y-%m-%d", "date": "$d"}})", k_doc) == R"("2014-01-01")");
  CHECK(ev(R"({"$dateToString": {"format": "%H:%M:%S:%L%z", "date": "$d", "timezone": "America/New_York"}})", k_doc) ==
        R"("03:15:39:736-0500")");
  CHECK(ev(R"({"$dateToString": {"format": "%Z minutes, day %j, week %U, %b %B", "date": "$d", "timezone": "+04:45"}})", k_doc) ==
        R"("+285 minutes, day 001, week 00, Jan January")");
  CHECK(ev(R"({"$dateToString": {"date": "$d"}})", k_doc) == R"("2014-01-01T08:15:39.736Z")");
  CHECK(ev(R"({"$dateToString": {"date": null, "onNull": "none"}})") == R"("none")");
}

TEST_CASE("dateFromParts and dateFromString build dates, fields overflowing into the next unit") {
  CHECK(ev(R"({"$dateFromParts": {"year": 2017, "month": 14, "day": 1, "hour": 12}})") == R"({"$date":"2018-02-01T12:00:00.000Z"})");
  CHECK(ev(R"({"$dateFromParts": {"year": 2016, "month": 12, "day": 31, "hour": 23, "minute": 46, "timezone": "America/New_York"}})") ==
        R"({"$date":"2017-01-01T04:46:00.000Z"})");
  CHECK(ev(R"({"$dateFromString": {"dateString": "2024-03-10 12:00", "timezone": "America/New_York"}})") ==
        R"({"$date":"2024-03-10T16:00:00.000Z"})");
  CHECK(ev(R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787+05:30"}})") == R"({"$date":"2017-02-08T06:40:40.787Z"})");
  CHECK(ev(R"({"$dateFromString": {"dateString": "not a date", "onError": "bad"}})") == R"("bad")");
}

TEST_CASE("dateAdd of a day across the DST change keeps the local time, of 24 hours does not") {
  const char* d = R"({"d": {"$date": "2021-03-13T17:00:00Z"}})";  // 12:00 EST, the day before DST
  CHECK(ev(R"({"$dateAdd": {"startDate": "$d", "unit": "day", "amount": 1, "timezone": "America/New_York"}})", d) ==
        R"({"$date":"2021-03-14T16:00:00.000Z"})");
  CHECK(ev(R"({"$dateAdd": {"startDate": "$d", "unit": "hour", "amount": 24, "timezone": "America/New_York"}})", d) ==
        R"({"$date":"2021-03-14T17:00:00.000Z"})");
  CHECK(ev(R"({"$dateAdd": {"startDate": "$d", "unit": "day", "amount": 1}})", d) == R"({"$date":"2021-03-14T17:00:00.000Z"})");
  CHECK(ev(R"({"$dateSubtract": {"startDate": {"$toDate": "2021-03-31T00:00:00Z"}, "unit": "month", "amount": 1}})") ==
        R"({"$date":"2021-02-28T00:00:00.000Z"})");
  CHECK(ev(R"({"$dateAdd": {"startDate": {"$toDate": "2020-02-29T00:00:00Z"}, "unit": "year", "amount": 1}})") ==
        R"({"$date":"2021-02-28T00:00:00.000Z"})");
  // Past the range of a millisecond count: an error, not a wrapped date.
  CHECK(err(R"({"$dateAdd": {"startDate": {"$toDate": "2020-02-29T00:00:00Z"}, "unit": "year", "amount": 1000000000000}})") == "$dateAdd overflowed");
  CHECK(err(R"({"$dateAdd": {"startDate": {"$toDate": "2020-02-29T00:00:00Z"}, "unit": "hour", "amount": {"$toLong": "4000000000000000"}}})") ==
        "$dateAdd overflowed");
}

TEST_CASE("dateDiff counts unit boundaries crossed in the zone") {
  CHECK(ev(R"({"$dateDiff": {"startDate": {"$toDate": "2020-12-31T23:59:59Z"}, "endDate": {"$toDate": "2021-01-01T00:00:01Z"}, "unit": "year"}})") == "1");
  CHECK(ev(R"({"$dateDiff": {"startDate": {"$toDate": "2021-03-13T17:00:00Z"}, "endDate": {"$toDate": "2021-03-14T16:00:00Z"}, "unit": "day", "timezone": "America/New_York"}})") == "1");
  CHECK(ev(R"({"$dateDiff": {"startDate": {"$toDate": "2021-03-13T17:00:00Z"}, "endDate": {"$toDate": "2021-03-14T16:00:00Z"}, "unit": "hour"}})") == "23");
  // 2022-01-01 is a Saturday, 2022-01-03 a Monday
  CHECK(ev(R"({"$dateDiff": {"startDate": {"$toDate": "2022-01-01T00:00:00Z"}, "endDate": {"$toDate": "2022-01-03T00:00:00Z"}, "unit": "week", "startOfWeek": "monday"}})") == "1");
  CHECK(ev(R"({"$dateDiff": {"startDate": {"$toDate": "2022-01-01T00:00:00Z"}, "endDate": {"$toDate": "2022-01-03T00:00:00Z"}, "unit": "week"}})") == "1");
}

TEST_CASE("dateTrunc truncates to unit bins in the zone") {
  CHECK(ev(R"({"$dateTrunc": {"date": {"$toDate": "2021-03-20T11:30:05Z"}, "unit": "month"}})") == R"({"$date":"2021-03-01T00:00:00.000Z"})");
  CHECK(ev(R"({"$dateTrunc": {"date": {"$toDate": "2021-03-20T11:30:05Z"}, "unit": "quarter"}})") == R"({"$date":"2021-01-01T00:00:00.000Z"})");
  CHECK(ev(R"({"$dateTrunc": {"date": {"$toDate": "2021-03-20T11:30:05Z"}, "unit": "hour", "binSize": 2}})") == R"({"$date":"2021-03-20T10:00:00.000Z"})");
  CHECK(ev(R"({"$dateTrunc": {"date": {"$toDate": "2021-03-20T11:30:05Z"}, "unit": "week", "startOfWeek": "monday"}})") == R"({"$date":"2021-03-15T00:00:00.000Z"})");
  CHECK(ev(R"({"$dateTrunc": {"date": {"$toDate": "2021-03-20T02:30:05Z"}, "unit": "day", "timezone": "America/New_York"}})") == R"({"$date":"2021-03-19T04:00:00.000Z"})");  // EDT since March 14
}
