// omgdb engine — Decimal128 arithmetic with MongoDB's semantics, over Intel's BID library
// (the library MongoDB itself uses; IEEE 754-2008 decimal128: 34 significant digits,
// exponents -6176…6111, round half to even unless a function says otherwise).
//
// `decimal128` (value.hpp) holds libbson's layout, which is the BID encoding the library
// computes on, so no conversion happens at the boundary. Every function is pure: the rounding
// mode and the status flags are passed per call (never global), so all of them may be called
// from any number of threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/value/value.hpp"

namespace omgdb::engine::decimal_math {

// Exact conversions (every int32 and int64 has at most 19 digits).
decimal128 from_int32(std::int32_t i);
decimal128 from_int64(std::int64_t i);
// A double as MongoDB converts one (Decimal128(double), used by $toDecimal, $convert and the
// arithmetic that widens a double to decimal): rounded half-even to 15 significant digits,
// trailing zeros kept (2.5 → 2.50000000000000, 0.1 → 0.100000000000000). ±0, ±Infinity and
// NaN convert without quantizing.
decimal128 from_double(double d);
// A double rounded to 34 significant digits (nearly exact: 0.1 → 0.1000000000000000055511151231257827),
// as MongoDB uses to compare a decimal with a double and to add a double sum to a decimal one.
decimal128 from_double_34(double d);
// Any number as MongoDB coerces it to decimal: int32/int64 exactly, a double by from_double, a
// decimal as itself. Not for other kinds (gives NaN).
decimal128 of(const value& v);
// Parses MongoDB's decimal string syntax ("1.5", "-1E+3", "Infinity", "NaN"); more than 34
// significant digits round half to even, as MongoDB's $toDecimal does; nullopt when not a
// decimal.
std::optional<decimal128> parse(std::string_view text);

// Nearest double, ties to even.
double to_double(const decimal128& d);
// Same, and says whether the value was beyond the double range (a finite decimal that became
// ±Infinity: overflow) or below its smallest normal magnitude and rounded (underflow).
enum class double_fit { exact_or_rounded, overflow, underflow };
double to_double(const decimal128& d, double_fit& fit);
// Truncated toward zero to an int64 / int32; nullopt for NaN, ±Infinity and out of range.
std::optional<std::int64_t> to_int64_trunc(const decimal128& d);
std::optional<std::int32_t> to_int32_trunc(const decimal128& d);
// Rounded half to even to an int64; nullopt for NaN, ±Infinity and out of range.
std::optional<std::int64_t> to_int64_round(const decimal128& d);
// The value as an int64 when it is integral and in range (1.00 → 1), else nullopt.
std::optional<std::int64_t> exact_int64(const decimal128& d);
// The BSON decimal string ("1.10", "1E+3", "-Infinity"), as $toString and Extended JSON write it.
std::string to_string(const decimal128& d);

bool is_nan(const decimal128& d);
bool is_inf(const decimal128& d);
bool is_zero(const decimal128& d);       // any exponent, either sign
bool is_negative(const decimal128& d);   // the sign bit (-0 is negative)

decimal128 zero();  // 0 (exponent 0)
decimal128 add(const decimal128& a, const decimal128& b);
decimal128 sub(const decimal128& a, const decimal128& b);
decimal128 mul(const decimal128& a, const decimal128& b);
decimal128 div(const decimal128& a, const decimal128& b);  // x/0 is ±Infinity, 0/0 NaN
// The remainder of a / b truncated toward zero, with the sign of a (C's fmod, MongoDB's $mod).
decimal128 mod(const decimal128& a, const decimal128& b);
decimal128 abs(const decimal128& d);
decimal128 negate(const decimal128& d);
decimal128 sqrt(const decimal128& d);  // NaN below zero
decimal128 pow(const decimal128& base, const decimal128& exponent);
decimal128 exp(const decimal128& d);
decimal128 ln(const decimal128& d);
decimal128 log10(const decimal128& d);

// How round_to_place rounds.
enum class rounding { half_even, toward_zero, up, down };
// `d` rounded to a multiple of 10^-place ($round/$trunc with a place; $ceil/$floor with place
// 0): 1.298 at 1 → 1.3, 23.298 at -1 → 2E+1. The result's exponent is -place, as MongoDB's
// quantize gives, unless that needs more than 34 digits: then the value keeps 34 digits
// (1.298 at 100 → 1.298000000000000000000000000000000), which is exact. NaN and ±Infinity are
// returned unchanged.
decimal128 round_to_place(const decimal128& d, int place, rounding mode);

// Total order by numeric value: NaN equals NaN and is below every other value, -0 == 0, and
// 1.0 == 1.00 (the representation does not matter). Returns <0, 0 or >0.
int compare(const decimal128& a, const decimal128& b);
int compare(const decimal128& a, std::int64_t b);  // exact
int compare(const decimal128& a, double b);        // b at 34 digits, as MongoDB compares

}  // namespace omgdb::engine::decimal_math
