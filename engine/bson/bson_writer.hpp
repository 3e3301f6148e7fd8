// omgdb engine — a fast path for to_bson (bson_codec.hpp) on the write paths: the same bytes,
// written directly instead of through libbson's appends. Not public.
#pragma once

#include <string>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::detail {

// Writes `doc` as to_bson would into `out` and returns true; returns false (with `out` in an
// unspecified state) whenever to_bson could fail or might write anything else: a field name
// with a NUL byte or invalid UTF-8, a string that is not valid UTF-8, nesting deeper than
// to_bson allows, a document over 16 MiB, and regular expressions and old-style binary
// (subtype 2), which it leaves to libbson. The caller then calls to_bson for the result and
// its exact error.
bool write_bson(const document& doc, std::string& out);

// to_bson(doc): write_bson, else to_bson itself.
result<std::string> encode_document(const document& doc);

}  // namespace omgdb::engine::detail
