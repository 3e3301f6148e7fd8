// Type expression operators: $type, $isNumber, $convert and its shorthands $toInt $toLong
// $toDouble $toDecimal $toString $toBool $toDate $toObjectId. Conversion rules and error
// texts follow MongoDB's $convert table; a null or missing input gives null (or onNull).

#include <charconv>
#include <cmath>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/value/datetime.hpp"
#include "engine/value/decimal_math.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
namespace dm = decimal_math;

const decimal128& dec(const value& v) { return std::get<decimal128>(v.raw()); }

expr_value type_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  return value(v ? type_name(*v) : std::string("missing"));
}

expr_value is_number_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  return value(v && v->is_number());
}

std::string double_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

[[noreturn]] void unsupported(const value& v, std::string_view to) {
  fail("Unsupported conversion from " + type_name(v) + " to " + std::string(to) + " in $convert with no onError value");
}

[[noreturn]] void failed_parse(const std::string& s, std::string_view to) {
  fail("Failed to parse number '" + s + "' in $convert with no onError value: cannot convert to " + std::string(to));
}

[[noreturn]] void overflow() { fail("Conversion would overflow target type in $convert with no onError value"); }

i64 checked_long(double d, bool to_int) {
  if (std::isnan(d)) fail("Attempt to convert NaN value to integer type in $convert with no onError value");
  if (std::isinf(d)) fail("Attempt to convert infinity value to integer type in $convert with no onError value");
  const double t = std::trunc(d);
  const double lo = to_int ? -2147483648.0 : -9223372036854775808.0;
  const double hi = to_int ? 2147483648.0 : 9223372036854775808.0;
  if (!(t >= lo && t < hi)) overflow();
  return static_cast<i64>(t);
}

// A decimal truncated toward zero to an int64 (or int32 range), with MongoDB's errors.
i64 checked_long(const decimal128& d, bool to_int) {
  if (dm::is_nan(d)) fail("Attempt to convert NaN value to integer type in $convert with no onError value");
  if (dm::is_inf(d)) fail("Attempt to convert infinity value to integer type in $convert with no onError value");
  if (to_int) {
    auto n = dm::to_int32_trunc(d);
    if (!n) overflow();
    return *n;
  }
  auto n = dm::to_int64_trunc(d);
  if (!n) overflow();
  return *n;
}

i64 parse_integer(const std::string& s, std::string_view to) {
  i64 out = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) failed_parse(s, to);
  return out;
}

double parse_double(const std::string& s) {
  if (s == "NaN") return std::nan("");
  if (s == "Infinity" || s == "inf") return INFINITY;
  if (s == "-Infinity" || s == "-inf") return -INFINITY;
  double out = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) failed_parse(s, "double");
  return out;
}

i64 millis_of(const value& v) { return std::get<date_time>(v.raw()).millis; }

value to_integer(const value& v, bool to_int) {
  const std::string_view to = to_int ? "int" : "long";
  switch (v.type()) {
    case kind::boolean: return to_int ? value(std::int32_t{v.as_bool()}) : value(i64{v.as_bool()});
    case kind::int32: return to_int ? v : value(i64{v.as_int32()});
    case kind::int64:
      if (!to_int) return v;
      if (v.as_int64() < INT32_MIN || v.as_int64() > INT32_MAX) fail("Conversion would overflow target type in $convert with no onError value");
      return value(static_cast<std::int32_t>(v.as_int64()));
    case kind::double_:
    case kind::decimal128: {
      const i64 n = v.is_decimal() ? checked_long(dec(v), to_int) : checked_long(v.as_double(), to_int);
      return to_int ? value(static_cast<std::int32_t>(n)) : value(n);
    }
    case kind::string: {
      const i64 n = parse_integer(v.as_string(), to);
      if (to_int && (n < INT32_MIN || n > INT32_MAX)) failed_parse(v.as_string(), to);
      return to_int ? value(static_cast<std::int32_t>(n)) : value(n);
    }
    case kind::date_time:
      if (!to_int) return value(millis_of(v));
      [[fallthrough]];
    default: unsupported(v, to);
  }
}

value to_double(const value& v) {
  switch (v.type()) {
    case kind::boolean: return value(v.as_bool() ? 1.0 : 0.0);
    case kind::int32:
    case kind::int64:
    case kind::double_: return v;
    case kind::decimal128: {
      dm::double_fit fit;
      const double d = dm::to_double(dec(v), fit);
      if (fit == dm::double_fit::overflow) overflow();
      if (fit == dm::double_fit::underflow) fail("Conversion would underflow target type in $convert with no onError value");
      return value(d);
    }
    case kind::string: return value(parse_double(v.as_string()));
    case kind::date_time: return value(static_cast<double>(millis_of(v)));
    default: unsupported(v, "double");
  }
}

value decimal_from_text(const std::string& s) {
  auto d = dm::parse(s);
  if (!d) failed_parse(s, "decimal");
  return value(*d);
}

// MongoDB's conversions to decimal: integers exactly, a double with 15 significant digits
// (2.5 → 2.50000000000000), booleans as 1 and 0, a date as its milliseconds.
value to_decimal(const value& v) {
  switch (v.type()) {
    case kind::boolean: return value(dm::from_int32(v.as_bool() ? 1 : 0));
    case kind::int32:
    case kind::int64:
    case kind::double_: return value(dm::of(v));
    case kind::decimal128: return v;
    case kind::string: return decimal_from_text(v.as_string());
    case kind::date_time: return value(dm::from_int64(millis_of(v)));
    default: unsupported(v, "decimal");
  }
}

std::string hex_of(const object_id& o) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : o.bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

