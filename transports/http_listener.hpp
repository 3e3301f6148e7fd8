// omgdb transports — the HTTP listener attached to an event loop that something else runs.
//
// Internal to transports/ (includes Asio): `run_http` drives one on its own io_context and
// `run_stdio_and_http` shares one io_context (and one mcp::server) with the stdio session.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/io_context.hpp>

#include "common/result.hpp"
#include "transports/http_server.hpp"

namespace omgdb::transports::detail {

struct listener_state;

class http_listener {
 public:
  // Checks the address (non-loopback needs allow_remote and TLS), loads the TLS certificate
  // and key when configured, and binds. Errors say what to change; nothing is served yet.
  static result<std::unique_ptr<http_listener>> open(boost::asio::io_context& ioc, mcp::server& srv,
                                                      auth::scope ceiling, const http_options& options);
  ~http_listener();

  // Calls on_listening, then accepts connections, expires idle sessions, and handles SIGHUP
  // (and the heartbeat) on the io_context.
  void start();
  // Graceful stop: stop accepting, end GET streams, let running calls answer up to the
  // shutdown deadline, close the connections; then posts `done` (once). Idempotent.
  void shut_down(std::function<void()> done);
  // After the loop has stopped: saves the session records.
  void finish();

 private:
  explicit http_listener(std::unique_ptr<listener_state> st);
  std::unique_ptr<listener_state> st_;
};

}  // namespace omgdb::transports::detail
