// The HTTP transport's listener: binds the address (loopback, or with TLS a remote one when
// allowed), accepts connections, expires idle sessions, reloads on SIGHUP and shuts down
// gracefully. `run_http` drives it on its own event loop, stopping on SIGTERM/SIGINT.
#include "transports/http_listener.hpp"

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
#include "transports/http_tls.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace detail {

struct listener_state {
  asio::io_context& ioc;
  mcp::server& srv;
  std::shared_ptr<http::server_context> ctx;
  std::shared_ptr<asio::ssl::context> tls;  // null: plain HTTP
  tcp::acceptor acceptor;
  asio::steady_timer sweep;
  asio::signal_set hangup;
  asio::steady_timer heartbeat;
  std::string url;
  std::vector<std::string> extra_origins;  // https:// loopback origins when serving TLS
  std::vector<std::string> extra_hosts;    // the bound non-loopback address itself
  bool shutting_down = false;

  listener_state(asio::io_context& io, mcp::server& s)
      : ioc(io), srv(s), acceptor(io), sweep(io), hangup(io, SIGHUP), heartbeat(io) {}
};

}  // namespace detail

namespace {

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
using loop_state = detail::listener_state;

std::vector<std::string> with_extra(std::vector<std::string> list, const std::vector<std::string>& extra) {
  list.insert(list.end(), extra.begin(), extra.end());
  return list;
}

// A non-loopback address is served only over TLS and only when the config allows it.
status check_address(const http_options& o, bool socket_activated) {
  if (o.container_any_address) return {};
  if (!socket_activated && auth::is_loopback_host(o.host)) return {};
  std::string what = socket_activated ? "the socket passed by systemd (LISTEN_FDS)" : o.host;
  if (!o.allow_remote) {
    return make_error("refusing to listen on " + what + ": not a loopback address. Remote access needs "
                      "`allow_remote = true` and `tls_cert`/`tls_key` in the [http] section of the config");
  }
  if (o.tls_cert.empty() || o.tls_key.empty()) {
    return make_error("refusing to listen on " + what + ": `allow_remote = true` also needs `tls_cert` and "
                      "`tls_key` in the [http] section of the config (remote clients must use HTTPS)");
  }
  return {};
}

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
      apply_reloadable(ctx.options, std::move(*next));
      const auto& o = ctx.options;
      ctx.gate.tokens = o.tokens;
      ++ctx.gate.tokens_generation;  // connections forget the tokens they accepted
      ctx.gate.origins.allowed_origins = with_extra(o.allow_origins, st.extra_origins);
      ctx.gate.origins.allowed_hosts = with_extra(o.allow_hosts, st.extra_hosts);
      ctx.gate.max_body_bytes = o.max_body_bytes;
      ctx.sessions.set_limits(o.max_sessions,
                              std::chrono::duration_cast<std::chrono::milliseconds>(o.session_idle).count(),
                              o.max_sessions_per_token);
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
    if (ctx->full() && !ctx->evict_one()) {
      if (st.tls) {
        // A 503 in plain text means nothing to a TLS client; closing says "retry" as well.
        log::warning("too many open connections (" + std::to_string(ctx->live.size()) + "); closing a new one");
        boost::system::error_code ignored;
        socket.close(ignored);
        continue;
      }
      asio::co_spawn(executor, http::refuse_connection(std::move(socket)), asio::detached);
      continue;
    }
    if (st.tls) {
      asio::co_spawn(executor, http::serve_tls_connection(ctx, st.tls, std::move(socket)), asio::detached);
    } else {
      asio::co_spawn(executor, http::serve_connection(ctx, std::move(socket)), asio::detached);
    }
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

// Stop every call (its flag is set with reason `shutdown`), stop accepting, end GET streams,
// let the calls answer until the deadline, then end every response and stop the loop once the
// connections are gone (or after half a second more).
asio::awaitable<void> shut_down_loop(loop_state& st, std::function<void()> done) {
  auto& ioc = st.ioc;
  auto ctx = st.ctx;
  ctx->stopping = true;
  st.srv.begin_shutdown(std::chrono::duration_cast<std::chrono::milliseconds>(ctx->options.shutdown_deadline));
  if (ctx->options.on_stopping) ctx->options.on_stopping();
  boost::system::error_code ignored;
  st.acceptor.close(ignored);
  st.sweep.cancel();
  st.heartbeat.cancel();
  st.hangup.cancel(ignored);
  ctx->close_idle_connections();
  ctx->sessions.end_get_streams();
  asio::steady_timer wait(ioc);
  auto deadline = st.srv.stop_deadline();
  // A call whose client has gone still holds its worker: wait for the pool too.
  auto busy = [&] { return ctx->sessions.any_pending() || !st.srv.pool().idle(); };
  while (busy() && std::chrono::steady_clock::now() < deadline) {
    wait.expires_after(std::chrono::milliseconds(20));
    co_await wait.async_wait(nothrow);
  }
  if (busy()) {
    log::warning("shutdown deadline reached: " + std::to_string(st.srv.pool().running()) +
                 " call(s) still running ignore their cancellation; answering the waiting requests");
  }
  ctx->sessions.end_all("the server is shutting down");
  auto grace = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (!ctx->live.empty() && std::chrono::steady_clock::now() < grace) {
    ctx->close_idle_connections();
    wait.expires_after(std::chrono::milliseconds(20));
    co_await wait.async_wait(nothrow);
  }
  ctx->close_all_connections();
  if (done) asio::post(ioc, std::move(done));
}

}  // namespace


