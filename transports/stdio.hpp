// omgdb transports — MCP over stdio: newline-delimited JSON-RPC on stdin/stdout.
//
// stdout carries only MCP messages, one per line, each written whole and flushed; logs go to
// stderr. Reading stops at end of input: calls still running are finished and answered,
// then run_stdio returns 0. SIGTERM/SIGINT cancel running calls and end the process with status 0.
// A line longer than `max_line_bytes` is discarded with a message on stderr and an error on
// stdout (carrying the request's id when it precedes the cut); the server keeps serving.
// Lines the seed says to ignore (not JSON, not an object, no string method) are ignored with
// a warning on stderr naming the line number.
#pragma once

#include <cstddef>
#include <functional>

#include "auth/scope.hpp"
#include "mcp/server.hpp"

namespace omgdb::transports {

struct stdio_options {
  std::size_t max_line_bytes = 16u << 20;
  int in_fd = 0;
  int out_fd = 1;
  // Called after SIGTERM/SIGINT once running calls have stopped; the process then ends with
  // exit status 0 without waiting for the blocked stdin reader (run_stdio does not return).
  std::function<void()> on_signal_exit;
};

int run_stdio(mcp::server& srv, auth::scope ceiling, const stdio_options& options = {});

}  // namespace omgdb::transports
