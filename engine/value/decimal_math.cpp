#include "engine/value/decimal_math.hpp"

#include <bson/bson.h>

// Intel's BID library, linked as libbidgcc000.a: the three digits are DECIMAL_CALL_BY_REFERENCE,
// DECIMAL_GLOBAL_ROUNDING and DECIMAL_GLOBAL_EXCEPTION_FLAGS, all 0 — arguments by value, and
// the rounding mode and status flags passed on every call instead of kept in (thread-local)
// globals. Nothing here touches shared state, so every function is thread-safe.
#define DECIMAL_CALL_BY_REFERENCE 0
#define DECIMAL_GLOBAL_ROUNDING 0
#define DECIMAL_GLOBAL_EXCEPTION_FLAGS 0
#include <bid_conf.h>
#include <bid_functions.h>

#include <algorithm>
#include <cmath>

namespace omgdb::engine::decimal_math {
namespace {

constexpr _IDEC_round k_even = BID_ROUNDING_TO_NEAREST;

BID_UINT128 lib(const decimal128& d) {
  BID_UINT128 x;
  x.w[0] = d.low;
  x.w[1] = d.high;
  return x;
}

decimal128 ours(const BID_UINT128& x) { return decimal128{x.w[1], x.w[0]}; }

// 1E<exponent>: the reference whose exponent bid128_quantize copies.
BID_UINT128 quantum(int exponent) {
  _IDEC_flags f = 0;
  return __bid128_scalbn(__bid128_from_int32(1), exponent, k_even, &f);
}

// The exponent of the leading digit (ilogb: 123.4 → 2); d finite and non-zero.
int leading_exponent(BID_UINT128 x) {
  _IDEC_flags f = 0;
  return __bid128_ilogb(x, &f);
}

_IDEC_round bid_mode(rounding mode) {
  switch (mode) {
    case rounding::half_even: return BID_ROUNDING_TO_NEAREST;
    case rounding::toward_zero: return BID_ROUNDING_TO_ZERO;
    case rounding::up: return BID_ROUNDING_UP;
    case rounding::down: return BID_ROUNDING_DOWN;
  }
  return BID_ROUNDING_TO_NEAREST;
}

}  // namespace

decimal128 from_int32(std::int32_t i) { return ours(__bid128_from_int32(i)); }
decimal128 from_int64(std::int64_t i) { return ours(__bid128_from_int64(i)); }

decimal128 from_double_34(double d) {
  _IDEC_flags f = 0;
  return ours(__binary64_to_bid128(d, k_even, &f));
}

decimal128 from_double(double d) {
  _IDEC_flags f = 0;
  const BID_UINT128 x = __binary64_to_bid128(d, k_even, &f);
  if (d == 0 || !std::isfinite(d)) return ours(x);
  // Like MongoDB: the 34-digit conversion, then quantized to 15 significant digits; when
  // rounding carries into a 16th digit (9.999999999999999 → 10.0000000000000), once more
  // one place up.
  const int lead = leading_exponent(x);
  BID_UINT128 q = __bid128_quantize(x, quantum(lead - 14), k_even, &f);
  if (leading_exponent(q) > lead) q = __bid128_quantize(x, quantum(lead - 13), k_even, &f);
  return ours(q);
}

decimal128 of(const value& v) {
  switch (v.type()) {
    case kind::int32: return from_int32(v.as_int32());
    case kind::int64: return from_int64(v.as_int64());
    case kind::double_: return from_double(v.as_double());
    case kind::decimal128: return std::get<decimal128>(v.raw());
    default: return from_double(std::nan(""));
  }
}

namespace {

// [+-] digits [. digits] [(e|E) [+-] digits], at least one mantissa digit.
bool plain_number_syntax(std::string_view t) {
  std::size_t i = 0, digits = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) ++digits;
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) ++exp_digits;
    if (exp_digits == 0 || exp_digits > 6) return false;
  }
  return i == t.size();
}

}  // namespace

