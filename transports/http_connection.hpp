// omgdb transports — one HTTP/1.1 connection of the Streamable HTTP endpoint, as a coroutine.
//
// Internal to the HTTP transport (includes Asio): the listener spawns `serve_connection` for
// each accepted socket. The coroutine owns its socket; it reads a request head, passes it
// through the gate (`screen`), reads the body (bounded), lets the session table decide, and
// writes either a plain reply or a streamed one (an `outlet`: JSON or SSE, chunked). Timeouts:
// header_timeout for a request, keep_alive_idle between requests, write_timeout per write.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_set>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "transports/http_rules.hpp"
#include "transports/http_server.hpp"
#include "transports/http_sessions.hpp"

namespace omgdb::transports::http {

struct connection;

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

  // Shutdown: connections waiting for their next request are closed now.
  void close_idle_connections();
  // Shutdown deadline: every connection is closed.
  void close_all_connections();
};

boost::asio::awaitable<void> serve_connection(std::shared_ptr<server_context> ctx,
                                              boost::asio::ip::tcp::socket socket);

// Answers 503 and closes: used when max_connections are already open.
boost::asio::awaitable<void> refuse_connection(boost::asio::ip::tcp::socket socket);

}  // namespace omgdb::transports::http
