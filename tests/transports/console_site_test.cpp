#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "transports/console_site.hpp"

using namespace omgdb;
namespace console = omgdb::transports::console;

namespace {

struct fixture {
  std::vector<std::string> links;
  std::vector<std::pair<std::string, bool>> decisions;
  console::site site;
  auth::origin_policy origins;
  console::session_view sessions;

  fixture() : site(make_backend(), make_settings()) { origins.port = 41922; }

  console::backend make_backend() {
    console::backend b;
    b.approvals = [] { return boost::json::array{boost::json::object{{"id", "0123456789ab"}}}; };
    b.approvals_version = [] { return std::uint64_t{7}; };
    b.decide = [this](std::string_view id, bool approve) -> status {
      decisions.emplace_back(std::string(id), approve);
      return {};
    };
    return b;
  }
  console::settings make_settings() {
    console::settings s;
    s.on_login_link = [this](const std::string& p) { links.push_back(p); };
    return s;
  }
  console::request req(std::string method, std::string target) {
    console::request r;
    r.method = std::move(method);
    r.target = std::move(target);
    r.host = "127.0.0.1:41922";
    if (r.method == "POST") r.origin = "http://127.0.0.1:41922";
    return r;
  }
  console::answer send(const console::request& r) { return site.handle(r, origins, sessions); }
  std::string header(const console::answer& a, std::string_view name) {
    for (const auto& [k, v] : a.reply.headers) {
      if (k == name) return v;
    }
    return {};
  }
  // Logs in with a fresh link; returns the Cookie header value.
  std::string log_in() {
    auto link = site.mint_login();
    REQUIRE(link);
    auto a = send(req("GET", *link));
    REQUIRE(a.reply.status == 303);
    std::string c = header(a, "Set-Cookie");
    return c.substr(0, c.find(';'));
  }
  std::string csrf_of(const std::string& cookie) {
    auto r = req("GET", "/console/api/me");
    r.cookie = cookie;
    auto a = send(r);
    REQUIRE(a.reply.status == 200);
    auto pos = a.reply.body.find("\"csrf\":\"");
    return a.reply.body.substr(pos + 8, 64);
  }
};

}  // namespace

TEST_CASE("a login link works once, sets an HttpOnly SameSite=Strict cookie and is refused when replayed") {
  fixture f;
  auto link = f.site.mint_login();
  REQUIRE(link);
  REQUIRE(f.links.size() == 1);
  CHECK(f.links[0] == *link);
  auto first = f.send(f.req("GET", *link));
  CHECK(first.reply.status == 303);
  std::string cookie = f.header(first, "Set-Cookie");
  CHECK(cookie.find("HttpOnly") != std::string::npos);
  CHECK(cookie.find("SameSite=Strict") != std::string::npos);
  CHECK(cookie.find("Path=/console") != std::string::npos);
  CHECK(f.send(f.req("GET", *link)).reply.status == 403);
}

TEST_CASE("a login link expires after login_ttl") {
  fixture f;
  auto link = f.site.mint_login();
  REQUIRE(link);
  f.site.advance(std::chrono::seconds(601));
  CHECK(f.send(f.req("GET", *link)).reply.status == 403);
}

TEST_CASE("without a session every console route is refused and nothing is decided") {
  fixture f;
  for (const char* p : {"/console", "/console/", "/console/app.js", "/console/api/me", "/console/api/approvals",
                        "/console/api/events", "/console/api/history", "/console/api/stores"}) {
    CAPTURE(p);
    CHECK(f.send(f.req("GET", p)).reply.status == 401);
  }
  CHECK(f.send(f.req("POST", "/console/api/approvals/0123456789ab/approve")).reply.status == 401);
  CHECK(f.decisions.empty());
}

