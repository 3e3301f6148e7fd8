// omgdb engine — to_bson's bytes without libbson (bson_writer.hpp).
#include "engine/bson/bson_writer.hpp"

#include <bson/bson.h>

#include <cstring>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_element.hpp"
#include "engine/bson/le_bytes.hpp"

namespace omgdb::engine::detail {
namespace {

constexpr int k_max_nesting = 200;                        // bson_codec.cpp's limit
constexpr std::size_t k_max_document = 16 * 1024 * 1024;  // MongoDB's BSON size limit

bool write_fields(const document& doc, std::string& out, int depth);

bool name(std::string& out, kind type, std::string_view key) {
  if (key.find('\0') != std::string_view::npos || !bson_text_is_utf8(key.data(), key.size(), false)) return false;
  const std::size_t at = out.size();
  out.resize(at + key.size() + 2);  // type byte, name, NUL
  char* p = out.data() + at;
  p[0] = static_cast<char>(type);
  std::memcpy(p + 1, key.data(), key.size());
  p[key.size() + 1] = '\0';
  return true;
}

bool write_value(std::string_view key, const value& v, std::string& out, int depth) {
  const kind k = v.type();
  if (k == kind::regex) return false;
  if (k == kind::binary && std::get<binary>(v.raw()).subtype == BSON_SUBTYPE_BINARY_DEPRECATED) return false;
  if (!name(out, k, key)) return false;
  switch (k) {
    case kind::null_:
    case kind::min_key:
    case kind::max_key: return true;
    case kind::boolean: out.push_back(v.as_bool() ? 1 : 0); return true;
    case kind::int32: put_le32(out, static_cast<std::uint32_t>(v.as_int32())); return true;
    case kind::int64: put_le64(out, static_cast<std::uint64_t>(v.as_int64())); return true;
    case kind::double_: {
      std::uint64_t bits;
      const double d = v.as_double();
      std::memcpy(&bits, &d, 8);
      put_le64(out, bits);
      return true;
    }
    case kind::string: {
      const auto& s = v.as_string();
      if (s.size() > k_max_document || !bson_text_is_utf8(s.data(), s.size(), true)) return false;
      put_le32(out, static_cast<std::uint32_t>(s.size() + 1));
      const std::size_t at = out.size();
      out.resize(at + s.size() + 1);
      std::memcpy(out.data() + at, s.data(), s.size());
      out[at + s.size()] = '\0';
      return true;
    }
    case kind::document: return depth + 1 <= k_max_nesting && write_fields(v.as_document(), out, depth + 1);
    case kind::array: {
      if (depth + 1 > k_max_nesting) return false;
      const std::size_t at = out.size();
      put_le32(out, 0);
      std::uint32_t index = 0;
      for (const auto& e : v.as_array()) {
        char buf[16];
        const char* ik = nullptr;
        const std::size_t il = bson_uint32_to_string(index++, &ik, buf, sizeof buf);
        if (!write_value(std::string_view(ik, il), e, out, depth + 1)) return false;
        if (out.size() > k_max_document) return false;
      }
      out.push_back('\0');
      set_le32(out, at, static_cast<std::uint32_t>(out.size() - at));
      return true;
    }
    case kind::object_id: out.append(reinterpret_cast<const char*>(std::get<object_id>(v.raw()).bytes.data()), 12); return true;
    case kind::date_time: put_le64(out, static_cast<std::uint64_t>(std::get<date_time>(v.raw()).millis)); return true;
    case kind::timestamp: {
      const auto& t = std::get<timestamp>(v.raw());
      put_le64(out, (static_cast<std::uint64_t>(t.t) << 32) | t.i);
      return true;
    }
    case kind::binary: {
      const auto& b = std::get<binary>(v.raw());
      if (b.bytes.size() > k_max_document) return false;
      put_le32(out, static_cast<std::uint32_t>(b.bytes.size()));
      out.push_back(static_cast<char>(b.subtype));
      out.append(b.bytes);
      return true;
    }
    case kind::decimal128: {
      const auto& d = std::get<decimal128>(v.raw());
      put_le64(out, d.low);
      put_le64(out, d.high);
      return true;
    }
    case kind::regex: return false;
  }
  return false;
}

bool write_fields(const document& doc, std::string& out, int depth) {
  const std::size_t at = out.size();
  put_le32(out, 0);
  for (const auto& f : doc) {
    if (!write_value(f.name, f.val, out, depth)) return false;
    if (out.size() > k_max_document) return false;
  }
  out.push_back('\0');
  if (out.size() - at > k_max_document) return false;
  set_le32(out, at, static_cast<std::uint32_t>(out.size() - at));
  return true;
}

}  // namespace

bool write_bson(const document& doc, std::string& out) {
  out.clear();
  out.reserve(256);  // most documents fit: no regrowth on the way
  return write_fields(doc, out, 1);
}

result<std::string> encode_document(const document& doc) {
  std::string out;
  if (write_bson(doc, out)) return out;
  return to_bson(doc);
}

}  // namespace omgdb::engine::detail
