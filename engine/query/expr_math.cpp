// Power and logarithm expression operators: $sqrt $pow $exp $ln $log $log10. A decimal128
// operand gives a decimal result computed in decimal (34 digits); other numbers give doubles,
// except $pow of two integers, which stays an int or long while the result fits (MongoDB's
// rules). Null or missing gives null; NaN gives NaN. The error texts are MongoDB's.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
namespace dm = decimal_math;

const decimal128& dec(const value& v) { return std::get<decimal128>(v.raw()); }

// The single numeric argument of $sqrt $exp $ln $log10, or nullopt for null/missing.
std::optional<value> single_number(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return std::nullopt;
  if (!v->is_number()) fail(self.name + " only supports numeric types, not " + type_name(*v));
  return std::move(*v);
}

// NaN passes through; otherwise the argument must be > 0 (or >= 0 with `zero_ok`).
bool in_domain(const value& v, bool zero_ok) {
  if (v.is_decimal()) {
    const decimal128& d = dec(v);
    if (dm::is_nan(d)) return true;
    const int c = dm::compare(d, std::int64_t{0});
    return zero_ok ? c >= 0 : c > 0;
  }
  const double x = v.number_as_double();
  return std::isnan(x) || (zero_ok ? x >= 0 : x > 0);
}

std::string shown(const value& v) {
  if (v.is_decimal()) return dm::to_string(dec(v));
  if (v.is_double()) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v.as_double());
    return std::string(buf, r.ptr);
  }
  return std::to_string(v.is_int32() ? i64{v.as_int32()} : v.as_int64());
}

expr_value sqrt_op(const op_node& self, eval_ctx& ctx) {
  auto v = single_number(self, ctx);
  if (!v) return value();
  if (!in_domain(*v, true)) fail("$sqrt's argument must be greater than or equal to 0");
  if (v->is_decimal()) return value(dm::sqrt(dec(*v)));
  return value(std::sqrt(v->number_as_double()));
}

expr_value exp_op(const op_node& self, eval_ctx& ctx) {
  auto v = single_number(self, ctx);
  if (!v) return value();
  if (v->is_decimal()) return value(dm::exp(dec(*v)));
  return value(std::exp(v->number_as_double()));
}

expr_value ln_or_log10_op(const op_node& self, eval_ctx& ctx) {
  auto v = single_number(self, ctx);
  if (!v) return value();
  const bool ten = self.name == "$log10";
  if (!in_domain(*v, false)) fail(self.name + "'s argument must be a positive number, but is " + shown(*v));
  if (v->is_decimal()) return value(ten ? dm::log10(dec(*v)) : dm::ln(dec(*v)));
  const double x = v->number_as_double();
  return value(ten ? std::log10(x) : std::log(x));
}

// {$log: [number, base]}: ln(number) / ln(base); in decimal log10 for base 10.
expr_value log_op(const op_node& self, eval_ctx& ctx) {
  expr_value x = self.arg(0, ctx), b = self.arg(1, ctx);
  if (nullish(x) || nullish(b)) return value();
  if (!x->is_number()) fail("$log's argument must be numeric, not " + type_name(*x));
  if (!b->is_number()) fail("$log's base must be numeric, not " + type_name(*b));
  if (x->is_decimal() || b->is_decimal()) {
    const decimal128 xd = dm::of(*x), bd = dm::of(*b);
    if (dm::is_nan(xd) || dm::is_nan(bd)) return value(dm::add(xd, bd));  // NaN
    if (dm::compare(xd, std::int64_t{0}) <= 0) fail("$log's argument must be a positive number, but is " + shown(*x));
    if (dm::compare(bd, std::int64_t{0}) <= 0 || dm::compare(bd, std::int64_t{1}) == 0) {
      fail("$log's base must be a positive number not equal to 1, but is " + shown(*b));
    }
    if (dm::compare(bd, std::int64_t{10}) == 0) return value(dm::log10(xd));
    return value(dm::div(dm::ln(xd), dm::ln(bd)));
  }
  const double xv = x->number_as_double(), bv = b->number_as_double();
  if (std::isnan(xv) || std::isnan(bv)) return value(std::nan(""));
  if (!(xv > 0)) fail("$log's argument must be a positive number, but is " + shown(*x));
  if (!(bv > 0) || bv == 1) fail("$log's base must be a positive number not equal to 1, but is " + shown(*b));
  return value(std::log(xv) / std::log(bv));
}

i64 long_of(const value& v) { return v.is_int32() ? v.as_int32() : v.as_int64(); }

// base^exponent for two integers by repeated squaring; false on int64 overflow.
bool integer_power(i64 base, i64 exponent, i64& out) {
  out = 1;
  while (exponent > 0) {
    if ((exponent & 1) && __builtin_mul_overflow(out, base, &out)) return false;
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) return false;
  }
  return true;
}

expr_value pow_op(const op_node& self, eval_ctx& ctx) {
  expr_value b = self.arg(0, ctx), e = self.arg(1, ctx);
  if (nullish(b) || nullish(e)) return value();
  if (!b->is_number()) fail("$pow's base must be numeric, not " + type_name(*b));
  if (!e->is_number()) fail("$pow's exponent must be numeric, not " + type_name(*e));
  static const char* zero_negative = "$pow cannot take a base of 0 and a negative exponent";
  if (b->is_decimal() || e->is_decimal()) {
    const decimal128 bd = dm::of(*b), ed = dm::of(*e);
    if (dm::is_zero(bd) && !dm::is_nan(ed) && dm::compare(ed, std::int64_t{0}) < 0) fail(zero_negative);
    return value(dm::pow(bd, ed));
  }
  const double bv = b->number_as_double(), ev = e->number_as_double();
  if (bv == 0 && ev < 0) fail(zero_negative);
  if (b->is_double() || e->is_double()) return value(std::pow(bv, ev));
  const i64 base = long_of(*b), exponent = long_of(*e);
  const bool longs = b->is_int64() || e->is_int64();
  auto integral = [&](i64 n) { return longs ? value(n) : int_or_long(n); };
  if (exponent < 0) {
    // Only ±1 keep an integral result (0 was refused above).
    if (base == 1) return integral(1);
    if (base == -1) return integral(exponent % 2 == 0 ? 1 : -1);
    return value(std::pow(bv, ev));
  }
  i64 out = 0;
  if (!integer_power(base, exponent, out)) return value(std::pow(bv, ev));  // past int64: a double
  return integral(out);
}

constexpr op_info math_op_list[] = {
    {"$sqrt", 1, 1, sqrt_op},       {"$exp", 1, 1, exp_op},         {"$ln", 1, 1, ln_or_log10_op},
    {"$log10", 1, 1, ln_or_log10_op}, {"$log", 2, 2, log_op},       {"$pow", 2, 2, pow_op},
};

}  // namespace

op_table math_ops() { return table_of(math_op_list); }

}  // namespace omgdb::engine::expr_detail
