// omgdb engine — one BSON element decoded in place (bson_codec.cpp), for the code that walks
// stored bytes with libbson's iterator instead of decoding whole documents (filter_raw.cpp,
// bson_json.cpp).
// Not a public header: it exposes libbson.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <cstring>

#include "engine/value/value.hpp"

namespace omgdb::engine {

// Decodes the element `it` is positioned at exactly as from_bson would (same type mapping,
// same checks), `depth` being the nesting depth of the document that holds it (1 for a field
// of the stored document). False when the bytes are corrupt.
bool decode_bson_element(const bson_iter_t& it, value& out, int depth);

// The UTF-8 check from_bson and to_bson apply to strings (allow_null) and field names
// (!allow_null): bson_utf8_validate's answer, with the common case inline. Bytes 0x01-0x7f
// are valid UTF-8 each on its own, so text made only of them is valid; text with any other
// byte (NUL, or part of a multi-byte sequence) gets libbson's full check.
inline bool bson_text_is_utf8(const char* s, std::size_t n, bool allow_null) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s + i, 8);
    // A high bit set, or (with none set) a zero byte: (w - ones) & ~w & highs is non-zero
    // exactly when some byte of w is zero.
    if ((w & highs) != 0 || ((w - ones) & ~w & highs) != 0) return bson_utf8_validate(s, n, allow_null);
  }
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0 || c >= 0x80) return bson_utf8_validate(s, n, allow_null);
  }
  return true;
}

}  // namespace omgdb::engine
