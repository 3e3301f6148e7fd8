// $dateFromParts (calendar and ISO week dates) and $dateFromString (ISO-8601 text, or text
// read by a `format`; with timezone, onError, onNull): the manual's examples
// (reference/operator/aggregation/dateFromParts/ and dateFromString/, worked by hand), DST
// changes in a zone, and mongod's errors.
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

namespace {
std::string d(std::string_view iso) { return R"({"$date":")" + std::string(iso) + R"("})"; }
std::string from(std::string_view args, std::string_view doc = "{}") { return ev(R"({"$dateFromString": )" + std::string(args) + "}", doc); }
}  // namespace

TEST_CASE("dateFromParts builds the manual's calendar and ISO week dates") {
  CHECK(ev(R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12}})") == d("2017-02-08T12:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3, "hour": 12}})") == d("2017-02-08T12:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12, "timezone": "America/New_York"}})") ==
        d("2017-02-08T17:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3, "hour": 10, "minute": 27, "second": 0,
                                   "millisecond": 123, "timezone": "America/New_York"}})") == d("2017-02-08T15:27:00.123Z"));
}

TEST_CASE("ISO week dates default to Monday of week one and carry out-of-range weeks and days") {
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2016}})") == d("2016-01-04T00:00:00.000Z"));  // Jan 4th 2016 was a Monday
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2015, "isoWeek": 53, "isoDayOfWeek": 5}})") == d("2016-01-01T00:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 8}})") == d("2017-02-13T00:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 0}})") == d("2016-12-26T00:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": "$w"}})", R"({"w": null})") == "null");
}

TEST_CASE("dateFromParts in a zone follows the zone's DST change") {
  // New York moved to daylight time at 2024-03-10 02:00 local: 01:00 is EST (-5), 03:00 EDT (-4).
  CHECK(ev(R"({"$dateFromParts": {"year": 2024, "month": 3, "day": 10, "hour": 1, "timezone": "America/New_York"}})") == d("2024-03-10T06:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"year": 2024, "month": 3, "day": 10, "hour": 3, "timezone": "America/New_York"}})") == d("2024-03-10T07:00:00.000Z"));
  CHECK(ev(R"({"$dateFromParts": {"isoWeekYear": 2024, "isoWeek": 10, "isoDayOfWeek": 7, "hour": 12, "timezone": "America/New_York"}})") ==
        d("2024-03-10T16:00:00.000Z"));
}

TEST_CASE("dateFromParts refuses mixed forms, missing years and parts out of range") {
  CHECK(err(R"({"$dateFromParts": {"year": 2017, "isoWeek": 6}})") ==
        "`$dateFromParts` does not allow mixing natural dates (`year`, `month`, `day`) with ISO dates (`isoWeekYear`, `isoWeek`, `isoDayOfWeek`)");
  CHECK(err(R"({"$dateFromParts": {"month": 2}})") == "`$dateFromParts` requires either `year` or `isoWeekYear`");
  CHECK(err(R"({"$dateFromParts": {"isoWeekYear": 10000}})") == "$dateFromParts: 'isoWeekYear' must evaluate to an integer in the range 1 to 9999, found 10000");
  CHECK(err(R"({"$dateFromParts": {"year": 2017, "month": 40000}})") ==
        "$dateFromParts: 'month' must evaluate to a value in the range [-32768, 32767]; value 40000 is not in range");
  CHECK(err(R"({"$dateFromParts": {"year": 2017, "day": "x"}})") == "$dateFromParts: 'day' must evaluate to an integer, found string");
  CHECK(err(R"({"$dateFromParts": {"isoWeekYear": 2017, "isoDayOfWeek": 1.5}})").find("$dateFromParts: 'isoDayOfWeek'") == 0);
}

TEST_CASE("dateFromString reads the manual's log dates in a fixed zone and in each document's zone") {
  const char* docs[] = {R"({"date": "2017-02-08T12:10:40.787", "timezone": "America/New_York"})", R"({"date": "2017-02-08", "timezone": "-05:00"})",
                        R"({"message": " Step 1: Ended "})", R"({"date": "2017-02-09", "timezone": "Europe/London"})",
                        R"({"date": "2017-02-09T03:35:02.055", "timezone": "+0530"})"};
  const char* fixed[] = {"2017-02-08T17:10:40.787Z", "2017-02-08T05:00:00.000Z", "", "2017-02-09T05:00:00.000Z", "2017-02-09T08:35:02.055Z"};
  const char* own[] = {"2017-02-08T17:10:40.787Z", "2017-02-08T05:00:00.000Z", "", "2017-02-09T00:00:00.000Z", "2017-02-08T22:05:02.055Z"};
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(from(R"({"dateString": "$date", "timezone": "America/New_York"})", docs[i]) == (*fixed[i] ? d(fixed[i]) : "null"));
    CHECK(from(R"({"dateString": "$date", "timezone": "$timezone"})", docs[i]) == (*own[i] ? d(own[i]) : "null"));
  }
}

