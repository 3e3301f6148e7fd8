#include <doctest/doctest.h>

#include <sstream>

#include <boost/beast/http.hpp>

#include "common/json.hpp"
#include "transports/http_rules.hpp"

using namespace omgdb;
using namespace omgdb::transports::http;
namespace bhttp = boost::beast::http;

namespace {

gate_policy policy_with(std::string_view token, std::string name, auth::scope s) {
  gate_policy p;
  p.origins.port = 41922;
  p.tokens.add({std::move(name), auth::sha256(token), s});
  return p;
}

request_view post(std::optional<std::string> authorization) {
  request_view r;
  r.method = "POST";
  r.target = "/mcp";
  r.host = "127.0.0.1:41922";
  r.content_type = "application/json";
  r.authorization = std::move(authorization);
  return r;
}

// What Beast writes for the same reply (write_reply's slow path).
std::string beast_bytes(const http_reply& r, unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "omgdb");
  for (auto& [name, value] : r.headers) res.set(name, value);
  res.body() = r.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  return out.str();
}

}  // namespace

TEST_CASE("a connection's remembered token is accepted again with the same name and scope") {
  auto p = policy_with("reader-token-0123456789", "reader", auth::scope::read);
  credential_memo memo;
  auto first = post("Bearer reader-token-0123456789");
  CHECK_FALSE(screen(first, p, &memo));
  note_credential(first, p, &memo);
  CHECK(first.token_name == "reader");
  CHECK(first.granted == auth::scope::read);
  auto again = post("Bearer reader-token-0123456789");
  CHECK_FALSE(screen(again, p, &memo));
  note_credential(again, p, &memo);
  CHECK(again.token_name == "reader");
  CHECK(again.granted == auth::scope::read);
}

TEST_CASE("another token on a connection that remembers one is judged on its own") {
  auto p = policy_with("reader-token-0123456789", "reader", auth::scope::read);
  credential_memo memo;
  CHECK_FALSE(screen(post("Bearer reader-token-0123456789"), p, &memo));
  auto wrong = screen(post("Bearer reader-token-0123456780"), p, &memo);  // same length, one char off
  REQUIRE(wrong);
  CHECK(wrong->status == 401);
  auto shorter = screen(post("Bearer reader-token-012345678"), p, &memo);
  REQUIRE(shorter);
  CHECK(shorter->status == 401);
  CHECK(screen(post(std::nullopt), p, &memo)->status == 401);
  CHECK_FALSE(screen(post("Bearer reader-token-0123456789"), p, &memo));
}

TEST_CASE("a token removed by a reload is refused on a connection that had it accepted") {
  auto p = policy_with("reader-token-0123456789", "reader", auth::scope::read);
  credential_memo memo;
  CHECK_FALSE(screen(post("Bearer reader-token-0123456789"), p, &memo));
  p.tokens = auth::token_set();
  p.tokens.add({"writer", auth::sha256("writer-token-0123456789"), auth::scope::read_write});
  ++p.tokens_generation;  // what SIGHUP does
  auto refused = screen(post("Bearer reader-token-0123456789"), p, &memo);
  REQUIRE(refused);
  CHECK(refused->status == 401);
}

TEST_CASE("a reload that changes a token's scope changes the scope a connection gets") {
  auto p = policy_with("some-token-0123456789", "t", auth::scope::read_write);
  credential_memo memo;
  auto r = post("Bearer some-token-0123456789");
  note_credential(r, p, &memo);
  CHECK(r.granted == auth::scope::read_write);
  p.tokens = auth::token_set();
  p.tokens.add({"t", auth::sha256("some-token-0123456789"), auth::scope::read});
  ++p.tokens_generation;
  auto after = post("Bearer some-token-0123456789");
  note_credential(after, p, &memo);
  CHECK(after.granted == auth::scope::read);
}

