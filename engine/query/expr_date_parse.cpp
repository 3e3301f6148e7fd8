// $dateFromString: ISO-8601 text, or text read by a `format` with mongod's parsing specifiers,
// with `timezone`, `onError` and `onNull`. The rules are mongod's (timelib's): a format must
// account for every character of the text, an invalid date is an error, a zone in the text
// excludes a `timezone` argument, and parse failures (not bad arguments) go to `onError`.
#include <cmath>
#include <cstdio>

#include "engine/query/expr_date.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
constexpr i64 k_unset = INT64_MIN;

constexpr std::string_view k_parse_specs = "bBdGHjLmMSuVYzZ";

// mongod's check of a parsing format: every '%' is followed by '%' or a specifier.
std::string format_problem(const std::string& fmt) {
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') continue;
    if (++i == fmt.size()) return "$dateFromString: Unmatched '%' at end of format string";
    if (fmt[i] != '%' && k_parse_specs.find(fmt[i]) == std::string_view::npos) {
      return std::string("$dateFromString: Invalid format character '%") + fmt[i] + "' in format string";
    }
  }
  return {};
}

// What was read from the text. Fields left unset are k_unset.
struct parsed {
  i64 y = k_unset, m = k_unset, d = k_unset, h = k_unset, i = k_unset, s = k_unset, ms = k_unset;
  i64 iso_year = k_unset, iso_week = k_unset, iso_dow = k_unset;
  std::optional<std::int32_t> offset;  // seconds east of UTC, when the text names its zone
  std::string zone_abbr;                // "Z", "UTC", "GMT": the zone was a name, not an offset
  std::vector<std::pair<std::size_t, std::string>> problems;  // position, message
};

struct reader {
  const std::string& s;
  std::size_t p = 0;
  parsed& out;
  char cur() const { return p < s.size() ? s[p] : '\0'; }
  bool digit() const { return cur() >= '0' && cur() <= '9'; }
  void problem(std::size_t at, std::string msg) { out.problems.emplace_back(at, std::move(msg)); }
  // timelib's number reader: skips to the next digit, then reads at most `max` digits.
  i64 number(int max, int* digits = nullptr) {
    while (p < s.size() && !digit()) ++p;
    if (p == s.size()) return k_unset;
    i64 v = 0;
    int n = 0;
    for (; n < max && digit(); ++n, ++p) v = v * 10 + (cur() - '0');
    if (digits != nullptr) *digits = n;
    return v;
  }
  int month_name() {
    while (cur() == ' ' || cur() == '\t' || cur() == '-' || cur() == '.' || cur() == '/') ++p;
    std::string w;
    while (std::isalpha(static_cast<unsigned char>(cur()))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(s[p++])));
    static const char* roman[] = {"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"};
    for (int k = 0; k < 12; ++k) {
      std::string full = k_month_names[k];
      for (char& c : full) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (w == full || w == full.substr(0, 3) || w == roman[k] || (k == 8 && w == "sept")) return k + 1;
    }
    return 0;
  }
  // "+HH", "+HHMM", "+HH:MM", "+H:MM", "Z", "UTC", "GMT"; false when none of these.
  bool zone() {
    while (cur() == ' ' || cur() == '(') ++p;
    if (cur() == '+' || cur() == '-') {
      const int sign = cur() == '-' ? -1 : 1;
      ++p;
      std::string t;
      while (digit() || cur() == ':') t += s[p++];
      int h = 0, m = 0;
      const std::size_t colon = t.find(':');
      auto all_digits = [](const std::string& x) { return !x.empty() && x.find_first_not_of("0123456789") == std::string::npos; };
      if (colon == std::string::npos && all_digits(t) && t.size() <= 2) {
        h = std::stoi(t);
      } else if (colon == std::string::npos && all_digits(t) && t.size() <= 4) {
        h = std::stoi(t.substr(0, t.size() - 2));
        m = std::stoi(t.substr(t.size() - 2));
      } else if (colon != std::string::npos && colon <= 2 && all_digits(t.substr(0, colon)) && t.size() - colon == 3 &&
                 all_digits(t.substr(colon + 1))) {
        h = std::stoi(t.substr(0, colon));
        m = std::stoi(t.substr(colon + 1));
      } else {
        return false;
      }
      out.offset = sign * (h * 3600 + m * 60);
      return true;
    }
    std::string w;
    while (std::isalpha(static_cast<unsigned char>(cur())) || cur() == '/' || cur() == '_') w += s[p++];
    std::string upper = w;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "Z" || upper == "UTC" || upper == "GMT") {
      out.offset = 0;
      out.zone_abbr = upper;
      return true;
    }
    return false;
  }
};

