#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_element.hpp"

#include <bson/bson.h>

#include <algorithm>
#include <cstring>

namespace omgdb::engine {
namespace {

constexpr std::size_t max_document_bytes = 16 * 1024 * 1024;  // MongoDB's BSON size limit
// Deeper nesting is refused both ways so that corrupt or hostile bytes cannot exhaust the
// stack; it is far above the 100 levels that Extended JSON input may have.
constexpr int max_nesting = 200;

// ---- encoding -------------------------------------------------------------------------

// Owns a bson_t being built (bson_t is over-aligned, which unique_ptr warns about).
class bson_builder {
 public:
  bson_builder() { bson_init(&b_); }
  ~bson_builder() { bson_destroy(&b_); }
  bson_builder(const bson_builder&) = delete;
  bson_builder& operator=(const bson_builder&) = delete;
  bson_t* get() { return &b_; }

 private:
  bson_t b_;
};

class encoder {
 public:
  // Appends `v` under `key`; false (with error_ set) when libbson or our checks refuse it.
  bool append(bson_t* b, std::string_view key, const value& v, int depth) {
    if (key.find('\0') != std::string_view::npos) {
      return fail("field name \"" + printable(key) + "\" contains a NUL byte, which BSON cannot store");
    }
    // Strings must be valid UTF-8 both ways: from_bson refuses anything else as corrupt.
    if (!bson_text_is_utf8(key.data(), key.size(), false)) {
      return fail("field name \"" + printable(key) + "\" is not valid UTF-8");
    }
    const char* k = key.data();
    const int kl = static_cast<int>(key.size());
    switch (v.type()) {
      case kind::null_: return ok(bson_append_null(b, k, kl));
      case kind::boolean: return ok(bson_append_bool(b, k, kl, v.as_bool()));
      case kind::int32: return ok(bson_append_int32(b, k, kl, v.as_int32()));
      case kind::int64: return ok(bson_append_int64(b, k, kl, v.as_int64()));
      case kind::double_: return ok(bson_append_double(b, k, kl, v.as_double()));
      case kind::string: {
        const auto& s = v.as_string();
        if (s.size() > max_document_bytes) return too_big();
        if (!bson_text_is_utf8(s.data(), s.size(), true)) {
          return fail("the string in field \"" + printable(key) + "\" is not valid UTF-8");
        }
        return ok(bson_append_utf8(b, k, kl, s.data(), static_cast<int>(s.size())));
      }
      case kind::document: {
        if (depth + 1 > max_nesting) return too_deep();
        bson_t child;
        if (!bson_append_document_begin(b, k, kl, &child)) return too_big();
        const bool good = append_fields(&child, v.as_document(), depth + 1);
        return bson_append_document_end(b, &child) && good ? true : (good ? too_big() : false);
      }
      case kind::array: {
        if (depth + 1 > max_nesting) return too_deep();
        bson_t child;
        if (!bson_append_array_begin(b, k, kl, &child)) return too_big();
        bool good = true;
        std::uint32_t index = 0;
        for (const auto& e : v.as_array()) {
          char buf[16];
          const char* ik = nullptr;
          const std::size_t il = bson_uint32_to_string(index++, &ik, buf, sizeof buf);
          if (!(good = append(&child, std::string_view(ik, il), e, depth + 1))) break;
        }
        return bson_append_array_end(b, &child) && good ? true : (good ? too_big() : false);
      }
      case kind::object_id: {
        bson_oid_t oid;
        std::memcpy(oid.bytes, std::get<object_id>(v.raw()).bytes.data(), 12);
        return ok(bson_append_oid(b, k, kl, &oid));
      }
      case kind::date_time: return ok(bson_append_date_time(b, k, kl, std::get<date_time>(v.raw()).millis));
      case kind::timestamp: {
        const auto& t = std::get<timestamp>(v.raw());
        return ok(bson_append_timestamp(b, k, kl, t.t, t.i));
      }
      case kind::binary: {
        const auto& bin = std::get<binary>(v.raw());
        if (bin.bytes.size() > max_document_bytes) return too_big();
        return ok(bson_append_binary(b, k, kl, static_cast<bson_subtype_t>(bin.subtype),
                                     reinterpret_cast<const std::uint8_t*>(bin.bytes.data()),
                                     static_cast<std::uint32_t>(bin.bytes.size())));
      }
      case kind::regex: {
        const auto& r = std::get<regex>(v.raw());
        if (r.pattern.find('\0') != std::string::npos || r.options.find('\0') != std::string::npos) {
          return fail("the regular expression in field \"" + printable(key) + "\" contains a NUL byte, which BSON cannot store");
        }
        // libbson silently drops option letters outside "ilmsux"; refuse them instead.
        if (r.options.find_first_not_of("ilmsux") != std::string::npos) {
          return fail("the regular expression in field \"" + printable(key) + "\" has options \"" + printable(r.options) +
                      "\"; allowed letters are i, l, m, s, u and x");
        }
        if (r.pattern.size() > max_document_bytes) return too_big();
        if (!bson_text_is_utf8(r.pattern.data(), r.pattern.size(), false)) {
          return fail("the regular expression in field \"" + printable(key) + "\" is not valid UTF-8");
        }
        return ok(bson_append_regex_w_len(b, k, kl, r.pattern.c_str(), static_cast<int>(r.pattern.size()),
                                          r.options.c_str()));
      }
      case kind::decimal128: {
        const auto& d = std::get<decimal128>(v.raw());
        bson_decimal128_t dec;
        dec.high = d.high;
        dec.low = d.low;
        return ok(bson_append_decimal128(b, k, kl, &dec));
      }
      case kind::min_key: return ok(bson_append_minkey(b, k, kl));
      case kind::max_key: return ok(bson_append_maxkey(b, k, kl));
    }
    return fail("unsupported value type");
  }

