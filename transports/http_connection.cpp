// The plain-TCP half of the HTTP connection: the shared connection bookkeeping, the request
// head reader (fill_view) and `serve_connection`. The TLS half is http_connection_tls.cpp.
#include "transports/http_connection.hpp"

#include <exception>

#include "transports/http_connection_serve.hpp"

namespace omgdb::transports::http {

void server_context::close_idle_connections() {
  for (connection* c : live) {
    if (c->idle) c->lowest().cancel();
  }
}

void server_context::close_all_connections() {
  for (connection* c : live) {
    beast::error_code ec;
    c->lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    c->lowest().cancel();
  }
}

bool server_context::evict_one() {
  connection* pick = nullptr;
  auto rank = [](const connection* c) { return c->authenticated ? 1 : 0; };  // strangers first
  for (connection* c : live) {
    if (c->evicted || (c->authenticated && !c->idle)) continue;
    if (!pick || rank(c) < rank(pick) || (rank(c) == rank(pick) && c->since < pick->since)) pick = c;
  }
  if (!pick) return false;
  pick->evicted = true;
  ++evicting;
  beast::error_code ec;
  pick->lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
  pick->lowest().cancel();
  log::debug(std::string("connection slots full: closed ") + (pick->authenticated ? "an idle keep-alive" : "an unauthenticated") +
             " connection to make room");
  return true;
}

namespace detail {

namespace {
bool same_name(std::string_view a, std::string_view b) noexcept { return beast::iequals(a, b); }

}  // namespace

// Assigning into the view's strings reuses their storage, so a steady stream of requests
// copies its headers without allocating.
std::string_view fill_view(const parser_type& parser, request_view& v) {
  const auto& req = parser.get();
  v.method.assign(req.method_string());
  v.target.assign(req.target());
  std::optional<std::string>* slots[] = {&v.host, &v.origin, &v.authorization, &v.content_type, &v.accept,
                                         &v.session_id, &v.protocol_version, &v.last_event_id,
                                         &v.cors_request_method, &v.mcp_method, &v.mcp_name};
  // How each slot's header is named in the refusal of a repeat; "" for Accept, a list that
  // may be split over several lines (RFC 9110 §5.3).
  static constexpr std::string_view single[] = {"Host",          "Origin",
                                                "Authorization", "Content-Type",
                                                "",              "Mcp-Session-Id",
                                                "MCP-Protocol-Version", "Last-Event-ID",
                                                "Access-Control-Request-Method", "Mcp-Method",
                                                "Mcp-Name"};
  constexpr std::size_t slot_count = sizeof slots / sizeof slots[0];
  static_assert(sizeof single / sizeof single[0] == slot_count);
  unsigned seen[slot_count] = {};
  v.transfer_encoding.reset();
  for (const auto& f : req) {
    std::size_t i = slot_count;
    switch (f.name()) {
      case bhttp::field::transfer_encoding:  // repeated: one list (RFC 9110 §5.3)
        if (!v.transfer_encoding) v.transfer_encoding.emplace();
        else v.transfer_encoding->append(", ");
        v.transfer_encoding->append(f.value());
        break;
      case bhttp::field::host: i = 0; break;
      case bhttp::field::origin: i = 1; break;
      case bhttp::field::authorization: i = 2; break;
      case bhttp::field::content_type: i = 3; break;
      case bhttp::field::accept: i = 4; break;
      case bhttp::field::access_control_request_method: i = 8; break;
      default: {
        std::string_view name = f.name_string();
        if (same_name(name, "Mcp-Session-Id")) i = 5;
        else if (same_name(name, "MCP-Protocol-Version")) i = 6;
        else if (same_name(name, "Last-Event-ID")) i = 7;
        else if (same_name(name, "Mcp-Method")) i = 9;
        else if (same_name(name, "Mcp-Name")) i = 10;
      }
    }
    if (i == slot_count || seen[i]++) continue;
    auto& out = *slots[i];
    if (!out) out.emplace();
    out->assign(f.value());
  }
  for (std::size_t i = 0; i < slot_count; ++i) {
    if (!seen[i]) slots[i]->reset();
  }
  v.content_length.reset();
  if (auto n = parser.content_length()) v.content_length = *n;
  v.version = req.version();
  v.chunked = parser.chunked();
  v.keep_alive = req.keep_alive();
  v.token_name.clear();
  v.granted = auth::scope::dangerous;
  // Repeated single-valued headers are refused outright rather than guessed at: a proxy and
  // this server could each read another copy.
  for (std::size_t i = 0; i < slot_count; ++i) {
    if (seen[i] > 1 && !single[i].empty()) return single[i];
  }
  return {};
}

beast::error_code parse_buffered(parser_type& parser, beast::flat_buffer& buffer, bool whole) {
  beast::error_code ec;
  while (!(whole ? parser.is_done() : parser.is_header_done()) && buffer.size() > 0) {
    std::size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (ec == bhttp::error::need_more) return {};
    if (ec || used == 0) break;
  }
  return ec;
}

bool malformed(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::need_more && ec != bhttp::error::header_limit &&
         ec != bhttp::error::body_limit;
}

http_reply malformed_reply() {
  http_reply r = json_error(400, -32000, "Bad Request: malformed HTTP");
  r.close = true;
  return r;
}

bool stalled_framing(const parser_type& parser, const beast::flat_buffer& buffer) {
  if (!parser.chunked() || buffer.size() == 0) return false;
  if (buffer.size() > 4096) return true;
  auto bytes = static_cast<const char*>(buffer.data().data());
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (bytes[i] == '\n' && (i == 0 || bytes[i - 1] != '\r')) return true;
  }
  return false;
}

asio::awaitable<void> close_stream(stream_connection<beast::tcp_stream>& c) {
  beast::error_code ignored;
  c.lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  c.stream.close();
  co_return;
}

}  // namespace detail

asio::awaitable<void> serve_connection(std::shared_ptr<server_context> ctx, tcp::socket socket) {
  auto c = std::make_shared<detail::stream_connection<beast::tcp_stream>>(std::move(socket));
  tracked registration(*ctx, c.get());
  try {
    co_await detail::serve(ctx, c);
  } catch (const std::exception& e) {
    log::error(std::string("HTTP connection failed: ") + e.what());
  }
}

}  // namespace omgdb::transports::http
