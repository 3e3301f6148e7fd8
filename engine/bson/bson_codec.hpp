// omgdb engine — documents as BSON bytes (libbson), the form kept in RocksDB.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

// Serialise a document to BSON bytes. Errors: a field name containing a NUL byte, a
// string containing a NUL byte in a regex, a document over 16 MiB (MongoDB's limit).
// Also refused: a string, field name or regex pattern that is not valid UTF-8 (from_bson
// would reject it as corrupt), regex option letters outside "ilmsux" (libbson would drop
// them), nesting deeper than 200 levels.
result<std::string> to_bson(const document& doc);

// Parse BSON bytes back into a document; every type in `value` round-trips exactly.
// Corrupt bytes are an error, never a crash. Deprecated BSON types that omgdb never writes
// are read as their nearest value: undefined as null, symbol and code as strings, code with
// scope as {"$code": …, "$scope": {…}}, DBPointer as {"$ref": …, "$id": ObjectId}.
result<document> from_bson(std::string_view bytes);

// from_bson of only the top-level fields named in `fields` (sorted, as std::less orders
// them), in stored order. The other fields are checked as decoding would check them (bounds,
// UTF-8, nesting) but not built, so the bytes refused are exactly those from_bson refuses:
// damage in a field nobody reads is still reported as corrupt. For readers that need a few
// fields of large documents (the aggregation pipeline's scan, engine/aggregate/pipeline_deps.cpp).
result<document> from_bson_fields(std::string_view bytes, const std::vector<std::string>& fields);

// Look up one top-level field without decoding the rest (used for `_id`). Returns false
// when the bytes are corrupt or the field is absent.
bool bson_get_field(std::string_view bytes, std::string_view name, value& out);

}  // namespace omgdb::engine
