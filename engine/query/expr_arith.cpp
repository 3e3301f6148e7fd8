// Arithmetic expression operators with MongoDB's numeric promotion (int → long on overflow,
// long → double on overflow, any double → double) and its date arithmetic for $add and
// $subtract. Any decimal128 operand makes the result a decimal (MongoDB's widening: integers
// convert exactly, doubles with 15 significant digits as $toDecimal does). The error texts
// are MongoDB's.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
namespace dm = decimal_math;

// The widest numeric type seen so far, in MongoDB's order int < long < double.
enum class width { int32, int64, dbl };

width width_of(const value& v) {
  return v.is_int32() ? width::int32 : (v.is_int64() ? width::int64 : width::dbl);
}

i64 as_long(const value& v) { return v.is_int32() ? v.as_int32() : v.as_int64(); }


// A numeric operand of `op`; non-numbers are refused with an error naming `op`.
const value& numeric(const std::string& op, const value& v) {
  if (!v.is_number()) fail(op + " only supports numeric types, not " + type_name(v));
  return v;
}

bool is_date(const value& v) { return v.type() == kind::date_time; }
i64 millis(const value& v) { return std::get<date_time>(v.raw()).millis; }

const decimal128& dec(const value& v) { return std::get<decimal128>(v.raw()); }

// A decimal number of milliseconds added to or taken from a date: rounded half to even (as
// MongoDB's Decimal128::toLong); NaN, ±Infinity or beyond the int64 range is an overflow.
i64 decimal_millis(const decimal128& d, const char* op) {
  auto n = dm::to_int64_round(d);
  if (!n) fail(std::string("date overflow in ") + op);
  return *n;
}

// $add with at least one decimal operand, as MongoDB's: the operands before the first
// decimal add up as integers (exactly) and doubles; from the first decimal on every operand
// is converted to decimal and added; the result is the decimal total plus the earlier part
// (its double sum at 34 digits). A date's milliseconds are added last and the sum rounded
// back to whole milliseconds.
expr_value add_decimal(const std::vector<value>& operands) {
  decimal128 integers = dm::zero(), total = dm::zero();
  double doubles = 0;
  bool seen_decimal = false, have_date = false;
  i64 date_millis = 0;
  for (const value& v : operands) {
    if (is_date(v)) {
      if (have_date) fail("only one date allowed in an $add expression");
      have_date = true;
      date_millis = millis(v);
      continue;
    }
    if (v.is_decimal()) seen_decimal = true;
    if (seen_decimal) {
      total = dm::add(total, dm::of(v));
    } else if (v.is_double()) {
      doubles += v.as_double();
    } else {
      integers = dm::add(integers, dm::of(v));
    }
  }
  decimal128 sum = dm::add(total, dm::add(integers, dm::from_double_34(doubles)));
  if (!have_date) return value(sum);
  sum = dm::add(sum, dm::from_int64(date_millis));
  return value(date_time{decimal_millis(sum, "$add")});
}


// A double added to a date, rounded to whole milliseconds.
i64 round_millis(double d, const char* op) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
    fail(std::string("date overflow in ") + op);
  }
  return std::llround(d);
}

expr_value add_op(const op_node& self, eval_ctx& root) {
  std::vector<value> operands;
  operands.reserve(self.args.size());
  bool any_decimal = false;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, root);
    if (nullish(v)) return value();
    if (!v->is_number() && !is_date(*v)) {
      fail("$add only supports numeric or date types, not " + type_name(*v));
    }
    any_decimal = any_decimal || v->is_decimal();
    operands.push_back(std::move(*v));
  }
  if (any_decimal) return add_decimal(operands);
  width w = width::int32;
  i64 long_total = 0;
  double double_total = 0;
  bool have_date = false;
  for (const value& operand : operands) {
    const value* v = &operand;
    if (is_date(*v)) {
      if (have_date) fail("only one date allowed in an $add expression");
      have_date = true;
      // The numbers so far become milliseconds added to the date.
      const i64 so_far = w == width::dbl ? round_millis(double_total, "$add") : long_total;
      if (__builtin_add_overflow(so_far, millis(*v), &long_total)) fail("date overflow in $add");
      continue;
    }
    if (have_date) {
      const i64 add = v->is_double() ? round_millis(v->as_double(), "$add") : as_long(*v);
      if (__builtin_add_overflow(long_total, add, &long_total)) fail("date overflow in $add");
      continue;
    }
    const width vw = width_of(*v);
    if (vw > w) {
      if (vw == width::dbl && w != width::dbl) double_total = static_cast<double>(long_total);
      w = vw;
    }
    if (w == width::dbl) {
      double_total += v->number_as_double();
    } else if (i64 sum; __builtin_add_overflow(long_total, as_long(*v), &sum)) {
      w = width::dbl;  // a long overflow continues in double
      double_total = static_cast<double>(long_total) + v->number_as_double();
    } else {
      long_total = sum;
    }
  }
  if (have_date) return value(date_time{long_total});
  if (w == width::dbl) return value(double_total);
  return w == width::int64 ? value(long_total) : int_or_long(long_total);
}