bool valid_date(i64 y, i64 m, i64 d) {
  if (m < 1 || m > 12 || d < 1) return false;
  const i64 next = m == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, static_cast<unsigned>(m + 1), 1);
  return d <= next - days_from_civil(y, static_cast<unsigned>(m), 1);
}

// timelib's parse-from-format with mongod's specifiers and '%' as the prefix.
parsed parse_with_format(const std::string& fmt, const std::string& text) {
  parsed out;
  reader r{text, 0, out};
  std::size_t fp = 0;
  bool prefix = false;
  while (fp < fmt.size() && r.p < text.size()) {
    const std::size_t begin = r.p;
    const char fc = fmt[fp];
    if ((!prefix && fc != '%') || (prefix && fc == '%')) {
      if (fc != r.cur()) r.problem(begin, "Format literal not found");
      ++r.p;
      ++fp;
      prefix = false;
      continue;
    }
    if (fc == '%') {
      ++fp;
      prefix = true;
      continue;
    }
    prefix = false;
    auto need_digit = [&] {
      if (!r.digit()) r.problem(begin, "Unexpected data found.");
    };
    int digits = 0;
    switch (fc) {
      case 'd':
        need_digit();
        if ((out.d = r.number(2)) == k_unset) r.problem(begin, "A two digit day could not be found");
        break;
      case 'j': {
        need_digit();
        if (out.y == k_unset) r.problem(begin, "A 'day of year' can only come after a year has been found");
        const i64 n = r.number(3);
        if (n == k_unset) {
          r.problem(begin, "A three digit day-of-year could not be found");
        } else if (out.y != k_unset) {  // mongod counts %j from 0: day 0 is January 1st
          const civil_date c = civil_from_days(days_from_civil(out.y, 1, 1) + n);
          out.y = c.year;
          out.m = c.month;
          out.d = c.day;
        }
        break;
      }
      case 'm':
        need_digit();
        if ((out.m = r.number(2)) == k_unset) r.problem(begin, "A two digit month could not be found");
        break;
      case 'b':
      case 'B': {
        const int m = r.month_name();
        if (m == 0) r.problem(begin, "A textual month could not be found");
        else out.m = m;
        break;
      }
      case 'Y':
        need_digit();
        if ((out.y = r.number(4)) == k_unset) r.problem(begin, "A four digit year could not be found");
        break;
      case 'H':
        need_digit();
        if ((out.h = r.number(2)) == k_unset) r.problem(begin, "A two digit hour could not be found");
        break;
      case 'M':
      case 'S': {
        need_digit();
        const i64 n = r.number(2, &digits);
        if (n == k_unset || digits != 2) {
          r.problem(begin, fc == 'M' ? "A two digit minute could not be found" : "A two digit second could not be found");
        } else {
          (fc == 'M' ? out.i : out.s) = n;
        }
        break;
      }
      case 'L': {
        need_digit();
        const i64 n = r.number(3, &digits);
        if (n == k_unset || digits < 1) r.problem(begin, "A three digit millisecond could not be found");
        else out.ms = n * (digits == 1 ? 100 : (digits == 2 ? 10 : 1));
        break;
      }
      case 'G':
        if ((out.iso_year = r.number(4)) == k_unset) r.problem(begin, "A four digit ISO year could not be found");
        break;
      case 'V':
        out.iso_week = r.number(2);
        if (out.iso_week == k_unset) r.problem(begin, "A two digit ISO week could not be found");
        else if (out.iso_week < 1 || out.iso_week > 53) r.problem(begin, "ISO Week must be between 1 and 53");
        break;
      case 'u':
        out.iso_dow = r.number(1);
        if (out.iso_dow == k_unset) r.problem(begin, "A single digit day of week could not be found");
        else if (out.iso_dow < 1 || out.iso_dow > 7) r.problem(begin, "Day of week must be between 1 and 7");
        break;
      case 'z':
        if (!r.zone()) r.problem(begin, "passing a time zone identifier as part of the string is not allowed");
        break;
      case 'Z': {
        if (r.cur() != '+' && r.cur() != '-') {
          r.problem(begin, "Invalid timezone offset in minutes");
          break;
        }
        const int sign = r.cur() == '-' ? -1 : 1;
        ++r.p;
        i64 minutes = 0;
        while (r.digit() && minutes < 100'000) minutes = minutes * 10 + (text[r.p++] - '0');
        out.offset = static_cast<std::int32_t>(sign * minutes * 60);
        break;
      }
      default:
        if (fc != r.cur()) r.problem(begin, "The format separator does not match");
        ++r.p;
    }
    ++fp;
  }
  if (r.p < text.size()) r.problem(r.p, "Trailing data");
  if (fp < fmt.size()) r.problem(r.p, "Not enough data available to satisfy format");
  if (out.h != k_unset || out.i != k_unset || out.s != k_unset || out.ms != k_unset) {
    for (i64* f : {&out.h, &out.i, &out.s, &out.ms}) {
      if (*f == k_unset) *f = 0;
    }
  }
  const bool iso = out.iso_year != k_unset || out.iso_week != k_unset || out.iso_dow != k_unset;
  if ((out.y != k_unset && iso) || (out.iso_year != k_unset && (out.m != k_unset || out.d != k_unset))) {
    r.problem(r.p, "Mixing of ISO dates with natural dates is not allowed");
  }
  if (out.iso_year != k_unset) {
    const i64 days = iso_week_one(out.iso_year) + ((out.iso_week == k_unset ? 1 : out.iso_week) - 1) * 7 +
                     (out.iso_dow == k_unset ? 1 : out.iso_dow) - 1;
    const civil_date c = civil_from_days(days);
    out.y = c.year;
    out.m = c.month;
    out.d = c.day;
  } else if (iso) {
    r.problem(r.p, "The parsed date was invalid");
  }
  if (out.h != k_unset && (out.h > 23 || out.i > 59 || out.s > 59)) r.problem(r.p, "The parsed time was invalid");
  if (out.y != k_unset && out.m != k_unset && out.d != k_unset && !valid_date(out.y, out.m, out.d)) {
    r.problem(r.p, "The parsed date was invalid");
  }
  return out;
}

// "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH[:MM]]"
parsed parse_iso(const std::string& s) {
  parsed out;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
  auto bad = [&] {
    out.problems.emplace_back(0, "not an ISO-8601 date (YYYY-MM-DD[THH:MM[:SS[.mmm]]][Z|±HH:MM]); give a `format`");
    return out;
  };
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return bad();
  std::size_t i = 10;
  i64 ms = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
    int m = 0;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d%n", &h, &mi, &m) != 2 || m != 5) return bad();
    i += 6;
    if (i < s.size() && s[i] == ':') {
      if (std::sscanf(s.c_str() + i + 1, "%2d%n", &sec, &m) != 1 || m != 2) return bad();
      i += 3;
      if (i < s.size() && s[i] == '.') {
        std::size_t j = i + 1;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j == i + 1) return bad();
        ms = std::llround(std::stod("0" + s.substr(i, j - i)) * 1000);
        i = j;
      }
    }
  }
  out.y = y, out.m = mo, out.d = d, out.h = h, out.i = mi, out.s = sec, out.ms = ms;
  if (i < s.size()) {
    reader r{s, i, out};
    if (!r.zone() || r.p != s.size()) return bad();
  }
  if (h > 23 || mi > 59 || sec > 59) out.problems.emplace_back(s.size(), "The parsed time was invalid");
  if (!valid_date(y, mo, d)) out.problems.emplace_back(s.size(), "The parsed date was invalid");
  return out;
}

