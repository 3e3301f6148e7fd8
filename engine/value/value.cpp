#include "engine/value/value.hpp"

#include "engine/value/decimal_math.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <iterator>

namespace omgdb::engine {
namespace {

// Maps the variant index onto `kind`, in the order of value::storage.
constexpr kind kinds_by_index[] = {
    kind::null_,  kind::boolean,   kind::int32,     kind::int64,  kind::double_, kind::string,
    kind::document, kind::array,   kind::object_id, kind::date_time, kind::timestamp,
    kind::binary, kind::regex,     kind::decimal128, kind::min_key, kind::max_key};
static_assert(std::size(kinds_by_index) == std::variant_size_v<value::storage>);

template <class T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_bytes(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n != 0) {
    if (int c = std::memcmp(a.data(), b.data(), n); c != 0) return c < 0 ? -1 : 1;
  }
  return three_way(a.size(), b.size());
}

// A number reduced to what comparison needs: an exact integer or a double.
struct number {
  bool is_int;
  std::int64_t i;
  double d;
};

number as_number(const value& v) {
  switch (v.type()) {
    case kind::int32: return {true, v.as_int32(), 0.0};
    case kind::int64: return {true, v.as_int64(), 0.0};
    case kind::double_: return {false, 0, v.as_double()};
    default: return {false, 0, v.number_as_double()};
  }
}

// Exact comparison of an int64 with a double (no rounding of either side).
int compare_int_double(std::int64_t i, double d) {
  if (std::isnan(d)) return 1;  // NaN sorts below every number
  constexpr double two63 = 9223372036854775808.0;
  if (d >= two63) return -1;
  if (d < -two63) return 1;
  // d is in [-2^63, 2^63): its truncation fits an int64 exactly, and d - trunc(d) is exact.
  const auto t = static_cast<std::int64_t>(d);
  if (i != t) return i < t ? -1 : 1;
  const double frac = d - static_cast<double>(t);
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

int compare_doubles(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb ? 0 : (na ? -1 : 1);
  return three_way(a, b);  // -0.0 == 0.0 here
}

// A decimal against any number, exactly for integers and decimals; a double meets a decimal
// at 34 significant digits (as MongoDB compares them), so 0.1 (the double) != 0.1 (decimal).
int compare_with_decimal(const value& a, const value& b) {
  namespace dm = decimal_math;
  if (!a.is_decimal()) return -compare_with_decimal(b, a);
  const decimal128& x = std::get<decimal128>(a.raw());
  switch (b.type()) {
    case kind::int32: return dm::compare(x, std::int64_t{b.as_int32()});
    case kind::int64: return dm::compare(x, b.as_int64());
    case kind::double_: return dm::compare(x, b.as_double());
    default: return dm::compare(x, std::get<decimal128>(b.raw()));
  }
}

int compare_numbers(const value& a, const value& b) {
  if (a.is_decimal() || b.is_decimal()) {
    const int c = compare_with_decimal(a, b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  const number x = as_number(a), y = as_number(b);
  if (x.is_int && y.is_int) return three_way(x.i, y.i);
  if (x.is_int) return compare_int_double(x.i, y.d);
  if (y.is_int) return -compare_int_double(y.i, x.d);
  return compare_doubles(x.d, y.d);
}

int compare_arrays(const array& a, const array& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (int c = compare(a[k], b[k]); c != 0) return c;
  }
  return three_way(a.size(), b.size());
}

}  // namespace

kind value::type() const noexcept { return kinds_by_index[v_.index()]; }

double value::number_as_double() const {
  switch (type()) {
    case kind::int32: return as_int32();
    case kind::int64: return static_cast<double>(as_int64());
    case kind::double_: return as_double();
    case kind::decimal128: return decimal_math::to_double(std::get<decimal128>(v_));
    default: return std::numeric_limits<double>::quiet_NaN();  // not a number
  }
}

// MongoDB's canonical type values (canonicalizeBSONType), which increase in comparison order.
int type_rank(const value& v) {
  switch (v.type()) {
    case kind::min_key: return -1;
    case kind::null_: return 5;
    case kind::int32:
    case kind::int64:
    case kind::double_:
    case kind::decimal128: return 10;
    case kind::string: return 15;
    case kind::document: return 20;
    case kind::array: return 25;
    case kind::binary: return 30;
    case kind::object_id: return 35;
    case kind::boolean: return 40;
    case kind::date_time: return 45;
    case kind::timestamp: return 47;
    case kind::regex: return 50;
    case kind::max_key: return 127;
  }
  return 0;
}

int compare(const document& a, const document& b) {
  // Field by field: type bracket, then field name, then value; a prefix sorts first.
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (int c = three_way(type_rank(a[k].val), type_rank(b[k].val)); c != 0) return c;
    if (int c = compare_bytes(a[k].name, b[k].name); c != 0) return c;
    if (int c = compare(a[k].val, b[k].val); c != 0) return c;
  }
  return three_way(a.size(), b.size());
}

int compare(const value& a, const value& b) {
  const int ra = type_rank(a), rb = type_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a.type()) {
    case kind::null_:
    case kind::min_key:
    case kind::max_key: return 0;
    case kind::int32:
    case kind::int64:
    case kind::double_:
    case kind::decimal128: return compare_numbers(a, b);
    case kind::string: return compare_bytes(a.as_string(), b.as_string());
    case kind::document: return compare(a.as_document(), b.as_document());
    case kind::array: return compare_arrays(a.as_array(), b.as_array());
    case kind::binary: {
      // MongoDB orders BinData by length, then subtype, then bytes.
      const auto& x = std::get<binary>(a.raw());
      const auto& y = std::get<binary>(b.raw());
      if (x.bytes.size() != y.bytes.size()) return three_way(x.bytes.size(), y.bytes.size());
      if (x.subtype != y.subtype) return three_way(x.subtype, y.subtype);
      return compare_bytes(x.bytes, y.bytes);
    }
    case kind::object_id: {
      const auto& x = std::get<object_id>(a.raw()).bytes;
      const auto& y = std::get<object_id>(b.raw()).bytes;
      int c = std::memcmp(x.data(), y.data(), x.size());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case kind::boolean: return three_way(a.as_bool(), b.as_bool());
    case kind::date_time:
      return three_way(std::get<date_time>(a.raw()).millis, std::get<date_time>(b.raw()).millis);
    case kind::timestamp: {
      const auto& x = std::get<timestamp>(a.raw());
      const auto& y = std::get<timestamp>(b.raw());
      return x.t != y.t ? three_way(x.t, y.t) : three_way(x.i, y.i);
    }
    case kind::regex: {
      const auto& x = std::get<regex>(a.raw());
      const auto& y = std::get<regex>(b.raw());
      if (int c = compare_bytes(x.pattern, y.pattern); c != 0) return c;
      return compare_bytes(x.options, y.options);
    }
  }
  return 0;
}

bool equal(const value& a, const value& b) { return compare(a, b) == 0; }

const value* find_field(const document& doc, std::string_view name) {
  for (const auto& f : doc) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}

value* find_field(document& doc, std::string_view name) {
  for (auto& f : doc) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}

std::string_view bson_type_alias(const value& v) noexcept {
  switch (v.type()) {
    case kind::null_: return "null";
    case kind::boolean: return "bool";
    case kind::int32: return "int";
    case kind::int64: return "long";
    case kind::double_: return "double";
    case kind::string: return "string";
    case kind::document: return "object";
    case kind::array: return "array";
    case kind::object_id: return "objectId";
    case kind::date_time: return "date";
    case kind::timestamp: return "timestamp";
    case kind::binary: return "binData";
    case kind::regex: return "regex";
    case kind::decimal128: return "decimal";
    case kind::min_key: return "minKey";
    case kind::max_key: return "maxKey";
  }
  return "unknown";
}

}  // namespace omgdb::engine

