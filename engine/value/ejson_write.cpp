// Extended JSON out: engine values to relaxed or canonical Extended JSON v2 text, and to
// Boost.JSON values with the relaxed meaning. Input is in ejson.cpp.
#include <bson/bson.h>

#include <charconv>
#include <cmath>
#include <vector>

#include "common/json.hpp"
#include "engine/value/datetime.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine {
namespace {

namespace bj = boost::json;

// Relaxed output writes dates as ISO strings only from 1970-01-01 to 9999-12-31 (the spec's
// portable range); other dates use {"$numberLong": …}.
constexpr std::int64_t max_iso_millis = 253402300799999;  // 9999-12-31T23:59:59.999Z

void append_integer(std::string& out, std::int64_t i) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, end);
}

// The text of a double in $numberDouble: "Infinity", "-Infinity", "NaN", or the shortest
// round-trip form with ".0" added to integral values ("1.0", "-0.0", "1e+300", "0.1").
std::string double_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  std::string s;
  json::append_double(s, d);
  return s;
}

std::string hex(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (std::size_t k = 0; k < n; ++k) {
    s.push_back(digits[p[k] >> 4]);
    s.push_back(digits[p[k] & 15]);
  }
  return s;
}

std::string base64(std::string_view bytes) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  s.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t k = 0;
  for (; k + 3 <= bytes.size(); k += 3) {
    const auto n = (std::uint32_t(std::uint8_t(bytes[k])) << 16) | (std::uint32_t(std::uint8_t(bytes[k + 1])) << 8) |
                   std::uint8_t(bytes[k + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) s.push_back(alphabet[(n >> shift) & 63]);
  }
  if (const std::size_t rest = bytes.size() - k; rest != 0) {
    std::uint32_t n = std::uint32_t(std::uint8_t(bytes[k])) << 16;
    if (rest == 2) n |= std::uint32_t(std::uint8_t(bytes[k + 1])) << 8;
    s.push_back(alphabet[(n >> 18) & 63]);
    s.push_back(alphabet[(n >> 12) & 63]);
    s.push_back(rest == 2 ? alphabet[(n >> 6) & 63] : '=');
    s.push_back('=');
  }
  return s;
}

std::string decimal_text(const decimal128& d) {
  bson_decimal128_t dec;
  dec.high = d.high;
  dec.low = d.low;
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&dec, buf);
  return buf;
}

std::string subtype_text(std::uint8_t subtype) { return hex(&subtype, 1); }

void append_wrapped(std::string& out, std::string_view key, std::string_view text) {
  out += "{\"";
  out += key;
  out += "\":";
  json::append_quoted(out, text);
  out += '}';
}

// A value that is neither an array nor a document.
void write_scalar(std::string& out, const value& v, ejson_mode mode) {
  const bool canonical = mode == ejson_mode::canonical;
  switch (v.type()) {
    case kind::null_: out += "null"; return;
    case kind::boolean: out += v.as_bool() ? "true" : "false"; return;
    case kind::int32:
      if (canonical) return append_wrapped(out, "$numberInt", std::to_string(v.as_int32()));
      return append_integer(out, v.as_int32());
    case kind::int64:
      if (canonical) return append_wrapped(out, "$numberLong", std::to_string(v.as_int64()));
      return append_integer(out, v.as_int64());
    case kind::double_: {
      const double d = v.as_double();
      if (canonical || !std::isfinite(d)) return append_wrapped(out, "$numberDouble", double_text(d));
      return json::append_double(out, d);
    }
    case kind::decimal128: return append_wrapped(out, "$numberDecimal", decimal_text(std::get<decimal128>(v.raw())));
    case kind::string: return json::append_quoted(out, v.as_string());
    case kind::document:
    case kind::array: return;  // write() walks containers
    case kind::object_id: {
      const auto& o = std::get<object_id>(v.raw());
      return append_wrapped(out, "$oid", hex(o.bytes.data(), o.bytes.size()));
    }
    case kind::date_time: {
      const std::int64_t millis = std::get<date_time>(v.raw()).millis;
      if (!canonical && millis >= 0 && millis <= max_iso_millis) {
        return append_wrapped(out, "$date", format_iso8601(millis));
      }
      out += "{\"$date\":";
      append_wrapped(out, "$numberLong", std::to_string(millis));
      out += '}';
      return;
    }
    case kind::timestamp: {
      const auto& t = std::get<timestamp>(v.raw());
      out += "{\"$timestamp\":{\"t\":" + std::to_string(t.t) + ",\"i\":" + std::to_string(t.i) + "}}";
      return;
    }
    case kind::binary: {
      const auto& b = std::get<binary>(v.raw());
      out += "{\"$binary\":{\"base64\":\"" + base64(b.bytes) + "\",\"subType\":\"" + subtype_text(b.subtype) + "\"}}";
      return;
    }
    case kind::regex: {
      const auto& r = std::get<regex>(v.raw());
      out += "{\"$regularExpression\":{\"pattern\":";
      json::append_quoted(out, r.pattern);
      out += ",\"options\":";
      json::append_quoted(out, r.options);
      out += "}}";
      return;
    }
    case kind::min_key: out += "{\"$minKey\":1}"; return;
    case kind::max_key: out += "{\"$maxKey\":1}"; return;
  }
}


