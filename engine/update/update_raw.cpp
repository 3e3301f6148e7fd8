// omgdb engine — updates over stored BSON bytes (update_raw.hpp has the contract).
#include "engine/update/update_raw.hpp"

#include <bson/bson.h>

#include <algorithm>
#include <cstring>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_writer.hpp"
#include "engine/bson/bson_element.hpp"
#include "engine/bson/le_bytes.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {
namespace {

constexpr int k_max_nesting = 200;                     // bson_codec.cpp's limit
constexpr std::size_t k_max_document = 16 * 1024 * 1024;  // MongoDB's BSON size limit

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

bool copyable_doc(const char* data, std::size_t len, int depth, bool array);

// The value of type `type` at [p, end): true when it is sound as from_bson checks it (the
// walk is never more lenient than libbson's iterator and the decoder together, and refuses
// some of what they accept) and to_bson would write its decoded form as the same bytes; `n`
// receives its size. `depth` is that of the document holding it.
bool copyable_value(std::uint8_t type, const char* p, const char* end, int depth, std::size_t& n) {
  const auto room = static_cast<std::size_t>(end - p);
  auto fixed = [&](std::size_t size) {
    n = size;
    return size <= room;
  };
  switch (type) {
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DATE_TIME:
    case BSON_TYPE_TIMESTAMP:
    case BSON_TYPE_INT64: return fixed(8);
    case BSON_TYPE_INT32: return fixed(4);
    case BSON_TYPE_OID: return fixed(12);
    case BSON_TYPE_DECIMAL128: return fixed(16);
    case BSON_TYPE_NULL:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY: return fixed(0);
    case BSON_TYPE_BOOL: return fixed(1) && static_cast<unsigned char>(*p) <= 1;
    case BSON_TYPE_UTF8: {
      if (room < 5) return false;
      const std::uint32_t len = get_le32(p);
      if (len < 1 || len > room - 4 || p[4 + len - 1] != '\0') return false;
      n = 4 + static_cast<std::size_t>(len);
      return bson_text_is_utf8(p + 4, len - 1, true);
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: {
      if (room < 5) return false;
      const std::uint32_t len = get_le32(p);
      if (len < 5 || len > room) return false;
      n = len;
      return copyable_doc(p, len, depth + 1, type == BSON_TYPE_ARRAY);
    }
    case BSON_TYPE_BINARY: {
      if (room < 5) return false;
      const std::uint32_t len = get_le32(p);
      if (len > INT32_MAX || len > room - 5) return false;
      n = 5 + static_cast<std::size_t>(len);
      return static_cast<unsigned char>(p[4]) != BSON_SUBTYPE_BINARY_DEPRECATED;
    }
    default: return false;  // deprecated types and regexes are re-encoded differently
  }
}

// One element at [p, end): type, NUL-terminated name, value. Sets `key`, `key_len` and
// `size` (the element's bytes); false when anything is off.
bool split_element(const char* p, const char* end, const char*& key, std::size_t& key_len, std::size_t& size,
                   int depth) {
  if (p >= end) return false;
  const auto type = static_cast<std::uint8_t>(*p);
  key = p + 1;
  const void* nul = std::memchr(key, '\0', static_cast<std::size_t>(end - key));
  if (nul == nullptr) return false;
  key_len = static_cast<std::size_t>(static_cast<const char*>(nul) - key);
  if (!bson_text_is_utf8(key, key_len, false)) return false;
  const char* v = key + key_len + 1;
  std::size_t n = 0;
  if (!copyable_value(type, v, end, depth, n)) return false;
  size = static_cast<std::size_t>(v - p) + n;
  return true;
}

bool copyable_doc(const char* data, std::size_t len, int depth, bool array) {
  if (depth > k_max_nesting || data == nullptr || len < 5 || get_le32(data) != len || data[len - 1] != '\0') return false;
  const char* p = data + 4;
  const char* end = data + len - 1;  // the terminating NUL
  std::uint32_t index = 0;
  while (p < end) {
    const char* key = nullptr;
    std::size_t n = 0, size = 0;
    if (!split_element(p, end, key, n, size, depth)) return false;
    if (array ? !array_key(key, n, index++) : !good_name(key, n)) return false;
    if (depth == 1 && n == 3 && std::memcmp(key, "_id", 3) == 0 && static_cast<std::uint8_t>(*p) == BSON_TYPE_ARRAY) {
      return false;  // the rules refuse an `_id` array
    }
    p += size;
  }
  return p == end;
}

}  // namespace

bool raw_copyable_document(std::string_view stored) { return copyable_doc(stored.data(), stored.size(), 1, false); }

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
  bool in_run = false;  // the last view field is a placeholder that may grow
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const std::size_t n = bson_iter_key_len(&it);
    if (!bson_text_is_utf8(key, n, false)) return false;
    end = it.next_off;
    if (touched(std::string_view(key, n))) {
      // Decoded exactly as from_bson would; the rules are checked on the result.
      value v;
      if (!decode_bson_element(it, v, 1)) return false;
      out.view.push_back(field{std::string(key, n), std::move(v)});
      in_run = false;
      continue;
    }
    const char* at = stored.data() + it.off;
    const char* k = nullptr;
    std::size_t kn = 0, size = 0;
    if (!split_element(at, stored.data() + it.next_off, k, kn, size, 1) || size != it.next_off - it.off) return false;
    if (!good_name(k, kn)) return false;
    if (kn == 3 && std::memcmp(k, "_id", 3) == 0 && static_cast<std::uint8_t>(*at) == BSON_TYPE_ARRAY) return false;
    if (in_run) {
      out.elements.back().second = it.next_off;
      continue;
    }
    // Untouched elements in a row stand in the view as one placeholder: the name ".", which
    // no update path can start with, and the run's index.
    out.view.push_back(field{".", value(static_cast<std::int64_t>(out.elements.size()))});
    out.elements.emplace_back(it.off, it.next_off);
    in_run = true;
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
  auto fresh_bytes = encode_document(fresh);
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
  put_le32(out, static_cast<std::uint32_t>(total));
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
