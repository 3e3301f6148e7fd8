// $dateFromParts: a date from calendar fields (year, month, day …) or from the ISO week date
// (isoWeekYear, isoWeek, isoDayOfWeek), in a `timezone`. As mongod: the two forms never mix,
// years run 1–9999, the other parts −32768–32767 and carry into the next unit (month 14 is
// February of the next year, isoDayOfWeek 8 the next Monday), a null part gives null.
#include "engine/query/expr_date.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {

std::int64_t iso_week_one(std::int64_t year) {
  const std::int64_t jan4 = days_from_civil(year, 1, 4);
  const std::int64_t wday = ((jan4 + 4) % 7 + 7) % 7;  // 0 Sunday
  return jan4 - ((wday == 0 ? 7 : wday) - 1);
}

namespace {

using i64 = std::int64_t;

// The args: year, month, day, hour, minute, second, millisecond, timezone,
// isoWeekYear, isoWeek, isoDayOfWeek (k_date_from_parts_params).

constexpr const char* k_part_names[] = {"year",   "month",       "day",      "hour",    "minute",      "second",
                                        "millisecond", "timezone", "isoWeekYear", "isoWeek", "isoDayOfWeek"};

i64 part_value(std::size_t i, const value& v) {
  const std::string name = k_part_names[i];
  if (!v.is_number()) fail("$dateFromParts: '" + name + "' must evaluate to an integer, found " + type_name(v));
  const i64 n = integral_arg("$dateFromParts: '" + name + "'", v);
  if (i == 0 || i == 8) {
    if (n < 1 || n > 9999) fail("$dateFromParts: '" + name + "' must evaluate to an integer in the range 1 to 9999, found " + std::to_string(n));
  } else if (n < -32768 || n > 32767) {
    fail("$dateFromParts: '" + name + "' must evaluate to a value in the range [-32768, 32767]; value " + std::to_string(n) + " is not in range");
  }
  return n;
}

}  // namespace

status check_date_from_parts(const document& args) {
  const bool natural = find_field(args, "year") || find_field(args, "month") || find_field(args, "day");
  const bool iso = find_field(args, "isoWeekYear") || find_field(args, "isoWeek") || find_field(args, "isoDayOfWeek");
  if (natural && iso) {
    return make_error("`$dateFromParts` does not allow mixing natural dates (`year`, `month`, `day`) with ISO dates "
                      "(`isoWeekYear`, `isoWeek`, `isoDayOfWeek`)");
  }
  if (!find_field(args, "year") && !find_field(args, "isoWeekYear")) {
    return make_error("`$dateFromParts` requires either `year` or `isoWeekYear`");
  }
  return {};
}

expr_value date_from_parts_op(const op_node& self, eval_ctx& ctx) {
  // Defaults: month / day / isoWeek / isoDayOfWeek 1, the time 0.
  i64 f[11] = {0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1};
  bool null_part = false;
  for (std::size_t i = 0; i < 11; ++i) {
    if (i == 7 || !self.has(i)) continue;
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) {
      null_part = true;
      continue;
    }
    f[i] = part_value(i, *v);
  }
  const time_zone* z = zone_arg(self, 7, ctx);
  if (null_part || z == nullptr) return value();
  const i64 time = f[3] * 3'600'000 + f[4] * 60'000 + f[5] * 1000 + f[6];
  i64 local = 0;
  if (self.has(8)) {
    local = (iso_week_one(f[8]) + (f[9] - 1) * 7 + (f[10] - 1)) * k_day + time;
  } else {
    local = local_from_fields(f[0], f[1], f[2], 0, 0, 0, 0) + time;
  }
  return value(date_time{z->to_utc(local)});
}

}  // namespace omgdb::engine::expr_detail
