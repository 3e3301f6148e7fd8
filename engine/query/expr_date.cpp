// Date expression operators: the parts ($year … $millisecond, $dayOfWeek, $week, $isoWeek …),
// $dateToString, $dateToParts, $dateAdd, $dateSubtract, $dateDiff and $dateTrunc
// ($dateFromString and $dateFromParts: expr_date_parse.cpp), each with an optional `timezone` (expr_tz.cpp). Calendar units
// (day and longer) are counted on the local wall clock, so adding a day across a DST change
// keeps the local time; hours and shorter are exact durations.
#include <cmath>
#include <cstdio>

#include "engine/query/date_math.hpp"
#include "engine/query/expr_date.hpp"
#include "engine/query/expr_detail.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {

const char* const k_month_names[12] = {"January", "February", "March", "April", "May", "June", "July",
                                       "August", "September", "October", "November", "December"};

// The zone of argument `i` (UTC when absent); nullptr when it evaluates to null.
const time_zone* zone_arg(const op_node& self, std::size_t i, eval_ctx& ctx) {
  static const time_zone& utc = find_zone("UTC");
  if (!self.has(i)) return &utc;
  expr_value z = self.arg(i, ctx);
  if (nullish(z)) return nullptr;
  if (!z->is_string()) fail(self.name + ": timezone must evaluate to a string, found " + type_name(*z));
  return &find_zone(z->as_string());
}

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
      case 'b': out += std::string(k_month_names[p.month - 1]).substr(0, 3); break;
      case 'B': out += k_month_names[p.month - 1]; break;
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

using unit = date_unit;

unit unit_arg(const op_node& self, const expr_value& v) {
  if (v && v->is_string()) {
    if (auto u = parse_date_unit(v->as_string())) return *u;
  }
  fail(self.name + ": unit must be one of year, quarter, month, week, day, hour, minute, second, millisecond");
}

i64 fixed_length(unit u) {
  const i64 n = date_unit_millis(u);
  return n == 0 ? 1 : n;
}

// `start` plus `amount` units: hours and shorter as exact durations, days and weeks on the
// local wall clock of `z`, months (quarters, years) clamped to the end of the month. nullopt
// past the range of a 64-bit millisecond count.
std::optional<i64> add_units(i64 start, unit un, i64 amount, const time_zone& z) {
  constexpr i64 k_max_months = i64{12} * 300'000'000;  // beyond any millisecond count
  i64 delta = 0, out = 0;
  if (un >= unit::hour) {
    if (__builtin_mul_overflow(amount, fixed_length(un), &delta) || __builtin_add_overflow(start, delta, &out)) return std::nullopt;
    return out;
  }
  const i64 local = local_of(z, start);
  if (un == unit::day || un == unit::week) {
    if (__builtin_mul_overflow(amount, fixed_length(un), &delta) || __builtin_add_overflow(local, delta, &out)) return std::nullopt;
    return z.to_utc(out);
  }
  const i64 per = un == unit::year ? 12 : (un == unit::quarter ? 3 : 1);
  if (amount > k_max_months / per || amount < -k_max_months / per) return std::nullopt;
  const parts p = breakdown(local);
  const i64 in_day = local - p.days * k_day;
  const i64 m0 = static_cast<i64>(p.month) - 1 + amount * per;
  const i64 y = p.year + floor_div(m0, 12);
  const auto m = static_cast<unsigned>(m0 - floor_div(m0, 12) * 12 + 1);
  const i64 last = days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - days_from_civil(y, m, 1);
  const i64 day = std::min<i64>(p.day, last);  // clamped to the end of the month
  const i64 days = days_from_civil(y, m, 1) + day - 1;
  if (__builtin_mul_overflow(days, k_day, &out) || __builtin_add_overflow(out, in_day, &out)) return std::nullopt;
  return z.to_utc(out);
}

// {startDate, unit, amount, timezone?}
expr_value date_add_op(const op_node& self, eval_ctx& ctx) {
  expr_value d = self.arg(0, ctx), u = self.arg(1, ctx), a = self.arg(2, ctx);
  if (nullish(d) || nullish(u) || nullish(a)) return value();
  const unit un = unit_arg(self, u);
  i64 amount = integral_arg(self.name + "'s amount", *a);
  if (self.name == "$dateSubtract") {
    if (amount == INT64_MIN) fail(self.name + " overflowed");
    amount = -amount;
  }
  const time_zone* z = zone_arg(self, 3, ctx);
  if (z == nullptr) return value();
  auto out = add_units(date_millis(self.name, *d), un, amount, *z);
  if (!out) fail(self.name + " overflowed");
  return value(date_time{*out});
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
    {"$dateFromParts", -1, -1, date_from_parts_op, k_date_from_parts_params, check_date_from_parts},
    {"$dateFromString", -1, -1, date_from_string_op, "dateString,format?,timezone?,onError?,onNull?", check_date_from_string},
    {"$dateAdd", -1, -1, date_add_op, "startDate,unit,amount,timezone?"},
    {"$dateSubtract", -1, -1, date_add_op, "startDate,unit,amount,timezone?"},
    {"$dateDiff", -1, -1, date_diff_op, "startDate,endDate,unit,timezone?,startOfWeek?"},
    {"$dateTrunc", -1, -1, date_trunc_op, "date,unit,binSize?,timezone?,startOfWeek?"},
};

}  // namespace

op_table date_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail

namespace omgdb::engine {

std::optional<date_unit> parse_date_unit(std::string_view name) {
  static const std::pair<std::string_view, date_unit> names[] = {
      {"year", date_unit::year}, {"quarter", date_unit::quarter}, {"month", date_unit::month},
      {"week", date_unit::week}, {"day", date_unit::day},         {"hour", date_unit::hour},
      {"minute", date_unit::minute}, {"second", date_unit::second}, {"millisecond", date_unit::millisecond}};
  for (const auto& [n, u] : names) {
    if (n == name) return u;
  }
  return std::nullopt;
}

std::int64_t date_unit_millis(date_unit u) {
  switch (u) {
    case date_unit::week: return 7 * expr_detail::k_day;
    case date_unit::day: return expr_detail::k_day;
    case date_unit::hour: return 3'600'000;
    case date_unit::minute: return 60'000;
    case date_unit::second: return 1000;
    case date_unit::millisecond: return 1;
    default: return 0;
  }
}

std::optional<std::int64_t> date_add_utc(std::int64_t utc, date_unit u, std::int64_t amount) {
  return expr_detail::add_units(utc, u, amount, expr_detail::find_zone("UTC"));
}

}  // namespace omgdb::engine