TEST_CASE("dateFromString gives onError for text it cannot read and onNull for null text") {
  CHECK(from(R"({"dateString": "$date", "timezone": "America/New_York", "onError": "$date"})", R"({"date": "20177-02-09T03:35:02.055"})") ==
        R"("20177-02-09T03:35:02.055")");
  CHECK(from(R"({"dateString": "$date", "timezone": "America/New_York", "onNull": {"$date": "1970-01-01T00:00:00Z"}})", R"({"timezone": "x"})") ==
        d("1970-01-01T00:00:00.000Z"));
  CHECK(from(R"({"dateString": 5, "onError": "not text"})") == R"("not text")");
  // Bad arguments are not the text's fault: onError does not hide them.
  CHECK(err(R"({"$dateFromString": {"dateString": "2017-02-08", "timezone": "Mars/Olympus", "onError": 0}})").find("unrecognized time zone") == 0);
  CHECK(err(R"({"$dateFromString": {"dateString": "2017-02-08", "format": 7, "onError": 0}})") ==
        "$dateFromString requires that 'format' be a string, found: int");
}

TEST_CASE("dateFromString reads text by a format of mongod's specifiers") {
  CHECK(from(R"({"dateString": "15-06-2018", "format": "%d-%m-%Y"})") == d("2018-06-15T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "06-15-2018", "format": "%m-%d-%Y"})") == d("2018-06-15T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "2017-07-04T11:56:02.123-0400", "format": "%Y-%m-%dT%H:%M:%S.%L%z"})") == d("2017-07-04T15:56:02.123Z"));
  CHECK(from(R"({"dateString": "2017-07-04 11:56 -240", "format": "%Y-%m-%d %H:%M %Z"})") == d("2017-07-04T15:56:00.000Z"));
  CHECK(from(R"({"dateString": "Jun 15 2018", "format": "%b %d %Y"})") == d("2018-06-15T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "15 September 2018 7:05", "format": "%d %B %Y %H:%M"})") == d("2018-09-15T07:05:00.000Z"));
  CHECK(from(R"({"dateString": "2017-W06-3", "format": "%G-W%V-%u"})") == d("2017-02-08T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "2018/6/5 100%", "format": "%Y/%m/%d 100%%"})") == d("2018-06-05T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "12:30:05.5 2020-01-02", "format": "%H:%M:%S.%L %Y-%m-%d"})") == d("2020-01-02T12:30:05.500Z"));
  // mongod counts %j from 0: day 194 of 2020 is July 13th.
  CHECK(from(R"({"dateString": "2020-194", "format": "%Y-%j"})") == d("2020-07-13T00:00:00.000Z"));
  CHECK(from(R"({"dateString": "2018-06-15", "format": null})") == "null");
}

TEST_CASE("dateFromString with a format and a zone follows the zone's DST change") {
  const char* ny = R"(, "format": "%Y-%m-%d %H:%M", "timezone": "America/New_York"})";
  CHECK(from(std::string(R"({"dateString": "2024-03-09 03:30")") + ny) == d("2024-03-09T08:30:00.000Z"));
  CHECK(from(std::string(R"({"dateString": "2024-03-10 03:30")") + ny) == d("2024-03-10T07:30:00.000Z"));
  // 02:30 does not exist that day; it reads with the offset before the change, as 03:30 EDT.
  CHECK(from(std::string(R"({"dateString": "2024-03-10 02:30")") + ny) == d("2024-03-10T07:30:00.000Z"));
  CHECK(from(std::string(R"({"dateString": "2024-11-03 12:00")") + ny) == d("2024-11-03T17:00:00.000Z"));
}

TEST_CASE("dateFromString names what is wrong with a format or with the text") {
  CHECK(err(R"({"$dateFromString": {"dateString": "2018", "format": "%Y-%q"}})") == "$dateFromString: Invalid format character '%q' in format string");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018", "format": "%Y %"}})") == "$dateFromString: Unmatched '%' at end of format string");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018-06-15x", "format": "%Y-%m-%d"}})") ==
        "Error parsing date string '2018-06-15x'; 10: Trailing data 'x'");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018-06", "format": "%Y-%m-%d"}})") ==
        "Error parsing date string '2018-06'; 7: Not enough data available to satisfy format ''");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018/06/15", "format": "%Y-%m-%d"}})") ==
        "Error parsing date string '2018/06/15'; 4: Format literal not found '/'; 7: Format literal not found '/'");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018-02-30", "format": "%Y-%m-%d"}})") ==
        "Error parsing date string '2018-02-30'; 10: The parsed date was invalid ''");
  CHECK(err(R"({"$dateFromString": {"dateString": "2018", "format": "%Y"}})") ==
        "an incomplete date/time string has been found, with elements missing: \"2018\"");
  CHECK(err(R"({"$dateFromString": {"dateString": "2017-07-04T11:56:02Z", "timezone": "Europe/Paris"}})") ==
        "you cannot pass in a date/time string with time zone information ('Z') together with a timezone argument");
  CHECK(err(R"({"$dateFromString": {"dateString": "2017-07-04 11:56 +0200", "format": "%Y-%m-%d %H:%M %z", "timezone": "Europe/Paris"}})") ==
        "you cannot pass in a date/time string with GMT offset together with a timezone argument");
  CHECK(from(R"({"dateString": "2017-07-04T11:56:02Z", "timezone": "UTC"})") == d("2017-07-04T11:56:02.000Z"));
  CHECK(from(R"({"dateString": "2018-02-30", "format": "%Y-%m-%d", "onError": "bad"})") == R"("bad")");
}
