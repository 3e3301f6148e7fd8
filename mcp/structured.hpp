// omgdb mcp — structured tool results (protocol 2025-06-18 and later) and the tools/call
// result envelope of every era.
//
// A tool declares what its first text block holds (mcp::result_shape). For a client whose
// revision has structured results, tools/list then gives the tool an `outputSchema` and
// tools/call a `structuredContent` made from that block; the text blocks stay as they are,
// for clients that read only them. 2025-06-18 and 2025-11-25 want an object at the root, so
// every shape is wrapped in one, the same in every era:
//   json_object  the object itself
//   json_array   {"items": [...]}
//   json_value   {"document": <value or null>}
//   ndjson       {"documents": [one per line]} plus the members of any later text block that
//                is a JSON object (a cursor's {"returned", "exhausted", "token"})
// plus, in every shape, the members of tool_result::structured_extra (a "continuation" of a
// paged or cut result, a "truncated" of a cut one; a cut result whose block no longer parses
// gets its shape's required member empty beside them).
// Notes in later text blocks that are not JSON objects stay text only. A failed call
// (isError) has no structuredContent; neither has a block that does not parse as its shape.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "mcp/tool.hpp"

namespace omgdb::mcp {

// True for the revisions with outputSchema and structuredContent: 2025-06-18 and later.
bool has_structured_results(std::string_view version) noexcept;

// The outputSchema of a shape; nullopt for result_shape::text.
std::optional<boost::json::object> output_schema(result_shape shape);

// describe(t) plus, for revisions with structured results, `outputSchema` (when the tool has
// a shape) and `_meta.requiredScope` (the annotation, which the TypeScript SDK drops).
boost::json::object describe_for(const tool& t, bool structured);

// The structuredContent of a successful result of shape `shape`, or nullopt.
std::optional<boost::json::value> structured_content(const tool_result& r, result_shape shape);

// How a tools/call result is written for the client's era.
struct result_style {
  bool structured = false;  // add structuredContent (2025-06-18 and later)
  bool modern = false;      // add "resultType":"complete" (2026-07-28)
};

// {"jsonrpc":"2.0","id":id,"result":{"content":[text blocks],["structuredContent":…,]
// "isError":…[,"resultType":"complete"]}}, serialized; with the default style byte for byte
// what the legacy revisions have always been sent.
std::string call_result_envelope(const boost::json::value& id, const tool_result& r, result_shape shape,
                                 result_style style);

}  // namespace omgdb::mcp