// One array or document being written: its elements [next, end).
struct write_frame {
  const value* array_next = nullptr;
  const value* array_end = nullptr;
  const field* doc_next = nullptr;
  const field* doc_end = nullptr;
  bool first = true;
  bool is_document = false;
};

write_frame open_container(std::string& out, const value& v) {
  write_frame f;
  if (v.is_array()) {
    out.push_back('[');
    f.array_next = v.as_array().data();
    f.array_end = f.array_next + v.as_array().size();
  } else {
    out.push_back('{');
    f.is_document = true;
    f.doc_next = v.as_document().data();
    f.doc_end = f.doc_next + v.as_document().size();
  }
  return f;
}

// Iterative, so that no value, however deep, can overflow the stack (values are bounded at
// k_max_built_depth levels by construction; this writer does not rely on it).
void write(std::string& out, const value& v, ejson_mode mode) {
  if (!v.is_array() && !v.is_document()) return write_scalar(out, v, mode);
  std::vector<write_frame> stack;
  stack.push_back(open_container(out, v));
  while (!stack.empty()) {
    write_frame& top = stack.back();
    const value* next = nullptr;
    if (top.array_next != top.array_end) {
      next = top.array_next++;
      if (!top.first) out.push_back(',');
    } else if (top.doc_next != top.doc_end) {
      if (!top.first) out.push_back(',');
      json::append_quoted(out, top.doc_next->name);
      out.push_back(':');
      next = &(top.doc_next++)->val;
    } else {
      out.push_back(top.is_document ? '}' : ']');
      stack.pop_back();
      continue;
    }
    top.first = false;
    if (next->is_array() || next->is_document()) {
      stack.push_back(open_container(out, *next));  // `top` is not used after this
    } else {
      write_scalar(out, *next, mode);
    }
  }
}

void write_document(std::string& out, const document& d, ejson_mode mode) {
  out.push_back('{');
  bool first = true;
  for (const auto& f : d) {
    if (!first) out.push_back(',');
    first = false;
    json::append_quoted(out, f.name);
    out.push_back(':');
    write(out, f.val, mode);
  }
  out.push_back('}');
}

bj::value wrapped(std::string_view key, bj::value inner) {
  bj::object o;
  o.emplace(key, std::move(inner));
  return o;
}

}  // namespace

void append_json(std::string& out, const value& v, ejson_mode mode) { write(out, v, mode); }

void append_json(std::string& out, const document& d, ejson_mode mode) { write_document(out, d, mode); }

std::string to_json(const value& v, ejson_mode mode) {
  std::string out;
  write(out, v, mode);
  return out;
}

std::string to_json(const document& d, ejson_mode mode) {
  std::string out;
  write_document(out, d, mode);
  return out;
}

