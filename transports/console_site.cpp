#include "transports/console_site.hpp"

#include <algorithm>
#include <vector>

#include <openssl/crypto.h>

#include "auth/token.hpp"
#include "common/json.hpp"
#include "common/log.hpp"

namespace omgdb::transports::console {
namespace bj = boost::json;
using http::http_reply;

namespace {

constexpr std::string_view cookie_name = "omgdb_console";
constexpr std::string_view content_security_policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string digest_of(std::string_view secret) {
  auto d = auth::sha256(secret);
  return auth::to_hex(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}

void secure_headers(http_reply& r) {
  r.set("Cache-Control", "no-store");
  r.set("Referrer-Policy", "no-referrer");
  r.set("X-Content-Type-Options", "nosniff");
  r.set("X-Frame-Options", "DENY");
  r.set("Content-Security-Policy", std::string(content_security_policy));
}

answer json_answer(unsigned status, bj::object body) {
  answer a;
  a.reply.status = status;
  a.reply.set("Content-Type", "application/json");
  a.reply.body = json::serialize(body);
  secure_headers(a.reply);
  return a;
}

answer refusal(unsigned status, std::string message) {
  return json_answer(status, bj::object{{"error", std::move(message)}});
}

answer page(unsigned status, std::string_view content_type, std::string body) {
  answer a;
  a.reply.status = status;
  a.reply.set("Content-Type", std::string(content_type));
  a.reply.body = std::move(body);
  secure_headers(a.reply);
  return a;
}

std::string_view query_of(std::string_view target) {
  auto q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

// The value of `name` in a query string (no percent-decoding: the values used here are hex
// or plain names; a value with '%' is refused by the caller's own check).
std::string query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

// Percent-decodes a query value; nullopt on a malformed escape.
std::optional<std::string> decoded(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '+') {
      out += ' ';
    } else if (v[i] == '%') {
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      if (i + 2 >= v.size()) return std::nullopt;
      int h = hex(v[i + 1]), l = hex(v[i + 2]);
      if (h < 0 || l < 0) return std::nullopt;
      out += static_cast<char>(h * 16 + l);
      i += 2;
    } else {
      out += v[i];
    }
  }
  return out;
}

std::optional<std::string> cookie_value(const std::optional<std::string>& header) {
  if (!header) return std::nullopt;
  std::string_view h = *header;
  while (!h.empty()) {
    while (!h.empty() && (h.front() == ' ' || h.front() == ';')) h.remove_prefix(1);
    auto semi = h.find(';');
    std::string_view part = h.substr(0, semi);
    if (part.size() > cookie_name.size() && part.substr(0, cookie_name.size()) == cookie_name &&
        part[cookie_name.size()] == '=') {
      return std::string(part.substr(cookie_name.size() + 1));
    }
    if (semi == std::string_view::npos) break;
    h.remove_prefix(semi + 1);
  }
  return std::nullopt;
}

bool is_hex_text(std::string_view s, std::size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    auto slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash);
  }
  return out;
}

std::string sse(std::string_view event, std::uint64_t id, const bj::value& data) {
  return "id: " + std::to_string(id) + "\nevent: " + std::string(event) + "\ndata: " + json::serialize(data) + "\n\n";
}

}  // namespace

bool is_console_path(std::string_view target) noexcept {
  std::string_view path = http::path_of(target);
  return path == "/console" || path.rfind("/console/", 0) == 0;
}

site::site(backend b, settings s) : backend_(std::move(b)), settings_(std::move(s)) {}

void site::sweep() {
  auto t = now();
  for (auto it = links_.begin(); it != links_.end();) it = t >= it->second.expires ? links_.erase(it) : std::next(it);
  for (auto it = logins_.begin(); it != logins_.end();) {
    bool old = t >= it->second.created + settings_.session_ttl || t >= it->second.last_used + settings_.session_idle;
    it = old ? logins_.erase(it) : std::next(it);
  }
}

result<std::string> site::mint_login() {
  sweep();
  auto bytes = auth::random_bytes(32);
  if (!bytes) return make_error("cannot create a console login link: " + bytes.error().message, bytes.error().kind);
  std::string key = auth::to_hex(*bytes);
  while (links_.size() >= std::max<std::size_t>(1, settings_.max_links)) {
    auto oldest = std::min_element(links_.begin(), links_.end(),
                                   [](const auto& a, const auto& b) { return a.second.expires < b.second.expires; });
    links_.erase(oldest);
  }
  links_[digest_of(key)] = link{now() + settings_.login_ttl};
  std::string path = "/console/login?key=" + key;
  if (settings_.on_login_link) settings_.on_login_link(path);
  return path;
}

