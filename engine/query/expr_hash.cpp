// {$toHashedIndexKey: <expr>}: the value a MongoDB hashed index stores for the value, a long.
// It is mongod's BSONElementHasher::hash64 with seed 0: the MD5 digest of the seed (int32,
// little-endian) followed by the value's "recursive hash", whose first 8 bytes, read as a
// little-endian int64, are the key. The recursive hash of an element is its canonical type
// (int32 LE: MinKey -1, null 5, numbers 10, string 15, object 20, array 25, binData 30,
// ObjectId 35, bool 40, date 45, timestamp 47, regex 50, MaxKey 127); then, for a field of a
// document or array, its name with the NUL; then the value: numbers of every type as the
// int64 they truncate to (NaN 0, beyond the range clamped, 2^63 as double → -2^63), other
// scalars as their BSON value bytes, documents and arrays as the recursive hash of each
// element (array names "0", "1", …) followed by the end marker (canonical type 0). Missing
// hashes as null. Checked against mongod's own examples (tests/engine/query/expr_misc_test.cpp).
#include <bson/bson.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::expr_detail {
namespace {

// libbson's MD5 (RFC 1321) is marked deprecated for applications but remains exported in
// libbson 1.x; it avoids another dependency for one digest.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct md5 {
  bson_md5_t state;
  md5() { bson_md5_init(&state); }
  void add(const void* p, std::size_t n) {
    if (n > 0) bson_md5_append(&state, static_cast<const std::uint8_t*>(p), static_cast<std::uint32_t>(n));
  }
  void finish(std::uint8_t out[16]) { bson_md5_finish(&state, out); }
};
#pragma GCC diagnostic pop

void add_i32(md5& h, std::int32_t v) {
  std::uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i));
  h.add(b, 4);
}
void add_i64(md5& h, std::int64_t v) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i));
  h.add(b, 8);
}

std::int32_t canonical_type(const value& v) {
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

// mongod's safeNumberLongForHash.
std::int64_t number_for_hash(const value& v) {
  using lim = std::numeric_limits<std::int64_t>;
  constexpr double two63 = 9223372036854775808.0;
  if (v.is_int32()) return v.as_int32();
  if (v.is_int64()) return v.as_int64();
  if (v.is_double()) {
    const double d = v.as_double();
    if (std::isnan(d)) return 0;
    if (d == two63) return lim::min();  // older servers' overflowing cast, kept for compatibility
    if (!(d < two63)) return lim::max();
    if (d < -two63) return lim::min();
    return static_cast<std::int64_t>(d);
  }
  const decimal128& d = std::get<decimal128>(v.raw());
  if (decimal_math::is_nan(d)) return 0;
  if (decimal_math::compare(d, lim::max()) > 0) return lim::max();
  if (decimal_math::compare(d, lim::min()) < 0) return lim::min();
  return decimal_math::to_int64_round(d).value_or(0);
}

void hash_value(md5& h, const value& v, int depth);

void hash_element(md5& h, std::string_view name, const value& v, int depth) {
  add_i32(h, canonical_type(v));
  h.add(name.data(), name.size());
  h.add("", 1);  // the name's NUL
  hash_value(h, v, depth);
}

void hash_value(md5& h, const value& v, int depth) {
  if (depth > 200) fail("$toHashedIndexKey: the value nests deeper than 200 levels");
  switch (v.type()) {
    case kind::int32:
    case kind::int64:
    case kind::double_:
    case kind::decimal128: add_i64(h, number_for_hash(v)); return;
    case kind::string: {
      const std::string& s = v.as_string();
      add_i32(h, static_cast<std::int32_t>(s.size() + 1));
      h.add(s.data(), s.size());
      h.add("", 1);
      return;
    }
    case kind::document:
      for (const field& f : v.as_document()) hash_element(h, f.name, f.val, depth + 1);
      add_i32(h, 0);  // the end marker
      return;
    case kind::array: {
      const array& a = v.as_array();
      for (std::size_t i = 0; i < a.size(); ++i) hash_element(h, std::to_string(i), a[i], depth + 1);
      add_i32(h, 0);
      return;
    }
    case kind::binary: {
      const binary& b = std::get<binary>(v.raw());
      add_i32(h, static_cast<std::int32_t>(b.bytes.size()));
      const std::uint8_t sub = b.subtype;
      h.add(&sub, 1);
      h.add(b.bytes.data(), b.bytes.size());
      return;
    }
    case kind::object_id: h.add(std::get<object_id>(v.raw()).bytes.data(), 12); return;
    case kind::boolean: {
      const std::uint8_t b = v.as_bool() ? 1 : 0;
      h.add(&b, 1);
      return;
    }
    case kind::date_time: add_i64(h, std::get<date_time>(v.raw()).millis); return;
    case kind::timestamp: {
      const timestamp& t = std::get<timestamp>(v.raw());
      add_i32(h, static_cast<std::int32_t>(t.i));  // BSON stores the increment first
      add_i32(h, static_cast<std::int32_t>(t.t));
      return;
    }
    case kind::regex: {
      const regex& r = std::get<regex>(v.raw());
      h.add(r.pattern.data(), r.pattern.size());
      h.add("", 1);
      h.add(r.options.data(), r.options.size());
      h.add("", 1);
      return;
    }
    case kind::null_:
    case kind::min_key:
    case kind::max_key: return;  // no value bytes
  }
}

expr_value hashed_key_op(const op_node& self, eval_ctx& ctx) {
  const value v = self.arg(0, ctx).value_or(value());  // missing hashes as null
  md5 h;
  add_i32(h, 0);                     // the seed
  add_i32(h, canonical_type(v));     // the element, without a field name
  hash_value(h, v, 0);
  std::uint8_t digest[16];
  h.finish(digest);
  std::uint64_t out = 0;
  for (int i = 7; i >= 0; --i) out = (out << 8) | digest[i];
  return value(static_cast<std::int64_t>(out));
}

constexpr op_info hash_op_list[] = {{"$toHashedIndexKey", 1, 1, hashed_key_op}};

}  // namespace

op_table hash_ops() { return table_of(hash_op_list); }

}  // namespace omgdb::engine::expr_detail
