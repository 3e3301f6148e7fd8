// Trigonometric expression operators: $sin $cos $tan $asin $acos $atan $atan2 $asinh $acosh
// $atanh $sinh $cosh $tanh $degreesToRadians $radiansToDegrees, with MongoDB's rules: an int
// or long argument is computed as a double; a decimal128 argument gives a decimal computed
// by Intel's BID library (the library and functions mongod itself calls); null or missing
// gives null; NaN gives NaN. The bounded functions refuse arguments outside their domain with
// mongod's message (error 50989), which reads "value must in" — mongod's wording, kept so
// that error texts match the server's.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

// Intel's BID library with arguments by value and per-call rounding and flags, as in
// engine/value/decimal_math.cpp (thread-safe: no global state).
#define DECIMAL_CALL_BY_REFERENCE 0
#define DECIMAL_GLOBAL_ROUNDING 0
#define DECIMAL_GLOBAL_EXCEPTION_FLAGS 0
#include <bid_conf.h>
#include <bid_functions.h>

namespace omgdb::engine::expr_detail {
namespace {

namespace dm = decimal_math;
using bid_unary = BID_UINT128 (*)(BID_UINT128, _IDEC_round, _IDEC_flags*);

BID_UINT128 lib(const decimal128& d) {
  BID_UINT128 x;
  x.w[0] = d.low;
  x.w[1] = d.high;
  return x;
}
decimal128 ours(const BID_UINT128& x) { return decimal128{x.w[1], x.w[0]}; }

decimal128 apply(bid_unary f, const decimal128& d) {
  _IDEC_flags flags = 0;
  return ours(f(lib(d), BID_ROUNDING_TO_NEAREST, &flags));
}

// A double as mongod's str::stream writes one into a message (printf's %g: -2, 1.5, inf).
std::string shown(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// The domain of a bounded function: [lo,hi] when inclusive, (lo,hi) otherwise.
struct bounds {
  double lo, hi;
  bool inclusive;
};

struct trig_fn {
  std::string_view name;
  double (*dbl)(double);
  bid_unary dec;
  const bounds* domain;  // nullptr: every value (including ±Infinity)
};

constexpr double k_inf = HUGE_VAL;
constexpr bounds k_unit{-1, 1, true};          // $asin $acos $atanh
constexpr bounds k_finite{-k_inf, k_inf, false};  // $sin $cos $tan
constexpr bounds k_acosh{1, k_inf, true};     // $acosh

const trig_fn k_fns[] = {
    {"$sin", [](double x) { return std::sin(x); }, __bid128_sin, &k_finite},
    {"$cos", [](double x) { return std::cos(x); }, __bid128_cos, &k_finite},
    {"$tan", [](double x) { return std::tan(x); }, __bid128_tan, &k_finite},
    {"$asin", [](double x) { return std::asin(x); }, __bid128_asin, &k_unit},
    {"$acos", [](double x) { return std::acos(x); }, __bid128_acos, &k_unit},
    {"$atan", [](double x) { return std::atan(x); }, __bid128_atan, nullptr},
    {"$asinh", [](double x) { return std::asinh(x); }, __bid128_asinh, nullptr},
    {"$acosh", [](double x) { return std::acosh(x); }, __bid128_acosh, &k_acosh},
    {"$atanh", [](double x) { return std::atanh(x); }, __bid128_atanh, &k_unit},
    {"$sinh", [](double x) { return std::sinh(x); }, __bid128_sinh, nullptr},
    {"$cosh", [](double x) { return std::cosh(x); }, __bid128_cosh, nullptr},
    {"$tanh", [](double x) { return std::tanh(x); }, __bid128_tanh, nullptr},
};

const trig_fn& fn_of(const std::string& name) {
  for (const trig_fn& f : k_fns) {
    if (f.name == name) return f;
  }
  fail("internal: no trigonometric function " + name);
}

[[noreturn]] void out_of_domain(const std::string& op, const std::string& shown_value, const bounds& b) {
  fail("cannot apply " + op + " to " + shown_value + ", value must in " + (b.inclusive ? "[" : "(") + shown(b.lo) +
       "," + shown(b.hi) + (b.inclusive ? "]" : ")"));
}

bool inside(double x, const bounds& b) { return b.inclusive ? (x >= b.lo && x <= b.hi) : (x > b.lo && x < b.hi); }

bool inside(const decimal128& d, const bounds& b) {
  // An infinite bound: only the decimal's own infinity can reach it.
  const int lo = std::isinf(b.lo) ? (dm::is_inf(d) && dm::is_negative(d) ? 0 : 1) : dm::compare(d, static_cast<std::int64_t>(b.lo));
  const int hi = std::isinf(b.hi) ? (dm::is_inf(d) && !dm::is_negative(d) ? 0 : -1) : dm::compare(d, static_cast<std::int64_t>(b.hi));
  return b.inclusive ? (lo >= 0 && hi <= 0) : (lo > 0 && hi < 0);
}

// The single numeric argument, or nullopt for null/missing.
std::optional<value> numeric_arg(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return std::nullopt;
  if (!v->is_number()) fail(self.name + " only supports numeric types, not " + type_name(*v));
  return std::move(*v);
}

expr_value trig_op(const op_node& self, eval_ctx& ctx) {
  auto v = numeric_arg(self, ctx);
  if (!v) return value();
  const trig_fn& f = fn_of(self.name);
  if (v->is_decimal()) {
    const decimal128& d = std::get<decimal128>(v->raw());
    if (dm::is_nan(d)) return *v;
    if (f.domain && !inside(d, *f.domain)) out_of_domain(self.name, dm::to_string(d), *f.domain);
    return value(apply(f.dec, d));
  }
  const double x = v->number_as_double();
  if (std::isnan(x)) return *v;
  if (f.domain && !inside(x, *f.domain)) out_of_domain(self.name, shown(x), *f.domain);
  return value(f.dbl(x));
}

// {$atan2: [y, x]}: decimal when either is a decimal, else double.
expr_value atan2_op(const op_node& self, eval_ctx& ctx) {
  expr_value y = self.arg(0, ctx);
  if (nullish(y)) return value();
  if (!y->is_number()) fail("$atan2 only supports numeric types, not " + type_name(*y));
  expr_value x = self.arg(1, ctx);
  if (nullish(x)) return value();
  if (!x->is_number()) fail("$atan2 only supports numeric types, not " + type_name(*x));
  if (y->is_decimal() || x->is_decimal()) {
    _IDEC_flags flags = 0;
    return value(ours(__bid128_atan2(lib(dm::of(*y)), lib(dm::of(*x)), BID_ROUNDING_TO_NEAREST, &flags)));
  }
  return value(std::atan2(y->number_as_double(), x->number_as_double()));
}

// π/180 and 180/π: mongod's doubles (π as 3.141592653589793) and its decimal constants
// (34 significant digits, correctly rounded).
constexpr double k_pi = 3.141592653589793;
decimal128 decimal_constant(const char* text) { return *dm::parse(text); }

expr_value degrees_radians_op(const op_node& self, eval_ctx& ctx) {
  auto v = numeric_arg(self, ctx);
  if (!v) return value();
  const bool to_radians = self.name == "$degreesToRadians";
  if (v->is_decimal()) {
    static const decimal128 pi_over_180 = decimal_constant("0.01745329251994329576923690768488613");
    static const decimal128 d180_over_pi = decimal_constant("57.29577951308232087679815481410517");
    return value(dm::mul(std::get<decimal128>(v->raw()), to_radians ? pi_over_180 : d180_over_pi));
  }
  return value(v->number_as_double() * (to_radians ? k_pi / 180.0 : 180.0 / k_pi));
}

constexpr op_info trig_op_list[] = {
    {"$sin", 1, 1, trig_op},   {"$cos", 1, 1, trig_op},   {"$tan", 1, 1, trig_op},
    {"$asin", 1, 1, trig_op},  {"$acos", 1, 1, trig_op},  {"$atan", 1, 1, trig_op},
    {"$asinh", 1, 1, trig_op}, {"$acosh", 1, 1, trig_op}, {"$atanh", 1, 1, trig_op},
    {"$sinh", 1, 1, trig_op},  {"$cosh", 1, 1, trig_op},  {"$tanh", 1, 1, trig_op},
    {"$atan2", 2, 2, atan2_op}, {"$degreesToRadians", 1, 1, degrees_radians_op},
    {"$radiansToDegrees", 1, 1, degrees_radians_op},
};

}  // namespace

op_table trig_ops() { return table_of(trig_op_list); }

}  // namespace omgdb::engine::expr_detail
