#include "engine/value/datetime.hpp"

#include <charconv>

#include "common/json.hpp"

namespace omgdb::engine {
namespace {

constexpr std::int64_t millis_per_day = 86'400'000;

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

// A cursor over the text being parsed; every read is bounds-checked.
class reader {
 public:
  explicit reader(std::string_view s) : s_(s) {}

  bool at_end() const { return pos_ == s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip() { ++pos_; }

  // Exactly n decimal digits.
  bool digits(int n, int& out) {
    if (s_.size() - pos_ < static_cast<std::size_t>(n)) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
      char c = s_[pos_ + static_cast<std::size_t>(i)];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos_ += static_cast<std::size_t>(n);
    out = v;
    return true;
  }

  bool literal(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

failure bad(std::string_view text, std::string_view what, const std::string& why) {
  std::string msg;
  json::append_quoted(msg, text.size() > 64 ? std::string(text.substr(0, 64)) + "…" : std::string(text));
  msg += " is not an ISO-8601 ";
  msg += what;
  msg += ": ";
  msg += why;
  msg += " (expected e.g. \"2024-01-02T03:04:05Z\" or \"2024-01-02\")";
  return make_error(std::move(msg));
}

std::string two(int v) {
  std::string s(2, '0');
  s[0] = static_cast<char>('0' + v / 10);
  s[1] = static_cast<char>('0' + v % 10);
  return s;
}

void append_padded(std::string& out, std::int64_t v, int width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  for (auto len = end - buf; len < width; ++len) out.push_back('0');
  out.append(buf, end);
}

}  // namespace

std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept {
  // Shift the year to start in March so that the leap day is the last day of a year; then
  // count whole 400-year eras (146097 days each) and the days within the era.
  const std::int64_t y = year - (month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t year_of_era = y - era * 400;                                // [0, 399]
  const std::int64_t shifted_month = month > 2 ? month - 3 : month + 9;          // Mar = 0
  const std::int64_t day_of_year = (153 * shifted_month + 2) / 5 + day - 1;      // [0, 365]
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;    // [0, 146096]
  return era * 146097 + day_of_era - 719468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

civil_date civil_from_days(std::int64_t days) noexcept {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t day_of_era = z - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t shifted_month = (5 * day_of_year + 2) / 153;
  civil_date out;
  out.day = static_cast<unsigned>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  out.month = static_cast<unsigned>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  out.year = year_of_era + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

result<std::int64_t> parse_iso8601(std::string_view text) {
  reader r(text);
  int year = 0, month = 0, day = 0;
  if (!r.digits(4, year) || !r.literal('-') || !r.digits(2, month) || !r.literal('-') ||
      !r.digits(2, day)) {
    return bad(text, "date", "expected a date as YYYY-MM-DD");
  }
  if (month < 1 || month > 12) {
    return bad(text, "date", "month " + two(month) + " is out of range 01-12");
  }
  if (day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month))) {
    return bad(text, "date", "day " + two(day) + " does not exist in that month");
  }
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  if (r.at_end()) return days * millis_per_day;

  if (!r.literal('T') && !r.literal('t')) {
    return bad(text, "date-time", "expected 'T' between the date and the time");
  }
  int hour = 0, minute = 0, second = 0;
  if (!r.digits(2, hour) || !r.literal(':') || !r.digits(2, minute) || !r.literal(':') ||
      !r.digits(2, second)) {
    return bad(text, "date-time", "expected a time as HH:MM:SS");
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return bad(text, "date-time", "time " + two(hour) + ":" + two(minute) + ":" + two(second) +
                                      " is out of range (leap seconds are not supported)");
  }
  std::int64_t millis = 0;
  if (r.literal('.')) {
    int count = 0;
    while (r.peek() >= '0' && r.peek() <= '9') {
      // Keep the first three digits (milliseconds); further digits are truncated.
      if (count < 3) millis = millis * 10 + (r.peek() - '0');
      ++count;
      r.skip();
    }
    if (count == 0 || count > 9) {
      return bad(text, "date-time", "a fraction of a second needs 1 to 9 digits");
    }
    for (int i = count; i < 3; ++i) millis *= 10;
  }
  std::int64_t offset_minutes = 0;
  if (r.literal('Z') || r.literal('z')) {
    // UTC
  } else if (r.peek() == '+' || r.peek() == '-') {
    const int sign = r.peek() == '-' ? -1 : 1;
    r.skip();
    int oh = 0, om = 0;
    if (!r.digits(2, oh)) return bad(text, "date-time", "expected an offset as ±HH:MM or ±HHMM");
    r.literal(':');  // optional: ±HH:MM and ±HHMM are both accepted
    if (!r.digits(2, om)) return bad(text, "date-time", "expected an offset as ±HH:MM or ±HHMM");
    if (oh > 23 || om > 59) return bad(text, "date-time", "the UTC offset is out of range");
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad(text, "date-time",
               r.at_end() ? "a time zone is required: add Z for UTC or an offset such as +02:00"
                          : "expected Z or an offset such as +02:00 after the time");
  }
  if (!r.at_end()) return bad(text, "date-time", "unexpected text after the time zone");

  const std::int64_t local = ((days * 24 + hour) * 60 + minute) * 60'000 + second * 1000 + millis;
  return local - offset_minutes * 60'000;  // local time = UTC + offset
}

void append_iso8601(std::string& out, std::int64_t millis) {
  // Floor division without overflow for every int64 (INT64_MIN included).
  std::int64_t days = millis / millis_per_day;
  std::int64_t in_day = millis % millis_per_day;
  if (in_day < 0) {
    in_day += millis_per_day;
    days -= 1;
  }
  const civil_date d = civil_from_days(days);
  if (d.year >= 0 && d.year <= 9999) {
    append_padded(out, d.year, 4);
  } else {
    out.push_back(d.year < 0 ? '-' : '+');
    append_padded(out, d.year < 0 ? -d.year : d.year, 4);
  }
  out.push_back('-');
  append_padded(out, d.month, 2);
  out.push_back('-');
  append_padded(out, d.day, 2);
  out.push_back('T');
  append_padded(out, in_day / 3'600'000, 2);
  out.push_back(':');
  append_padded(out, in_day / 60'000 % 60, 2);
  out.push_back(':');
  append_padded(out, in_day / 1000 % 60, 2);
  out.push_back('.');
  append_padded(out, in_day % 1000, 3);
  out.push_back('Z');
}

std::string format_iso8601(std::int64_t millis) {
  std::string out;
  append_iso8601(out, millis);
  return out;
}

}  // namespace omgdb::engine
