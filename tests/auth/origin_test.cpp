#include <doctest/doctest.h>

#include "auth/origin.hpp"

using namespace omgdb::auth;

namespace {
origin_policy policy_on(std::uint16_t port) {
  origin_policy p;
  p.port = port;
  return p;
}
}  // namespace

TEST_CASE("loopback hosts pass only with the bound port") {
  auto p = policy_on(41922);
  CHECK(p.host_allowed("127.0.0.1:41922"));
  CHECK(p.host_allowed("localhost:41922"));
  CHECK(p.host_allowed("LocalHost:41922"));
  CHECK(p.host_allowed("[::1]:41922"));
  CHECK_FALSE(p.host_allowed("127.0.0.1"));
  CHECK_FALSE(p.host_allowed("localhost"));
  CHECK_FALSE(p.host_allowed("127.0.0.1:41923"));
  CHECK_FALSE(p.host_allowed("127.0.0.2:41922"));
  CHECK_FALSE(p.host_allowed("[::1]"));
}

TEST_CASE("a rebinding attacker's host is refused") {
  auto p = policy_on(41922);
  CHECK_FALSE(p.host_allowed("evil.example.com"));
  CHECK_FALSE(p.host_allowed("evil.example.com:41922"));
  CHECK_FALSE(p.host_allowed("localhost.evil.example:41922"));
  CHECK_FALSE(p.host_allowed("127.0.0.1:41922@evil"));
  CHECK_FALSE(p.host_allowed(""));
  CHECK_FALSE(p.host_allowed("localhost:41922 "));
  CHECK_FALSE(p.host_allowed("localhost:99999"));
}

TEST_CASE("allowed hosts match by name, or by name and port") {
  auto p = policy_on(41922);
  p.allowed_hosts = {"tunnel.example", "proxy.example:8443"};
  CHECK(p.host_allowed("tunnel.example"));
  CHECK(p.host_allowed("TUNNEL.example:443"));
  CHECK(p.host_allowed("proxy.example:8443"));
  CHECK_FALSE(p.host_allowed("proxy.example"));
  CHECK_FALSE(p.host_allowed("proxy.example:9000"));
  CHECK_FALSE(p.host_allowed("sub.tunnel.example"));
}

TEST_CASE("an absent origin is allowed; loopback origins of the port pass") {
  auto p = policy_on(5000);
  CHECK(p.origin_allowed(std::nullopt));
  CHECK(p.origin_allowed(std::string_view("http://127.0.0.1:5000")));
  CHECK(p.origin_allowed(std::string_view("http://localhost:5000")));
  CHECK(p.origin_allowed(std::string_view("http://[::1]:5000")));
  CHECK(p.origin_allowed(std::string_view("HTTP://LOCALHOST:5000")));
}

TEST_CASE("other, null and malformed origins are refused") {
  auto p = policy_on(5000);
  for (std::string_view o : {"null", "", "http://evil.example", "http://localhost:5001", "http://localhost",
                             "https://localhost:5000", "http://127.0.0.1:5000/x", "http://a@127.0.0.1:5000",
                             "localhost:5000", "http://", "://localhost:5000", "http://127.0.0.1:5000?x",
                             "http://127.0.0.1:5000#f", "http://local host:5000"}) {
    CAPTURE(o);
    CHECK_FALSE(p.origin_allowed(o));
  }
}

TEST_CASE("configured origins are compared after normalization") {
  auto p = policy_on(5000);
  p.allowed_origins = {"https://Tunnel.Example/"};
  CHECK(p.origin_allowed(std::string_view("https://tunnel.example")));
  CHECK(p.origin_allowed(std::string_view("https://TUNNEL.EXAMPLE/")));
  CHECK_FALSE(p.origin_allowed(std::string_view("http://tunnel.example")));
  CHECK_FALSE(p.origin_allowed(std::string_view("https://tunnel.example:444")));
  CHECK(normalize_origin("HTTPS://A.Example:443/") == std::optional<std::string>("https://a.example:443"));
  CHECK_FALSE(normalize_origin("null").has_value());
}

TEST_CASE("loopback listen hosts") {
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.1.2.3"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("localhost"));
  CHECK_FALSE(is_loopback_host("0.0.0.0"));
  CHECK_FALSE(is_loopback_host("::"));
  CHECK_FALSE(is_loopback_host("128.0.0.1"));
  CHECK_FALSE(is_loopback_host("127.0.0"));
  CHECK_FALSE(is_loopback_host("127.0.0.1.5"));
  CHECK_FALSE(is_loopback_host("127.0.0.256"));
  CHECK_FALSE(is_loopback_host("example.com"));
}

TEST_CASE("listen addresses parse as HOST:PORT or [V6]:PORT") {
  auto a = parse_listen_address("127.0.0.1:41922");
  REQUIRE(a.ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 41922);
  auto b = parse_listen_address("[::1]:0");
  REQUIRE(b.ok());
  CHECK(b->host == "::1");
  CHECK(b->port == 0);
  CHECK_FALSE(parse_listen_address("127.0.0.1").ok());
  CHECK_FALSE(parse_listen_address("127.0.0.1:70000").ok());
  CHECK_FALSE(parse_listen_address(":80").ok());
  CHECK_FALSE(parse_listen_address("[::1]").ok());
}
