// Extended JSON in: Boost.JSON values to engine values. Output is in ejson_write.cpp.
#include "engine/value/ejson.hpp"

#include <bson/bson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include "common/base64.hpp"
#include "common/json.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine {
namespace {

namespace bj = boost::json;

std::string_view view(const bj::string& s) { return {s.data(), s.size()}; }

// The offending JSON, shortened, for error messages.
std::string shown(const bj::value& j) {
  std::string s = json::serialize(j);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

failure bad_wrapper(std::string_view wrapper, const bj::value& j, std::string_view expected) {
  std::string msg = "invalid ";
  msg += wrapper;
  msg += " value ";
  msg += shown(j);
  msg += ": expected ";
  msg += expected;
  return make_error(std::move(msg));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Hex text (read case-insensitively) to bytes; false on any other character or odd length.
bool decode_hex(std::string_view s, std::string& out) {
  if (s.size() % 2 != 0) return false;
  for (std::size_t k = 0; k < s.size(); k += 2) {
    const int hi = hex_digit(s[k]), lo = hex_digit(s[k + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

template <class Int>
bool parse_integer(std::string_view s, Int& out) {
  if (s.empty() || s.front() == '+') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_double_text(std::string_view s, double& out) {
  if (s == "Infinity") out = std::numeric_limits<double>::infinity();
  else if (s == "-Infinity") out = -std::numeric_limits<double>::infinity();
  else if (s == "NaN") out = std::numeric_limits<double>::quiet_NaN();
  else {
    // A decimal number: refuse from_chars' own spellings of infinity and NaN ("inf", "nan").
    const std::size_t first = !s.empty() && s[0] == '-' ? 1 : 0;
    if (s.size() <= first || s[first] < '0' || s[first] > '9') return false;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
  }
  return true;
}

// Non-negative JSON integer up to 2^32-1.
bool as_uint32(const bj::value& j, std::uint32_t& out) {
  if (j.is_int64() && j.get_int64() >= 0 && j.get_int64() <= 0xFFFFFFFFLL) {
    out = static_cast<std::uint32_t>(j.get_int64());
    return true;
  }
  if (j.is_uint64() && j.get_uint64() <= 0xFFFFFFFFULL) {
    out = static_cast<std::uint32_t>(j.get_uint64());
    return true;
  }
  return false;
}

// An object with exactly the keys `a` and `b`, in either order.
bool has_exactly(const bj::object& o, std::string_view a, std::string_view b) {
  return o.size() == 2 && o.contains(a) && o.contains(b);
}

constexpr std::string_view wrapper_keys[] = {
    "$oid",        "$date",   "$numberInt", "$numberLong",        "$numberDouble", "$numberDecimal",
    "$binary",     "$uuid",   "$timestamp", "$regularExpression", "$minKey",       "$maxKey"};

result<value> convert_wrapper(std::string_view key, const bj::value& arg) {
  const bj::string* s = arg.if_string();
  if (key == "$oid") {
    std::string bytes;
    if (!s || s->size() != 24 || !decode_hex(view(*s), bytes)) {
      return bad_wrapper(key, arg, "24 hexadecimal digits");
    }
    object_id oid;
    std::copy(bytes.begin(), bytes.end(), oid.bytes.begin());
    return value(oid);
  }
  if (key == "$numberInt") {
    std::int32_t i = 0;
    if (!s || !parse_integer(view(*s), i)) return bad_wrapper(key, arg, "a 32-bit integer as a string, e.g. \"42\"");
    return value(i);
  }
  if (key == "$numberLong") {
    std::int64_t i = 0;
    if (!s || !parse_integer(view(*s), i)) return bad_wrapper(key, arg, "a 64-bit integer as a string, e.g. \"42\"");
    return value(i);
  }
  if (key == "$numberDouble") {
    double d = 0;
    if (!s || !parse_double_text(view(*s), d)) {
      return bad_wrapper(key, arg, "a finite decimal number as a string, \"Infinity\", \"-Infinity\" or \"NaN\"");
    }
    return value(d);
  }
  if (key == "$numberDecimal") {
    bson_decimal128_t dec;
    if (!s || s->size() > 1000 || !bson_decimal128_from_string_w_len(s->c_str(), static_cast<int>(s->size()), &dec)) {
      return bad_wrapper(key, arg, "a decimal number as a string, e.g. \"1.10\"");
    }
    return value(decimal128{dec.high, dec.low});
  }
  if (key == "$date") {
    if (s) {
      auto millis = parse_iso8601(view(*s));
      if (!millis) return make_error("invalid $date value: " + millis.error().message, millis.error().kind);
      return value(date_time{*millis});
    }
    if (arg.is_int64()) return value(date_time{arg.get_int64()});
    const bj::object* o = arg.if_object();
    const bj::value* inner = o && o->size() == 1 ? o->if_contains("$numberLong") : nullptr;
    std::int64_t millis = 0;
    if (inner && inner->is_string() && parse_integer(view(inner->get_string()), millis)) {
      return value(date_time{millis});
    }
    return bad_wrapper(key, arg,
                       "an ISO-8601 string such as \"2024-01-02T03:04:05Z\", "
                       "{\"$numberLong\":\"<milliseconds>\"} or integer milliseconds since 1970");
  }
  if (key == "$binary") {
    const bj::object* o = arg.if_object();
    constexpr std::string_view shape = "{\"base64\":\"<base64 with = padding>\",\"subType\":\"<1 or 2 hex digits>\"}";
    if (!o || !has_exactly(*o, "base64", "subType") || !o->at("base64").is_string() ||
        !o->at("subType").is_string()) {
      return bad_wrapper(key, arg, shape);
    }
    binary b;
    std::string_view sub = view(o->at("subType").get_string());
    std::string sub_byte;
    if (sub.empty() || sub.size() > 2 || !decode_hex(sub.size() == 1 ? "0" + std::string(sub) : std::string(sub), sub_byte)) {
      return bad_wrapper(key, arg, shape);
    }
    b.subtype = static_cast<std::uint8_t>(sub_byte[0]);
    auto bytes = omgdb::decode_base64(view(o->at("base64").get_string()));
    if (!bytes) return bad_wrapper(key, arg, shape);
    b.bytes = std::move(*bytes);
    return value(std::move(b));
  }
  if (key == "$uuid") {
    // 8-4-4-4-12 hex digits, or the 32 digits without hyphens; binary subtype 4.
    std::string digits;
    if (s) {
      for (std::size_t k = 0; k < s->size(); ++k) {
        const bool hyphen_slot = s->size() == 36 && (k == 8 || k == 13 || k == 18 || k == 23);
        if (hyphen_slot != ((*s)[k] == '-')) { digits.clear(); break; }
        if (!hyphen_slot) digits.push_back((*s)[k]);
      }
    }
    binary b;
    b.subtype = 4;
    if (digits.size() != 32 || !decode_hex(digits, b.bytes)) {
      return bad_wrapper(key, arg, "a UUID string such as \"c8edabc3-f738-4ca3-b68d-ab92a91478a3\"");
    }
    return value(std::move(b));
  }
  if (key == "$timestamp") {
    const bj::object* o = arg.if_object();
    timestamp ts;
    if (!o || !has_exactly(*o, "t", "i") || !as_uint32(o->at("t"), ts.t) || !as_uint32(o->at("i"), ts.i)) {
      return bad_wrapper(key, arg, "{\"t\":<seconds>,\"i\":<ordinal>} with integers from 0 to 4294967295");
    }
    return value(ts);
  }
  if (key == "$regularExpression") {
    const bj::object* o = arg.if_object();
    if (!o || !has_exactly(*o, "pattern", "options") || !o->at("pattern").is_string() ||
        !o->at("options").is_string()) {
      return bad_wrapper(key, arg, "{\"pattern\":\"<pattern>\",\"options\":\"<option letters>\"}");
    }
    regex r;
    r.pattern = std::string(view(o->at("pattern").get_string()));
    // BSON keeps the option letters sorted and without repeats (libbson drops any other).
    std::string_view opts = view(o->at("options").get_string());
    for (char c : std::string_view("ilmsux")) {
      if (opts.find(c) != std::string_view::npos) r.options.push_back(c);
    }
    for (char c : opts) {
      if (r.options.find(c) == std::string::npos) {
        return bad_wrapper(key, arg, "option letters among i, l, m, s, u and x");
      }
    }
    return value(std::move(r));
  }
  // $minKey / $maxKey
  if (!(arg.is_int64() && arg.get_int64() == 1)) return bad_wrapper(key, arg, "1");
  return key == "$minKey" ? value(min_key{}) : value(max_key{});
}

class converter {
 public:
  explicit converter(const ejson_limits& limits) : limits_(limits) {}

  result<value> convert(const bj::value& j, int depth) {
    switch (j.kind()) {
      case bj::kind::null: return value();
      case bj::kind::bool_: return value(j.get_bool());
      case bj::kind::int64: {
        const std::int64_t i = j.get_int64();
        if (i >= std::numeric_limits<std::int32_t>::min() && i <= std::numeric_limits<std::int32_t>::max()) {
          return value(static_cast<std::int32_t>(i));
        }
        return value(i);
      }
      case bj::kind::uint64:
        return make_error("integer " + std::to_string(j.get_uint64()) + " is outside the 64-bit signed range");
      case bj::kind::double_:
        if (!std::isfinite(j.get_double())) {
          return make_error("number is not finite; write {\"$numberDouble\":\"Infinity\"}, "
                            "{\"$numberDouble\":\"-Infinity\"} or {\"$numberDouble\":\"NaN\"}");
        }
        return value(j.get_double());
      case bj::kind::string: return value(std::string(view(j.get_string())));
      case bj::kind::array: {
        if (depth + 1 > limits_.max_depth) return too_deep();
        array out;
        out.reserve(j.get_array().size());
        for (const auto& e : j.get_array()) {
          auto r = convert(e, depth + 1);
          if (!r) return std::move(r).error();
          out.push_back(std::move(*r));
        }
        return value(std::move(out));
      }
      case bj::kind::object: {
        const bj::object& o = j.get_object();
        for (const auto& kv : o) {
          const std::string_view k(kv.key().data(), kv.key().size());
          if (std::find(std::begin(wrapper_keys), std::end(wrapper_keys), k) == std::end(wrapper_keys)) continue;
          if (o.size() != 1) {
            return make_error("invalid " + std::string(k) + " value: a " + std::string(k) +
                              " wrapper must be the only key of its object, found " + shown(j));
          }
          return convert_wrapper(k, kv.value());
        }
        auto d = convert_object(o, depth);
        if (!d) return std::move(d).error();
        return value(std::move(*d));
      }
    }
    return value();
  }

  // The fields of an object, as a document one level below `depth`; no wrapper check.
  result<document> convert_object(const bj::object& o, int depth) {
    if (depth + 1 > limits_.max_depth) return too_deep();
    document out;
    out.reserve(o.size());
    for (const auto& kv : o) {
      auto r = convert(kv.value(), depth + 1);
      if (!r) return std::move(r).error();
      out.push_back(field{std::string(kv.key().data(), kv.key().size()), std::move(*r)});
    }
    return out;
  }

 private:
  failure too_deep() const {
    return make_error("document nesting exceeds " + std::to_string(limits_.max_depth) + " levels", failure_kind::limit_exceeded);
  }

  ejson_limits limits_;
};

}  // namespace

result<value> from_json(const boost::json::value& j, const ejson_limits& limits) {
  return converter(limits).convert(j, 0);
}

result<document> document_from_json(const boost::json::value& j, const ejson_limits& limits) {
  // A top-level object is always a document, never a type wrapper (Extended JSON spec).
  if (!j.is_object()) return make_error("document must be an object");
  return converter(limits).convert_object(j.get_object(), 0);
}

}  // namespace omgdb::engine