TEST_CASE("a console POST needs the session's CSRF token and an Origin") {
  fixture f;
  std::string cookie = f.log_in();
  std::string csrf = f.csrf_of(cookie);
  auto r = f.req("POST", "/console/api/approvals/0123456789ab/approve");
  r.cookie = cookie;
  CHECK(f.send(r).reply.status == 403);  // no token
  r.csrf = std::string(64, '0');
  CHECK(f.send(r).reply.status == 403);  // a wrong one
  r.csrf = csrf;
  r.origin.reset();
  CHECK(f.send(r).reply.status == 403);  // no Origin
  CHECK(f.decisions.empty());
  r.origin = "http://localhost:41922";
  CHECK(f.send(r).reply.status == 200);
  REQUIRE(f.decisions.size() == 1);
  CHECK(f.decisions[0] == std::pair<std::string, bool>{"0123456789ab", true});
}

TEST_CASE("a bearer token, a foreign Origin or a foreign Host opens nothing even with the cookie") {
  fixture f;
  std::string cookie = f.log_in();
  auto r = f.req("GET", "/console/api/approvals");
  r.cookie = cookie;
  CHECK(f.send(r).reply.status == 200);
  auto bearer = r;
  bearer.authorization = "Bearer some-agent-token-123456";
  CHECK(f.send(bearer).reply.status == 401);
  auto evil = r;
  evil.origin = "http://evil.example";
  CHECK(f.send(evil).reply.status == 403);
  auto rebound = r;
  rebound.host = "evil.example:41922";
  CHECK(f.send(rebound).reply.status == 403);
}

TEST_CASE("a console session ends after its idle time, and its event stream with it") {
  fixture f;
  std::string cookie = f.log_in();
  auto r = f.req("GET", "/console/api/events");
  r.cookie = cookie;
  auto a = f.send(r);
  REQUIRE(a.stream);
  console::stream_state st;
  st.session_digest = a.session_digest;
  auto first = f.site.next_events(st, f.sessions);
  REQUIRE(first);
  CHECK(first->find("event: approvals") != std::string::npos);
  auto second = f.site.next_events(st, f.sessions);
  REQUIRE(second);
  CHECK(second->empty());  // nothing changed
  f.site.stream_closed();
  f.site.advance(std::chrono::seconds(3601));
  CHECK_FALSE(f.site.next_events(st, f.sessions));
  auto again = f.req("GET", "/console/api/approvals");
  again.cookie = cookie;
  CHECK(f.send(again).reply.status == 401);
}

TEST_CASE("a visit without a session mints a link for the log only when none is outstanding") {
  fixture f;
  auto page = f.send(f.req("GET", "/console/"));
  CHECK(page.reply.status == 401);
  REQUIRE(f.links.size() == 1);
  CHECK(page.reply.body.find(f.links[0].substr(f.links[0].find('=') + 1)) == std::string::npos);
  f.send(f.req("GET", "/console/"));
  CHECK(f.links.size() == 1);  // one is outstanding
}

TEST_CASE("the event stream announces a change of the sessions, not their ages ticking") {
  fixture f;
  int age = 0;
  std::size_t in_flight = 0;
  f.sessions.list = [&] {
    return boost::json::array{boost::json::object{{"handle", "01234567"}, {"ageMs", ++age}, {"inFlight", in_flight}}};
  };
  std::string cookie = f.log_in();
  auto r = f.req("GET", "/console/api/events");
  r.cookie = cookie;
  auto a = f.send(r);
  REQUIRE(a.stream);
  console::stream_state st;
  st.session_digest = a.session_digest;
  auto first = f.site.next_events(st, f.sessions);
  REQUIRE(first);
  CHECK(first->find("event: sessions") != std::string::npos);
  auto second = f.site.next_events(st, f.sessions);
  REQUIRE(second);
  CHECK(second->empty());
  in_flight = 1;
  auto third = f.site.next_events(st, f.sessions);
  REQUIRE(third);
  CHECK(third->find("event: sessions") != std::string::npos);
}
