// omgdb transports — the Streamable HTTP rules of the stateless revision 2026-07-28 (spec
// basic/transports/streamable-http "Request Metadata", "Server Validation", "Backward
// Compatibility"), served on the same endpoint as the session-based revisions.
//
// A POST is modern when its MCP-Protocol-Version header names a version that is not a legacy
// one, or its body's params._meta declares a protocol version (mcp/modern.hpp); every other
// POST is legacy, exactly as before. A modern POST has already passed the same gate as any
// other (Host, Origin, token, size, Content-Type); then, in this order:
//  - MCP-Protocol-Version missing: 400 -32020; a version this server does not speak: 400
//    -32022 with the supported list; not the body's `_meta` version: 400 -32020;
//  - a notification: 202 (this revision defines none over HTTP; it is ignored);
//  - Mcp-Method missing or not the body's `method`: 400 -32020;
//  - tools/call (and resources/read, prompts/get): Mcp-Name missing, malformed, or (after the
//    `=?base64?…?=` sentinel is decoded) not params.name / params.uri: 400 -32020;
//  - a method the revision does not define here: 404 -32601;
//  - else the request runs on a session of its own at the token's scope (no Mcp-Session-Id
//    minted or read): a JSON reply, or an SSE stream when it sends progress or log lines;
//    closing the response (stream or not) cancels the request.
// GET or DELETE carrying a modern MCP-Protocol-Version: 405 (no GET stream, no sessions).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "mcp/envelope.hpp"
#include "transports/http_rules.hpp"

namespace omgdb::transports::http {

// True when the POST is to be served as a modern request.
bool is_modern_post(const request_view& req, const mcp::envelope& e);

// The 400/404 reply for a modern POST whose headers break the rules above, or nullopt.
std::optional<http_reply> modern_refusal(const request_view& req, const mcp::envelope& e);

// `=?base64?…?=` decoded (nullopt when malformed); any other value as it is.
std::optional<std::string> decode_header_value(std::string_view value);

// The reply to GET/DELETE with a modern MCP-Protocol-Version, or nullopt.
std::optional<http_reply> modern_get_or_delete(const request_view& req);

}  // namespace omgdb::transports::http
