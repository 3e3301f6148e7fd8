#include "engine/index/keystring.hpp"

#include "engine/value/decimal_math.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

// Layout of one encoded value (ascending); every form is prefix-free:
//
//   MinKey      0x0A
//   null        0x14
//   number      0x1E                      NaN (below every other number)
//               0x1F D[8] tie[2]          every other number x: D is the largest double
//                                         <= x (-0 written as +0), in the order-preserving
//                                         bit transform, big-endian; tie = x - D as an
//                                         unsigned 16-bit big-endian integer (nonzero only
//                                         for int64 values without an exact double, where
//                                         the gap between doubles is at most 2^10)
//   string      0x3C escaped              bytes with 0x00 -> 0x00 0xFF, then 0x00 0x00
//   document    0x46 {bracket escaped(name) value}* 0x00
//   array       0x50 {value}* 0x00
//   binary      0x5A len[4] subtype[1] bytes
//   ObjectId    0x64 bytes[12]
//   bool        0x6E false / 0x6F true
//   date        0x78 millis[8]            sign bit flipped, big-endian
//   timestamp   0x82 t[4] i[4]
//   regex       0x8C escaped(pattern) escaped(options)
//   MaxKey      0xF0
//
// Inside a document each field starts with its value's *bracket* byte (number, bool) so
// that the type bracket is compared before the field name, as compare() does; the value's
// own encoding follows the name. Strings end with 0x00 0x00, which sorts below both the
// escape 0x00 0xFF and any other byte, so "a" < "a\0" < "a\x01" in memcmp order as in byte
// order; and since content never holds 0x00 0x00, no string's key is a prefix of another's
// (a single 0x00 terminator would make "a" a prefix of "a\0" and break descending keys).
//
// decimal128 values: one equal to an int64 takes that integer's key, one equal to a double
// (at the double's 34-digit value, as compare() matches them) that double's key. Any other
// decimal x lies strictly between two adjacent doubles D < x < next(D) and is written
//
//               0x1F D[8] 0x04 dec(x)      when no int64 lies strictly inside (D, next(D))
//               0x1F D[8] k[2] 0xFF dec(x) otherwise (|D| in [2^53, 2^63)): k = floor(x - D)
//
// dec(x) = adjusted exponent + 6200 as u16 big-endian, the significant digits without
// trailing zeros as ASCII, 0x00; every byte inverted when x < 0 (all x between D and next(D)
// share one sign). So 0x04 sorts after the 00 00 of D itself and 0xFF after anything that can
// follow D's or an integer's key in a compound key. The second form is the one exception to
// prefix-freeness: the integer D + k's key is a prefix of it (such decimals need a fraction
// and 17 to 19 integer digits); order and equality stay exact.

namespace omgdb::engine {
namespace {

enum tag : unsigned char {
  tag_min_key = 10,
  tag_null = 20,
  tag_number_nan = 30,
  tag_number = 31,
  tag_string = 60,
  tag_document = 70,
  tag_array = 80,
  tag_binary = 90,
  tag_object_id = 100,
  tag_false = 110,
  tag_true = 111,
  tag_date = 120,
  tag_timestamp = 130,
  tag_regex = 140,
  tag_max_key = 240,
};

void put_u64(std::string& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void put_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back(static_cast<char>(0xFF));
  }
  out.push_back('\0');
  out.push_back('\0');
}

// Order-preserving image of a double: negative values have all bits flipped (so larger
// magnitudes sort lower), non-negative ones only the sign bit.
std::uint64_t double_bits(double d) {
  if (d == 0.0) d = 0.0;  // -0 and +0 share one key
  const auto bits = std::bit_cast<std::uint64_t>(d);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

void put_number(std::string& out, double d, std::uint16_t tie) {
  if (std::isnan(d)) {
    out.push_back(static_cast<char>(tag_number_nan));
    return;
  }
  out.push_back(static_cast<char>(tag_number));
  put_u64(out, double_bits(d));
  out.push_back(static_cast<char>(tie >> 8));
  out.push_back(static_cast<char>(tie & 0xFF));
}

void put_int(std::string& out, std::int64_t i) {
  // The largest double not above i: the rounded conversion, stepped down once if it rounded
  // up. (double)INT64_MAX is 2^63, which does not fit an int64, hence the first test.
  double d = static_cast<double>(i);
  if (d >= 9223372036854775808.0 || static_cast<std::int64_t>(d) > i) {
    d = std::nextafter(d, -INFINITY);
  }
  const std::int64_t below = static_cast<std::int64_t>(d);
  put_number(out, d, static_cast<std::uint16_t>(i - below));  // 0 <= i - below < 2^10
}

// dec(x) of the layout above: the canonical (representation-free) form of a non-zero finite x.
void put_decimal_digits(std::string& out, const decimal128& x) {
  // BID: sign, then a 14-bit exponent and a 113-bit coefficient (the "11" combination form
  // only holds non-canonical coefficients, which read as zero and never reach here).
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << 113) - 1;
  unsigned __int128 coefficient = ((static_cast<unsigned __int128>(x.high) << 64) | x.low) & mask;
  int exponent = static_cast<int>((x.high >> 49) & 0x3FFF) - 6176;
  char digits[40];
  int n = 0;
  while (coefficient != 0) {
    digits[n++] = static_cast<char>('0' + static_cast<int>(coefficient % 10));
    coefficient /= 10;
  }
  int first = 0;
  while (first < n && digits[first] == '0') ++first, ++exponent;  // trailing zeros
  const int adjusted = exponent + (n - first) - 1;
  const std::size_t start = out.size();
  const auto biased = static_cast<std::uint16_t>(adjusted + 6200);
  out.push_back(static_cast<char>(biased >> 8));
  out.push_back(static_cast<char>(biased & 0xFF));
  for (int k = n - 1; k >= first; --k) out.push_back(digits[k]);
  out.push_back('\0');
  if (decimal_math::is_negative(x)) {
    for (std::size_t k = start; k < out.size(); ++k) out[k] = static_cast<char>(~out[k]);
  }
}

void put_decimal(std::string& out, const decimal128& x) {
  namespace dm = decimal_math;
  if (dm::is_nan(x)) return put_number(out, std::numeric_limits<double>::quiet_NaN(), 0);
  if (auto i = dm::exact_int64(x)) return put_int(out, *i);
  double d = dm::to_double(x);
  int c = dm::compare(x, d);
  if (c == 0) return put_number(out, d, 0);
  if (c < 0) d = std::nextafter(d, -INFINITY);  // now d < x < next(d)
  out.push_back(static_cast<char>(tag_number));
  put_u64(out, double_bits(d));
  const double up = std::nextafter(d, INFINITY);
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && up - d > 1) {
    // Integers sit inside this gap with ties 1…: after the largest one below x.
    const auto k = dm::to_int64_trunc(dm::sub(x, dm::from_double_34(d))).value_or(0);
    out.push_back(static_cast<char>((k >> 8) & 0xFF));
    out.push_back(static_cast<char>(k & 0xFF));
    out.push_back(static_cast<char>(0xFF));
  } else {
    out.push_back(static_cast<char>(0x04));
  }
  put_decimal_digits(out, x);
}

