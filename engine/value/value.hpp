// omgdb engine — the in-memory document model.
//
// A `value` is one BSON value. Documents are ordered lists of fields (MongoDB keeps field
// order, and equality of embedded documents depends on it). Every engine operation works on
// these values; `bson_codec.hpp` turns them into the BSON bytes kept in RocksDB and
// `ejson.hpp` into the relaxed/canonical Extended JSON that tools read and return.
//
// Thread safety: values are plain data; distinct values may be used from distinct threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace omgdb::engine {

class value;
struct field;
using array = std::vector<value>;
using document = std::vector<field>;  // field order is significant

struct null_t {
  bool operator==(const null_t&) const = default;
};
struct min_key {
  bool operator==(const min_key&) const = default;
};
struct max_key {
  bool operator==(const max_key&) const = default;
};
struct object_id {
  std::array<std::uint8_t, 12> bytes{};
  bool operator==(const object_id&) const = default;
};
struct date_time {  // milliseconds since the Unix epoch, UTC
  std::int64_t millis = 0;
  bool operator==(const date_time&) const = default;
};
struct timestamp {
  std::uint32_t t = 0;  // seconds
  std::uint32_t i = 0;  // ordinal
  bool operator==(const timestamp&) const = default;
};
struct binary {
  std::uint8_t subtype = 0;
  std::string bytes;
  bool operator==(const binary&) const = default;
};
struct regex {
  std::string pattern;
  std::string options;  // sorted option letters, e.g. "im"
  bool operator==(const regex&) const = default;
};
struct decimal128 {  // IEEE 754-2008 decimal128, as libbson's bson_decimal128_t
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  bool operator==(const decimal128&) const = default;
};

// The BSON types omgdb stores, in the order of the variant below. Values match the BSON
// type numbers used by `$type` where BSON defines one.
enum class kind : std::uint8_t {
  null_ = 10,
  boolean = 8,
  int32 = 16,
  int64 = 18,
  double_ = 1,
  string = 2,
  document = 3,
  array = 4,
  object_id = 7,
  date_time = 9,
  timestamp = 17,
  binary = 5,
  regex = 11,
  decimal128 = 19,
  min_key = 255,  // BSON -1
  max_key = 127,
};

class value {
 public:
  using storage = std::variant<null_t, bool, std::int32_t, std::int64_t, double, std::string,
                               document, array, object_id, date_time, timestamp, binary, regex,
                               decimal128, min_key, max_key>;

  value() = default;  // null
  value(null_t);
  value(bool b);
  value(std::int32_t i);
  value(std::int64_t i);
  value(double d);
  value(std::string s);
  value(std::string_view s);
  value(const char* s);
  value(document d);
  value(array a);
  value(object_id o);
  value(date_time d);
  value(timestamp t);
  value(binary b);
  value(regex r);
  value(decimal128 d);
  value(min_key k);
  value(max_key k);

  kind type() const noexcept;

  bool is_null() const noexcept { return std::holds_alternative<null_t>(v_); }
  bool is_bool() const noexcept { return std::holds_alternative<bool>(v_); }
  bool is_int32() const noexcept { return std::holds_alternative<std::int32_t>(v_); }
  bool is_int64() const noexcept { return std::holds_alternative<std::int64_t>(v_); }
  bool is_double() const noexcept { return std::holds_alternative<double>(v_); }
  bool is_number() const noexcept { return is_int32() || is_int64() || is_double() || is_decimal(); }
  bool is_decimal() const noexcept { return std::holds_alternative<decimal128>(v_); }
  bool is_string() const noexcept { return std::holds_alternative<std::string>(v_); }
  bool is_document() const noexcept { return std::holds_alternative<document>(v_); }
  bool is_array() const noexcept { return std::holds_alternative<array>(v_); }

  bool as_bool() const { return std::get<bool>(v_); }
  std::int32_t as_int32() const { return std::get<std::int32_t>(v_); }
  std::int64_t as_int64() const { return std::get<std::int64_t>(v_); }
  double as_double() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  std::string& as_string() { return std::get<std::string>(v_); }
  const document& as_document() const { return std::get<document>(v_); }
  document& as_document() { return std::get<document>(v_); }
  const array& as_array() const { return std::get<array>(v_); }
  array& as_array() { return std::get<array>(v_); }

