// omgdb tools — every tool result is bounded (docs/limits.md "Replies"). Tools that page (find,
// aggregate, cursors, distinct, SQL) cut at a record boundary themselves and say how to
// continue; whatever result is still over the call's reply limit after its tool ran (a large
// document from `get`, a long `describe`, `verify` or `plan_update` report) is cut here, at a
// line boundary for NDJSON and a character boundary otherwise, with a note in text and a
// "truncated" member in structuredContent.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "mcp/tool.hpp"

namespace omgdb::tools {

// Room for the notes a paging tool adds after a page that fills the limit.
inline constexpr std::size_t k_note_room = 8 * 1024;

// "24 KiB", "1 MiB", "1000 bytes".
std::string size_text(std::size_t bytes);

// Cuts `r` to `max_bytes` (plus k_note_room for notes) when it is larger; see above.
void bound_result(mcp::tool_result& r, std::size_t max_bytes, std::string_view tool, mcp::result_shape shape);

}  // namespace omgdb::tools
