// omgdb engine — stored BSON bytes straight to relaxed Extended JSON text, for reads that
// return whole documents (the `get` tool): no value tree is built in between.
#pragma once

#include <string>
#include <string_view>

namespace omgdb::engine {

// Appends the relaxed Extended JSON of the BSON document `bytes` to `out`: the same text as
// to_json(*from_bson(bytes)). Returns false, with `out` as it was, when the bytes hold a type
// this writer leaves to the general path (decimal128, binary, regex, timestamp, min/max key,
// the deprecated types, a double that is not finite) or anything from_bson would refuse
// (corrupt bytes, text that is not UTF-8): the caller then decodes, which gives the same text
// or the precise error.
bool append_bson_json(std::string& out, std::string_view bytes);

}  // namespace omgdb::engine