std::optional<decimal128> parse(std::string_view text) {
  if (text.size() > 1000) return std::nullopt;
  bson_decimal128_t dec;
  if (bson_decimal128_from_string_w_len(text.data(), static_cast<int>(text.size()), &dec)) {
    return decimal128{dec.high, dec.low};
  }
  // libbson refuses more than 34 significant digits that do not round away exactly; MongoDB
  // rounds them half to even (as NumberDecimal("…") does). Only well-formed numbers get here.
  if (!plain_number_syntax(text)) return std::nullopt;
  std::string copy(text);
  _IDEC_flags f = 0;
  const BID_UINT128 x = __bid128_from_string(copy.data(), k_even, &f);
  if (f & BID_INVALID_EXCEPTION) return std::nullopt;
  return ours(x);
}

double to_double(const decimal128& d) {
  _IDEC_flags f = 0;
  return __bid128_to_binary64(lib(d), k_even, &f);
}

double to_double(const decimal128& d, double_fit& fit) {
  _IDEC_flags f = 0;
  const double out = __bid128_to_binary64(lib(d), k_even, &f);
  fit = (f & BID_OVERFLOW_EXCEPTION)    ? double_fit::overflow
        : (f & BID_UNDERFLOW_EXCEPTION) ? double_fit::underflow
                                        : double_fit::exact_or_rounded;
  return out;
}

std::optional<std::int64_t> to_int64_trunc(const decimal128& d) {
  _IDEC_flags f = 0;
  const auto n = __bid128_to_int64_int(lib(d), &f);
  if (f & BID_INVALID_EXCEPTION) return std::nullopt;
  return n;
}

std::optional<std::int32_t> to_int32_trunc(const decimal128& d) {
  _IDEC_flags f = 0;
  const int n = __bid128_to_int32_int(lib(d), &f);
  if (f & BID_INVALID_EXCEPTION) return std::nullopt;
  return n;
}

std::optional<std::int64_t> to_int64_round(const decimal128& d) {
  _IDEC_flags f = 0;
  const auto n = __bid128_to_int64_rnint(lib(d), &f);
  if (f & BID_INVALID_EXCEPTION) return std::nullopt;
  return n;
}

std::optional<std::int64_t> exact_int64(const decimal128& d) {
  auto n = to_int64_trunc(d);
  if (!n || compare(d, *n) != 0) return std::nullopt;
  return n;
}

std::string to_string(const decimal128& d) {
  bson_decimal128_t dec;
  dec.high = d.high;
  dec.low = d.low;
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&dec, buf);
  return buf;
}

bool is_nan(const decimal128& d) { return __bid128_isNaN(lib(d)) != 0; }
bool is_inf(const decimal128& d) { return __bid128_isInf(lib(d)) != 0; }
bool is_zero(const decimal128& d) { return __bid128_isZero(lib(d)) != 0; }
bool is_negative(const decimal128& d) { return __bid128_isSigned(lib(d)) != 0; }

decimal128 zero() { return from_int32(0); }

decimal128 add(const decimal128& a, const decimal128& b) {
  _IDEC_flags f = 0;
  return ours(__bid128_add(lib(a), lib(b), k_even, &f));
}
decimal128 sub(const decimal128& a, const decimal128& b) {
  _IDEC_flags f = 0;
  return ours(__bid128_sub(lib(a), lib(b), k_even, &f));
}
decimal128 mul(const decimal128& a, const decimal128& b) {
  _IDEC_flags f = 0;
  return ours(__bid128_mul(lib(a), lib(b), k_even, &f));
}
decimal128 div(const decimal128& a, const decimal128& b) {
  _IDEC_flags f = 0;
  return ours(__bid128_div(lib(a), lib(b), k_even, &f));
}
decimal128 mod(const decimal128& a, const decimal128& b) {
  _IDEC_flags f = 0;
  return ours(__bid128_fmod(lib(a), lib(b), &f));
}
decimal128 abs(const decimal128& d) { return ours(__bid128_abs(lib(d))); }
decimal128 negate(const decimal128& d) { return ours(__bid128_negate(lib(d))); }
decimal128 sqrt(const decimal128& d) {
  _IDEC_flags f = 0;
  return ours(__bid128_sqrt(lib(d), k_even, &f));
}
namespace {

// base^n for an integral exponent when the result is exact (0.2^112 = 2^112 × 10^-112): by
// squaring, with 1/base first for a negative n; nullopt as soon as any step rounds.
std::optional<BID_UINT128> exact_integer_power(BID_UINT128 base, const decimal128& exponent) {
  const auto n = exact_int64(exponent);
  if (!n || *n == 0 || *n > 100000 || *n < -100000 || !__bid128_isFinite(base) || __bid128_isZero(base)) {
    return std::nullopt;
  }
  constexpr _IDEC_flags k_rounded = BID_INEXACT_EXCEPTION | BID_OVERFLOW_EXCEPTION | BID_UNDERFLOW_EXCEPTION;
  _IDEC_flags f = 0;
  BID_UINT128 b = *n < 0 ? __bid128_div(__bid128_from_int32(1), base, k_even, &f) : base;
  std::uint64_t m = static_cast<std::uint64_t>(*n < 0 ? -*n : *n);
  BID_UINT128 out = __bid128_from_int32(1);
  while (m != 0 && !(f & k_rounded)) {
    if (m & 1) out = __bid128_mul(out, b, k_even, &f);
    m >>= 1;
    if (m != 0) b = __bid128_mul(b, b, k_even, &f);
  }
  if (f & k_rounded) return std::nullopt;
  return out;
}

}  // namespace

