#include "mcp/session_state.hpp"

#include <boost/json/value.hpp>

namespace omgdb::mcp {

int level_index(std::string_view name) noexcept {
  for (int i = 0; i < 8; ++i) {
    if (level_names[i] == name) return i;
  }
  return -1;
}

std::string_view negotiate_version(const boost::json::value* requested) noexcept {
  if (!requested || !requested->is_string()) return "2024-11-05";
  std::string_view want(requested->get_string().data(), requested->get_string().size());
  for (auto v : supported_versions) {
    if (v == want) return v;
  }
  return supported_versions[0];
}

std::optional<std::string> invalid_state(const session_state& s) {
  if (!s.version.empty()) {
    bool known = false;
    for (auto v : supported_versions) known = known || v == s.version;
    if (!known) return "unsupported protocol version (" + std::to_string(s.version.size()) + " bytes)";
  }
  if (!s.log_level.empty() && level_index(s.log_level) < 0) {
    return "unknown log level (" + std::to_string(s.log_level.size()) + " bytes)";
  }
  return std::nullopt;
}

}  // namespace omgdb::mcp
