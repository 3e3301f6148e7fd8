// omgdb engine — one BSON element decoded in place (bson_codec.cpp), for the code that walks
// stored bytes with libbson's iterator instead of decoding whole documents (filter_raw.cpp).
// Not a public header: it exposes libbson.
#pragma once

#include <bson/bson.h>

#include "engine/value.hpp"

namespace omgdb::engine {

// Decodes the element `it` is positioned at exactly as from_bson would (same type mapping,
// same checks), `depth` being the nesting depth of the document that holds it (1 for a field
// of the stored document). False when the bytes are corrupt.
bool decode_bson_element(const bson_iter_t& it, value& out, int depth);

}  // namespace omgdb::engine
