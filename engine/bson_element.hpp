// omgdb engine — one BSON element decoded in place (bson_codec.cpp), for the code that walks
// stored bytes with libbson's iterator instead of decoding whole documents (filter_raw.cpp,
// bson_json.cpp).
// Not a public header: it exposes libbson.
#pragma once

#include <bson/bson.h>

#include "engine/value.hpp"

namespace omgdb::engine {

// Decodes the element `it` is positioned at exactly as from_bson would (same type mapping,
// same checks), `depth` being the nesting depth of the document that holds it (1 for a field
// of the stored document). False when the bytes are corrupt.
bool decode_bson_element(const bson_iter_t& it, value& out, int depth);

// The UTF-8 check from_bson applies to strings (allow_null) and field names (!allow_null):
// libbson's answer, with a fast path for ASCII.
bool bson_text_is_utf8(const char* s, std::size_t n, bool allow_null);

}  // namespace omgdb::engine
