// Fuzz target 7: an HTTP request head through the gate, and the header parsers behind it.
//
// Input: a request head as text — "METHOD TARGET HTTP/1.x", then "Name: value" lines. The
// headers the connection copies (transports/http_connection.cpp, fill_view: Host, Origin,
// Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID,
// Access-Control-Request-Method, Mcp-Method, Mcp-Name, Transfer-Encoding, Content-Length) fill a request_view, which
// goes through framing_refusal, screen (with and without a token, with an allowed origin and
// host), screen_ops, note_credential and add_cors; then each header through its parser
// (parse_accept, media_type_is, normalize_origin, is_loopback_host, bearer_token_of,
// parse_listen_address, query_carries_credential, parse_last_event_id). A request for /mcp then
// goes to a session table (POST with the body after the head, GET, DELETE; `$SESSION` in
// Mcp-Session-Id names its open session), where Mcp-Session-Id is looked up, Last-Event-ID
// resumes a stream and a modern POST's Mcp-Method / Mcp-Name are checked against the body. Every refusal is a real HTTP status with
// a JSON body a client can read, CORS headers name only an allowed Origin; a request the gate lets through with a token carries it.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "auth/origin.hpp"
#include "auth/token.hpp"
#include "common/json.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"
#include "transports/http_rules.hpp"
#include "transports/http_sessions.hpp"

using namespace omgdb;
using namespace omgdb::transports::http;

namespace {

constexpr const char* k_name = "http_screen";
constexpr std::string_view k_token = "0123456789abcdef0123456789abcdef0123456789abcdef";

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

request_view view_of(std::string_view text) {
  request_view v;
  auto lines = fuzz::lines_of(text, 40);
  if (lines.empty()) return v;
  std::string_view first = trim(lines[0]);
  auto sp = first.find(' ');
  v.method = std::string(first.substr(0, sp));
  if (sp != std::string_view::npos) {
    std::string_view rest = first.substr(sp + 1);
    auto sp2 = rest.find(' ');
    v.target = std::string(rest.substr(0, sp2));
    if (sp2 != std::string_view::npos && trim(rest.substr(sp2 + 1)) == "HTTP/1.0") v.version = 10;
  }
  struct slot {
    std::string_view name;
    std::optional<std::string>* field;
  } slots[] = {{"Host", &v.host},
               {"Origin", &v.origin},
               {"Authorization", &v.authorization},
               {"Content-Type", &v.content_type},
               {"Accept", &v.accept},
               {"Mcp-Session-Id", &v.session_id},
               {"MCP-Protocol-Version", &v.protocol_version},
               {"Last-Event-ID", &v.last_event_id},
               {"Access-Control-Request-Method", &v.cors_request_method},
               {"Mcp-Method", &v.mcp_method},
               {"Mcp-Name", &v.mcp_name}};
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) break;  // the end of the head; the body follows
    auto colon = lines[i].find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = trim(lines[i].substr(0, colon));
    std::string_view val = trim(lines[i].substr(colon + 1));
    // Beast refuses a head with CR, LF or NUL inside a field value: none reaches fill_view.
    if (val.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) continue;
    if (same_name(name, "Transfer-Encoding")) {
      if (!v.transfer_encoding) v.transfer_encoding.emplace();
      else v.transfer_encoding->append(", ");
      v.transfer_encoding->append(val);
    } else if (same_name(name, "Content-Length")) {
      std::uint64_t n = 0;
      auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), n);
      if (ec == std::errc() && p == val.data() + val.size()) v.content_length = n;
    } else if (same_name(name, "Connection")) {
      v.keep_alive = !same_name(val, "close");
    } else {
      for (auto& s : slots) {
        if (same_name(name, s.name) && !s.field->has_value()) *s.field = std::string(val);
      }
    }
  }
  if (v.transfer_encoding) {
    std::string_view te = trim(*v.transfer_encoding);
    v.chunked = te.size() >= 7 && same_name(te.substr(te.size() - 7), "chunked");
  }
  return v;
}

void check_reply(const http_reply& r, std::string_view what, const gate_policy* p = nullptr,
                 const request_view* v = nullptr) {
  OMGDB_FUZZ_CHECK(k_name, r.status >= 100 && r.status <= 599, std::string(what));
  for (const auto& [name, value] : r.headers) {
    if (p && v && name == "Access-Control-Allow-Origin") {
      // CORS only ever names an Origin the policy allows.
      OMGDB_FUZZ_CHECK(k_name, p->origins.origin_allowed(v->origin), "CORS for a refused Origin: " + value);
    }
    OMGDB_FUZZ_CHECK(k_name, name.find_first_of("\r\n") == std::string::npos, name);
    OMGDB_FUZZ_CHECK(k_name, value.find_first_of("\r\n") == std::string::npos, "header injection: " + value);
  }
  if (!r.body.empty() && r.body.front() == '{') {
    OMGDB_FUZZ_CHECK(k_name, json::parse_strict(r.body).ok(), r.body);
  }
}

const gate_policy& policy(int which) {
  static const gate_policy policies[] = {
      [] {
        gate_policy p;
        p.origins.port = 41922;
        p.tokens.add(auth::named_token{"main", auth::sha256(k_token), auth::scope::read_write});
        p.tokens.add(auth::named_token{"reader", auth::sha256("reader-token-reader-token-reader-token"), auth::scope::read});
        return p;
      }(),
      [] {
        gate_policy p;
        p.origins.port = 8080;
        p.origins.allowed_origins = {"https://tunnel.example"};
        p.origins.allowed_hosts = {"tunnel.example"};
        p.no_auth = true;
        p.max_body_bytes = 1024;
        return p;
      }()};
  return policies[which];
}

