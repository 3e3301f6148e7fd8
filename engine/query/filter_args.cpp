// Arguments of the filter operators that take more than a value: $exists, $size, $type, $mod.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::filter_detail {
namespace {

struct type_alias {
  std::string_view name;
  int code;
};

// MongoDB's $type aliases and their BSON type numbers ("number" is handled apart).
constexpr type_alias type_aliases[] = {
    {"double", 1},     {"string", 2},     {"object", 3},       {"array", 4},
    {"binData", 5},    {"undefined", 6},  {"objectId", 7},     {"bool", 8},
    {"date", 9},       {"null", 10},      {"regex", 11},       {"dbPointer", 12},
    {"javascript", 13}, {"symbol", 14},   {"javascriptWithScope", 15},
    {"int", 16},       {"timestamp", 17}, {"long", 18},        {"decimal", 19},
    {"minKey", -1},    {"maxKey", 127},
};

bool valid_type_code(double code) {
  return code == -1 || code == 127 || (code >= 1 && code <= 19);
}

std::string number_text(double d) {
  if (d == std::trunc(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  std::string out;
  json::append_double(out, d);
  return out;
}

status add_type(const value& t, std::string_view where, type_node& out) {
  if (t.is_string()) {
    const std::string& name = t.as_string();
    if (name == "number") {
      out.any_number = true;
      return {};
    }
    for (const auto& alias : type_aliases) {
      if (alias.name == name) {
        out.codes.push_back(alias.code);
        return {};
      }
    }
    return make_error("`$type` has an unknown type name " + quoted(name) + " at " +
                      quoted(where));
  }
  if (t.is_number()) {
    const double code = t.number_as_double();
    if (code != std::trunc(code) || !valid_type_code(code)) {
      return make_error("`$type` has an invalid type number " + number_text(code) + " at " +
                        quoted(where));
    }
    out.codes.push_back(static_cast<int>(code));
    return {};
  }
  return make_error("`$type` needs a type name, a type number or an array of them at " +
                    quoted(where));
}

// A finite number truncated toward zero, if it fits an int64.
std::optional<std::int64_t> to_int64(const value& v) {
  if (v.is_int32()) return v.as_int32();
  if (v.is_int64()) return v.as_int64();
  const double d = std::trunc(v.number_as_double());
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

}  // namespace

std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '`';
  out += s;
  out += '`';
  return out;
}

bool is_nan(const value& v) {
  return (v.is_double() || v.is_decimal()) && std::isnan(v.number_as_double());
}

// $exists' argument, by the aggregation rule (one switch: expr_truthy); compile time only.
bool truthy(const value& v) { return expr_truthy(expr_value(v)); }

result<std::size_t> parse_size(const value& arg, std::string_view where) {
  if (!arg.is_number()) return make_error("`$size` needs a number at " + quoted(where));
  double n = arg.is_int64() ? static_cast<double>(arg.as_int64()) : arg.number_as_double();
  if (arg.is_int64() && (arg.as_int64() < INT32_MIN || arg.as_int64() > INT32_MAX)) {
    return make_error("`$size` must fit a 32-bit integer at " + quoted(where));
  }
  if (n != std::trunc(n) || std::fabs(n) > 2147483647.0) {
    return make_error("`$size` must be a whole number at " + quoted(where));
  }
  if (n < 0) return make_error("`$size` may not be negative at " + quoted(where));
  return static_cast<std::size_t>(n);
}

status parse_type(const value& arg, std::string_view where, type_node& out) {
  if (!arg.is_array()) return add_type(arg, where, out);
  for (const value& t : arg.as_array()) {
    if (auto st = add_type(t, where, out); !st) return st;
  }
  if (out.codes.empty() && !out.any_number) {
    return make_error("`$type` must name at least one type at " + quoted(where));
  }
  std::sort(out.codes.begin(), out.codes.end());
  return {};
}

status parse_mod(const value& arg, std::string_view where, mod_node& out) {
  if (!arg.is_array() || arg.as_array().size() != 2) {
    return make_error("`$mod` needs an array [divisor, remainder] at " + quoted(where));
  }
  const value& d = arg.as_array()[0];
  const value& r = arg.as_array()[1];
  if (!d.is_number() || !r.is_number()) {
    return make_error("`$mod` needs a numeric divisor and remainder at " + quoted(where));
  }
  if (!std::isfinite(d.number_as_double()) || !std::isfinite(r.number_as_double())) {
    return make_error("`$mod` divisor and remainder must be finite at " + quoted(where));
  }
  auto divisor = to_int64(d);
  auto remainder = to_int64(r);
  if (!divisor || !remainder) {
    return make_error("`$mod` divisor and remainder must fit a 64-bit integer at " +
                      quoted(where));
  }
  if (*divisor == 0) return make_error("`$mod` divisor cannot be 0 at " + quoted(where));
  out.divisor = *divisor;
  out.remainder = *remainder;
  return {};
}

}  // namespace omgdb::engine::filter_detail
