// Date expression operators: the parts ($year … $millisecond, $dayOfWeek, $week, $isoWeek …),
// $dateToString, $dateFromString, $dateToParts, $dateFromParts, $dateAdd, $dateSubtract,
// $dateDiff and $dateTrunc, each with an optional `timezone` (expr_tz.cpp). Calendar units
// (day and longer) are counted on the local wall clock, so adding a day across a DST change
// keeps the local time; hours and shorter are exact durations.
#include <cmath>
#include <cstdio>

#include "engine/query/expr_detail.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
int iso_dow(const parts& p) { return p.wday == 0 ? 7 : p.wday; }
i64 iso_year(const parts& p) { return civil_from_days(p.days - (iso_dow(p) - 1) + 3).year; }
int iso_week(const parts& p) {
  const i64 thursday = p.days - (iso_dow(p) - 1) + 3;
  return static_cast<int>((thursday - days_from_civil(civil_from_days(thursday).year, 1, 1)) / 7 + 1);
}
int sunday_week(const parts& p) { return (p.yday - 1 + 7 - p.wday) / 7; }

i64 date_millis(const std::string& op, const value& v) {
  switch (v.type()) {
    case kind::date_time: return std::get<date_time>(v.raw()).millis;
    case kind::timestamp: return i64{std::get<timestamp>(v.raw()).t} * 1000;
    case kind::object_id: {
      const auto& b = std::get<object_id>(v.raw()).bytes;
      return ((i64{b[0]} << 24) | (i64{b[1]} << 16) | (i64{b[2]} << 8) | i64{b[3]}) * 1000;
    }
    default: fail(op + " can't convert from BSON type " + type_name(v) + " to Date");
  }
}

// The zone of argument `i` (UTC when absent); nullptr when it evaluates to null.
const time_zone* zone_arg(const op_node& self, std::size_t i, eval_ctx& ctx) {
  static const time_zone& utc = find_zone("UTC");
  if (!self.has(i)) return &utc;
  expr_value z = self.arg(i, ctx);
  if (nullish(z)) return nullptr;
  if (!z->is_string()) fail(self.name + ": timezone must evaluate to a string, found " + type_name(*z));
  return &find_zone(z->as_string());
}

i64 local_of(const time_zone& z, i64 utc) { return utc + i64{z.offset_at(utc)} * 1000; }

// $year … $millisecond: {date, timezone?} or the date alone.
expr_value part_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx);
  if (nullish(d)) return value();
  const time_zone* z = zone_arg(self, 1, ctx);
  if (z == nullptr) return value();
  const parts p = breakdown(local_of(*z, date_millis(self.name, *d)));
  const std::string& n = self.name;
  i64 out = 0;
  if (n == "$year") out = p.year;
  else if (n == "$month") out = p.month;
  else if (n == "$dayOfMonth") out = p.day;
  else if (n == "$hour") out = p.hour;
  else if (n == "$minute") out = p.minute;
  else if (n == "$second") out = p.second;
  else if (n == "$millisecond") out = p.millis;
  else if (n == "$dayOfYear") out = p.yday;
  else if (n == "$dayOfWeek") out = p.wday + 1;
  else if (n == "$week") out = sunday_week(p);
  else if (n == "$isoWeek") out = iso_week(p);
  else if (n == "$isoWeekYear") return value(iso_year(p));
  else out = iso_dow(p);  // $isoDayOfWeek
  return int_or_long(out);
}

std::string two(i64 v, int width = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v));
  return buf;
}

constexpr const char* k_months[] = {"January", "February", "March", "April", "May", "June", "July",
                                    "August", "September", "October", "November", "December"};

std::string format_date(const std::string& fmt, const parts& p, std::int32_t offset) {
  std::string out;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i == fmt.size()) fail("$dateToString: unmatched '%' at end of format");
    switch (fmt[i]) {
      case 'd': out += two(p.day); break;
      case 'G': out += two(iso_year(p), 4); break;
      case 'H': out += two(p.hour); break;
      case 'j': out += two(p.yday, 3); break;
      case 'L': out += two(p.millis, 3); break;
      case 'm': out += two(p.month); break;
      case 'M': out += two(p.minute); break;
      case 'S': out += two(p.second); break;
      case 'w': out += std::to_string(p.wday + 1); break;
      case 'u': out += std::to_string(iso_dow(p)); break;
      case 'U': out += two(sunday_week(p)); break;
      case 'V': out += two(iso_week(p)); break;
      case 'Y': out += two(p.year, 4); break;
      case 'b': out += std::string(k_months[p.month - 1]).substr(0, 3); break;
      case 'B': out += k_months[p.month - 1]; break;
      case 'z': out += (offset < 0 ? "-" : "+") + two(std::abs(offset) / 3600) + two(std::abs(offset) / 60 % 60); break;
      case 'Z': out += (offset < 0 ? "-" : "+") + std::to_string(std::abs(offset) / 60); break;
      case '%': out += '%'; break;
      default: fail(std::string("$dateToString: invalid format character '%") + fmt[i] + "'");
    }
  }
  return out;
}

