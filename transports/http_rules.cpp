#include "transports/http_rules.hpp"

#include "transports/http_modern.hpp"

#include <charconv>

#include <openssl/crypto.h>

#include <boost/json/object.hpp>

#include "common/json.hpp"
#include "mcp/modern.hpp"
#include "mcp/session.hpp"

namespace omgdb::transports::http {
namespace bj = boost::json;

namespace {

char lower_char(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }


bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a == b) return true;  // the usual case: sent in the spelling compared with
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower_char(a[i]) != lower_char(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view allowed_methods = "GET, POST, DELETE";

}  // namespace

void http_reply::set(std::string name, std::string value) {
  for (auto& [n, v] : headers) {
    if (iequals(n, name)) {
      v = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

http_reply json_body(unsigned status, std::string body) {
  http_reply r;
  r.status = status;
  r.body = std::move(body);
  r.set("Content-Type", "application/json");
  return r;
}

http_reply json_error(unsigned status, int code, std::string_view message, const bj::value& id) {
  bj::object err{{"code", code}, {"message", message}};
  bj::object envelope{{"jsonrpc", "2.0"}};
  if (!id.is_null()) envelope["id"] = id;
  envelope["error"] = std::move(err);
  return json_body(status, json::serialize(envelope));
}

// Defined here, beside screen() which calls it, so that the socket-free rules link alone (fuzz/).
std::optional<http_reply> modern_get_or_delete(const request_view& req) {
  if (!req.protocol_version || supported_protocol_version(*req.protocol_version)) return std::nullopt;
  if (!mcp::modern_version_supported(*req.protocol_version)) return std::nullopt;  // the gate's 400
  http_reply r = json_error(405, -32000, "Method Not Allowed: protocol " + *req.protocol_version +
                                             " has no GET stream and no sessions; POST each request");
  r.set("Allow", "POST");
  return r;
}

http_reply empty_reply(unsigned status) {
  http_reply r;
  r.status = status;
  return r;
}

accept_info parse_accept(const std::optional<std::string>& accept) {
  accept_info info;
  if (!accept || trim(*accept).empty()) return info;
  // What MCP clients send on every POST (the SDKs), answered without splitting the list.
  if (*accept == "application/json, text/event-stream" || *accept == "text/event-stream, application/json") {
    return accept_info{true, true, false};
  }
  info = accept_info{false, false, false};
  std::string_view rest(*accept);
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    item = trim(item.substr(0, item.find(';')));
    if (iequals(item, "*/*")) info.json = info.wildcard = true;
    else if (iequals(item, "application/json") || iequals(item, "application/*")) info.json = true;
    else if (iequals(item, "text/event-stream")) info.sse = true;
    else if (iequals(item, "text/*")) info.wildcard = true;
  }
  return info;
}

bool media_type_is(std::string_view content_type, std::string_view type) {
  return iequals(trim(content_type.substr(0, content_type.find(';'))), type);
}

std::string_view path_of(std::string_view target) noexcept {
  return target.substr(0, target.find_first_of("?#"));
}

bool query_carries_credential(std::string_view target) {
  auto q = target.find('?');
  if (q == std::string_view::npos) return false;
  std::string_view rest = target.substr(q + 1);
  static constexpr std::string_view names[] = {"access_token", "token", "bearer", "bearer_token",
                                                "api_key", "apikey", "key", "auth", "authorization"};
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    std::string_view name = pair.substr(0, pair.find('='));
    for (auto n : names) {
      if (iequals(name, n)) return true;
    }
  }
  return false;
}

std::optional<std::uint64_t> parse_last_event_id(std::string_view value) noexcept {
  if (value.empty() || value.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

std::string printable(std::string_view s) {
  std::string out(s.substr(0, 100));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  if (s.size() > 100) out += "...";
  return out;
}

bool supported_protocol_version(std::string_view version) noexcept {
  for (auto v : mcp::supported_versions) {
    if (v == version) return true;
  }
  return false;
}

bool ok_reply_head(std::string& out, const http_reply& r, unsigned version, bool keep_alive) {
  if (r.status != 200 || (version != 10 && version != 11)) return false;
  for (const auto& [name, value] : r.headers) {
    if (iequals(name, "Connection") || iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding")) {
      return false;
    }
  }
  out.assign(version == 11 ? "HTTP/1.1 200 OK\r\nServer: omgdb\r\n" : "HTTP/1.0 200 OK\r\nServer: omgdb\r\n");
  for (const auto& [name, value] : r.headers) {
    out.append(name).append(": ").append(value).append("\r\n");
  }
  if (version == 11 && !keep_alive) out.append("Connection: close\r\n");
  if (version == 10 && keep_alive) out.append("Connection: keep-alive\r\n");
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, r.body.size());
  out.append("Content-Length: ").append(digits, end).append("\r\n\r\n");
  return true;
}

std::string sse_frame(std::uint64_t id, std::string_view json) {
  std::string out;
  out.reserve(json.size() + 48);
  out += "id: ";
  out += std::to_string(id);
  out += "\nevent: message\n";
  std::size_t start = 0;
  for (;;) {
    auto nl = json.find('\n', start);
    out += "data: ";
    out.append(json.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    out += '\n';
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  out += '\n';
  return out;
}

void add_sse_headers(http_reply& reply) {
  reply.set("Content-Type", "text/event-stream");
  reply.set("Cache-Control", "no-cache, no-transform");
  reply.set("X-Accel-Buffering", "no");
  reply.set("Connection", "keep-alive");
}

void add_cors(http_reply& reply, const request_view& req) {
  if (!req.origin) return;
  reply.set("Access-Control-Allow-Origin", *req.origin);
  reply.set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version");
  reply.set("Vary", "Origin");
}

ops_endpoint ops_endpoint_of(const request_view& req) noexcept {
  auto path = path_of(req.target);
  if (path == "/healthz") return ops_endpoint::healthz;
  if (path == "/metrics") return ops_endpoint::metrics;
  return ops_endpoint::none;
}

std::optional<http_reply> screen_ops(const request_view& req, const gate_policy& policy, ops_endpoint which) {
  auto finish = [&](http_reply r) {
    if (req.has_body()) r.close = true;
    return r;
  };
  if (!req.host) return finish(json_error(400, -32000, "Bad Request: the Host header is required"));
  if (!policy.origins.host_allowed(*req.host)) return finish(json_error(403, -32000, "Forbidden: Host is not allowed"));
  if (!policy.origins.origin_allowed(req.origin)) return finish(json_error(403, -32000, "Forbidden: Origin is not allowed"));
  if (req.method != "GET" && req.method != "HEAD") {
    http_reply r = json_error(405, -32000, "Method Not Allowed: use GET");
    r.set("Allow", "GET, HEAD");
    r.close = req.method == "HEAD" || req.has_body();
    return r;
  }
  if (which == ops_endpoint::metrics && !policy.no_auth) {
    if (query_carries_credential(req.target)) {
      return finish(json_error(400, -32000, "Bad Request: credentials are not accepted in the URL"));
    }
    auto cred = policy.tokens.judge(req.authorization ? std::optional<std::string_view>(*req.authorization)
                                                      : std::nullopt).cred;
    if (cred != auth::credential::valid) {
      bool wrong = cred == auth::credential::wrong;
      http_reply r = json_error(401, -32000, wrong ? "Unauthorized: the bearer token is not valid"
                                                   : "Unauthorized: send `Authorization: Bearer <token>`");
      r.set("WWW-Authenticate", wrong ? R"(Bearer realm="omgdb", error="invalid_token")" : R"(Bearer realm="omgdb")");
      return finish(std::move(r));
    }
  }
  return std::nullopt;
}

credential_memo::~credential_memo() { OPENSSL_cleanse(authorization.data(), authorization.size()); }

auth::token_verdict judge_credential(const request_view& req, const gate_policy& policy,
                                     credential_memo* memo) noexcept {
  if (!req.authorization) return policy.tokens.judge(std::nullopt);
  const std::string& presented = *req.authorization;
  if (memo && memo->generation == policy.tokens_generation && memo->authorization.size() == presented.size() &&
      CRYPTO_memcmp(memo->authorization.data(), presented.data(), presented.size()) == 0) {
    return auth::token_verdict{auth::credential::valid, memo->name, memo->ceiling};
  }
  auto v = policy.tokens.judge(std::string_view(presented));
  if (memo && v.cred == auth::credential::valid) {
    try {
      memo->authorization = presented;
      memo->name = std::string(v.name);
      memo->ceiling = v.ceiling;
      memo->generation = policy.tokens_generation;
      v.name = memo->name;
    } catch (...) {
      memo->generation = 0;  // out of memory: simply not remembered
    }
  } else if (memo) {
    memo->generation = 0;  // a refused value forgets the accepted one
  }
  return v;
}

void note_credential(request_view& req, const gate_policy& policy, credential_memo* memo) {
  if (policy.no_auth) return;
  auto v = judge_credential(req, policy, memo);
  req.token_name = std::string(v.name);
  req.granted = v.ceiling;
}

std::optional<http_reply> framing_refusal(const request_view& req) {
  if (!req.transfer_encoding) return std::nullopt;
  auto refuse = [](unsigned status, std::string_view why) {
    http_reply r = json_error(status, -32000, std::string(status == 501 ? "Not Implemented: " : "Bad Request: ") +
                                                  std::string(why));
    r.close = true;
    return r;
  };
  if (req.version < 11) return refuse(400, "Transfer-Encoding on an HTTP/1.0 request");
  if (req.content_length) return refuse(400, "both Transfer-Encoding and Content-Length");
  std::vector<std::string_view> codings;
  std::string_view rest = *req.transfer_encoding;
  while (!rest.empty() && codings.size() <= 8) {  // a longer list is refused below either way
    std::size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (!item.empty()) codings.push_back(item);  // empty list elements are allowed (RFC 9110 §5.6.1)
  }
  std::size_t chunked = 0;
  for (auto c : codings) chunked += iequals(c, "chunked");
  if (codings.empty() || !iequals(codings.back(), "chunked") || chunked > 1 || codings.size() > 8) {
    return refuse(400, "Transfer-Encoding must be chunked, applied once and last");
  }
  if (codings.size() > 1) return refuse(501, "only the chunked transfer coding is supported");
  return std::nullopt;
}

std::optional<http_reply> screen(const request_view& req, const gate_policy& policy, credential_memo* memo) {
  auto finish = [&](http_reply r) {
    add_cors(r, req);
    if (req.has_body()) r.close = true;  // the body was not read
    return r;
  };
  if (!req.host) {
    http_reply r = json_error(400, -32000, "Bad Request: the Host header is required");
    if (req.has_body()) r.close = true;
    return r;  // no CORS headers before the Origin is checked
  }
  if (!policy.origins.host_allowed(*req.host)) {
    http_reply r = json_error(403, -32000, "Forbidden: Host `" + printable(*req.host) +
                                               "` is not allowed (use a loopback name with the port, or --allow-host)");
    if (req.has_body()) r.close = true;
    return r;  // no CORS headers for a refused host
  }
  if (!policy.origins.origin_allowed(req.origin)) {
    http_reply r = json_error(403, -32000, "Forbidden: Origin is not allowed (loopback origins of this port, or --allow-origin)");
    if (req.has_body()) r.close = true;
    return r;
  }
  if (path_of(req.target) != policy.path) {
    return finish(json_error(404, -32000, "Not Found: this server serves MCP at " + policy.path + " only"));
  }
  if (req.method == "OPTIONS") {
    http_reply r = empty_reply(204);
    r.set("Allow", std::string(allowed_methods) + ", OPTIONS");
    if (req.origin) {
      r.set("Access-Control-Allow-Methods", std::string(allowed_methods) + ", OPTIONS");
      r.set("Access-Control-Allow-Headers",
            "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Mcp-Method, "
            "Mcp-Name");
      r.set("Access-Control-Max-Age", "600");
    }
    return finish(std::move(r));
  }
  if (req.method != "GET" && req.method != "POST" && req.method != "DELETE") {
    http_reply r = json_error(405, -32000, "Method Not Allowed: use GET, POST or DELETE");
    r.set("Allow", std::string(allowed_methods));
    if (req.method == "HEAD") r.close = true;  // a HEAD reply may not carry the body it has
    return finish(std::move(r));
  }
  if (query_carries_credential(req.target)) {
    return finish(json_error(400, -32000,
                             "Bad Request: credentials are not accepted in the URL; send `Authorization: Bearer <token>`"));
  }
  if (!policy.no_auth) {
    auto cred = judge_credential(req, policy, memo).cred;
    if (cred != auth::credential::valid) {
      bool wrong = cred == auth::credential::wrong;
      http_reply r = json_error(401, -32000, wrong ? "Unauthorized: the bearer token is not valid"
                                                   : "Unauthorized: send `Authorization: Bearer <token>`");
      r.set("WWW-Authenticate", wrong ? R"(Bearer realm="omgdb", error="invalid_token")" : R"(Bearer realm="omgdb")");
      return finish(std::move(r));
    }
  }
  if (req.content_length && *req.content_length > policy.max_body_bytes) {
    return finish(json_error(413, -32000, "Payload Too Large: the body exceeds " +
                                              std::to_string(policy.max_body_bytes) + " bytes"));
  }
  accept_info accept = parse_accept(req.accept);
  if (req.method == "POST") {
    if (!req.content_type || !media_type_is(*req.content_type, "application/json")) {
      return finish(json_error(415, -32000, "Unsupported Media Type: Content-Type must be application/json"));
    }
    if (!accept.json && !accept.sse) {
      return finish(json_error(406, -32000,
                               "Not Acceptable: Accept must allow application/json or text/event-stream"));
    }
  }
  if (req.method == "GET" && !accept.sse && !accept.wildcard) {
    return finish(json_error(406, -32000, "Not Acceptable: the GET stream is text/event-stream"));
  }
  if (req.protocol_version && !supported_protocol_version(*req.protocol_version)) {
    if (req.method == "POST") return std::nullopt;  // a modern request: transports/http_modern.hpp
    if (auto r = modern_get_or_delete(req)) return finish(std::move(*r));
    std::string list;
    for (auto v : mcp::supported_versions) list += (list.empty() ? "" : ", ") + std::string(v);
    return finish(json_error(400, -32000, "Bad Request: unsupported MCP-Protocol-Version `" +
                                              printable(*req.protocol_version) + "` (supported: " + list + ")"));
  }
  return std::nullopt;
}

}  // namespace omgdb::transports::http