  bool append_fields(bson_t* b, const document& doc, int depth) {
    for (const auto& f : doc) {
      if (!append(b, f.name, f.val, depth)) return false;
      if (b->len > max_document_bytes) return too_big();
    }
    return true;
  }

  std::string error_;

 private:
  // A name for error messages: control bytes, and every non-ASCII byte when the text is not
  // valid UTF-8, as \xNN, so that the message itself is always valid UTF-8.
  static std::string printable(std::string_view s) {
    static constexpr char digits[] = "0123456789abcdef";
    const bool utf8 = bson_text_is_utf8(s.data(), s.size(), false);
    std::string out;
    for (char c : s.substr(0, 64)) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || (u >= 0x80 && !utf8)) {
        out += "\\x";
        out.push_back(digits[u >> 4]);
        out.push_back(digits[u & 15]);
      } else {
        out.push_back(c);
      }
    }
    return out;
  }
  bool fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
    return false;
  }
  bool ok(bool appended) { return appended ? true : too_big(); }
  bool too_big() { return fail("document exceeds the 16 MiB (16777216 bytes) BSON size limit"); }
  bool too_deep() { return fail("document nesting exceeds " + std::to_string(max_nesting) + " levels"); }
};

// ---- decoding -------------------------------------------------------------------------

bool decode_document(const std::uint8_t* data, std::size_t len, document& out, int depth);
bool decode_array(const std::uint8_t* data, std::size_t len, array& out, int depth);
bool check_elements(const std::uint8_t* data, std::size_t len, int depth);

