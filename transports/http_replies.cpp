// Replies written outside a parsed exchange (over the connection limit, plain HTTP on the
// TLS port) and the `/healthz` and `/metrics` bodies.
#include "transports/http_replies.hpp"

#include <chrono>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "transports/http_connection.hpp"

namespace omgdb::transports::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

namespace {
constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
}  // namespace

// Reads (briefly) what the peer sent after a final reply, so that closing does not reset the
// connection before it has read that reply; then closes.
static asio::awaitable<void> drain_and_close(beast::tcp_stream& stream) {
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  char sink[4096];
  for (int i = 0; i < 256 && !ec; ++i) {
    auto [rec, got] = co_await stream.async_read_some(asio::buffer(sink), nothrow);
    ec = rec;
  }
  stream.close();
}

// Writes a complete raw HTTP reply outside any parsed exchange, then closes.
asio::awaitable<void> reply_and_close(beast::tcp_stream& stream, std::string_view status, std::string_view type,
                                      std::string_view body, std::string_view extra_headers) {
  std::string reply = "HTTP/1.1 " + std::string(status) + "\r\nServer: omgdb\r\nContent-Type: " + std::string(type) +
                      "\r\nConnection: close\r\n" + std::string(extra_headers) +
                      "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  stream.expires_after(std::chrono::seconds(2));
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(reply), nothrow);
  if (ec) {
    stream.close();
    co_return;
  }
  co_await drain_and_close(stream);
}

// `/healthz` and `/metrics`, once screen_ops has let the request through.
http_reply ops_reply(server_context& ctx, ops_endpoint which, bool head) {
  http_reply r;
  r.status = 200;
  if (which == ops_endpoint::healthz) {
    r.set("Content-Type", "text/plain; charset=utf-8");
    r.body = ctx.stopping ? "stopping\n" : "ok\n";
  } else {
    r.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    auto gauge = [&r](std::string_view name, std::string_view help, std::size_t value) {
      r.body += "# HELP " + std::string(name) + " " + std::string(help) + "\n# TYPE " + std::string(name) + " gauge\n" +
                std::string(name) + " " + std::to_string(value) + "\n";
    };
    gauge("omgdb_http_sessions", "Live HTTP sessions.", ctx.sessions.live_count());
    gauge("omgdb_http_sessions_stored", "HTTP sessions known, live or kept from the last run.", ctx.sessions.size());
    gauge("omgdb_http_connections", "Open HTTP connections.", ctx.live.size());
    gauge("omgdb_sse_streams", "Open GET (server-to-client) SSE streams.", ctx.sessions.open_get_streams());
    gauge("omgdb_worker_queue_depth", "Tool calls waiting for a worker thread.", ctx.sessions.queued_calls());
    if (ctx.options.metrics_text) r.body += ctx.options.metrics_text();
  }
  r.set("Cache-Control", "no-store");
  if (head) r.body.clear();
  return r;
}

asio::awaitable<void> refuse_connection(tcp::socket socket) {
  constexpr std::string_view body =
      R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: too many open connections; retry"}})";
  beast::tcp_stream stream(std::move(socket));
  co_await reply_and_close(stream, "503 Service Unavailable", "application/json", body, "Retry-After: 5\r\n");
}

}  // namespace omgdb::transports::http