// {date, format?, timezone?, onNull?}
expr_value date_to_string_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx);
  if (nullish(d)) return self.has(3) ? self.arg(3, ctx) : value();
  std::string fmt = "%Y-%m-%dT%H:%M:%S.%LZ";
  if (self.has(1)) {
    expr_value f = self.arg(1, ctx);
    if (nullish(f)) return value();
    fmt = string_arg("$dateToString's format", *f);
  }
  const time_zone* z = zone_arg(self, 2, ctx);
  if (z == nullptr) return value();
  const i64 utc = date_millis(self.name, *d);
  const std::int32_t off = z->offset_at(utc);
  return value(format_date(fmt, breakdown(utc + i64{off} * 1000), off));
}

// {date, timezone?, iso8601?}
expr_value date_to_parts_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx);
  if (nullish(d)) return value();
  const time_zone* z = zone_arg(self, 1, ctx);
  if (z == nullptr) return value();
  bool iso = false;
  if (self.has(2)) iso = expr_truthy(self.arg(2, ctx));
  const parts p = breakdown(local_of(*z, date_millis(self.name, *d)));
  document out;
  if (iso) {
    out = {{"isoWeekYear", int_or_long(iso_year(p))}, {"isoWeek", int_or_long(iso_week(p))}, {"isoDayOfWeek", int_or_long(iso_dow(p))}};
  } else {
    out = {{"year", int_or_long(p.year)}, {"month", int_or_long(p.month)}, {"day", int_or_long(p.day)}};
  }
  out.push_back(field{"hour", int_or_long(p.hour)});
  out.push_back(field{"minute", int_or_long(p.minute)});
  out.push_back(field{"second", int_or_long(p.second)});
  out.push_back(field{"millisecond", int_or_long(p.millis)});
  return value(std::move(out));
}

// {year, month?, day?, hour?, minute?, second?, millisecond?, timezone?}
expr_value date_from_parts_op(const op_node& self, eval_ctx& ctx) {
  i64 f[7] = {0, 1, 1, 0, 0, 0, 0};
  static const char* names[] = {"year", "month", "day", "hour", "minute", "second", "millisecond"};
  for (std::size_t i = 0; i < 7; ++i) {
    if (!self.has(i)) continue;
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) return value();
    f[i] = integral_arg(std::string("$dateFromParts' ") + names[i], *v);
  }
  if (f[0] < 1 || f[0] > 9999) fail("$dateFromParts' year must be an integer between 1 and 9999, found " + std::to_string(f[0]));
  const time_zone* z = zone_arg(self, 7, ctx);
  if (z == nullptr) return value();
  return value(date_time{z->to_utc(local_from_fields(f[0], f[1], f[2], f[3], f[4], f[5], f[6]))});
}

// "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH[:MM]]"; sets `offset` when the text has one.
bool parse_flexible(const std::string& s, i64& local, std::optional<std::int32_t>& offset) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return false;
  std::size_t i = 10;
  double frac = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
    int m = 0;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d%n", &h, &mi, &m) != 2 || m != 5) return false;
    i += 6;
    if (i < s.size() && s[i] == ':') {
      if (std::sscanf(s.c_str() + i + 1, "%2d%n", &sec, &m) != 1 || m != 2) return false;
      i += 3;
      if (i < s.size() && s[i] == '.') {
        std::size_t j = i + 1;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j == i + 1) return false;
        frac = std::stod("0" + s.substr(i, j - i));
        i = j;
      }
    }
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return false;
  if (i < s.size()) {
    if (s[i] == 'Z' && i + 1 == s.size()) {
      offset = 0;
    } else {
      std::int32_t off = 0;
      time_zone tz;
      const time_zone& z = find_zone(s.substr(i));  // "+05:30" style offsets only
      if (!z.times.empty()) return false;
      off = z.fixed;
      offset = off;
    }
  }
  local = local_from_fields(y, mo, d, h, mi, sec, static_cast<i64>(std::llround(frac * 1000)));
  return true;
}

