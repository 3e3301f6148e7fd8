// omgdb engine — ISO-8601 dates to and from milliseconds since the Unix epoch (UTC).
//
// Used by Extended JSON for {"$date": "…"}. Calendar arithmetic is the proleptic Gregorian
// calendar through days-from-civil formulas; there is no time zone database: only UTC
// offsets written in the text are understood. Leap seconds are not representable (as in
// BSON dates and JavaScript).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace omgdb::engine {

struct civil_date {
  std::int64_t year = 1970;
  unsigned month = 1;  // 1–12
  unsigned day = 1;    // 1–31
};

// Days since 1970-01-01 of a proleptic Gregorian date. The date is not validated.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept;
civil_date civil_from_days(std::int64_t days) noexcept;

// Parses an ISO-8601 / RFC 3339 date-time in extended format:
//   "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456789+05:30", "2024-01-02T03:04:05-0800",
//   or a date alone, "2024-01-02" (midnight UTC).
// Years have four digits (0000–9999); 'T' and 'Z' may be lower case; a fraction of 1–9 digits
// is kept to the millisecond (truncated); the offset is Z, ±HH:MM or ±HHMM and is required
// when a time is given (a local time would be ambiguous). Returns milliseconds since the epoch.
// Errors name the text and what is wrong, e.g.
//   "\"2024-13-01\" is not an ISO-8601 date: month 13 is out of range 01-12".
result<std::int64_t> parse_iso8601(std::string_view text);

// "YYYY-MM-DDTHH:MM:SS.mmmZ", always with three fraction digits (as MongoDB tools and the
// BSON corpus write relaxed Extended JSON dates). Years outside 0000–9999 are written in the
// ISO-8601 expanded form with a sign and at least four digits ("+10000-01-01T…", "-0001-…").
std::string format_iso8601(std::int64_t millis);
void append_iso8601(std::string& out, std::int64_t millis);

}  // namespace omgdb::engine