decimal128 pow(const decimal128& base, const decimal128& exponent) {
  // As MongoDB's Decimal128::power: exp10 for base 10, exp2 for base 2, pow otherwise, and the
  // result widened to 34 digits by adding 0E-6176 (10.0^-2 → 0.01000000000000000000000000000000000).
  // An exact integral power is computed exactly first: this library's pow can be one unit
  // in the last place off where MongoDB's build is exact (5^-112).
  const BID_UINT128 x = lib(base), y = lib(exponent);
  _IDEC_flags f = 0;
  BID_UINT128 r;
  if (compare(base, std::int64_t{10}) == 0) {
    r = __bid128_exp10(y, k_even, &f);
  } else if (compare(base, std::int64_t{2}) == 0) {
    r = __bid128_exp2(y, k_even, &f);
  } else if (auto exact = exact_integer_power(x, exponent)) {
    r = *exact;
  } else {
    r = __bid128_pow(x, y, k_even, &f);
  }
  return add(ours(r), decimal128{0, 0});  // 0E-6176, the largest negative exponent
}
decimal128 exp(const decimal128& d) {
  _IDEC_flags f = 0;
  return ours(__bid128_exp(lib(d), k_even, &f));
}
decimal128 ln(const decimal128& d) {
  _IDEC_flags f = 0;
  return ours(__bid128_log(lib(d), k_even, &f));
}
decimal128 log10(const decimal128& d) {
  _IDEC_flags f = 0;
  return ours(__bid128_log10(lib(d), k_even, &f));
}

decimal128 round_to_place(const decimal128& d, int place, rounding mode) {
  const BID_UINT128 x = lib(d);
  if (!__bid128_isFinite(x)) return d;
  constexpr int k_min_exponent = -6176, k_max_exponent = 6111;
  int target = -place;
  if (!__bid128_isZero(x)) {
    // A coefficient holds 34 digits: past that, the value is already a multiple of 10^-place
    // and keeps its 34 digits.
    const int lead = leading_exponent(x);
    if (lead - target + 1 > 34) target = lead - 33;
  }
  target = std::max(k_min_exponent, std::min(k_max_exponent, target));
  _IDEC_flags f = 0;
  BID_UINT128 q = __bid128_quantize(x, quantum(target), bid_mode(mode), &f);
  if ((f & BID_INVALID_EXCEPTION) && target < k_max_exponent) {
    // Rounding carried into a 35th digit (9.99…9 up): one place coarser holds it.
    f = 0;
    q = __bid128_quantize(x, quantum(target + 1), bid_mode(mode), &f);
  }
  return ours(q);
}

int compare(const decimal128& a, const decimal128& b) {
  const BID_UINT128 x = lib(a), y = lib(b);
  const bool nx = __bid128_isNaN(x) != 0, ny = __bid128_isNaN(y) != 0;
  if (nx || ny) return nx && ny ? 0 : (nx ? -1 : 1);
  _IDEC_flags f = 0;
  if (__bid128_quiet_equal(x, y, &f)) return 0;
  return __bid128_quiet_less(x, y, &f) ? -1 : 1;
}

int compare(const decimal128& a, std::int64_t b) { return compare(a, from_int64(b)); }

int compare(const decimal128& a, double b) {
  if (std::isnan(b)) return is_nan(a) ? 0 : 1;
  return compare(a, from_double_34(b));
}

}  // namespace omgdb::engine::decimal_math