site::login* site::session_of(const std::optional<std::string>& cookie, std::string& digest) {
  auto value = cookie_value(cookie);
  if (!value || !is_hex_text(*value, 64)) return nullptr;
  digest = digest_of(*value);
  auto it = logins_.find(digest);
  if (it == logins_.end()) return nullptr;
  return &it->second;
}

answer site::log_in(std::string_view query) {
  auto key = decoded(query_value(query, "key"));
  auto it = key && is_hex_text(*key, 64) ? links_.find(digest_of(*key)) : links_.end();
  if (it == links_.end()) {
    return page(403, "text/plain; charset=utf-8",
                "This login link is not valid: it was used already, has expired, or was never issued.\n"
                "Ask omgdb for a new one: run `omgdb console`, or open /console to have the daemon print one "
                "to its log.\n");
  }
  links_.erase(it);  // single-use: consumed before anything else can fail
  auto cookie = auth::random_bytes(32);
  auto csrf = auth::random_bytes(32);
  if (!cookie || !csrf) return refusal(500, "cannot create a console session: no random bytes");
  while (logins_.size() >= std::max<std::size_t>(1, settings_.max_sessions)) {
    auto oldest = std::min_element(logins_.begin(), logins_.end(),
                                   [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
    logins_.erase(oldest);
  }
  std::string value = auth::to_hex(*cookie);
  logins_[digest_of(value)] = login{auth::to_hex(*csrf), now(), now()};
  answer a = page(303, "text/plain; charset=utf-8", "Signed in.\n");
  a.reply.set("Location", "/console/");
  a.reply.set("Set-Cookie", std::string(cookie_name) + "=" + value + "; Path=/console; HttpOnly; SameSite=Strict; Max-Age=" +
                                std::to_string(settings_.session_ttl.count()));
  return a;
}

answer site::signed_out(const request& r) {
  std::string_view path = http::path_of(r.target);
  bool page_route = r.method == "GET" && (path == "/console" || path == "/console/");
  if (page_route && settings_.on_login_link && links_.empty() &&
      (last_auto_mint_ == clock::time_point{} || now() - last_auto_mint_ >= std::chrono::seconds(10))) {
    last_auto_mint_ = now();
    (void)mint_login();  // printed by on_login_link where the person reads it, never in this reply
  }
  if (page_route) {
    return page(401, "text/html; charset=utf-8",
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>omgdb console: sign in</title>"
                "</head><body><h1>omgdb console</h1><p>Not signed in. Open the one-time login link that "
                "<code>omgdb console</code> printed in your terminal, or that the daemon wrote to its log "
                "(a fresh link is logged when none is outstanding).</p></body></html>\n");
  }
  return refusal(401, "not signed in to the console: open a login link first");
}

answer site::handle(const request& r, const auth::origin_policy& origins, const session_view& sessions) {
  sweep();
  if (!r.host || !origins.host_allowed(*r.host)) return refusal(403, "Forbidden: Host not allowed");
  if (!origins.origin_allowed(r.origin ? std::optional<std::string_view>(*r.origin) : std::nullopt)) {
    return refusal(403, "Forbidden: Origin not allowed");
  }
  if (r.authorization) {
    return refusal(401, "the console does not accept an Authorization header (bearer tokens are for /mcp); "
                        "sign in with a login link");
  }
  if (r.has_body) return refusal(400, "console requests carry no body");
  if (r.method != "GET" && r.method != "POST") {
    answer a = refusal(405, "Method Not Allowed");
    a.reply.set("Allow", "GET, POST");
    return a;
  }
  std::string_view path = http::path_of(r.target);
  if (path == "/console/login") {
    if (r.method != "GET") return refusal(405, "Method Not Allowed");
    return log_in(query_of(r.target));
  }
  std::string digest;
  login* who = session_of(r.cookie, digest);
  if (!who) return signed_out(r);
  if (r.method == "POST") {
    if (!r.origin) return refusal(403, "Forbidden: a console POST must carry an Origin");
    if (!r.csrf || r.csrf->size() != who->csrf.size() || CRYPTO_memcmp(r.csrf->data(), who->csrf.data(), who->csrf.size()) != 0) {
      return refusal(403, "Forbidden: missing or wrong CSRF token (X-Omgdb-Csrf)");
    }
  }
  who->last_used = now();
  return route(r, digest, *who, sessions);
}

answer site::route(const request& r, const std::string& digest, login& who, const session_view& sessions) {
  std::string_view path = http::path_of(r.target);
  auto seg = segments(path);  // seg[0] == "console"
  bool get = r.method == "GET";
  if (seg.size() == 1 || (seg.size() == 2 && seg[1] == "index.html")) {
    if (!get) return refusal(405, "Method Not Allowed");
    auto a = find_asset("index.html");
    return page(200, a->content_type, std::string(a->body));
  }
  if (seg.size() == 2 && seg[1] != "api") {
    auto a = find_asset(seg[1]);
    if (!a || !get) return refusal(404, "no such console page");
    return page(200, a->content_type, std::string(a->body));
  }
  if (seg.size() < 3 || seg[1] != "api") return refusal(404, "no such console route");
  std::string_view what = seg[2];
  if (get && seg.size() == 3) {
    if (what == "me") return json_answer(200, bj::object{{"csrf", who.csrf}});
    if (what == "approvals") return json_answer(200, bj::object{{"pending", backend_.approvals ? backend_.approvals() : bj::array()}});
    if (what == "sessions") {
      bj::array list = sessions.list ? sessions.list() : bj::array();
      if (backend_.last_call) {
        for (auto& v : list) {
          auto& o = v.as_object();
          if (auto it = o.find("mcpSession"); it != o.end() && it->value().is_string()) {
            if (auto last = backend_.last_call(it->value().get_string())) o["lastCall"] = std::move(*last);
          }
        }
      }
      return json_answer(200, bj::object{{"sessions", std::move(list)}});
    }
    if (what == "history") {
      auto q = query_of(r.target);
      auto store = decoded(query_value(q, "store"));
      auto conn = decoded(query_value(q, "connection"));
      if (!store || !conn) return refusal(400, "malformed query");
      return json_answer(200, bj::object{{"calls", backend_.history ? backend_.history(*store, *conn) : bj::array()}});
    }
    if (what == "stores") return json_answer(200, backend_.stores ? backend_.stores() : bj::object{});
    if (what == "events") {
      if (streams_ >= settings_.max_streams) return refusal(503, "too many console event streams open");
      ++streams_;
      answer a;
      a.stream = true;
      a.session_digest = digest;
      http::add_sse_headers(a.reply);
      secure_headers(a.reply);
      return a;
    }
    return refusal(404, "no such console route");
  }
  if (r.method == "POST") {
    if (what == "logout" && seg.size() == 3) {
      logins_.erase(digest);
      answer a = json_answer(200, bj::object{{"ok", true}});
      a.reply.set("Set-Cookie", std::string(cookie_name) + "=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0");
      return a;
    }
    if (what == "approvals" && seg.size() == 5 && (seg[4] == "approve" || seg[4] == "reject")) {
      if (!backend_.decide) return refusal(503, "no approvals are served here");
      if (seg[3].size() > 64) return refusal(400, "approval id too long");
      auto ok = backend_.decide(seg[3], seg[4] == "approve");
      if (!ok) {
        log::info("console: " + std::string(seg[4]) + " of approval `" + std::string(seg[3]) + "` refused: " + ok.error().message);
        return refusal(409, ok.error().message);
      }
      log::info("console: approval `" + std::string(seg[3]) + "` " + (seg[4] == "approve" ? "approved" : "rejected") +
                " by a person in the web console");
      return json_answer(200, bj::object{{"ok", true}});
    }
    if (what == "sessions" && seg.size() == 5 && seg[4] == "end") {
      if (!sessions.end || !sessions.end(seg[3])) return refusal(404, "no live session `" + std::string(seg[3]) + "`");
      return json_answer(200, bj::object{{"ok", true}});
    }
  }
  return refusal(get ? 404 : 405, get ? "no such console route" : "Method Not Allowed");
}

std::optional<std::string> site::next_events(stream_state& st, const session_view& sessions) {
  sweep();
  if (logins_.find(st.session_digest) == logins_.end()) return std::nullopt;
  std::string out;
  if (backend_.approvals_version && backend_.approvals) {
    auto v = backend_.approvals_version();
    if (v != st.approvals_version) {
      st.approvals_version = v;
      out += sse("approvals", st.next_id++, bj::object{{"pending", backend_.approvals()}});
    }
  }
  if (backend_.history_version) {
    auto v = backend_.history_version();
    if (v != st.history_version) {
      st.history_version = v;
      out += sse("history", st.next_id++, bj::object{{"version", v}});
    }
  }
  if (sessions.list) {
    // Ages tick on their own: only a change of the set, a request in flight or a stream counts.
    bj::array list = sessions.list();
    for (auto& v : list) {
      if (!v.is_object()) continue;
      v.as_object().erase("ageMs");
      v.as_object().erase("idleMs");
    }
    std::string text = json::serialize(list);
    if (text != st.sessions_text) {
      st.sessions_text = std::move(text);
      out += sse("sessions", st.next_id++, bj::object{{"changed", true}});
    }
  }
  return out;
}

}  // namespace omgdb::transports::console