// The value at `it`. Deprecated BSON types, which omgdb never writes, are read as their
// nearest supported value: undefined -> null, symbol and JavaScript code -> string,
// code with scope -> {"$code": string, "$scope": document}, DBPointer -> {"$ref": string,
// "$id": ObjectId} (the DBRef convention).
//
// With Build false nothing is built (`out` is unused): the element is only checked the way
// decoding it would check it, so that from_bson_fields refuses exactly the bytes from_bson
// refuses while decoding only the fields it was asked for.
template <bool Build>
bool read_element(const bson_iter_t& it, value* out, int depth) {
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DOUBLE:
      if constexpr (Build) *out = bson_iter_double(&it);
      return true;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE: {
      std::uint32_t len = 0;
      const char* s = bson_iter_type(&it) == BSON_TYPE_UTF8 ? bson_iter_utf8(&it, &len)
                      : bson_iter_type(&it) == BSON_TYPE_SYMBOL ? bson_iter_symbol(&it, &len)
                                                                : bson_iter_code(&it, &len);
      if (!s || !bson_text_is_utf8(s, len, true)) return false;
      if constexpr (Build) *out = std::string(s, len);
      return true;
    }
    case BSON_TYPE_DOCUMENT: {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      if constexpr (Build) {
        document d;
        if (!data || !decode_document(data, len, d, depth + 1)) return false;
        *out = std::move(d);
        return true;
      } else {
        return data && check_elements(data, len, depth + 1);
      }
    }
    case BSON_TYPE_ARRAY: {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_array(&it, &len, &data);
      if constexpr (Build) {
        array a;
        if (!data || !decode_array(data, len, a, depth + 1)) return false;
        *out = std::move(a);
        return true;
      } else {
        return data && check_elements(data, len, depth + 1);
      }
    }
    case BSON_TYPE_BINARY: {
      if constexpr (Build) {
        bson_subtype_t subtype;
        std::uint32_t len = 0;
        const std::uint8_t* data = nullptr;
        bson_iter_binary(&it, &subtype, &len, &data);
        binary b;
        b.subtype = static_cast<std::uint8_t>(subtype);
        if (len != 0) b.bytes.assign(reinterpret_cast<const char*>(data), len);
        *out = std::move(b);
      }
      return true;
    }
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:
      if constexpr (Build) *out = value();
      return true;
    case BSON_TYPE_OID: {
      if constexpr (Build) {
        object_id oid;
        std::memcpy(oid.bytes.data(), bson_iter_oid(&it)->bytes, 12);
        *out = oid;
      }
      return true;
    }
    case BSON_TYPE_BOOL:
      if constexpr (Build) *out = bson_iter_bool(&it);
      return true;
    case BSON_TYPE_DATE_TIME:
      if constexpr (Build) *out = date_time{bson_iter_date_time(&it)};
      return true;
    case BSON_TYPE_REGEX: {
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(&it, &options);
      if (!pattern || !options || !bson_text_is_utf8(pattern, std::strlen(pattern), false)) return false;
      if constexpr (Build) *out = regex{pattern, options};
      return true;
    }
    case BSON_TYPE_DBPOINTER: {
      std::uint32_t len = 0;
      const char* collection = nullptr;
      const bson_oid_t* oid = nullptr;
      bson_iter_dbpointer(&it, &len, &collection, &oid);
      if (!collection || !oid || !bson_text_is_utf8(collection, len, true)) return false;
      if constexpr (Build) {
        object_id id;
        std::memcpy(id.bytes.data(), oid->bytes, 12);
        *out = document{field{"$ref", std::string(collection, len)}, field{"$id", id}};
      }
      return true;
    }
    case BSON_TYPE_CODEWSCOPE: {
      std::uint32_t len = 0, scope_len = 0;
      const std::uint8_t* scope = nullptr;
      const char* code = bson_iter_codewscope(&it, &len, &scope_len, &scope);
      if (!code || !scope || !bson_text_is_utf8(code, len, true)) return false;
      if constexpr (Build) {
        document scope_doc;
        if (!decode_document(scope, scope_len, scope_doc, depth + 1)) return false;
        *out = document{field{"$code", std::string(code, len)}, field{"$scope", std::move(scope_doc)}};
        return true;
      } else {
        return check_elements(scope, scope_len, depth + 1);
      }
    }
    case BSON_TYPE_INT32:
      if constexpr (Build) *out = bson_iter_int32(&it);
      return true;
    case BSON_TYPE_TIMESTAMP: {
      if constexpr (Build) {
        timestamp t;
        bson_iter_timestamp(&it, &t.t, &t.i);
        *out = t;
      }
      return true;
    }
    case BSON_TYPE_INT64:
      if constexpr (Build) *out = std::int64_t{bson_iter_int64(&it)};
      return true;
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      if (!bson_iter_decimal128(&it, &dec)) return false;
      if constexpr (Build) *out = decimal128{dec.high, dec.low};
      return true;
    }
    case BSON_TYPE_MAXKEY:
      if constexpr (Build) *out = max_key{};
      return true;
    case BSON_TYPE_MINKEY:
      if constexpr (Build) *out = min_key{};
      return true;
    case BSON_TYPE_EOD: return false;
  }
  return false;
}

bool decode_element(const bson_iter_t& it, value& out, int depth) { return read_element<true>(it, &out, depth); }
bool check_element(const bson_iter_t& it, int depth) { return read_element<false>(it, nullptr, depth); }