  // Any numeric kind (int32, int64, double, decimal128) as a double (int64 beyond 2^53 and
  // decimals round to nearest). Any other kind gives NaN.
  double number_as_double() const;

  const storage& raw() const noexcept { return v_; }
  storage& raw() noexcept { return v_; }

 private:
  storage v_;
};

struct field {
  std::string name;
  value val;
};

// value's constructors, defined once `field` is complete: building the variant needs the
// destructor of `document` (std::vector<field>), which clang instantiates at the definition.
inline value::value(null_t) {}
inline value::value(bool b) : v_(b) {}
inline value::value(std::int32_t i) : v_(i) {}
inline value::value(std::int64_t i) : v_(i) {}
inline value::value(double d) : v_(d) {}
inline value::value(std::string s) : v_(std::move(s)) {}
inline value::value(std::string_view s) : v_(std::string(s)) {}
inline value::value(const char* s) : v_(std::string(s)) {}
inline value::value(document d) : v_(std::move(d)) {}
inline value::value(array a) : v_(std::move(a)) {}
inline value::value(object_id o) : v_(o) {}
inline value::value(date_time d) : v_(d) {}
inline value::value(timestamp t) : v_(t) {}
inline value::value(binary b) : v_(std::move(b)) {}
inline value::value(regex r) : v_(std::move(r)) {}
inline value::value(decimal128 d) : v_(d) {}
inline value::value(min_key k) : v_(k) {}
inline value::value(max_key k) : v_(k) {}

// Total order of BSON values as MongoDB sorts them (bson-type-comparison-order): MinKey <
// null < numbers (compared by value across int32/int64/double/decimal) < strings (binary
// UTF-8) < documents (field by field: type, name, value) < arrays (element-wise) < binary <
// ObjectId < bool < date < timestamp < regex < MaxKey. Returns <0, 0 or >0.
// -0.0 equals 0.0; NaN equals NaN and sorts below every other number. Decimals compare
// exactly with integers and decimals (NumberDecimal("1.00") == 1 == NumberLong(1)) and with a
// double at the double's 34-digit decimal value (0.1 the double != NumberDecimal("0.1")).
int compare(const value& a, const value& b);
int compare(const document& a, const document& b);

// compare(a, b) == 0: 1 == 1.0 == NumberLong(1); document field order matters.
bool equal(const value& a, const value& b);

// Canonical rank of a value's type bracket in the comparison order (numbers share one rank).
// The values are MongoDB's canonical type numbers: MinKey -1, null 5, numbers 10, string 15,
// document 20, array 25, binary 30, ObjectId 35, bool 40, date 45, timestamp 47, regex 50,
// MaxKey 127.
int type_rank(const value& v);

// The value's BSON type alias as `$type` and MongoDB's error messages spell it: "int", "long",
// "double", "string", "object", "array", "binData", "objectId", "bool", "date", "null",
// "regex", "timestamp", "decimal", "minKey", "maxKey".
std::string_view bson_type_alias(const value& v) noexcept;

// First field named `name` in a document, or nullptr.
const value* find_field(const document& doc, std::string_view name);
value* find_field(document& doc, std::string_view name);

// What a value holds in memory and how deep it nests, measured without recursion (so a value
// of any depth is measured safely). `bytes`: sizeof(value) per value plus the capacity of its
// strings, arrays and documents (held_bytes' measure, engine/query/sort.hpp). `depth`: 0 for a
// scalar, 1 + the deepest element for an array or document. The walk stops going deeper once
// `depth` passes `max_depth` (then `depth` is max_depth + 1 and `bytes` counts what was seen).
struct value_measure {
  std::uint64_t bytes = 0;
  int depth = 0;
};
value_measure measure_value(const value& v, int max_depth = 1 << 30);
value_measure measure_document(const document& d, int max_depth = 1 << 30);

}  // namespace omgdb::engine
