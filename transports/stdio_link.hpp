// omgdb transports — the stdio session attached to an event loop that something else runs.
//
// Internal to transports/ (includes Asio): `run_stdio` drives one on its own io_context, and
// `run_stdio_and_http` shares one io_context (and one mcp::server) with the HTTP listener.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "transports/stdio.hpp"

namespace omgdb::mcp {
class session;
}

namespace omgdb::transports::detail {

class line_writer;

// Starts a thread that reads stdin and posts each complete line to `ioc`, where the session
// dispatches it. Once stdin has ended, every line has been dispatched and every call has
// answered — or one has run past its deadline by more than options.shutdown_deadline
// (abandoned() then says so) — `on_input_end` is posted to `ioc` (once). Not copyable; the
// io_context must outlive the link.
class stdio_link {
 public:
  stdio_link(boost::asio::io_context& ioc, mcp::server& srv, auth::scope ceiling, stdio_options options,
             std::function<void()> on_input_end);
  ~stdio_link();
  stdio_link(const stdio_link&) = delete;
  stdio_link& operator=(const stdio_link&) = delete;

  // SIGTERM/SIGINT: no further line is dispatched (the calls are stopped by the server's
  // begin_shutdown; their answers are still written).
  void stop_reading();
  // Blocks until no call of the stdio session is running and its answers have left, at most
  // until `until`; true when so.
  bool wait_idle_until(std::chrono::steady_clock::time_point until);
  // True once the end of input gave up on a call stuck past its deadline (or on a stdout
  // that no longer drains).
  bool abandoned() const;
  // After `on_input_end` ran: waits for the reader thread.
  void join();

 private:
  boost::asio::io_context& ioc_;
  stdio_options options_;
  std::shared_ptr<line_writer> writer_;
  std::shared_ptr<mcp::session> session_;
  std::function<void()> on_input_end_;
  // Set by cancel_all (a signal): the reader dispatches no more lines. Shared with the reader
  // thread, which may outlive the link after a signal.
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> abandoned_ = std::make_shared<std::atomic<bool>>(false);
  std::thread reader_;
};

}  // namespace omgdb::transports::detail
