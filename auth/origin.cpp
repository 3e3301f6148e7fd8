#include "auth/origin.hpp"

#include <charconv>

namespace omgdb::auth {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool valid_port(std::string_view digits) noexcept {
  if (digits.empty() || digits.size() > 5) return false;
  unsigned v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return ec == std::errc() && p == digits.data() + digits.size() && v <= 65535;
}

// Letters, digits, '-', '.', and for bracketed IPv6 literals ':' between the brackets.
bool valid_host(std::string_view host) noexcept {
  if (host.empty()) return false;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    for (char c : host.substr(1, host.size() - 2)) {
      bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex && c != ':' && c != '.') return false;
    }
    return true;
  }
  for (char c : host) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// Splits "host[:port]" (host possibly bracketed); false when malformed.
bool split_authority(std::string_view authority, std::string_view& host, std::string_view& port) {
  port = {};
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(0, close + 1);
    auto rest = authority.substr(close + 1);
    if (rest.empty()) return valid_host(host);
    if (rest.front() != ':') return false;
    port = rest.substr(1);
    return valid_host(host) && valid_port(port);
  }
  auto colon = authority.find(':');
  host = authority.substr(0, colon);
  if (colon != std::string_view::npos) {
    port = authority.substr(colon + 1);
    if (!valid_port(port)) return false;
  }
  return valid_host(host);
}

bool loopback_authority(std::string_view host, std::string_view port, std::uint16_t bound) {
  if (port.empty() || port != std::to_string(bound)) return false;
  std::string h = lower(host);
  return h == "127.0.0.1" || h == "localhost" || h == "[::1]";
}

}  // namespace

std::optional<std::string> normalize_origin(std::string_view text) {
  auto sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::nullopt;
  std::string scheme = lower(text.substr(0, sep));
  for (char c : scheme) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) return std::nullopt;
  }
  std::string_view authority = text.substr(sep + 3);
  if (!authority.empty() && authority.back() == '/') authority.remove_suffix(1);
  std::string_view host, port;
  if (!split_authority(authority, host, port)) return std::nullopt;
  std::string out = scheme + "://" + lower(host);
  if (!port.empty()) out += ":" + std::string(port);
  return out;
}

bool origin_policy::host_allowed(std::string_view host_header) const {
  std::string_view host, port;
  if (!split_authority(host_header, host, port)) return false;
  if (loopback_authority(host, port, this->port)) return true;
  std::string whole = lower(host_header);
  std::string name = lower(host);
  for (const auto& entry : allowed_hosts) {
    std::string e = lower(entry);
    if (e == whole || (e == name && e.find(':') == std::string::npos)) return true;
  }
  return false;
}

bool origin_policy::origin_allowed(std::optional<std::string_view> origin) const {
  if (!origin) return true;
  auto norm = normalize_origin(*origin);
  if (!norm) return false;
  std::string_view rest(*norm);
  if (rest.substr(0, 7) == "http://") {
    std::string_view host, port;
    if (split_authority(rest.substr(7), host, port) && loopback_authority(host, port, this->port)) return true;
  }
  for (const auto& entry : allowed_origins) {
    auto e = normalize_origin(entry);
    if (e && *e == *norm) return true;
  }
  return false;
}

bool is_loopback_host(std::string_view host) noexcept {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  // 127.0.0.0/8 as a dotted quad.
  if (host.substr(0, 4) != "127.") return false;
  int parts = 0;
  std::size_t i = 0;
  while (i <= host.size()) {
    std::size_t dot = host.find('.', i);
    if (dot == std::string_view::npos) dot = host.size();
    std::string_view part = host.substr(i, dot - i);
    unsigned v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || part.size() > 3 || ec != std::errc() || p != part.data() + part.size() || v > 255) return false;
    ++parts;
    i = dot + 1;
  }
  return parts == 4;
}

result<listen_address> parse_listen_address(std::string_view text) {
  std::string_view host, port;
  auto bad = [&] {
    return make_error("invalid listen address `" + std::string(text) +
                      "`: expected HOST:PORT, e.g. 127.0.0.1:41922 or [::1]:41922");
  };
  if (!split_authority(text, host, port) || port.empty()) return bad();
  listen_address out;
  out.host = std::string(host);
  if (out.host.front() == '[') out.host = out.host.substr(1, out.host.size() - 2);
  unsigned v = 0;
  std::from_chars(port.data(), port.data() + port.size(), v);
  out.port = static_cast<std::uint16_t>(v);
  return out;
}

}  // namespace omgdb::auth
