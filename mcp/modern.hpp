// omgdb mcp — the stateless revision 2026-07-28 ("modern"), served beside the initialize-based
// revisions 2024-11-05 … 2025-11-25 ("legacy") on the same stdio stream and HTTP endpoint.
//
// Era detection is per request: a request whose params._meta carries
// "io.modelcontextprotocol/protocolVersion" is modern and is served statelessly, from that
// request alone (its version, its log level, its progress token); `initialize` starts a legacy
// session exactly as before. Nothing a modern request does changes the session: a stdio
// process may serve both eras at once.
//
// Modern requests (seeds: issue 21; spec 2026-07-28 basic/versioning, server/discover,
// server/utilities/caching, server/utilities/logging):
//  - a version this server does not speak: -32022 UnsupportedProtocolVersion with
//    data {supported, requested}; no clientCapabilities object in `_meta`: -32602;
//  - `_meta["io.modelcontextprotocol/logLevel"]` not a level name: -32602; absent: no
//    notifications/message for that request;
//  - server/discover, tools/list (ttlMs, cacheScope, catalogue order) and tools/call
//    (resultType "complete", structuredContent); any other method (ping, logging/setLevel,
//    resources/…): -32601;
//  - tools/call of a tool this server does not have: -32602 (the revision's unknown-tool
//    error); every other refusal (scope, arguments, limits) is the legacy one, word for word.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace omgdb::mcp {

// The modern revisions this server speaks, newest first.
inline constexpr std::string_view modern_versions[] = {"2026-07-28"};

inline constexpr std::string_view meta_protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view meta_log_level = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view meta_server_info = "io.modelcontextprotocol/serverInfo";

// The modern error codes (schema.ts "MCP error codes").
inline constexpr int header_mismatch = -32020;
inline constexpr int missing_required_client_capability = -32021;
inline constexpr int unsupported_protocol_version = -32022;

// How long a client may keep tools/list and server/discover results (ttlMs). The list changes
// only when the daemon restarts or reloads its configuration.
inline constexpr int list_ttl_ms = 60'000;

// The protocol version a request's params._meta declares, or nullopt when it declares none
// (a legacy request). A declared value that is not a string is returned as "" (unsupported).
std::optional<std::string_view> declared_version(const boost::json::object* params) noexcept;

bool modern_version_supported(std::string_view version) noexcept;

// True when params._meta carries "io.modelcontextprotocol/clientCapabilities" as an object
// (required on every modern request; a request without it is -32602).
bool declares_capabilities(const boost::json::object* params) noexcept;

// Every version this server speaks, modern first, then the legacy ones newest first.
boost::json::array all_versions();

// The methods a modern request may name: server/discover, tools/list, tools/call.
bool modern_method_known(std::string_view method) noexcept;

// The error object of -32022 for `requested`.
boost::json::object unsupported_version_error(std::string_view requested);

}  // namespace omgdb::mcp
