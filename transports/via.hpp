// omgdb transports — `omgdb mcp --via URL`: a stdio MCP server that forwards every message to a
// running `omgdb serve` daemon over Streamable HTTP, so an agent that can only spawn a command
// shares the daemon's stores, sessions, approvals and limits.
//
// Each stdin line is POSTed as one JSON-RPC message (with the bearer token, the session id the
// daemon issued at `initialize`, and the negotiated protocol version); JSON replies are written
// to stdout as one line, SSE replies event by event as they arrive (progress and log
// notifications included). Requests run concurrently (a cancellation can overtake the call it
// cancels). When the daemon cannot be reached or refuses, each request gets a JSON-RPC error
// that says why and what to do. At end of input the bridge waits for running requests, ends the
// session (DELETE) and returns 0. stdout carries only MCP messages.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/result.hpp"

namespace omgdb::transports {

struct via_options {
  std::string url;    // http://HOST:PORT/PATH, or https:// (certificate verified: system CAs or SSL_CERT_FILE)
  std::string token;  // bearer token (OMGDB_HTTP_TOKEN); empty for a --no-auth daemon
  std::size_t max_in_flight = 32;
  std::size_t max_line_bytes = 16u << 20;
  std::chrono::seconds connect_timeout{10};
  int in_fd = 0;
  int out_fd = 1;
};

// Checks the URL (scheme, host, port) before anything is read; an error explains the form.
result<void> check_via_url(const std::string& url);

int run_via(const via_options& options);

}  // namespace omgdb::transports
