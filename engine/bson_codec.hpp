// omgdb engine — documents as BSON bytes (libbson), the form kept in RocksDB.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "engine/value.hpp"

namespace omgdb::engine {

// Serialise a document to BSON bytes. Errors: a field name containing a NUL byte, a
// string containing a NUL byte in a regex, a document over 16 MiB (MongoDB's limit).
result<std::string> to_bson(const document& doc);

// Parse BSON bytes back into a document; every type in `value` round-trips exactly.
// Corrupt bytes are an error, never a crash.
result<document> from_bson(std::string_view bytes);

// Look up one top-level field without decoding the rest (used for `_id`). Returns false
// when the bytes are corrupt or the field is absent.
bool bson_get_field(std::string_view bytes, std::string_view name, value& out);

}  // namespace omgdb::engine
