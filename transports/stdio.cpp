#include "transports/stdio.hpp"
#include "transports/stdio_link.hpp"
#include "transports/line_reader.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include "common/log.hpp"
#include "mcp/session.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;

namespace detail {

// Writes whole lines to one fd under a mutex; after the first failed write (the client went
// away) further output is dropped.
class line_writer {
 public:
  explicit line_writer(int fd) : fd_(fd) {}

  void write_line(std::string message) {
    message.push_back('\n');
    std::lock_guard lock(mu_);
    if (broken_) return;
    const char* p = message.data();
    std::size_t left = message.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        broken_ = true;
        log::warning("stdout closed; dropping further output");
        return;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

 private:
  std::mutex mu_;
  int fd_;
  bool broken_ = false;
};

stdio_link::stdio_link(asio::io_context& ioc, mcp::server& srv, auth::scope ceiling, stdio_options options,
                       std::function<void()> on_input_end)
    : ioc_(ioc), options_(std::move(options)), on_input_end_(std::move(on_input_end)) {
  writer_ = std::make_shared<line_writer>(options_.out_fd);
  session_ = std::make_shared<mcp::session>(
      srv, ceiling, [writer = writer_](std::string message, std::string_view) { writer->write_line(std::move(message)); });
  session_->set_label("stdio");

  // A blocking reader thread works for pipes, terminals and regular files alike (epoll
  // refuses regular files). It dispatches each complete line itself: handle_text only parses
  // and queues (tool calls run on the worker pool), so a hop to the event loop would cost a
  // thread wake-up per request and buy nothing. After a signal it dispatches no more lines.
  reader_ = std::thread([this, sess = session_, stopping = stopping_] {
    auto& ioc = ioc_;
    auto& writer = writer_;
    const auto& options = options_;
    read_lines(
        options.in_fd, options.max_line_bytes,
        [&](std::string& line) {
          if (!stopping->load()) sess->handle_text(line);
        },
        [&] {
          log::warning("discarding an input line longer than " + std::to_string(options.max_line_bytes) + " bytes");
          writer->write_line(R"({"jsonrpc":"2.0","error":{"code":-32600,"message":"request too large: a line exceeds )" +
                             std::to_string(options.max_line_bytes) + R"( bytes"}})");
        });
    // End of input: every line has been dispatched; wait for running calls.
    sess->end_of_input();  // nobody is left to approve for or answer a waiting SQL call
    sess->wait_idle();
    asio::post(ioc, on_input_end_);
  });
}

stdio_link::~stdio_link() {
  // After a signal the reader may still be blocked in read(); it holds nothing worth waiting for.
  if (reader_.joinable()) reader_.detach();
}

void stdio_link::cancel_all() {
  stopping_->store(true);
  session_->cancel_all();
}
void stdio_link::wait_idle() { session_->wait_idle(); }
void stdio_link::join() {
  if (reader_.joinable()) reader_.join();
}

}  // namespace detail

int run_stdio(mcp::server& srv, auth::scope ceiling, const stdio_options& options) {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context ioc;
  auto guard = asio::make_work_guard(ioc);
  bool interrupted = false;
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  detail::stdio_link link(ioc, srv, ceiling, options, [&] {
    signals.cancel();
    guard.reset();
  });
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    log::info(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", stopping");
    interrupted = true;
    link.cancel_all();
    guard.reset();
    ioc.stop();
  });

  ioc.run();
  if (interrupted) {
    // The reader may still be blocked in read(); it holds no resources worth waiting for.
    link.wait_idle();
    if (options.on_signal_exit) options.on_signal_exit();
    std::_Exit(0);
  }
  link.join();
  return 0;
}

}  // namespace omgdb::transports