// {dateString, format?, timezone?, onError?, onNull?}
expr_value date_from_string_op(const op_node& self, eval_ctx& ctx) {
  expr_value s = self.arg(0, ctx);
  if (nullish(s)) return self.has(4) ? self.arg(4, ctx) : value();
  try {
    if (!s->is_string()) fail("$dateFromString requires that 'dateString' be a string, found: " + type_name(*s));
    if (self.has(1)) fail("$dateFromString: `format` is not supported yet; give ISO-8601 text");
    const time_zone* z = zone_arg(self, 2, ctx);
    if (z == nullptr) return value();
    i64 local = 0;
    std::optional<std::int32_t> offset;
    if (!parse_flexible(s->as_string(), local, offset)) {
      fail("Error parsing date string '" + s->as_string() + "'");
    }
    return value(date_time{offset ? local - i64{*offset} * 1000 : z->to_utc(local)});
  } catch (const expression_error&) {
    if (self.has(3)) return self.arg(3, ctx);
    throw;
  }
}

enum class unit { year, quarter, month, week, day, hour, minute, second, millisecond };

unit unit_arg(const op_node& self, const expr_value& v) {
  static const std::pair<std::string_view, unit> names[] = {
      {"year", unit::year}, {"quarter", unit::quarter}, {"month", unit::month}, {"week", unit::week},
      {"day", unit::day},   {"hour", unit::hour},       {"minute", unit::minute}, {"second", unit::second},
      {"millisecond", unit::millisecond}};
  if (v && v->is_string()) {
    for (const auto& [n, u] : names) {
      if (n == v->as_string()) return u;
    }
  }
  fail(self.name + ": unit must be one of year, quarter, month, week, day, hour, minute, second, millisecond");
}

i64 fixed_length(unit u) {
  switch (u) {
    case unit::week: return 7 * k_day;
    case unit::day: return k_day;
    case unit::hour: return 3'600'000;
    case unit::minute: return 60'000;
    case unit::second: return 1000;
    default: return 1;
  }
}

// {startDate, unit, amount, timezone?}
expr_value date_add_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx), u = self.arg(1, ctx), a = self.arg(2, ctx);
  if (nullish(d) || nullish(u) || nullish(a)) return value();
  const unit un = unit_arg(self, u);
  i64 amount = integral_arg(self.name + "'s amount", *a);
  if (self.name == "$dateSubtract") amount = -amount;
  const time_zone* z = zone_arg(self, 3, ctx);
  if (z == nullptr) return value();
  const i64 start = date_millis(self.name, *d);
  if (un >= unit::hour) return value(date_time{start + amount * fixed_length(un)});
  const i64 local = local_of(*z, start);
  const parts p = breakdown(local);
  const i64 in_day = local - p.days * k_day;
  if (un == unit::day || un == unit::week) {
    return value(date_time{z->to_utc(local + amount * fixed_length(un))});
  }
  const i64 months = amount * (un == unit::year ? 12 : (un == unit::quarter ? 3 : 1));
  const i64 m0 = static_cast<i64>(p.month) - 1 + months;
  const i64 y = p.year + floor_div(m0, 12);
  const auto m = static_cast<unsigned>(m0 - floor_div(m0, 12) * 12 + 1);
  const i64 last = days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - days_from_civil(y, m, 1);
  const i64 day = std::min<i64>(p.day, last);  // clamped to the end of the month
  return value(date_time{z->to_utc((days_from_civil(y, m, 1) + day - 1) * k_day + in_day)});
}

int week_start(const op_node& self, std::size_t i, eval_ctx& ctx) {
  if (!self.has(i)) return 0;
  expr_value v = self.arg(i, ctx);
  static const char* days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  static const char* full[] = {"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};
  std::string s = v && v->is_string() ? v->as_string() : "";
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int k = 0; k < 7; ++k) {
    if (s == days[k] || s == full[k]) return k;
  }
  fail(self.name + ": startOfWeek must be a day of the week, e.g. \"monday\"");
}

// The number of `u` boundaries from the epoch to local instant `local` (weeks start on `sow`).
i64 boundaries(unit u, i64 local, int sow) {
  const parts p = breakdown(local);
  switch (u) {
    case unit::year: return p.year;
    case unit::quarter: return p.year * 4 + (p.month - 1) / 3;
    case unit::month: return p.year * 12 + p.month - 1;
    case unit::week: return floor_div(p.days - ((p.wday - sow + 7) % 7), 7);
    default: return floor_div(local, fixed_length(u));
  }
}

