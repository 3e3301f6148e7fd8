// omgdb transports — one HTTP/1.1 connection of the Streamable HTTP endpoint, as a coroutine.
//
// Internal to the HTTP transport (includes Asio): the listener spawns `serve_connection` for
// each accepted socket. The coroutine owns its socket; it reads a request head, passes it
// through the gate (`screen`), reads the body (bounded), lets the session table decide, and
// writes either a plain reply or a streamed one (an `outlet`: JSON or SSE, chunked). Timeouts:
// head_timeout for a request head (and, on a connection that has not authenticated, for the
// wait before it), keep_alive_idle between requests, body_timeout for a body, write_timeout
// per write.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_set>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "transports/http_rules.hpp"
#include "transports/http_server.hpp"
#include "transports/http_sessions.hpp"

namespace omgdb::transports::http {

// What the listener may do to any live connection, plain or TLS.
struct connection {
  using clock = std::chrono::steady_clock;
  virtual ~connection() = default;
  virtual boost::beast::tcp_stream& lowest() = 0;
  bool idle = true;            // waiting for the first byte of a request (or, TLS, its handshake)
  bool authenticated = false;  // a request on it has passed the gate with a token
  bool evicted = false;        // closed to make room for a new connection (server_context::evict_one)
  clock::time_point since = clock::now();  // when it became idle, or started reading its head
  std::string head;  // the head of the last plain 200 reply, reused (ok_reply_head)
};

// What the listener and every connection share. Lives as long as the last coroutine that
// holds it; touched only on the event-loop thread.
struct server_context {
  server_context(http_options opts, gate_policy gate_policy, mcp::server& srv, auth::scope ceiling,
                 table_options table_opts, session_table::post_fn post)
      : options(std::move(opts)), gate(std::move(gate_policy)),
        sessions(srv, ceiling, std::move(table_opts), std::move(post)) {}

  http_options options;  // a copy: SIGHUP changes its limits
  gate_policy gate;
  session_table sessions;
  bool stopping = false;
  std::unordered_set<connection*> live;
  std::size_t evicting = 0;  // members of `live` closed by evict_one, not yet gone

  // True when max_connections slots are held (connections being evicted hold none).
  bool full() const noexcept { return live.size() - evicting >= options.max_connections; }
  // Makes room for a new connection: closes the one that has waited longest among those that
  // have never authenticated, or else the longest-idle keep-alive connection. A connection
  // busy for an authenticated client (reading its body, running its call, streaming) is never
  // chosen. False when there is none to close: the new connection is then refused.
  bool evict_one();

  // Shutdown: connections waiting for their next request are closed now.
  void close_idle_connections();
  // Shutdown deadline: every connection is closed.
  void close_all_connections();
};

// Keeps a connection in `live` while its coroutine runs (max_connections, shutdown).
struct tracked {
  server_context& ctx;
  connection* c;
  tracked(server_context& x, connection* y) : ctx(x), c(y) { ctx.live.insert(c); }
  ~tracked() {
    ctx.live.erase(c);
    if (c->evicted) --ctx.evicting;
  }
  tracked(const tracked&) = delete;
  tracked& operator=(const tracked&) = delete;
};

boost::asio::awaitable<void> serve_connection(std::shared_ptr<server_context> ctx,
                                              boost::asio::ip::tcp::socket socket);

// Answers 503 and closes: used when max_connections are already open.
boost::asio::awaitable<void> refuse_connection(boost::asio::ip::tcp::socket socket);

}  // namespace omgdb::transports::http
