// omgdb transports — MCP over stdio: newline-delimited JSON-RPC on stdin/stdout.
//
// stdout carries only MCP messages, one per line, each written whole and flushed; logs go to
// stderr. Reading stops at end of input: calls still running are finished and answered (each
// within its own deadline), then run_stdio returns 0; a call that runs past its deadline by
// more than `shutdown_deadline` is abandoned and the process ends (status 0). SIGTERM/SIGINT
// set every call's cancellation flag (reason `shutdown`: a call that has not committed stops
// and answers so), wait for them up to `shutdown_deadline`, and end the process with status 0
// (through server_options::on_abandon when a call ignores its flag).
// A line longer than `max_line_bytes` is discarded with a message on stderr and an error on
// stdout (carrying the request's id when it precedes the cut); the server keeps serving.
// Lines the seed says to ignore (not JSON, not an object, no string method) are ignored with
// a warning on stderr naming the line number.
#pragma once

#include <chrono>
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
  // How long calls get to stop after SIGTERM, and how far past its own deadline a call may run
  // after the end of input before it is abandoned ([http] shutdown_deadline).
  std::chrono::milliseconds shutdown_deadline{10000};
};

int run_stdio(mcp::server& srv, auth::scope ceiling, const stdio_options& options = {});

}  // namespace omgdb::transports
