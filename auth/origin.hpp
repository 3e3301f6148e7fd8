// omgdb auth — which `Host` and `Origin` an HTTP request may carry (DNS-rebinding defence).
//
// A browser page on evil.example can make the browser send requests to 127.0.0.1 after
// re-pointing its own name there; such requests carry `Host: evil.example[:port]` and
// `Origin: http://evil.example`. The policy therefore accepts:
//  - Host: `127.0.0.1:P`, `localhost:P` or `[::1]:P` with P the bound port, or an entry of
//    `allowed_hosts` (compared case-insensitively, "name" or "name:port");
//  - Origin: absent (command-line clients send none), `http://127.0.0.1:P`,
//    `http://localhost:P`, `http://[::1]:P`, or an entry of `allowed_origins` (compared
//    case-insensitively after dropping one trailing "/"). `null`, anything that is not
//    `scheme://host[:port]`, and every other origin are refused.
// Plain data, no I/O; thread-safe for concurrent readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace omgdb::auth {

struct origin_policy {
  std::uint16_t port = 0;                    // the bound port
  std::vector<std::string> allowed_origins;  // --allow-origin, e.g. "https://tunnel.example"
  std::vector<std::string> allowed_hosts;    // --allow-host, e.g. "tunnel.example"

  bool host_allowed(std::string_view host) const;
  bool origin_allowed(std::optional<std::string_view> origin) const;
};

// `scheme://host[:port]` with a lowercase scheme and host, or nullopt when `text` is not an
// origin (a path, userinfo, query, fragment, whitespace, an empty host, `null`, …).
std::optional<std::string> normalize_origin(std::string_view text);

// True for literal loopback addresses (127.0.0.0/8, ::1) and the name "localhost".
bool is_loopback_host(std::string_view host) noexcept;

struct listen_address {
  std::string host;  // without brackets: "127.0.0.1", "::1", "localhost"
  std::uint16_t port = 0;
};

// Parses "HOST:PORT" or "[V6]:PORT" (PORT 0 lets the OS choose).
result<listen_address> parse_listen_address(std::string_view text);

}  // namespace omgdb::auth
