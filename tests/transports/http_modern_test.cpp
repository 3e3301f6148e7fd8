#include <doctest/doctest.h>

#include "transports/http_modern.hpp"

using namespace omgdb::transports::http;

TEST_CASE("a header value in the base64 sentinel form is decoded, any other taken as it is") {
  CHECK(decode_header_value("get") == std::optional<std::string>("get"));
  CHECK(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=") == std::optional<std::string>("Hello, 世界"));
  CHECK(decode_header_value("=?base64?IHBhZGRlZCA=?=") == std::optional<std::string>(" padded "));
  CHECK(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=") == std::optional<std::string>("=?base64?literal?="));
  CHECK(decode_header_value("=?base64??=") == std::optional<std::string>(""));
}

TEST_CASE("a malformed base64 sentinel value is refused") {
  CHECK_FALSE(decode_header_value("=?base64?not base64?="));
  CHECK_FALSE(decode_header_value("=?base64?abc?="));     // not a multiple of 4
  CHECK_FALSE(decode_header_value("=?base64?ab=c?="));    // padding in the middle
  CHECK_FALSE(decode_header_value("=?base64?a===?="));    // too much padding
}

TEST_CASE("GET and DELETE with the modern version are 405; legacy or no version go on") {
  request_view v;
  v.method = "GET";
  CHECK_FALSE(modern_get_or_delete(v));
  v.protocol_version = "2025-11-25";
  CHECK_FALSE(modern_get_or_delete(v));
  v.protocol_version = "2026-07-28";
  auto r = modern_get_or_delete(v);
  REQUIRE(r);
  CHECK(r->status == 405);
  v.protocol_version = "1900-01-01";
  CHECK_FALSE(modern_get_or_delete(v));  // the gate's 400 for an unknown version
}
