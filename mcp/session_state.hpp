// omgdb mcp — what a session has agreed with its client, as plain data a transport can save
// and give back to a new session (an HTTP daemon restarted with live session ids).
//
// Every field is bounded by what the session accepts: a version from `supported_versions`,
// a level from `level_names`. `invalid_state` refuses anything else, so a damaged or hostile
// state file cannot grow a session.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

namespace omgdb::mcp {

// The protocol versions this server speaks, newest first.
inline constexpr std::string_view supported_versions[] = {"2025-11-25", "2025-06-18",
                                                          "2025-03-26", "2024-11-05"};

// The MCP log levels (logging/setLevel, notifications/message), least severe first.
inline constexpr std::string_view level_names[] = {"debug", "info",     "notice", "warning",
                                                   "error", "critical", "alert",  "emergency"};
inline constexpr int default_level = 3;  // warning

// The index of `name` in level_names, or -1.
int level_index(std::string_view name) noexcept;

// Version negotiation: the requested version when supported; an unknown one gets the newest;
// none at all (no params.protocolVersion string) gets 2024-11-05.
std::string_view negotiate_version(const boost::json::value* requested) noexcept;

struct session_state {
  std::string version;       // negotiated by initialize; "" before it
  bool initialized = false;  // notifications/initialized was received
  std::string log_level;     // set by logging/setLevel; "" = the default (warning)

  bool operator==(const session_state&) const = default;
};

// Why `s` cannot be imported (a version this server does not speak, an unknown level), or
// nullopt when it can.
std::optional<std::string> invalid_state(const session_state& s);

}  // namespace omgdb::mcp
