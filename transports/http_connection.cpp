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

namespace detail {

namespace {
bool same_name(std::string_view a, std::string_view b) noexcept { return beast::iequals(a, b); }

}  // namespace

// Assigning into the view's strings reuses their storage, so a steady stream of requests
// copies its headers without allocating.
bool fill_view(const parser_type& parser, request_view& v) {
  const auto& req = parser.get();
  v.method.assign(req.method_string());
  v.target.assign(req.target());
  std::optional<std::string>* slots[] = {&v.host, &v.origin, &v.authorization, &v.content_type, &v.accept,
                                         &v.session_id, &v.protocol_version, &v.last_event_id,
                                         &v.cors_request_method};
  constexpr std::size_t slot_count = sizeof slots / sizeof slots[0];
  unsigned seen[slot_count] = {};
  for (const auto& f : req) {
    std::size_t i = slot_count;
    switch (f.name()) {
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
  v.chunked = parser.chunked();
  v.keep_alive = req.keep_alive();
  v.token_name.clear();
  v.granted = auth::scope::dangerous;
  // Repeated security headers are refused outright rather than guessed at.
  return seen[0] > 1 || seen[1] > 1 || seen[2] > 1 || seen[5] > 1;
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
  detail::tracked registration(*ctx, c.get());
  try {
    co_await detail::serve(ctx, c);
  } catch (const std::exception& e) {
    log::error(std::string("HTTP connection failed: ") + e.what());
  }
}

}  // namespace omgdb::transports::http