// The byte a field's value starts with inside a document: its type bracket.
unsigned char bracket(const value& v) {
  switch (v.type()) {
    case kind::min_key: return tag_min_key;
    case kind::null_: return tag_null;
    case kind::int32:
    case kind::int64:
    case kind::double_:
    case kind::decimal128: return tag_number_nan;
    case kind::string: return tag_string;
    case kind::document: return tag_document;
    case kind::array: return tag_array;
    case kind::binary: return tag_binary;
    case kind::object_id: return tag_object_id;
    case kind::boolean: return tag_false;
    case kind::date_time: return tag_date;
    case kind::timestamp: return tag_timestamp;
    case kind::regex: return tag_regex;
    case kind::max_key: return tag_max_key;
  }
  return 0;
}

void put_value(std::string& out, const value& v) {
  switch (v.type()) {
    case kind::min_key: out.push_back(static_cast<char>(tag_min_key)); return;
    case kind::max_key: out.push_back(static_cast<char>(tag_max_key)); return;
    case kind::null_: out.push_back(static_cast<char>(tag_null)); return;
    case kind::boolean: out.push_back(static_cast<char>(v.as_bool() ? tag_true : tag_false)); return;
    case kind::int32: put_int(out, v.as_int32()); return;
    case kind::int64: put_int(out, v.as_int64()); return;
    case kind::double_: put_number(out, v.as_double(), 0); return;
    case kind::decimal128: put_decimal(out, std::get<decimal128>(v.raw())); return;
    case kind::string:
      out.push_back(static_cast<char>(tag_string));
      put_escaped(out, v.as_string());
      return;
    case kind::document:
      out.push_back(static_cast<char>(tag_document));
      for (const auto& f : v.as_document()) {
        out.push_back(static_cast<char>(bracket(f.val)));
        put_escaped(out, f.name);
        put_value(out, f.val);
      }
      out.push_back('\0');
      return;
    case kind::array:
      out.push_back(static_cast<char>(tag_array));
      for (const auto& e : v.as_array()) put_value(out, e);
      out.push_back('\0');
      return;
    case kind::binary: {
      const auto& b = std::get<binary>(v.raw());
      out.push_back(static_cast<char>(tag_binary));
      put_u32(out, static_cast<std::uint32_t>(b.bytes.size()));
      out.push_back(static_cast<char>(b.subtype));
      out += b.bytes;
      return;
    }
    case kind::object_id: {
      const auto& o = std::get<object_id>(v.raw());
      out.push_back(static_cast<char>(tag_object_id));
      out.append(reinterpret_cast<const char*>(o.bytes.data()), o.bytes.size());
      return;
    }
    case kind::date_time:
      out.push_back(static_cast<char>(tag_date));
      put_u64(out, static_cast<std::uint64_t>(std::get<date_time>(v.raw()).millis) ^ (std::uint64_t{1} << 63));
      return;
    case kind::timestamp: {
      const auto& t = std::get<timestamp>(v.raw());
      out.push_back(static_cast<char>(tag_timestamp));
      put_u32(out, t.t);
      put_u32(out, t.i);
      return;
    }
    case kind::regex: {
      const auto& r = std::get<regex>(v.raw());
      out.push_back(static_cast<char>(tag_regex));
      put_escaped(out, r.pattern);
      put_escaped(out, r.options);
      return;
    }
  }
}

}  // namespace

void append_key(std::string& out, const value& v, bool descending) {
  const std::size_t start = out.size();
  put_value(out, v);
  if (descending) {
    // Valid because the encoding is prefix-free: inverting every byte reverses memcmp order.
    for (std::size_t k = start; k < out.size(); ++k) out[k] = static_cast<char>(~out[k]);
  }
}

std::string encode_key(const value& v) {
  std::string out;
  append_key(out, v);
  return out;
}

}  // namespace omgdb::engine
