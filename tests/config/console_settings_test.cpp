#include <doctest/doctest.h>

#include <string>

#include "config/config.hpp"

using namespace omgdb::config;

TEST_CASE("the web console is off unless [console] enables it") {
  auto off = load_string("", "empty.toml");
  REQUIRE(off);
  CHECK_FALSE(off->console.enabled);
  CHECK(off->console.login_ttl == std::chrono::seconds(600));
  auto on = load_string("[console]\nenabled = true\nlogin_ttl = \"90s\"\n", "on.toml");
  REQUIRE(on);
  CHECK(on->console.enabled);
  CHECK(on->console.login_ttl == std::chrono::seconds(90));
}

TEST_CASE("a console login_ttl outside 30 s .. 1 h or an unknown [console] key is refused") {
  auto short_ttl = load_string("[console]\nlogin_ttl = \"5s\"\n", "t.toml");
  REQUIRE_FALSE(short_ttl);
  CHECK(short_ttl.error().message.find("login_ttl") != std::string::npos);
  CHECK_FALSE(load_string("[console]\nlogin_ttl = \"2h\"\n", "t.toml"));
  auto typo = load_string("[console]\nenable = true\n", "t.toml");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().message.find("enable") != std::string::npos);
}
