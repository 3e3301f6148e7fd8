// omgdb auth — capability scopes.
//
// Scopes are ordered read < read-write < dangerous. A tool is allowed when its required
// scope is at or below the session's ceiling (the server's --scope, intersected with a
// bearer token's scope over HTTP).
#pragma once

#include <optional>
#include <string_view>

namespace omgdb::auth {

enum class scope : int { read = 0, read_write = 1, dangerous = 2 };

// "read" | "ro", "read-write" | "write" | "rw", "dangerous" | "all"; anything else: nullopt.
std::optional<scope> parse_scope(std::string_view text) noexcept;

// The canonical name: "read", "read-write" or "dangerous".
std::string_view to_string(scope s) noexcept;

constexpr bool allows(scope ceiling, scope required) noexcept {
  return static_cast<int>(required) <= static_cast<int>(ceiling);
}

constexpr scope intersect(scope a, scope b) noexcept {
  return static_cast<int>(a) < static_cast<int>(b) ? a : b;
}

}  // namespace omgdb::auth
