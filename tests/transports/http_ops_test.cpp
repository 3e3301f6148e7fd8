#include <doctest/doctest.h>

#include "transports/http_rules.hpp"

using namespace omgdb;
using namespace omgdb::transports::http;

namespace {

gate_policy policy_with_tokens() {
  gate_policy p;
  p.origins.port = 41922;
  p.tokens.add({"reader", auth::sha256("reader-token-0123456789"), auth::scope::read});
  p.tokens.add({"writer", auth::sha256("writer-token-0123456789"), auth::scope::read_write});
  return p;
}

request_view get(std::string target, std::optional<std::string> authorization = std::nullopt) {
  request_view r;
  r.method = "GET";
  r.target = std::move(target);
  r.host = "127.0.0.1:41922";
  r.authorization = std::move(authorization);
  return r;
}

}  // namespace

TEST_CASE("healthz and metrics are recognised beside the MCP path") {
  CHECK(ops_endpoint_of(get("/healthz")) == ops_endpoint::healthz);
  CHECK(ops_endpoint_of(get("/metrics?x=1")) == ops_endpoint::metrics);
  CHECK(ops_endpoint_of(get("/mcp")) == ops_endpoint::none);
  CHECK(ops_endpoint_of(get("/healthz/x")) == ops_endpoint::none);
}

TEST_CASE("healthz needs no token but still checks Host and Origin") {
  auto p = policy_with_tokens();
  CHECK_FALSE(screen_ops(get("/healthz"), p, ops_endpoint::healthz));
  auto evil = get("/healthz");
  evil.host = "evil.example:41922";
  REQUIRE(screen_ops(evil, p, ops_endpoint::healthz));
  CHECK(screen_ops(evil, p, ops_endpoint::healthz)->status == 403);
  auto origin = get("/healthz");
  origin.origin = "http://evil.example";
  CHECK(screen_ops(origin, p, ops_endpoint::healthz)->status == 403);
  auto post = get("/healthz");
  post.method = "POST";
  CHECK(screen_ops(post, p, ops_endpoint::healthz)->status == 405);
}

TEST_CASE("metrics needs a valid bearer token, never one in the URL") {
  auto p = policy_with_tokens();
  CHECK(screen_ops(get("/metrics"), p, ops_endpoint::metrics)->status == 401);
  CHECK(screen_ops(get("/metrics", "Bearer wrong-token-0123456789"), p, ops_endpoint::metrics)->status == 401);
  CHECK_FALSE(screen_ops(get("/metrics", "Bearer reader-token-0123456789"), p, ops_endpoint::metrics));
  CHECK(screen_ops(get("/metrics?access_token=reader-token-0123456789"), p, ops_endpoint::metrics)->status == 400);
  p.no_auth = true;
  CHECK_FALSE(screen_ops(get("/metrics"), p, ops_endpoint::metrics));
}

TEST_CASE("the credential of an accepted request names its token and scope") {
  auto p = policy_with_tokens();
  auto r = get("/mcp", "Bearer reader-token-0123456789");
  note_credential(r, p);
  CHECK(r.token_name == "reader");
  CHECK(r.granted == auth::scope::read);
  auto w = get("/mcp", "Bearer writer-token-0123456789");
  note_credential(w, p);
  CHECK(w.token_name == "writer");
  CHECK(w.granted == auth::scope::read_write);
  p.no_auth = true;
  auto anon = get("/mcp");
  note_credential(anon, p);
  CHECK(anon.token_name.empty());
  CHECK(anon.granted == auth::scope::dangerous);
}