// Last-Event-ID (session_table::handle_get): a resume point exactly when the value is 1 to 19
// digits, and then the number those digits write.
void check_last_event_id(std::string_view text) {
  const auto id = parse_last_event_id(text);
  const bool digits = !text.empty() && text.size() <= 19 &&
                      text.find_first_not_of("0123456789") == std::string_view::npos;
  OMGDB_FUZZ_CHECK(k_name, id.has_value() == digits, "Last-Event-ID: " + std::string(text));
  if (!id) return;
  std::string_view significant = text.substr(std::min(text.find_first_not_of('0'), text.size() - 1));
  OMGDB_FUZZ_CHECK(k_name, std::to_string(*id) == significant, "Last-Event-ID " + std::string(text) + " read as " + std::to_string(*id));
}

// The body: what follows the head's blank line.
std::string_view body_of(std::string_view text) {
  for (std::string_view sep : {std::string_view("\r\n\r\n"), std::string_view("\n\n"), std::string_view("\n\r\n")}) {
    if (auto at = text.find(sep); at != std::string_view::npos) return text.substr(at + sep.size());
  }
  return {};
}

// Past the gate, the request reaches the session table (transports/http_sessions.cpp): a
// fresh table per input, with one session already open whose id replaces `$SESSION` in
// Mcp-Session-Id, over a server without tools; messages are delivered inline.
void through_sessions(request_view v, std::string_view body) {
  static mcp::server srv{{}, {}};
  std::int64_t now = 1'700'000'000'000;
  session_table table(srv, auth::scope::read, {}, [](std::function<void()> fn) { fn(); }, [&now] { return now; });
  table.set_on_loop([] { return true; });
  request_view init;
  init.method = "POST";
  init.target = "/mcp";
  init.accept = "application/json, text/event-stream";
  init.content_type = "application/json";
  auto opened = table.handle_post(init, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
  OMGDB_FUZZ_CHECK(k_name, opened.session != nullptr, opened.reply.body);
  const std::string sid = opened.session->id();
  if (v.session_id && *v.session_id == "$SESSION") v.session_id = sid;
  if (v.method == "POST") {
    auto ex = table.handle_post(v, body);
    check_reply(ex.reply, "session POST");
  } else if (v.method == "GET") {
    auto ex = table.handle_get(v);
    check_reply(ex.reply, "session GET");
    if (ex.out) OMGDB_FUZZ_CHECK(k_name, v.session_id == sid, "a stream for an unknown session");
  } else if (v.method == "DELETE") {
    check_reply(table.handle_delete(v), "session DELETE");
  }
  now += 1000;
  table.end_all("the fuzz input ended");
  table.close_all();
}

}  // namespace

OMGDB_FUZZ_TARGET(http_screen) {
  const auto text = fuzz::text_of(data, size);
  request_view v = view_of(text);

  if (auto r = framing_refusal(v)) {
    check_reply(*r, "framing");
    OMGDB_FUZZ_CHECK(k_name, r->close, "a framing refusal keeps the connection");
  }
  for (int which : {0, 1}) {
    const gate_policy& p = policy(which);
    credential_memo memo;
    for (int pass = 0; pass < 2; ++pass) {  // the second pass answers from the memo
      auto r = screen(v, p, &memo);
      if (r) {
        check_reply(*r, "screen", &p, &v);
      } else if (!p.no_auth) {
        // Through the gate with auth on: the request carried a valid token.
        auto verdict = p.tokens.judge(v.authorization);
        OMGDB_FUZZ_CHECK(k_name, verdict.cred == auth::credential::valid || v.method == "OPTIONS",
                         "let through without a valid token: " + std::string(text));
      }
      if (!r) {
        request_view copy = v;
        note_credential(copy, p, &memo);
        http_reply ok = json_body(200, "{}");
        add_cors(ok, copy);
        check_reply(ok, "cors", &p, &copy);
      }
    }
    auto which_ops = ops_endpoint_of(v);
    if (which_ops != ops_endpoint::none) {
      if (auto r = screen_ops(v, p, which_ops)) check_reply(*r, "ops", &p, &v);
    }
  }

  (void)parse_accept(v.accept);
  if (v.content_type) (void)media_type_is(*v.content_type, "application/json");
  (void)path_of(v.target);
  (void)query_carries_credential(v.target);
  if (v.protocol_version) (void)supported_protocol_version(*v.protocol_version);
  if (v.origin) {
    if (auto o = auth::normalize_origin(*v.origin)) {
      // Normalising is idempotent.
      auto again = auth::normalize_origin(*o);
      OMGDB_FUZZ_CHECK(k_name, again && *again == *o, *o);
    }
  }
  if (v.host) {
    (void)auth::is_loopback_host(*v.host);
    (void)auth::parse_listen_address(*v.host);
  }
  if (v.authorization) (void)auth::bearer_token_of(*v.authorization);
  if (v.last_event_id) check_last_event_id(*v.last_event_id);
  std::string head;
  http_reply plain = json_body(200, std::string(v.target));
  (void)ok_reply_head(head, plain, v.version, v.keep_alive);
  (void)sse_frame(1, v.target);
  if (v.target == "/mcp") through_sessions(v, body_of(text));
  return 0;
}
