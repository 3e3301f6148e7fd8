// The HTTP transport's event loop: binds the loopback address, accepts connections, expires
// idle sessions, and shuts down gracefully on SIGTERM/SIGINT.
#include <sys/socket.h>

#include <csignal>
#include <memory>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "auth/origin.hpp"
#include "common/log.hpp"
#include "transports/http_connection.hpp"
#include "transports/http_server.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);

struct loop_state {
  std::shared_ptr<http::server_context> ctx;
  tcp::acceptor acceptor;
  asio::steady_timer sweep;
  asio::signal_set signals;
  asio::signal_set hangup;
  asio::steady_timer heartbeat;

  explicit loop_state(asio::io_context& ioc)
      : acceptor(ioc), sweep(ioc), signals(ioc, SIGTERM, SIGINT), hangup(ioc, SIGHUP), heartbeat(ioc) {}
};

// SIGHUP: ask the daemon for new settings and apply them between requests (the loop thread
// owns everything touched here). Sessions and connections are kept.
void wait_for_hangup(loop_state& st) {
  st.hangup.async_wait([&st](const boost::system::error_code& e, int) {
    if (e || st.ctx->stopping) return;
    auto& ctx = *st.ctx;
    std::optional<http_reloadable> next;
    try {
      if (ctx.options.on_reload) next = ctx.options.on_reload();
    } catch (const std::exception& ex) {
      log::error(std::string("SIGHUP: reload failed, keeping the current settings: ") + ex.what());
    }
    if (next) {
      ctx.gate.tokens = std::move(next->tokens);
      ctx.gate.origins.allowed_origins = next->allow_origins;
      ctx.gate.origins.allowed_hosts = next->allow_hosts;
      ctx.gate.max_body_bytes = next->max_body_bytes;
      ctx.options.allow_origins = std::move(next->allow_origins);
      ctx.options.allow_hosts = std::move(next->allow_hosts);
      ctx.options.max_body_bytes = next->max_body_bytes;
      ctx.options.max_connections = next->max_connections;
      ctx.options.max_sessions = next->max_sessions;
      ctx.options.session_idle = next->session_idle;
      ctx.options.sse_keepalive = next->sse_keepalive;
      ctx.sessions.set_limits(next->max_sessions,
                              std::chrono::duration_cast<std::chrono::milliseconds>(next->session_idle).count());
    }
    wait_for_hangup(st);
  });
}

asio::awaitable<void> heartbeat_loop(loop_state& st) {
  auto ctx = st.ctx;
  while (!ctx->stopping) {
    st.heartbeat.expires_after(ctx->options.heartbeat_interval);
    auto [ec] = co_await st.heartbeat.async_wait(nothrow);
    if (ec || ctx->stopping) break;
    ctx->options.on_heartbeat();
  }
}

