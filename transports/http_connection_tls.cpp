// The TLS half of the HTTP connection: `serve_tls_connection` detects TLS, handshakes and
// serves the connection with the same coroutine as the plain half (http_connection_serve.hpp),
// instantiated here for an ssl_stream in its own translation unit.
#include <exception>

#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "transports/http_connection_serve.hpp"
#include "transports/http_tls.hpp"

namespace omgdb::transports::http {
using tls_stream = beast::ssl_stream<beast::tcp_stream>;

namespace detail {

// Sends TLS close_notify (waiting briefly for the peer's), then closes the socket.
asio::awaitable<void> close_stream(stream_connection<tls_stream>& c) {
  c.lowest().expires_after(std::chrono::seconds(2));
  co_await c.stream.async_shutdown(detail::nothrow);
  c.lowest().close();
}


}  // namespace detail

asio::awaitable<void> serve_tls_connection(std::shared_ptr<server_context> ctx, std::shared_ptr<asio::ssl::context> tls,
                                           tcp::socket socket) {
  auto c = std::make_shared<detail::stream_connection<tls_stream>>(std::move(socket), *tls);
  tracked registration(*ctx, c.get());
  try {
    beast::flat_buffer hello;
    c->lowest().expires_after(ctx->options.head_timeout);
    auto [ec, is_tls] = co_await beast::async_detect_ssl(c->lowest(), hello, detail::nothrow);
    if (ec) {
      c->lowest().close();
      co_return;
    }
    if (!is_tls) {
      log::debug("a plain HTTP request reached the HTTPS listener; answered 400");
      co_await reply_and_close(c->lowest(), "400 Bad Request", "text/plain; charset=utf-8",
                               "This port speaks HTTPS: use an https:// URL.\n", "");
      co_return;
    }
    c->lowest().expires_after(ctx->options.head_timeout);
    auto [hec, used] = co_await c->stream.async_handshake(asio::ssl::stream_base::server, hello.data(), detail::nothrow);
    if (hec) {
      log::debug("TLS handshake failed: " + hec.message());
      c->lowest().close();
      co_return;
    }
    co_await detail::serve(ctx, c);
  } catch (const std::exception& e) {
    log::error(std::string("HTTPS connection failed: ") + e.what());
  }
}

}  // namespace omgdb::transports::http