namespace {

// A value that is neither an array nor a document.
bj::value scalar_to_boost_json(const value& v) {
  switch (v.type()) {
    case kind::null_: return nullptr;
    case kind::boolean: return v.as_bool();
    case kind::int32: return std::int64_t{v.as_int32()};
    case kind::int64: return v.as_int64();
    case kind::double_:
      if (std::isfinite(v.as_double())) return v.as_double();
      return wrapped("$numberDouble", bj::string(double_text(v.as_double())));
    case kind::decimal128: return wrapped("$numberDecimal", bj::string(decimal_text(std::get<decimal128>(v.raw()))));
    case kind::string: return bj::string(v.as_string());
    case kind::document:
    case kind::array: return nullptr;  // to_boost_json walks containers
    case kind::object_id: {
      const auto& o = std::get<object_id>(v.raw());
      return wrapped("$oid", bj::string(hex(o.bytes.data(), o.bytes.size())));
    }
    case kind::date_time: {
      const std::int64_t millis = std::get<date_time>(v.raw()).millis;
      if (millis >= 0 && millis <= max_iso_millis) return wrapped("$date", bj::string(format_iso8601(millis)));
      return wrapped("$date", wrapped("$numberLong", bj::string(std::to_string(millis))));
    }
    case kind::timestamp: {
      const auto& t = std::get<timestamp>(v.raw());
      bj::object o;
      o.emplace("t", std::int64_t{t.t});
      o.emplace("i", std::int64_t{t.i});
      return wrapped("$timestamp", std::move(o));
    }
    case kind::binary: {
      const auto& b = std::get<binary>(v.raw());
      bj::object o;
      o.emplace("base64", bj::string(base64(b.bytes)));
      o.emplace("subType", bj::string(subtype_text(b.subtype)));
      return wrapped("$binary", std::move(o));
    }
    case kind::regex: {
      const auto& r = std::get<regex>(v.raw());
      bj::object o;
      o.emplace("pattern", bj::string(r.pattern));
      o.emplace("options", bj::string(r.options));
      return wrapped("$regularExpression", std::move(o));
    }
    case kind::min_key: return wrapped("$minKey", std::int64_t{1});
    case kind::max_key: return wrapped("$maxKey", std::int64_t{1});
  }
  return nullptr;
}

// One array or document being converted: its elements [next, end), what it has built so far
// and, for the parent document, the name it goes under.
struct boost_frame {
  const value* array_next = nullptr;
  const value* array_end = nullptr;
  const field* doc_next = nullptr;
  const field* doc_end = nullptr;
  bj::value built;
  const std::string* name = nullptr;  // the field of the parent document this one fills
};

boost_frame open_boost(const value& v, const std::string* name) {
  boost_frame f;
  f.name = name;
  if (v.is_array()) {
    f.array_next = v.as_array().data();
    f.array_end = f.array_next + v.as_array().size();
    f.built.emplace_array().reserve(v.as_array().size());
  } else {
    f.doc_next = v.as_document().data();
    f.doc_end = f.doc_next + v.as_document().size();
    f.built.emplace_object().reserve(v.as_document().size());
  }
  return f;
}

// Puts `child` into `parent`'s container (under `name` when it is a document). Field names
// are unique in engine documents; should one repeat, Boost.JSON keeps one key, at the first
// position, with the last value.
void place(bj::value& parent, const std::string* name, bj::value child) {
  if (name != nullptr) {
    parent.as_object().insert_or_assign(*name, std::move(child));
  } else {
    parent.as_array().push_back(std::move(child));
  }
}

}  // namespace

// Iterative, as write(): no value can overflow the stack here.
boost::json::value to_boost_json(const value& v) {
  if (!v.is_array() && !v.is_document()) return scalar_to_boost_json(v);
  std::vector<boost_frame> stack;
  stack.push_back(open_boost(v, nullptr));
  while (true) {
    boost_frame& top = stack.back();
    const value* next = nullptr;
    const std::string* name = nullptr;
    if (top.array_next != top.array_end) {
      next = top.array_next++;
    } else if (top.doc_next != top.doc_end) {
      name = &top.doc_next->name;
      next = &(top.doc_next++)->val;
    } else {
      if (stack.size() == 1) return std::move(top.built);
      bj::value done = std::move(top.built);
      const std::string* under = top.name;
      stack.pop_back();
      place(stack.back().built, under, std::move(done));
      continue;
    }
    if (next->is_array() || next->is_document()) {
      stack.push_back(open_boost(*next, name));  // `top` is not used after this
    } else {
      place(top.built, name, scalar_to_boost_json(*next));
    }
  }
}

std::string decimal_to_string(const decimal128& d) { return decimal_text(d); }

}  // namespace omgdb::engine