expr_value multiply_op(const op_node& self, eval_ctx& root) {
  width w = width::int32;
  i64 long_product = 1;
  double double_product = 1;
  std::optional<decimal128> decimal_product;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, root);
    if (nullish(v)) return value();
    numeric("$multiply", *v);
    if (v->is_decimal() && !decimal_product) {
      // As MongoDB: the partial product so far becomes a decimal (a double at 15 digits).
      decimal_product = w == width::dbl ? dm::from_double(double_product) : dm::from_int64(long_product);
    }
    if (decimal_product) {
      decimal_product = dm::mul(*decimal_product, dm::of(*v));
      continue;
    }
    const width vw = width_of(*v);
    if (vw > w) {
      if (vw == width::dbl && w != width::dbl) double_product = static_cast<double>(long_product);
      w = vw;
    }
    if (w == width::dbl) {
      double_product *= v->number_as_double();
    } else if (i64 p; __builtin_mul_overflow(long_product, as_long(*v), &p)) {
      w = width::dbl;
      double_product = static_cast<double>(long_product) * v->number_as_double();
    } else {
      long_product = p;
    }
  }
  if (decimal_product) return value(*decimal_product);
  if (w == width::dbl) return value(double_product);
  return w == width::int64 ? value(long_product) : int_or_long(long_product);
}

expr_value subtract_op(const op_node& self, eval_ctx& root) {
  expr_value l = self.arg(0, root), r = self.arg(1, root);
  if (nullish(l) || nullish(r)) return value();
  if (is_date(*l)) {
    i64 out = 0;
    if (is_date(*r)) {
      if (__builtin_sub_overflow(millis(*l), millis(*r), &out)) fail("date overflow in $subtract");
      return value(out);  // milliseconds between the dates, as a long
    }
    if (!r->is_number()) fail("can't $subtract " + type_name(*r) + " from date");
    const i64 sub = r->is_decimal() ? decimal_millis(dec(*r), "$subtract")
                    : r->is_double() ? round_millis(r->as_double(), "$subtract")
                                     : as_long(*r);
    if (__builtin_sub_overflow(millis(*l), sub, &out)) fail("date overflow in $subtract");
    return value(date_time{out});
  }
  if (is_date(*r)) fail("can't $subtract date from " + type_name(*l));
  numeric("$subtract", *l);
  numeric("$subtract", *r);
  if (l->is_decimal() || r->is_decimal()) return value(dm::sub(dm::of(*l), dm::of(*r)));
  const width w = std::max(width_of(*l), width_of(*r));
  if (w == width::dbl) return value(l->number_as_double() - r->number_as_double());
  i64 out = 0;
  if (__builtin_sub_overflow(as_long(*l), as_long(*r), &out)) {
    return value(l->number_as_double() - r->number_as_double());
  }
  return w == width::int64 ? value(out) : int_or_long(out);
}

expr_value divide_op(const op_node& self, eval_ctx& root) {
  expr_value l = self.arg(0, root), r = self.arg(1, root);
  if (nullish(l) || nullish(r)) return value();
  if (!l->is_number() || !r->is_number()) {
    fail("$divide only supports numeric types, not " + type_name(*l) + " and " + type_name(*r));
  }
  if (l->is_decimal() || r->is_decimal()) {
    const decimal128 denominator = dm::of(*r);
    if (dm::is_zero(denominator)) fail("can't $divide by zero");
    return value(dm::div(dm::of(*l), denominator));
  }
  const double d = r->number_as_double();
  if (d == 0) fail("can't $divide by zero");
  return value(l->number_as_double() / d);
}

expr_value mod_op(const op_node& self, eval_ctx& root) {
  expr_value l = self.arg(0, root), r = self.arg(1, root);
  if (nullish(l) || nullish(r)) return value();
  if (!l->is_number() || !r->is_number()) {
    fail("$mod only supports numeric types, not " + type_name(*l) + " and " + type_name(*r));
  }
  if (l->is_decimal() || r->is_decimal()) {
    const decimal128 divisor = dm::of(*r);
    if (dm::is_zero(divisor)) fail("can't $mod by zero");
    return value(dm::mod(dm::of(*l), divisor));
  }
  const double rd = r->number_as_double();
  if (rd == 0) fail("can't $mod by zero");
  // A double dividend, or a fractional double divisor, takes fmod; otherwise integers (an
  // integral double divisor counts as an integer, as in MongoDB).
  if (l->is_double() || (r->is_double() && rd != std::trunc(rd))) {
    return value(std::fmod(l->number_as_double(), rd));
  }
  const i64 a = as_long(*l);
  const i64 b = r->is_double() ? static_cast<i64>(rd) : as_long(*r);
  const i64 m = b == -1 ? 0 : a % b;  // INT64_MIN % -1 traps
  if (l->is_int64() || r->is_int64()) return value(m);
  return value(static_cast<std::int32_t>(m));
}