asio::awaitable<void> accept_loop(loop_state& st) {
  auto ctx = st.ctx;
  while (!ctx->stopping) {
    auto [ec, socket] = co_await st.acceptor.async_accept(nothrow);
    if (ec) {
      if (ctx->stopping || ec == asio::error::operation_aborted) break;
      log::warning("accept failed: " + ec.message());
      continue;
    }
    auto executor = socket.get_executor();
    if (ctx->live.size() >= ctx->options.max_connections) {
      asio::co_spawn(executor, http::refuse_connection(std::move(socket)), asio::detached);
      continue;
    }
    asio::co_spawn(executor, http::serve_connection(ctx, std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> sweep_loop(loop_state& st) {
  auto ctx = st.ctx;
  auto period = std::min<std::chrono::seconds>(std::chrono::seconds(30),
                                               std::max<std::chrono::seconds>(std::chrono::seconds(1),
                                                                              ctx->options.session_idle / 4));
  while (!ctx->stopping) {
    st.sweep.expires_after(period);
    auto [ec] = co_await st.sweep.async_wait(nothrow);
    if (ec || ctx->stopping) break;
    ctx->sessions.expire_idle();
  }
}

// Stop accepting, end GET streams, let running calls answer until the deadline, then end
// every response and stop the loop once the connections are gone (or after one more second).
asio::awaitable<void> shut_down(loop_state& st, asio::io_context& ioc) {
  auto ctx = st.ctx;
  ctx->stopping = true;
  if (ctx->options.on_stopping) ctx->options.on_stopping();
  boost::system::error_code ignored;
  st.acceptor.close(ignored);
  st.sweep.cancel();
  st.heartbeat.cancel();
  st.hangup.cancel(ignored);
  ctx->close_idle_connections();
  ctx->sessions.end_get_streams();
  asio::steady_timer wait(ioc);
  auto deadline = std::chrono::steady_clock::now() + ctx->options.shutdown_deadline;
  while (ctx->sessions.any_pending() && std::chrono::steady_clock::now() < deadline) {
    wait.expires_after(std::chrono::milliseconds(20));
    co_await wait.async_wait(nothrow);
  }
  if (ctx->sessions.any_pending()) log::warning("shutdown deadline reached; cancelling the calls still running");
  ctx->sessions.end_all("the server is shutting down");
  auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!ctx->live.empty() && std::chrono::steady_clock::now() < grace) {
    ctx->close_idle_connections();
    wait.expires_after(std::chrono::milliseconds(20));
    co_await wait.async_wait(nothrow);
  }
  ctx->close_all_connections();
  ioc.stop();
}

}  // namespace

int run_http(mcp::server& srv, auth::scope ceiling, const http_options& options) {
  std::signal(SIGPIPE, SIG_IGN);
  if (options.listen_fd < 0 && !options.container_any_address && !auth::is_loopback_host(options.host)) {
    log::error("refusing to listen on " + options.host + ": only loopback addresses are allowed (TLS is not available yet)");
    return 1;
  }
  asio::io_context ioc(1);
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options.host == "localhost" ? "127.0.0.1" : options.host, ec);
  if (ec) {
    log::error("invalid listen address " + options.host + ": " + ec.message());
    return 1;
  }
  loop_state st(ioc);
  if (options.listen_fd >= 0) {
    // Socket activation: the socket is bound already; it must be a loopback TCP socket.
    sockaddr_storage sa{};
    socklen_t len = sizeof sa;
    if (::getsockname(options.listen_fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0 ||
        (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)) {
      log::error("the socket passed by systemd (LISTEN_FDS) is not a TCP socket");
      return 1;
    }
    st.acceptor.assign(sa.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), options.listen_fd, ec);
    if (!ec) address = st.acceptor.local_endpoint(ec).address();
    if (!ec && !address.is_loopback()) {
      log::error("the socket passed by systemd listens on " + address.to_string() +
                 ", not a loopback address; use ListenStream=127.0.0.1:PORT");
      return 1;
    }
  } else {
    tcp::endpoint endpoint(address, options.port);
    st.acceptor.open(endpoint.protocol(), ec);
    if (!ec) st.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) st.acceptor.bind(endpoint, ec);
    if (!ec) st.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    log::error("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + ec.message());
    return 1;
  }
  std::uint16_t port = st.acceptor.local_endpoint().port();

  http::gate_policy gate;
  gate.path = options.path;
  gate.origins.port = port;
  gate.origins.allowed_origins = options.allow_origins;
  gate.origins.allowed_hosts = options.allow_hosts;
  gate.tokens = options.tokens;
  gate.no_auth = options.no_auth;
  gate.max_body_bytes = options.max_body_bytes;
  http::table_options table;
  table.max_sessions = options.max_sessions;
  table.idle_ms = std::chrono::duration_cast<std::chrono::milliseconds>(options.session_idle).count();
  table.limits.log_events = options.event_log_events;
  table.limits.log_bytes = options.event_log_bytes;
  table.limits.max_buffered_bytes = std::max<std::size_t>(options.event_log_bytes, 1u << 20);
  table.state_dir = options.state_dir;
  st.ctx = std::make_shared<http::server_context>(options, std::move(gate), srv, ceiling, std::move(table),
                                                  [&ioc](std::function<void()> fn) { asio::post(ioc, std::move(fn)); });

  std::string shown_host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  if (options.on_listening) options.on_listening("http://" + shown_host + ":" + std::to_string(port) + options.path);

  st.signals.async_wait([&](const boost::system::error_code& e, int sig) {
    if (e) return;
    log::info(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", shutting down");
    asio::co_spawn(ioc, shut_down(st, ioc), asio::detached);
  });
  asio::co_spawn(ioc, accept_loop(st), asio::detached);
  asio::co_spawn(ioc, sweep_loop(st), asio::detached);
  if (st.ctx->options.heartbeat_interval.count() > 0 && st.ctx->options.on_heartbeat) {
    asio::co_spawn(ioc, heartbeat_loop(st), asio::detached);
  }
  wait_for_hangup(st);
  ioc.run();

  st.ctx->sessions.close_all();
  if (options.on_stopped) options.on_stopped();
  return 0;
}

}  // namespace omgdb::transports