namespace omgdb::engine {
namespace {

// One container being walked: its values [next, end) at `depth` (the container's own level).
struct walk_frame {
  const value* array_next = nullptr;
  const value* array_end = nullptr;
  const field* doc_next = nullptr;
  const field* doc_end = nullptr;
  int depth = 0;
};

std::uint64_t own_bytes(const value& v) {
  std::uint64_t n = sizeof(value);
  switch (v.type()) {
    case kind::string: return n + v.as_string().capacity();
    case kind::binary: return n + std::get<binary>(v.raw()).bytes.capacity();
    case kind::regex: {
      const auto& r = std::get<regex>(v.raw());
      return n + r.pattern.capacity() + (r.options.capacity() > 15 ? r.options.capacity() : 0);
    }
    case kind::array: return n + v.as_array().capacity() * sizeof(value);
    case kind::document: return n + sizeof(document) + v.as_document().capacity() * sizeof(field);
    default: return n;
  }
}

walk_frame frame_of(const value& v, int depth) {
  walk_frame f;
  f.depth = depth;
  if (v.is_array()) {
    f.array_next = v.as_array().data();
    f.array_end = f.array_next + v.as_array().size();
  } else {
    f.doc_next = v.as_document().data();
    f.doc_end = f.doc_next + v.as_document().size();
  }
  return f;
}

void walk(const value& start, int max_depth, value_measure& m) {
  m.bytes += own_bytes(start);
  if (!start.is_array() && !start.is_document()) return;
  std::vector<walk_frame> stack;
  stack.push_back(frame_of(start, 1));
  m.depth = std::max(m.depth, 1);
  while (!stack.empty()) {
    walk_frame& top = stack.back();
    const value* next = nullptr;
    if (top.array_next != top.array_end) {
      next = top.array_next++;
    } else if (top.doc_next != top.doc_end) {
      m.bytes += top.doc_next->name.capacity() > 15 ? top.doc_next->name.capacity() : 0;
      next = &(top.doc_next++)->val;
    } else {
      stack.pop_back();
      continue;
    }
    m.bytes += own_bytes(*next) - sizeof(value);  // the slot itself is counted by the container
    if (next->is_array() || next->is_document()) {
      const int d = top.depth + 1;
      m.depth = std::max(m.depth, d);
      if (d > max_depth) continue;  // deep enough to refuse: do not walk further down
      stack.push_back(frame_of(*next, d));
    }
  }
}

}  // namespace

value_measure measure_value(const value& v, int max_depth) {
  value_measure m;
  walk(v, max_depth, m);
  return m;
}

value_measure measure_document(const document& d, int max_depth) {
  value_measure m;
  m.bytes = sizeof(document) + d.capacity() * sizeof(field);
  m.depth = 1;
  for (const field& f : d) {
    m.bytes += f.name.capacity() > 15 ? f.name.capacity() : 0;
    value_measure inner = measure_value(f.val, max_depth - 1);
    m.bytes += inner.bytes - sizeof(value);
    m.depth = std::max(m.depth, inner.depth + 1);
  }
  return m;
}

}  // namespace omgdb::engine