expr_value abs_op(const op_node& self, eval_ctx& root) {
  expr_value v = self.arg(0, root);
  if (nullish(v)) return value();
  numeric("$abs", *v);
  if (v->is_int32()) return int_or_long(std::llabs(static_cast<i64>(v->as_int32())));
  if (v->is_int64()) {
    if (v->as_int64() == INT64_MIN) fail("can't take $abs of long long min");
    return value(static_cast<i64>(std::llabs(v->as_int64())));
  }
  if (v->is_decimal()) return value(dm::abs(dec(*v)));
  return value(std::fabs(v->as_double()));
}

expr_value ceil_op(const op_node& self, eval_ctx& root) {
  expr_value v = self.arg(0, root);
  if (nullish(v)) return value();
  numeric("$ceil", *v);
  if (v->is_decimal()) return value(dm::round_to_place(dec(*v), 0, dm::rounding::up));
  return v->is_double() ? value(std::ceil(v->as_double())) : *v;
}

expr_value floor_op(const op_node& self, eval_ctx& root) {
  expr_value v = self.arg(0, root);
  if (nullish(v)) return value();
  numeric("$floor", *v);
  if (v->is_decimal()) return value(dm::round_to_place(dec(*v), 0, dm::rounding::down));
  return v->is_double() ? value(std::floor(v->as_double())) : *v;
}

// An integer rounded (half to even) or truncated to a multiple of 10^digits.
value round_integer(i64 x, int digits, bool round, bool was_int32) {
  __int128 p = 1;
  for (int i = 0; i < digits; ++i) p *= 10;
  __int128 q = x / p, rem = x % p;
  if (round) {
    const __int128 twice = (rem < 0 ? -rem : rem) * 2;
    if (twice > p || (twice == p && q % 2 != 0)) q += x < 0 ? -1 : 1;
  }
  const __int128 out = q * p;
  if (out < INT64_MIN || out > INT64_MAX) return value(static_cast<double>(out));
  return was_int32 ? int_or_long(static_cast<i64>(out)) : value(static_cast<i64>(out));
}

// A double rounded (half to even, on its exact binary value) or truncated to `place`
// decimal places; a negative place rounds to tens, hundreds, ….
double round_double(double d, int place, bool round) {
  if (!std::isfinite(d)) return d;
  if (place == 0) return round ? std::nearbyint(d) : std::trunc(d);
  if (place < 0) {
    const double p = std::pow(10.0, -place);
    return (round ? std::nearbyint(d / p) : std::trunc(d / p)) * p;
  }
  char buf[512];
  if (round) {
    std::snprintf(buf, sizeof buf, "%.*f", place, d);  // glibc rounds the exact value, ties to even
    return std::strtod(buf, nullptr);
  }
  std::snprintf(buf, sizeof buf, "%.*f", place + 30, d);
  std::string s(buf);
  s.resize(s.size() - 30);
  return std::strtod(s.c_str(), nullptr);
}

expr_value round_or_trunc(const op_node& self, eval_ctx& root, bool round) {
  const std::string op = round ? "$round" : "$trunc";
  expr_value v = self.arg(0, root);
  int place = 0;
  if (self.args.size() > 1) {
    expr_value p = self.arg(1, root);
    if (nullish(p)) return value();
    const bool integral = p->is_decimal() ? dm::exact_int64(dec(*p)).has_value()
                                          : p->is_number() && p->number_as_double() == std::trunc(p->number_as_double());
    if (!integral) fail(op + " needs an integral place, not " + type_name(*p));
    const double pd = p->is_decimal() ? static_cast<double>(*dm::exact_int64(dec(*p))) : p->number_as_double();
    if (pd < -20 || pd > 100) fail(op + " place must be in [-20, 100], got " + std::to_string(static_cast<i64>(pd)));
    place = static_cast<int>(pd);
  }
  if (nullish(v)) return value();
  numeric(op, *v);
  if (v->is_decimal()) {
    return value(dm::round_to_place(dec(*v), place, round ? dm::rounding::half_even : dm::rounding::toward_zero));
  }
  if (v->is_double()) return value(round_double(v->as_double(), place, round));
  if (place >= 0) return *v;
  return round_integer(as_long(*v), -place, round, v->is_int32());
}

expr_value round_op(const op_node& self, eval_ctx& root) { return round_or_trunc(self, root, true); }
expr_value trunc_op(const op_node& self, eval_ctx& root) { return round_or_trunc(self, root, false); }

constexpr op_info arith_op_list[] = {
    {"$add", 0, -1, add_op},       {"$subtract", 2, 2, subtract_op}, {"$multiply", 0, -1, multiply_op},
    {"$divide", 2, 2, divide_op},  {"$mod", 2, 2, mod_op},           {"$abs", 1, 1, abs_op},
    {"$ceil", 1, 1, ceil_op},      {"$floor", 1, 1, floor_op},       {"$round", 1, 2, round_op},
    {"$trunc", 1, 2, trunc_op},
};

}  // namespace

op_table arith_ops() { return table_of(arith_op_list); }

}  // namespace omgdb::engine::expr_detail
