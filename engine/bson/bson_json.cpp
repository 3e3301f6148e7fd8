// Stored BSON to relaxed Extended JSON in one pass over the bytes (see bson_json.hpp). Every
// case below writes exactly what ejson_write.cpp writes for the value from_bson decodes;
// tests/engine/bson/bson_json_test.cpp holds the two paths to that over generated documents.
#include "engine/bson/bson_json.hpp"

#include <bson/bson.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/json.hpp"
#include "engine/bson/bson_element.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine {
namespace {

constexpr std::int64_t max_iso_millis = 253402300799999;  // 9999-12-31T23:59:59.999Z
constexpr int max_depth = 200;                           // bson_codec.cpp's nesting limit

template <class Int>
void append_int(std::string& out, Int i) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, end);
}

bool write_fields(std::string& out, const std::uint8_t* data, std::uint32_t len, int depth, bool array);

bool write_element(std::string& out, const bson_iter_t& it, int depth) {
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DOUBLE: {
      const double d = bson_iter_double(&it);
      if (!std::isfinite(d)) return false;  // {"$numberDouble": …}: the general path
      json::append_double(out, d);
      return true;
    }
    case BSON_TYPE_UTF8: {
      std::uint32_t n = 0;
      const char* s = bson_iter_utf8(&it, &n);
      if (s == nullptr || !bson_text_is_utf8(s, n, true)) return false;
      json::append_quoted(out, std::string_view(s, n));
      return true;
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: {
      std::uint32_t n = 0;
      const std::uint8_t* d = nullptr;
      const bool array = bson_iter_type(&it) == BSON_TYPE_ARRAY;
      if (array) bson_iter_array(&it, &n, &d);
      else bson_iter_document(&it, &n, &d);
      return d != nullptr && write_fields(out, d, n, depth + 1, array);
    }
    case BSON_TYPE_OID: {
      static constexpr char digits[] = "0123456789abcdef";
      const std::uint8_t* b = bson_iter_oid(&it)->bytes;
      out += R"({"$oid":")";
      for (int k = 0; k < 12; ++k) {
        out.push_back(digits[b[k] >> 4]);
        out.push_back(digits[b[k] & 15]);
      }
      out += "\"}";
      return true;
    }
    case BSON_TYPE_BOOL: out += bson_iter_bool(&it) ? "true" : "false"; return true;
    case BSON_TYPE_NULL: out += "null"; return true;
    case BSON_TYPE_INT32: append_int(out, bson_iter_int32(&it)); return true;
    case BSON_TYPE_INT64: append_int(out, static_cast<std::int64_t>(bson_iter_int64(&it))); return true;
    case BSON_TYPE_DATE_TIME: {
      const std::int64_t millis = bson_iter_date_time(&it);
      if (millis >= 0 && millis <= max_iso_millis) {
        out += R"({"$date":)";
        json::append_quoted(out, format_iso8601(millis));
        out.push_back('}');
      } else {
        out += R"({"$date":{"$numberLong":")";
        append_int(out, millis);
        out += "\"}}";
      }
      return true;
    }
    default: return false;
  }
}

bool write_fields(std::string& out, const std::uint8_t* data, std::uint32_t len, int depth, bool array) {
  if (depth > max_depth || len < 5) return false;
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, data, len)) return false;
  out.push_back(array ? '[' : '{');
  bool first = true;
  while (bson_iter_next(&it)) {
    if (!first) out.push_back(',');
    first = false;
    if (!array) {  // array keys ("0", "1", …) carry nothing but the order
      const char* key = bson_iter_key(&it);
      const std::size_t key_len = bson_iter_key_len(&it);
      if (!bson_text_is_utf8(key, key_len, false)) return false;
      json::append_quoted(out, std::string_view(key, key_len));
      out.push_back(':');
    }
    if (!write_element(out, it, depth)) return false;
  }
  if (it.err_off != 0) return false;
  out.push_back(array ? ']' : '}');
  return true;
}

}  // namespace

bool append_bson_json(std::string& out, std::string_view bytes) {
  const std::size_t at = out.size();
  if (bytes.size() <= UINT32_MAX &&
      write_fields(out, reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<std::uint32_t>(bytes.size()),
                   1, false)) {
    return true;
  }
  out.resize(at);
  return false;
}

}  // namespace omgdb::engine