// {startDate, endDate, unit, timezone?, startOfWeek?}
expr_value date_diff_op(const op_node& self, eval_ctx& ctx) {
  expr_value s = self.arg(0, ctx), e = self.arg(1, ctx), u = self.arg(2, ctx);
  if (nullish(s) || nullish(e) || nullish(u)) return value();
  const unit un = unit_arg(self, u);
  const time_zone* z = zone_arg(self, 3, ctx);
  if (z == nullptr) return value();
  const int sow = week_start(self, 4, ctx);
  const i64 a = date_millis(self.name, *s), b = date_millis(self.name, *e);
  if (un >= unit::hour) return value(floor_div(b, fixed_length(un)) - floor_div(a, fixed_length(un)));
  return value(boundaries(un, local_of(*z, b), sow) - boundaries(un, local_of(*z, a), sow));
}

// {date, unit, binSize?, timezone?, startOfWeek?}: bins counted from 2000-01-01 local.
expr_value date_trunc_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx), u = self.arg(1, ctx);
  if (nullish(d) || nullish(u)) return value();
  const unit un = unit_arg(self, u);
  i64 bin = 1;
  if (self.has(2)) {
    expr_value b = self.arg(2, ctx);
    if (nullish(b)) return value();
    bin = integral_arg("$dateTrunc's binSize", *b);
    if (bin <= 0) fail("$dateTrunc's binSize must be positive");
  }
  const time_zone* z = zone_arg(self, 3, ctx);
  if (z == nullptr) return value();
  const int sow = week_start(self, 4, ctx);
  const i64 local = local_of(*z, date_millis(self.name, *d));
  const i64 ref = days_from_civil(2000, 1, 1) * k_day;
  if (un <= unit::month) {
    const parts p = breakdown(local);
    const i64 per = un == unit::year ? 12 : (un == unit::quarter ? 3 : 1);
    const i64 months = (p.year - 2000) * 12 + p.month - 1;
    const i64 start = floor_div(months, per * bin) * per * bin;
    return value(date_time{z->to_utc(local_from_fields(2000, start + 1, 1, 0, 0, 0, 0))});
  }
  i64 origin = ref;
  if (un == unit::week) {  // the first `sow` on or after 2000-01-01 (a Saturday)
    origin = ref + ((sow - 6 + 7) % 7) * k_day;
  }
  const i64 len = fixed_length(un) * bin;
  const i64 out = origin + floor_div(local - origin, len) * len;
  return value(date_time{un >= unit::hour && z->times.empty() ? out - i64{z->fixed} * 1000 : z->to_utc(out)});
}

constexpr std::string_view k_part = "date,timezone?";

constexpr op_info ops[] = {
    {"$year", 1, 1, part_op, k_part},         {"$month", 1, 1, part_op, k_part},
    {"$dayOfMonth", 1, 1, part_op, k_part},   {"$hour", 1, 1, part_op, k_part},
    {"$minute", 1, 1, part_op, k_part},       {"$second", 1, 1, part_op, k_part},
    {"$millisecond", 1, 1, part_op, k_part},  {"$dayOfYear", 1, 1, part_op, k_part},
    {"$dayOfWeek", 1, 1, part_op, k_part},    {"$week", 1, 1, part_op, k_part},
    {"$isoWeek", 1, 1, part_op, k_part},      {"$isoWeekYear", 1, 1, part_op, k_part},
    {"$isoDayOfWeek", 1, 1, part_op, k_part},
    {"$dateToString", -1, -1, date_to_string_op, "date,format?,timezone?,onNull?"},
    {"$dateToParts", -1, -1, date_to_parts_op, "date,timezone?,iso8601?"},
    {"$dateFromParts", -1, -1, date_from_parts_op, "year,month?,day?,hour?,minute?,second?,millisecond?,timezone?"},
    {"$dateFromString", -1, -1, date_from_string_op, "dateString,format?,timezone?,onError?,onNull?"},
    {"$dateAdd", -1, -1, date_add_op, "startDate,unit,amount,timezone?"},
    {"$dateSubtract", -1, -1, date_add_op, "startDate,unit,amount,timezone?"},
    {"$dateDiff", -1, -1, date_diff_op, "startDate,endDate,unit,timezone?,startOfWeek?"},
    {"$dateTrunc", -1, -1, date_trunc_op, "date,unit,binSize?,timezone?,startOfWeek?"},
};

}  // namespace

op_table date_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
