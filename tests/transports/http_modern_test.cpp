#include <doctest/doctest.h>

#include "common/json.hpp"
#include "mcp/envelope.hpp"
#include "transports/http_modern.hpp"

using namespace omgdb::transports::http;

TEST_CASE("a header value in the base64 sentinel form is decoded, any other taken as it is") {
  CHECK(decode_header_value("get") == std::optional<std::string>("get"));
  CHECK(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=") == std::optional<std::string>("Hello, 世界"));
  CHECK(decode_header_value("=?base64?IHBhZGRlZCA=?=") == std::optional<std::string>(" padded "));
  CHECK(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=") == std::optional<std::string>("=?base64?literal?="));
  CHECK(decode_header_value("=?base64?" "?=") == std::optional<std::string>(""));  // split: no trigraph
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

TEST_CASE("an Mcp-Method header of invalid UTF-8 is refused with a JSON body a client can read, without echoing it") {
  auto msg = omgdb::json::parse_strict(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
      R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
  REQUIRE(msg.ok());
  auto e = omgdb::mcp::read_envelope(*msg, "");
  request_view v;
  v.method = "POST";
  v.protocol_version = "2026-07-28";
  v.mcp_method = std::string("tools/\xff\xfe", 8);
  auto r = modern_refusal(v, e);
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(omgdb::json::parse_strict(r->body).ok());
  CHECK(r->body.find("characters a header may not carry") != std::string::npos);
  v.mcp_method = "tools/call";  // well formed but different: named in the refusal
  r = modern_refusal(v, e);
  REQUIRE(r);
  CHECK(r->body.find("Mcp-Method header value 'tools/call' does not match body value 'tools/list'") != std::string::npos);
}

TEST_CASE("an unknown modern MCP-Protocol-Version of invalid UTF-8 is refused with a JSON body a client can read") {
  auto msg = omgdb::json::parse_strict(R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}})");
  REQUIRE(msg.ok());
  auto e = omgdb::mcp::read_envelope(*msg, "");
  request_view v;
  v.method = "POST";
  v.protocol_version = std::string("2026-07\xcd\xcd" "8", 10);
  auto r = modern_refusal(v, e);
  REQUIRE(r);
  CHECK(r->status == 400);
  REQUIRE(omgdb::json::parse_strict(r->body).ok());
  CHECK(r->body.find("\"requested\":\"2026-07??8\"") != std::string::npos);
}