// Calls fn(key, value) for each element (Build), or only checks each (not Build); false when
// the bytes are corrupt anywhere.
template <bool Build, class Fn>
bool for_each_element(const std::uint8_t* data, std::size_t len, int depth, Fn&& fn) {
  if (depth > max_nesting || !data || len < 5) return false;
  bson_iter_t it;
  // Checks the length header against `len` and the trailing NUL; bson_iter_next then
  // bounds-checks each element and sets err_off when it stops on corrupt bytes.
  if (!bson_iter_init_from_data(&it, data, len)) return false;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const std::size_t key_len = std::strlen(key);
    if (!bson_text_is_utf8(key, key_len, false)) return false;
    if constexpr (Build) {
      value v;
      if (!decode_element(it, v, depth)) return false;
      fn(std::string_view(key, key_len), std::move(v));
    } else if (!check_element(it, depth)) {
      return false;
    }
  }
  return it.err_off == 0;
}

bool decode_document(const std::uint8_t* data, std::size_t len, document& out, int depth) {
  return for_each_element<true>(data, len, depth, [&](std::string_view key, value&& v) {
    out.push_back(field{std::string(key), std::move(v)});
  });
}

bool decode_array(const std::uint8_t* data, std::size_t len, array& out, int depth) {
  // Array keys ("0", "1", …) carry no information beyond the order; they are not checked.
  return for_each_element<true>(data, len, depth, [&](std::string_view, value&& v) { out.push_back(std::move(v)); });
}

bool check_elements(const std::uint8_t* data, std::size_t len, int depth) {
  return for_each_element<false>(data, len, depth, [](std::string_view, value&&) {});
}

}  // namespace

result<std::string> to_bson(const document& doc) {
  bson_builder builder;
  bson_t* b = builder.get();
  encoder enc;
  if (!enc.append_fields(b, doc, 1)) return make_error(std::move(enc.error_));
  if (b->len > max_document_bytes) {
    return make_error("document is " + std::to_string(b->len) +
                      " bytes, over the 16 MiB (16777216 bytes) BSON size limit", failure_kind::limit_exceeded);
  }
  return std::string(reinterpret_cast<const char*>(bson_get_data(b)), b->len);
}

bool decode_bson_element(const bson_iter_t& it, value& out, int depth) {
  if (depth > max_nesting) return false;
  const char* key = bson_iter_key(&it);
  if (!bson_text_is_utf8(key, bson_iter_key_len(&it), false)) return false;
  return decode_element(it, out, depth);
}

result<document> from_bson(std::string_view bytes) {
  document out;
  if (!decode_document(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), out, 1)) {
    return make_error("stored document is corrupt (invalid BSON, " + std::to_string(bytes.size()) + " bytes)", failure_kind::corrupt);
  }
  return out;
}

result<document> from_bson_fields(std::string_view bytes, const std::vector<std::string>& fields) {
  document out;
  bson_iter_t it;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  bool ok = bytes.size() >= 5 && bson_iter_init_from_data(&it, data, bytes.size());
  while (ok && bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const std::string_view name(key, bson_iter_key_len(&it));
    // Strict with keys as for_each_element is (strlen: a key ends at its first NUL).
    if (!bson_text_is_utf8(key, std::strlen(key), false)) {
      ok = false;
    } else if (!std::binary_search(fields.begin(), fields.end(), name, std::less<>())) {
      ok = check_element(it, 1);  // skipped, but damage in it is still damage
    } else {
      value v;
      ok = decode_element(it, v, 1);
      if (ok) out.push_back(field{std::string(name), std::move(v)});
    }
  }
  if (!ok || it.err_off != 0) {
    return make_error("stored document is corrupt (invalid BSON, " + std::to_string(bytes.size()) + " bytes)", failure_kind::corrupt);
  }
  return out;
}

bool bson_get_field(std::string_view bytes, std::string_view name, value& out) {
  if (name.find('\0') != std::string_view::npos || bytes.size() < 5) return false;
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) {
    return false;
  }
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (std::strlen(key) == name.size() && std::memcmp(key, name.data(), name.size()) == 0) {
      return decode_element(it, out, 1);
    }
  }
  return false;
}

}  // namespace omgdb::engine
