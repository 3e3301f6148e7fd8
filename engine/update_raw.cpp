// omgdb engine — updates over stored BSON bytes (update_raw.hpp has the contract).
#include "engine/update_raw.hpp"

#include <bson/bson.h>

#include <algorithm>
#include <cstring>

#include "engine/bson_codec.hpp"
#include "engine/bson_element.hpp"
#include "engine/store_detail.hpp"

namespace omgdb::engine::detail {
namespace {

constexpr int k_max_nesting = 200;                     // bson_codec.cpp's limit
constexpr std::size_t k_max_document = 16 * 1024 * 1024;  // MongoDB's BSON size limit

bool copyable_doc(const std::uint8_t* data, std::size_t len, int depth, bool array);

// The element `it` is at, checked as from_bson checks it and known to come back from
// to_bson as the same bytes; `depth` is that of the document holding it.
bool copyable_value(const bson_iter_t& it, int depth) {
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DATE_TIME:
    case BSON_TYPE_TIMESTAMP:
    case BSON_TYPE_OID:
    case BSON_TYPE_NULL:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY: return true;
    case BSON_TYPE_BOOL: return it.raw[it.d1] <= 1;
    case BSON_TYPE_UTF8: {
      std::uint32_t len = 0;
      const char* s = bson_iter_utf8(&it, &len);
      return s != nullptr && bson_text_is_utf8(s, len, true);
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      const bool array = bson_iter_type(&it) == BSON_TYPE_ARRAY;
      if (array) {
        bson_iter_array(&it, &len, &data);
      } else {
        bson_iter_document(&it, &len, &data);
      }
      return data != nullptr && copyable_doc(data, len, depth + 1, array);
    }
    case BSON_TYPE_BINARY: {
      bson_subtype_t subtype;
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_binary(&it, &subtype, &len, &data);
      return subtype != BSON_SUBTYPE_BINARY_DEPRECATED;
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      return bson_iter_decimal128(&it, &dec);
    }
    default: return false;  // deprecated types and regexes are re-encoded differently; EOD
  }
}

// A field name check_document_rules accepts: not starting with '$', without '.'.
bool good_name(const char* key, std::size_t n) {
  return (n == 0 || key[0] != '$') && std::memchr(key, '.', n) == nullptr;
}

// Array keys as to_bson writes them: "0", "1", …
bool array_key(const char* key, std::size_t n, std::uint32_t index) {
  char buf[16];
  const char* k = nullptr;
  const std::size_t kl = bson_uint32_to_string(index, &k, buf, sizeof buf);
  return kl == n && std::memcmp(k, key, n) == 0;
}

bool copyable_doc(const std::uint8_t* data, std::size_t len, int depth, bool array) {
  if (depth > k_max_nesting || data == nullptr || len < 5) return false;
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, data, len)) return false;
  std::uint32_t end = 4;
  std::uint32_t index = 0;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const std::size_t n = bson_iter_key_len(&it);
    if (!bson_text_is_utf8(key, n, false)) return false;
    if (array ? !array_key(key, n, index++) : !good_name(key, n)) return false;
    if (!copyable_value(it, depth)) return false;
    if (depth == 1 && n == 3 && std::memcmp(key, "_id", 3) == 0 && bson_iter_type(&it) == BSON_TYPE_ARRAY) {
      return false;  // the rules refuse an `_id` array
    }
    end = it.next_off;
  }
  return it.err_off == 0 && end == len - 1;
}

}  // namespace

bool raw_copyable_document(std::string_view stored) {
  return copyable_doc(reinterpret_cast<const std::uint8_t*>(stored.data()), stored.size(), 1, false);
}

std::optional<raw_updater> raw_updater::make(const update_spec& spec) {
  if (spec.uses_positional()) return std::nullopt;
  auto roots = spec.root_fields();
  if (!roots || std::find(roots->begin(), roots->end(), "_id") != roots->end()) return std::nullopt;
  return raw_updater(spec, std::move(*roots));
}

bool raw_updater::touched(std::string_view name) const {
  for (const auto& r : roots_) {
    if (r == name) return true;
  }
  return false;
}

bool raw_updater::prepare(std::string_view stored, prepared& out) const {
  out.stored = stored;
  out.elements.clear();
  out.view.clear();
  const auto* data = reinterpret_cast<const std::uint8_t*>(stored.data());
  if (stored.size() < 5 || stored.size() > k_max_document) return false;
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, data, stored.size())) return false;
  std::uint32_t end = 4;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const std::size_t n = bson_iter_key_len(&it);
    if (!bson_text_is_utf8(key, n, false)) return false;
    const std::string_view name(key, n);
    const auto index = static_cast<std::int64_t>(out.elements.size());
    out.elements.emplace_back(it.off, it.next_off);
    end = it.next_off;
    if (touched(name)) {
      // Decoded exactly as from_bson would; the rules are checked on the result.
      value v;
      if (!decode_bson_element(it, v, 1)) return false;
      out.view.push_back(field{std::string(name), std::move(v)});
      continue;
    }
    if (!good_name(key, n) || !copyable_value(it, 1)) return false;
    if (name == "_id" && bson_iter_type(&it) == BSON_TYPE_ARRAY) return false;  // the rules refuse it
    out.view.push_back(field{std::string(name), value(index)});  // placeholder: element index
  }
  return it.err_off == 0 && end == stored.size() - 1;
}

raw_updater::outcome raw_updater::finish(prepared& doc, const update_apply_options& options, std::string& out) const {
  auto next = spec_->apply(doc.view, options);
  if (!next) return outcome::decode;  // the decoding path names the document in the error
  if (!next->changed) return outcome::unchanged;
  // The touched fields of the result, encoded on their own (same depth as in the document).
  document fresh;
  for (auto& f : next->doc) {
    if (touched(f.name)) fresh.push_back(field{f.name, std::move(f.val)});
  }
  if (!check_document_rules(fresh)) return outcome::decode;
  auto fresh_bytes = to_bson(fresh);
  if (!fresh_bytes) return outcome::decode;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fresh_elements;
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(fresh_bytes->data()),
                                fresh_bytes->size())) {
    return outcome::decode;
  }
  while (bson_iter_next(&it)) fresh_elements.emplace_back(it.off, it.next_off);

  std::size_t total = 5;
  for (const auto& [b, e] : fresh_elements) total += e - b;
  std::size_t fresh_at = 0;
  for (const auto& f : next->doc) {
    if (touched(f.name)) continue;
    const auto& [b, e] = doc.elements[static_cast<std::size_t>(f.val.as_int64())];
    total += e - b;
  }
  if (total > k_max_document) return outcome::decode;  // the encoder's error, from the full document
  out.clear();
  out.reserve(total);
  const auto size = static_cast<std::uint32_t>(total);
  const char header[4] = {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
                          static_cast<char>((size >> 16) & 0xff), static_cast<char>((size >> 24) & 0xff)};
  out.append(header, 4);
  // `next->doc` gave the touched fields' values to `fresh` (moved); their names remain.
  for (const auto& f : next->doc) {
    if (touched(f.name)) {
      const auto& [b, e] = fresh_elements[fresh_at++];
      out.append(*fresh_bytes, b, e - b);
    } else {
      const auto& [b, e] = doc.elements[static_cast<std::size_t>(f.val.as_int64())];
      out.append(doc.stored.substr(b, e - b));
    }
  }
  out.push_back('\0');
  return outcome::changed;
}

}  // namespace omgdb::engine::detail