namespace detail {

http_listener::http_listener(std::unique_ptr<listener_state> st) : st_(std::move(st)) {}
http_listener::~http_listener() = default;

result<std::unique_ptr<http_listener>> http_listener::open(asio::io_context& ioc, mcp::server& srv,
                                                           auth::scope ceiling, const http_options& options) {
  bool activated = options.listen_fd >= 0;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options.host == "localhost" ? "127.0.0.1" : options.host, ec);
  if (!activated) {
    if (auto ok = check_address(options, false); !ok) return std::move(ok).error();
    if (ec) return make_error("invalid listen address " + options.host + ": " + ec.message());
  }
  auto st = std::make_unique<listener_state>(ioc, srv);
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    auto tls = http::make_tls_context(options.tls_cert, options.tls_key);
    if (!tls) return std::move(tls).error();
    st->tls = std::move(*tls);
  }
  ec.clear();
  if (activated) {
    // Socket activation: the socket is bound already; it must be a TCP socket, and a loopback
    // one unless remote access over TLS is configured.
    sockaddr_storage sa{};
    socklen_t len = sizeof sa;
    if (::getsockname(options.listen_fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0 ||
        (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)) {
      return make_error("the socket passed by systemd (LISTEN_FDS) is not a TCP socket");
    }
    st->acceptor.assign(sa.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), options.listen_fd, ec);
    if (!ec) address = st->acceptor.local_endpoint(ec).address();
    if (!ec && !address.is_loopback()) {
      if (auto ok = check_address(options, true); !ok) {
        return make_error("the socket passed by systemd listens on " + address.to_string() +
                          ", not a loopback address; use ListenStream=127.0.0.1:PORT, or " +
                          "set `allow_remote = true`, `tls_cert` and `tls_key` in [http]");
      }
    }
  } else {
    tcp::endpoint endpoint(address, options.port);
    st->acceptor.open(endpoint.protocol(), ec);
    if (!ec) st->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) st->acceptor.bind(endpoint, ec);
    if (!ec) st->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) return make_error("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + ec.message());
  std::uint16_t port = st->acceptor.local_endpoint(ec).port();
  std::string shown_host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  std::string p = ":" + std::to_string(port);
  if (st->tls) {
    st->extra_origins = {"https://127.0.0.1" + p, "https://localhost" + p, "https://[::1]" + p};
  }
  if (!address.is_loopback() && !address.is_unspecified()) {
    st->extra_hosts.push_back(shown_host + p);  // an address literal cannot be rebound by DNS
    if (st->tls) st->extra_origins.push_back("https://" + shown_host + p);
  }

  http::gate_policy gate;
  gate.path = options.path;
  gate.origins.port = port;
  gate.origins.allowed_origins = with_extra(options.allow_origins, st->extra_origins);
  gate.origins.allowed_hosts = with_extra(options.allow_hosts, st->extra_hosts);
  gate.tokens = options.tokens;
  gate.no_auth = options.no_auth;
  gate.max_body_bytes = options.max_body_bytes;
  http::table_options table;
  table.max_sessions = options.max_sessions;
  table.max_sessions_per_token = options.max_sessions_per_token;
  table.idle_ms = std::chrono::duration_cast<std::chrono::milliseconds>(options.session_idle).count();
  table.limits.log_events = options.event_log_events;
  table.limits.log_bytes = options.event_log_bytes;
  table.limits.max_buffered_bytes = std::max<std::size_t>(options.event_log_bytes, 1u << 20);
  table.state_dir = options.state_dir;
  table.paths = options.paths;
  st->ctx = std::make_shared<http::server_context>(options, std::move(gate), srv, ceiling, std::move(table),
                                                   [&ioc](std::function<void()> fn) { asio::post(ioc, std::move(fn)); });
  st->ctx->sessions.set_on_loop([&ioc] { return ioc.get_executor().running_in_this_thread(); });
  st->url = std::string(st->tls ? "https://" : "http://") + shown_host + p + options.path;
  return std::unique_ptr<http_listener>(new http_listener(std::move(st)));
}

