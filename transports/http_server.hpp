// omgdb transports — MCP Streamable HTTP (protocol revisions 2024-11-05 … 2025-11-25).
//
// One endpoint, `/mcp`, on a loopback address (or, with TLS and `allow_remote`, any address):
//  - POST carries one JSON-RPC message. A request is answered with `application/json`, or
//    with a `text/event-stream` when the client accepts one and the call emits a progress or
//    log notification before its response; a notification or response gets 202, no body.
//  - GET opens the session's server-to-client SSE stream (one at a time: a second is 409);
//    with `Last-Event-ID` it resumes a dropped stream, a request's POST stream included.
//  - DELETE ends the session. Any other method: 405 `Allow: GET, POST, DELETE`. Any other
//    path (OAuth discovery paths included): 404.
// Every request passes the gate first: Host and Origin allow-lists (403), bearer token
// (401), token in the query string (400). `docs/http.md` lists every status code.
//
// Threads: one event-loop thread owns every socket and all session state; tool calls run on
// the server's worker pool and their messages are posted back to the loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "auth/paths.hpp"
#include "auth/scope.hpp"
#include "auth/token_set.hpp"
#include "mcp/server.hpp"

namespace omgdb::transports {
namespace console {
class site;
}

// What SIGHUP may change without dropping sessions or connections.
struct http_reloadable {
  auth::token_set tokens;
  std::vector<std::string> allow_origins;
  std::vector<std::string> allow_hosts;
  std::size_t max_body_bytes = 4u << 20;
  std::size_t max_connections = 256;
  std::size_t max_sessions = 512;
  std::size_t max_sessions_per_token = 256;
  std::chrono::seconds session_idle{15 * 60};
  std::chrono::seconds sse_keepalive{15};
};

struct http_options {
  std::string host = "127.0.0.1";  // loopback, unless allow_remote and TLS (checked by run_http)
  std::uint16_t port = 41922;      // 0: the OS picks one
  std::string path = "/mcp";
  bool no_auth = false;                    // --no-auth: loopback test runs only
  auth::token_set tokens;                  // accepted bearer tokens (empty only with no_auth)
  std::vector<std::string> allow_origins;  // --allow-origin, beyond the loopback origins
  std::vector<std::string> allow_hosts;    // --allow-host, beyond the loopback names
  std::string state_dir;                   // session records; "" keeps them in memory only
  // Where HTTP sessions may open stores and read files (`[stores] roots`); null: anywhere.
  std::shared_ptr<const auth::path_policy> paths;
  // HTTPS: PEM certificate chain and private key (unencrypted), both or neither; loaded and
  // checked against each other at start-up. TLS 1.2 at least; forward-secret AEAD ciphers.
  std::string tls_cert;
  std::string tls_key;
  // A non-loopback `host` (or activated socket) is served only when this is set *and* TLS is.
  bool allow_remote = false;

  std::size_t max_body_bytes = 4u << 20;      // larger POST bodies: 413
  std::size_t max_header_bytes = 16u << 10;   // larger request heads: 431
  std::size_t max_connections = 256;          // more: the oldest unauthenticated or longest-idle
                                              // connection is closed, else 503 and close
  std::size_t max_sessions = 512;             // more: the longest-idle goes, or 503 on initialize
  std::size_t max_sessions_per_token = 256;   // the same, per bearer token (0: no quota)
  std::chrono::seconds session_idle{15 * 60};  // sessions unused this long are expired
  // A request head must arrive whole within head_timeout of its first byte; a connection that
  // has not authenticated (new, or only refused so far) gets as long to start one. A TLS
  // handshake too.
  std::chrono::seconds head_timeout{5};
  std::chrono::seconds body_timeout{30};       // to receive a body once its head passed the gate
  std::chrono::seconds keep_alive_idle{120};   // an idle authenticated keep-alive connection is closed
  std::chrono::seconds write_timeout{30};      // a peer that stops reading is dropped
  std::chrono::seconds sse_keepalive{15};      // comment line on idle SSE streams
  std::chrono::seconds shutdown_deadline{10};  // SIGTERM: in-flight calls get this long
  std::size_t event_log_events = 1024;         // per session, for Last-Event-ID replay
  std::size_t event_log_bytes = 4u << 20;      // per session

  // Socket activation: an already bound and listening TCP socket to accept on (LISTEN_FDS);
  // -1 binds host:port instead.
  int listen_fd = -1;
  // The container image only (OMGDB_CONTAINER=1): bind a non-loopback `host` of the
  // container's own network namespace; the host publishes the port on its loopback.
  bool container_any_address = false;
  // SIGHUP: returns the new settings, or nullopt to keep the current ones (the callback logs
  // why). Without a callback SIGHUP is ignored.
  std::function<std::optional<http_reloadable>()> on_reload;
  // Called every `heartbeat_interval` from the event loop (systemd's watchdog); 0: never.
  std::chrono::milliseconds heartbeat_interval{0};
  std::function<void()> on_heartbeat;
  // Called when SIGTERM/SIGINT starts the shutdown.
  std::function<void()> on_stopping;

  // `GET /metrics` (behind the token): text appended after the transport's own gauges
  // (sessions, connections, SSE streams, worker queue). `GET /healthz` needs no token.
  std::function<std::string()> metrics_text;

  // The web console under /console (transports/console_site.hpp, docs/console.md); null: off.
  std::shared_ptr<console::site> console;
  // False for `omgdb console`: only /console (and /healthz) are served, /mcp is 404.
  bool serve_mcp = true;

  // Called once the socket is bound (with the actual port), before serving.
  std::function<void(const std::string& url)> on_listening;
  // Called on SIGTERM/SIGINT after the loop has stopped and calls have drained.
  std::function<void()> on_stopped;
};

// Sets the fields of `o` that a SIGHUP reload may change (the tokens included) from `r`:
// one place for the start-up settings and for every reload.
void apply_reloadable(http_options& o, http_reloadable r);

// Serves until SIGTERM or SIGINT, then shuts down gracefully (stop accepting, let in-flight
// calls finish up to shutdown_deadline, end SSE streams, keep live session records).
// Returns 0 after a clean stop, 1 when the address cannot be bound or is refused, or the TLS
// certificate or key cannot be used.
int run_http(mcp::server& srv, auth::scope ceiling, const http_options& options);

struct stdio_options;

// `omgdb mcp --http`: the stdio session and the HTTP listener on one event loop, feeding one
// server (one dispatcher, one worker pool). End of stdin: the stdio calls finish and answer,
// then the HTTP listener shuts down gracefully and this returns 0. SIGTERM/SIGINT: stdio calls
// are cancelled, HTTP shuts down gracefully, `stdio.on_signal_exit` runs and the process ends
// with status 0 (as run_stdio). Returns 1 when the listener cannot start (nothing is served).
int run_stdio_and_http(mcp::server& srv, auth::scope ceiling, const stdio_options& stdio,
                       const http_options& http);

}  // namespace omgdb::transports
