#include "transports/http_modern.hpp"

#include <boost/json/object.hpp>

#include "common/base64.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "mcp/modern.hpp"
#include "transports/http_sessions.hpp"

namespace omgdb::transports::http {
namespace bj = boost::json;

namespace {

bool legacy_version(std::string_view v) noexcept { return supported_protocol_version(v); }

http_reply mismatch(std::string message, const mcp::envelope& e) {
  return json_error(400, mcp::header_mismatch, "Header mismatch: " + message, e.id ? *e.id : bj::value());
}

// RFC 9110 field-value characters: visible ASCII, space and tab.
bool header_safe(std::string_view v) noexcept {
  for (unsigned char c : v) {
    if (!(c == '\t' || (c >= 0x20 && c <= 0x7e))) return false;
  }
  return true;
}

// The body value Mcp-Name mirrors: params.name, or params.uri for resources/read.
std::optional<std::string_view> name_of(const mcp::envelope& e) {
  if (!e.params) return std::nullopt;
  auto it = e.params->find(e.method == "resources/read" ? "uri" : "name");
  if (it == e.params->end() || !it->value().is_string()) return std::nullopt;
  return std::string_view(it->value().get_string().data(), it->value().get_string().size());
}

}  // namespace

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (value.size() < open.size() + close.size() || value.substr(0, open.size()) != open ||
      value.substr(value.size() - close.size()) != close) {
    return std::string(value);
  }
  std::string_view b64 = value.substr(open.size(), value.size() - open.size() - close.size());
  return decode_base64(b64);
}

bool is_modern_post(const request_view& req, const mcp::envelope& e) {
  if (req.protocol_version && !legacy_version(*req.protocol_version)) return true;
  return e.method != "initialize" && mcp::declared_version(e.params).has_value();
}

std::optional<http_reply> modern_refusal(const request_view& req, const mcp::envelope& e) {
  if (!req.protocol_version) return mismatch("the MCP-Protocol-Version header is required", e);
  const std::string& version = *req.protocol_version;
  if (!mcp::modern_version_supported(version)) {
    bj::object envelope{{"jsonrpc", "2.0"}};
    if (e.id) envelope["id"] = *e.id;
    envelope["error"] = mcp::unsupported_version_error(printable(version));  // a header: any bytes
    return json_body(400, json::serialize(envelope));
  }
  auto body_version = mcp::declared_version(e.params);
  if (!body_version || (e.kind == mcp::inbound_kind::request && !mcp::declares_capabilities(e.params))) {
    // The body is not a valid request of this revision: invalid params, as the revision's
    // stdio binding answers it too (mcp::session::dispatch_modern).
    return json_error(400, -32602,
                      std::string("Invalid params: params._meta must carry ") +
                          (body_version ? "io.modelcontextprotocol/clientCapabilities (an object)"
                                        : "io.modelcontextprotocol/protocolVersion (MCP-Protocol-Version is `" +
                                              version + "`)"),
                      e.id ? *e.id : bj::value());
  }
  if (*body_version != version) {
    return mismatch("MCP-Protocol-Version header value '" + version + "' does not match body value '" +
                        std::string(*body_version) + "'",
                    e);
  }
  if (e.kind != mcp::inbound_kind::request) return std::nullopt;  // answered 202 by the caller
  if (!req.mcp_method) return mismatch("the Mcp-Method header is required", e);
  if (*req.mcp_method != e.method) {
    // Echoed only when it is header-safe ASCII: invalid UTF-8 would make the JSON body unreadable.
    if (!header_safe(*req.mcp_method)) return mismatch("the Mcp-Method header has characters a header may not carry", e);
    return mismatch("Mcp-Method header value '" + *req.mcp_method + "' does not match body value '" +
                        std::string(e.method) + "'",
                    e);
  }
  if (e.method == "tools/call" || e.method == "resources/read" || e.method == "prompts/get") {
    if (!req.mcp_name) return mismatch("the Mcp-Name header is required for " + std::string(e.method), e);
    if (!header_safe(*req.mcp_name)) return mismatch("the Mcp-Name header has characters a header may not carry", e);
    auto decoded = decode_header_value(*req.mcp_name);
    if (!decoded) return mismatch("the Mcp-Name header is not valid =?base64?…?= encoding", e);
    auto body = name_of(e);
    if (!body || *body != *decoded) {
      return mismatch("Mcp-Name header value '" + *req.mcp_name + "' does not match body value '" +
                          std::string(body.value_or("")) + "'",
                      e);
    }
  }
  if (!mcp::modern_method_known(e.method)) {
    return json_error(404, -32601, "Method not found: " + std::string(e.method), e.id ? *e.id : bj::value());
  }
  return std::nullopt;
}

exchange session_table::handle_modern_post(const request_view& req, json::parsed&& parsed, const mcp::envelope& e) {
  exchange ex;
  if (auto refusal = modern_refusal(req, e)) {
    ex.reply = std::move(*refusal);
    return ex;
  }
  if (e.kind != mcp::inbound_kind::request) {
    ex.reply.status = 202;  // 2026-07-28 defines no client notification over HTTP: nothing to do
    return ex;
  }
  auto hs = carrier_for(req, e.key);
  accept_info accept = parse_accept(req.accept);
  ex.session = hs;
  ex.out = hs->open_request(e.key, accept.sse, accept.sse && !accept.json);
  hs->mcp().handle_message(std::move(parsed.value), e, parsed.violation);
  return ex;
}

namespace {
constexpr std::size_t max_carriers = 64;          // pooled carriers, every token together
constexpr std::size_t carrier_max_in_flight = 8;  // requests one carrier takes at once
}  // namespace

// A stateless request needs a dispatcher at the token's scope and a place for its response,
// and nothing else: no state of one request is read by another (the dispatcher's session
// state is never set by a modern request). Carriers are pooled because building a
// dispatcher per request costs more than the request (bench/http/modern_vs_legacy.py). A
// carrier is only shared by requests of the same token and scope whose ids differ; a dropped
// response cancels only its own request (mcp::session::cancel_request).
std::shared_ptr<http_session> session_table::carrier_for(const request_view& req, const std::string& key) {
  const auth::scope wanted = auth::intersect(ceiling_, req.granted);
  std::shared_ptr<http_session> idle_other;
  for (auto& hs : modern_) {
    if (hs->token_name == req.token_name && hs->granted == wanted) {
      if (hs->in_flight() < carrier_max_in_flight && !hs->has_pending(key)) return hs;
    } else if (!idle_other && !hs->busy()) {
      idle_other = hs;
    }
  }
  auto hs = std::make_shared<http_session>(std::string(), options_.limits, 1);
  hs->token_name = req.token_name;
  hs->granted = wanted;
  hs->cancel_on_drop = true;
  start_dispatcher(hs);
  hs->mcp().set_label("stateless");
  hs->mcp().share_warm_keys(modern_warm_);
  if (modern_.size() >= max_carriers) {
    // Full: an idle carrier of another token makes room; with none, this one is not pooled.
    if (!idle_other) return hs;
    std::erase(modern_, idle_other);
  }
  modern_.push_back(hs);
  return hs;
}

}  // namespace omgdb::transports::http