void http_listener::start() {
  auto& st = *st_;
  if (st.ctx->options.on_listening) st.ctx->options.on_listening(st.url);
  asio::co_spawn(st.ioc, accept_loop(st), asio::detached);
  asio::co_spawn(st.ioc, sweep_loop(st), asio::detached);
  if (st.ctx->options.heartbeat_interval.count() > 0 && st.ctx->options.on_heartbeat) {
    asio::co_spawn(st.ioc, heartbeat_loop(st), asio::detached);
  }
  wait_for_hangup(st);
}

void http_listener::shut_down(std::function<void()> done) {
  if (st_->shutting_down) return;
  st_->shutting_down = true;
  asio::co_spawn(st_->ioc, shut_down_loop(*st_, std::move(done)), asio::detached);
}

void http_listener::finish() { st_->ctx->sessions.close_all(); }

}  // namespace detail

void apply_reloadable(http_options& o, http_reloadable r) {
  o.tokens = std::move(r.tokens);
  o.allow_origins = std::move(r.allow_origins);
  o.allow_hosts = std::move(r.allow_hosts);
  o.max_body_bytes = r.max_body_bytes;
  o.max_connections = r.max_connections;
  o.max_sessions = r.max_sessions;
  o.max_sessions_per_token = r.max_sessions_per_token;
  o.session_idle = r.session_idle;
  o.sse_keepalive = r.sse_keepalive;
}

int run_http(mcp::server& srv, auth::scope ceiling, const http_options& options) {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context ioc(1);
  auto listener = detail::http_listener::open(ioc, srv, ceiling, options);
  if (!listener) {
    log::error(listener.error().message);
    return 1;
  }
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& e, int sig) {
    if (e) return;
    log::info(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", shutting down");
    (*listener)->shut_down([&ioc] { ioc.stop(); });
  });
  (*listener)->start();
  {
    log::coalescing_scope coalesce;  // the per-call lines of a busy server leave together
    ioc.run();
  }
  (*listener)->finish();
  if (options.on_stopped) options.on_stopped();
  // Calls that ignored their flag past the deadline: the daemon ends the process here, while
  // the loop their messages would be posted to still exists.
  srv.abandon_stuck_calls();
  return 0;
}

}  // namespace omgdb::transports