TEST_CASE("the head of a plain 200 reply is what Beast writes, for HTTP/1.1 and 1.0, kept or not") {
  http_reply r = json_body(200, R"({"jsonrpc":"2.0","id":7,"result":{}})");
  r.set("Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
  r.set("Access-Control-Allow-Origin", "http://localhost:41922");
  for (unsigned version : {11u, 10u}) {
    for (bool keep : {true, false}) {
      CAPTURE(version);
      CAPTURE(keep);
      std::string head;
      REQUIRE(ok_reply_head(head, r, version, keep));
      CHECK(head + r.body == beast_bytes(r, version, keep));
    }
  }
}

TEST_CASE("replies other than a plain 200 are left to Beast") {
  std::string head = "untouched";
  CHECK_FALSE(ok_reply_head(head, json_error(400, -32000, "Bad Request"), 11, true));
  CHECK_FALSE(ok_reply_head(head, empty_reply(202), 11, true));
  http_reply sse = json_body(200, "");
  add_sse_headers(sse);  // carries its own Connection header
  CHECK_FALSE(ok_reply_head(head, sse, 11, true));
  CHECK(head == "untouched");
}

TEST_CASE("the Accept value MCP clients send reads like any other spelling of the same list") {
  auto same = [](const std::string& a, const std::string& b) {
    auto x = parse_accept(a), y = parse_accept(b);
    return x.json == y.json && x.sse == y.sse && x.wildcard == y.wildcard;
  };
  CHECK(same("application/json, text/event-stream", "Application/JSON ,  text/event-stream;q=1"));
  CHECK(same("text/event-stream, application/json", "TEXT/event-stream,application/json"));
  auto usual = parse_accept(std::string("application/json, text/event-stream"));
  CHECK(usual.json);
  CHECK(usual.sse);
  CHECK_FALSE(usual.wildcard);
}

namespace {

request_view with_coding(std::optional<std::string> te, std::optional<std::uint64_t> length = std::nullopt,
                         unsigned version = 11) {
  request_view r = post("Bearer x");
  r.transfer_encoding = std::move(te);
  r.content_length = length;
  r.version = version;
  return r;
}

unsigned refused_with(const request_view& r) {
  auto reply = framing_refusal(r);
  if (!reply) return 0;
  CHECK(reply->close);  // the body's end is unknown: nothing after it can be read
  return reply->status;
}

}  // namespace

TEST_CASE("a body framed by Content-Length or by chunked alone passes the framing check") {
  CHECK(refused_with(with_coding(std::nullopt, 42)) == 0);
  CHECK(refused_with(with_coding(std::nullopt)) == 0);
  CHECK(refused_with(with_coding("chunked")) == 0);
  CHECK(refused_with(with_coding(" Chunked ")) == 0);
  CHECK(refused_with(with_coding(", chunked,")) == 0);  // empty list elements are allowed
}

TEST_CASE("a transfer coding that does not end in chunked is 400 even with a Content-Length") {
  CHECK(refused_with(with_coding("xchunked", 42)) == 400);
  CHECK(refused_with(with_coding("xchunked")) == 400);
  CHECK(refused_with(with_coding("chunked, gzip")) == 400);
  CHECK(refused_with(with_coding("chunked, chunked")) == 400);
  CHECK(refused_with(with_coding("")) == 400);
  CHECK(refused_with(with_coding("chunked;ext=1")) == 400);
}

TEST_CASE("chunked beside a Content-Length or on HTTP/1.0 is 400") {
  CHECK(refused_with(with_coding("chunked", 42)) == 400);
  CHECK(refused_with(with_coding("chunked", std::nullopt, 10)) == 400);
}

TEST_CASE("a coding before chunked is understood but not implemented: 501") {
  CHECK(refused_with(with_coding("gzip, chunked")) == 501);
  CHECK(refused_with(with_coding("deflate,chunked")) == 501);
  auto reply = framing_refusal(with_coding("gzip, chunked"));
  REQUIRE(reply);
  CHECK(reply->body.find("Not Implemented") != std::string::npos);
}

TEST_CASE("a long list of transfer codings is refused without reading it all") {
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "gzip, ";
  many += "chunked";
  CHECK(refused_with(with_coding(many)) == 400);
}

TEST_CASE("an unsupported MCP-Protocol-Version of invalid UTF-8 is refused with a JSON body a client can read") {
  auto p = policy_with("0123456789abcdef0123456789abcdef0123456789abcdef", "main", auth::scope::read_write);
  request_view r = post("Bearer 0123456789abcdef0123456789abcdef0123456789abcdef");
  r.method = "GET";
  r.content_type.reset();
  r.protocol_version = std::string("2025-\xff\xfe", 7);
  auto reply = screen(r, p);
  REQUIRE(reply);
  CHECK(reply->status == 400);
  auto body = json::parse_strict(reply->body);
  REQUIRE(body.ok());
  CHECK(reply->body.find("2025-??") != std::string::npos);
}

TEST_CASE("Last-Event-ID resumes after 1 to 19 digits and nothing else") {
  CHECK(parse_last_event_id("17") == std::optional<std::uint64_t>(17));
  CHECK(parse_last_event_id("007") == std::optional<std::uint64_t>(7));
  CHECK(parse_last_event_id("0") == std::optional<std::uint64_t>(0));
  CHECK(parse_last_event_id("9999999999999999999") == std::optional<std::uint64_t>(9999999999999999999ull));
  CHECK_FALSE(parse_last_event_id("18446744073709551616").has_value());  // 20 digits
  CHECK_FALSE(parse_last_event_id("").has_value());
  CHECK_FALSE(parse_last_event_id("-1").has_value());
  CHECK_FALSE(parse_last_event_id("+5").has_value());
  CHECK_FALSE(parse_last_event_id(" 5").has_value());
  CHECK_FALSE(parse_last_event_id("1e3").has_value());
}