// The instant `p` names, read in zone `z` unless the text names its own. Throws the
// conversion failures that `onError` catches.
i64 to_instant(const std::string& text, parsed& p, const time_zone& z, bool zone_given) {
  if (!p.problems.empty()) {
    std::string msg = "Error parsing date string '" + text + "'";
    for (const auto& [at, what] : p.problems) {
      msg += "; " + std::to_string(at) + ": " + what + " '" + (at < text.size() ? std::string(1, text[at]) : std::string()) + "'";
    }
    fail(msg);
  }
  if (p.h == k_unset && p.i == k_unset && p.s == k_unset) p.h = p.i = p.s = p.ms = 0;
  if (p.y == k_unset || p.m == k_unset || p.d == k_unset || p.h == k_unset || p.i == k_unset || p.s == k_unset) {
    fail("an incomplete date/time string has been found, with elements missing: \"" + text + "\"");
  }
  const bool utc = z.times.empty() && z.fixed == 0;
  if (p.offset && zone_given && !utc) {
    if (p.zone_abbr.empty()) fail("you cannot pass in a date/time string with GMT offset together with a timezone argument");
    fail("you cannot pass in a date/time string with time zone information ('" + p.zone_abbr + "') together with a timezone argument");
  }
  const i64 local = local_from_fields(p.y, p.m, p.d, p.h, p.i, p.s, p.ms == k_unset ? 0 : p.ms);
  return p.offset ? local - i64{*p.offset} * 1000 : z.to_utc(local);
}

}  // namespace