value to_string_value(const value& v) {
  switch (v.type()) {
    case kind::boolean: return value(v.as_bool() ? "true" : "false");
    case kind::int32: return value(std::to_string(v.as_int32()));
    case kind::int64: return value(std::to_string(v.as_int64()));
    case kind::double_: return value(double_text(v.as_double()));
    case kind::decimal128: return value(dm::to_string(dec(v)));
    case kind::string: return v;
    case kind::object_id: return value(hex_of(std::get<object_id>(v.raw())));
    case kind::date_time: return value(format_iso8601(millis_of(v)));
    default: unsupported(v, "string");
  }
}

value to_bool(const value& v) {
  switch (v.type()) {
    case kind::boolean: return v;
    case kind::int32:
    case kind::int64:
    case kind::double_: return value(v.number_as_double() != 0);  // NaN is true
    case kind::decimal128: return value(!dm::is_zero(dec(v)));
    case kind::string:
    case kind::object_id:
    case kind::date_time:
    case kind::timestamp:
    case kind::document:
    case kind::array:
    case kind::binary:
    case kind::regex: return value(true);
    default: unsupported(v, "bool");
  }
}

value to_date(const value& v) {
  switch (v.type()) {
    case kind::date_time: return v;
    case kind::int64: return value(date_time{v.as_int64()});
    case kind::double_: return value(date_time{checked_long(v.as_double(), false)});
    case kind::decimal128: return value(date_time{checked_long(dec(v), false)});
    case kind::string: {
      auto ms = parse_iso8601(v.as_string());
      if (!ms) fail("Error parsing date string '" + v.as_string() + "': " + ms.error().message);
      return value(date_time{*ms});
    }
    case kind::object_id: {
      const auto& b = std::get<object_id>(v.raw()).bytes;
      const i64 secs = (i64{b[0]} << 24) | (i64{b[1]} << 16) | (i64{b[2]} << 8) | i64{b[3]};
      return value(date_time{secs * 1000});
    }
    case kind::timestamp: return value(date_time{i64{std::get<timestamp>(v.raw()).t} * 1000});
    default: unsupported(v, "date");
  }
}

value to_object_id(const value& v) {
  if (v.type() == kind::object_id) return v;
  if (!v.is_string()) unsupported(v, "objectId");
  const std::string& s = v.as_string();
  object_id o;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (s.size() != 24) fail("Failed to parse objectId '" + s + "' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found " + std::to_string(s.size()));
  for (std::size_t i = 0; i < 12; ++i) {
    const int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
    if (hi < 0 || lo < 0) fail("Failed to parse objectId '" + s + "' in $convert with no onError value: Invalid character found in hex string");
    o.bytes[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return value(o);
}

// The target type of $convert: a type alias or its BSON number.
std::string target_name(const value& to) {
  if (to.is_string()) return to.as_string();
  if (to.is_number()) {
    switch (static_cast<int>(to.number_as_double())) {
      case 1: return "double";
      case 2: return "string";
      case 7: return "objectId";
      case 8: return "bool";
      case 9: return "date";
      case 16: return "int";
      case 18: return "long";
      case 19: return "decimal";
      default: break;
    }
  }
  fail("$convert: unknown target type " + type_name(to) + " (use \"double\", \"string\", \"objectId\", \"bool\", \"date\", \"int\", \"long\" or \"decimal\")");
}

value convert_to(const value& v, const std::string& to) {
  if (to == "int") return to_integer(v, true);
  if (to == "long") return to_integer(v, false);
  if (to == "double") return to_double(v);
  if (to == "decimal") return to_decimal(v);
  if (to == "string") return to_string_value(v);
  if (to == "bool") return to_bool(v);
  if (to == "date") return to_date(v);
  if (to == "objectId") return to_object_id(v);
  fail("$convert: unknown target type \"" + to + "\" (use \"double\", \"string\", \"objectId\", \"bool\", \"date\", \"int\", \"long\" or \"decimal\")");
}

// {$convert: {input, to, onError?, onNull?}}
expr_value convert_op(const op_node& self, eval_ctx& ctx) {
  expr_value to = self.arg(1, ctx);
  if (nullish(to)) return value();
  const std::string target = target_name(*to);
  expr_value in = self.arg(0, ctx);
  if (nullish(in)) return self.has(3) ? self.arg(3, ctx) : value();
  if (!self.has(2)) return convert_to(*in, target);
  try {
    return convert_to(*in, target);
  } catch (const expression_error& e) {
    if (e.kind() != failure_kind::invalid_argument) throw;  // a call's bound or cancellation is never onError's
    return self.arg(2, ctx);
  }
}

expr_value shorthand_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx);
  if (nullish(in)) return value();
  static const std::pair<std::string_view, std::string_view> names[] = {
      {"$toInt", "int"},       {"$toLong", "long"}, {"$toDouble", "double"}, {"$toDecimal", "decimal"},
      {"$toString", "string"}, {"$toBool", "bool"}, {"$toDate", "date"},     {"$toObjectId", "objectId"}};
  for (const auto& [op, to] : names) {
    if (op == self.name) return convert_to(*in, std::string(to));
  }
  fail("unknown conversion " + self.name);
}

constexpr op_info ops[] = {
    {"$type", 1, 1, type_op},           {"$isNumber", 1, 1, is_number_op},
    {"$convert", -1, -1, convert_op, "input,to,onError?,onNull?"},
    {"$toInt", 1, 1, shorthand_op},     {"$toLong", 1, 1, shorthand_op},
    {"$toDouble", 1, 1, shorthand_op},  {"$toDecimal", 1, 1, shorthand_op},
    {"$toString", 1, 1, shorthand_op},  {"$toBool", 1, 1, shorthand_op},
    {"$toDate", 1, 1, shorthand_op},    {"$toObjectId", 1, 1, shorthand_op},
};

}  // namespace

op_table type_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
