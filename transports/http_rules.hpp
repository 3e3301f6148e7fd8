// omgdb transports — the HTTP rules that need no sockets: what a request head says, the
// gate every request passes (Host, Origin, path, method, token, Content-Type, protocol
// version), canned replies and SSE framing. No Asio or Beast here: the connection code
// copies the few headers it needs into a `request_view` and writes back an `http_reply`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "auth/origin.hpp"
#include "auth/scope.hpp"
#include "auth/token.hpp"
#include "auth/token_set.hpp"

namespace omgdb::transports::http {

struct request_view {
  std::string method;  // as sent: "GET", "POST", …
  std::string target;  // path and query
  std::optional<std::string> host, origin, authorization, content_type, accept, session_id,
      protocol_version, last_event_id, cors_request_method;
  std::optional<std::string> mcp_method, mcp_name;  // 2026-07-28 request metadata headers
  // Every Transfer-Encoding value of the head, joined with ", " (a repeated header is one list).
  std::optional<std::string> transfer_encoding;
  std::optional<std::uint64_t> content_length;
  unsigned version = 11;  // HTTP/1.1; 10 for HTTP/1.0
  bool chunked = false;
  bool keep_alive = true;
  // Set by `note_credential` once the gate has passed: the token's name and scope ceiling
  // ("" and dangerous without auth, so that the server's ceiling alone applies).
  std::string token_name;
  auth::scope granted = auth::scope::dangerous;

  bool has_body() const noexcept { return chunked || (content_length && *content_length > 0); }
};

struct http_reply {
  unsigned status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool close = false;  // close the connection after this reply

  void set(std::string name, std::string value);
};

// A JSON body `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}`; `id` is omitted
// when null (a reader cannot use `"id":null`).
http_reply json_error(unsigned status, int code, std::string_view message,
                      const boost::json::value& id = nullptr);
http_reply json_body(unsigned status, std::string body);
http_reply empty_reply(unsigned status);

struct accept_info {
  bool json = true;       // application/json, application/*, */* or no Accept at all
  bool sse = false;       // text/event-stream listed explicitly
  bool wildcard = true;   // no Accept at all, or */* (or text/*) listed
};
accept_info parse_accept(const std::optional<std::string>& accept);

// True when the media type of a Content-Type value is `type` (case-insensitive, parameters
// such as charset ignored).
bool media_type_is(std::string_view content_type, std::string_view type);

std::string_view path_of(std::string_view target) noexcept;
// True when the query string names a credential (access_token, token, bearer, api_key, …).
bool query_carries_credential(std::string_view target);

bool supported_protocol_version(std::string_view version) noexcept;

// A header value echoed in an error message: bytes outside printable ASCII become '?' (a
// value of invalid UTF-8 would otherwise make the JSON body unreadable), at most 100 of them.
std::string printable(std::string_view s);

// The SSE event id a GET's `Last-Event-ID` resumes after: 1 to 19 ASCII digits (at most
// 9999999999999999999, below 2^64). Anything else — empty, a sign, spaces, more digits, a
// non-digit — is no resume point (nullopt): the stream starts from what is still buffered.
std::optional<std::uint64_t> parse_last_event_id(std::string_view value) noexcept;

// The head of a `200 OK` reply carrying `r.body` (status line, `Server: omgdb`, the reply's
// headers in order, `Connection` when keep-alive needs saying for `version`, Content-Length,
// blank line), replacing `out`'s contents: byte for byte what Beast's serializer writes for
// the same message after keep_alive() and prepare_payload(). The caller sends the body after
// it. False (and `out` untouched) when the reply is not a plain 200 (another status, or a
// Connection, Content-Length or Transfer-Encoding header of its own): use Beast then.
bool ok_reply_head(std::string& out, const http_reply& r, unsigned version, bool keep_alive);

// `id: N\nevent: message\ndata: <json>\n\n`; a newline inside `json` (never produced by our
// serializer) would start a new `data:` line, as SSE requires.
std::string sse_frame(std::uint64_t id, std::string_view json);
inline constexpr std::string_view sse_keepalive_comment = ": keep-alive\n\n";

// Headers every SSE response carries.
void add_sse_headers(http_reply& reply);

struct gate_policy {
  std::string path = "/mcp";
  auth::origin_policy origins;
  auth::token_set tokens;
  bool no_auth = false;
  std::uint64_t max_body_bytes = 4u << 20;
  // Bumped whenever `tokens` is replaced (SIGHUP): every credential_memo taken under an
  // older generation is void.
  std::uint64_t tokens_generation = 1;
};

// What one connection remembers of the last `Authorization` value the gate accepted on it,
// so that the next request carrying the same value skips the SHA-256 of the token. The
// presented value is compared with the remembered one in constant time (CRYPTO_memcmp over
// equal lengths); anything else (another value, another length, a reload since) takes the
// full path. Only accepted values are remembered; the memo never leaves its connection (no
// log, no session record) and its copy of the value is wiped when the connection ends.
struct credential_memo {
  std::uint64_t generation = 0;  // gate_policy::tokens_generation when accepted; 0: empty
  std::string authorization;
  std::string name;
  auth::scope ceiling = auth::scope::read;

  credential_memo() = default;
  credential_memo(const credential_memo&) = delete;
  credential_memo& operator=(const credential_memo&) = delete;
  ~credential_memo();
};

// The verdict on a request's `Authorization` header: from `memo` when it holds this very
// value under the current token generation, else from the token set (then remembered in
// `memo` when valid). `memo` may be null.
auth::token_verdict judge_credential(const request_view& req, const gate_policy& policy,
                                     credential_memo* memo) noexcept;

// The request's framing (RFC 9112 §6), before any other check: a Transfer-Encoding on an
// HTTP/1.0 request, beside a Content-Length, empty, or not ending with a single `chunked`
// cannot be framed (400); a coding before `chunked` (gzip, deflate, …) is understood but not
// implemented (501). Either reply closes the connection: the body is never read, by length
// or otherwise. Nullopt: the framing is plain Content-Length, or `chunked` alone.
std::optional<http_reply> framing_refusal(const request_view& req);

// Runs the checks that need only the request head, in this order: Host (403/400), Origin
// (403), path (404), CORS preflight (204), method (405), credential in the query (400),
// bearer token (401), body size by Content-Length (413), POST Content-Type (415),
// MCP-Protocol-Version (400). Returns the reply to send, or nullopt to go on.
std::optional<http_reply> screen(const request_view& req, const gate_policy& policy,
                                 credential_memo* memo = nullptr);

// The operational endpoints beside the MCP path: `/healthz` (liveness, no token) and
// `/metrics` (Prometheus text, behind the token). Both pass the Host and Origin checks and
// answer GET (and HEAD) only.
enum class ops_endpoint { none, healthz, metrics };
ops_endpoint ops_endpoint_of(const request_view& req) noexcept;
// The refusal for an ops request, or nullopt when it may be answered.
std::optional<http_reply> screen_ops(const request_view& req, const gate_policy& policy, ops_endpoint which);

// Records which token the request carries (after `screen` accepted it).
void note_credential(request_view& req, const gate_policy& policy, credential_memo* memo = nullptr);

// CORS headers for a response to an allowed cross-origin request (no-op without Origin).
void add_cors(http_reply& reply, const request_view& req);

}  // namespace omgdb::transports::http