status check_date_from_string(const document& args) {
  const value* f = find_field(args, "format");
  if (f != nullptr && f->is_string() && (f->as_string().empty() || f->as_string()[0] != '$')) {
    if (std::string problem = format_problem(f->as_string()); !problem.empty()) return make_error(problem);
  }
  return {};
}

// {dateString, format?, timezone?, onError?, onNull?}, in mongod's order: the format and the
// zone are checked first (their errors are not the text's), then null text gives `onNull`,
// then a failure to convert the text gives `onError`.
expr_value date_from_string_op(const op_node& self, eval_ctx& ctx) {
  expr_value s = self.arg(0, ctx);
  expr_value f;
  if (self.has(1)) {
    f = self.arg(1, ctx);
    if (!nullish(f)) {
      if (!f->is_string()) fail("$dateFromString requires that 'format' be a string, found: " + type_name(*f));
      if (std::string problem = format_problem(f->as_string()); !problem.empty()) fail(problem);
    }
  }
  const time_zone* z = zone_arg(self, 2, ctx);
  if (nullish(s)) return self.has(4) ? self.arg(4, ctx) : value();
  if (z == nullptr || (self.has(1) && nullish(f))) return value();
  try {
    if (!s->is_string()) fail("$dateFromString requires that 'dateString' be a string, found: " + type_name(*s));
    parsed p = self.has(1) ? parse_with_format(f->as_string(), s->as_string()) : parse_iso(s->as_string());
    return value(date_time{to_instant(s->as_string(), p, *z, self.has(2))});
  } catch (const expression_error& e) {
    if (self.has(3) && e.kind() == failure_kind::invalid_argument) return self.arg(3, ctx);
    throw;
  }
}

}  // namespace omgdb::engine::expr_detail
