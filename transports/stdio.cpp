#include "transports/stdio.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
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

namespace {

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

}  // namespace

int run_stdio(mcp::server& srv, auth::scope ceiling, const stdio_options& options) {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context ioc;
  auto guard = asio::make_work_guard(ioc);
  auto writer = std::make_shared<line_writer>(options.out_fd);
  auto sess = std::make_shared<mcp::session>(
      srv, ceiling, [writer](std::string message, std::string_view) { writer->write_line(std::move(message)); });
  sess->set_label("stdio");

  bool interrupted = false;
  std::atomic<bool> stopping{false};  // set on a signal: the reader dispatches no more lines
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    log::info(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", stopping");
    interrupted = true;
    stopping = true;
    sess->cancel_all();
    guard.reset();
    ioc.stop();
  });

  // A blocking reader thread works for pipes, terminals and regular files alike (epoll
  // refuses regular files). It dispatches each complete line itself: handle_text only parses
  // and queues (tool calls run on the worker pool), so a hop to the event loop would cost a
  // thread wake-up per request and buy nothing; the event loop only watches for signals.
  std::thread reader([&, sess] {
    std::string buf;
    std::string chunk(64 * 1024, '\0');
    bool discarding = false;
    for (;;) {
      ssize_t n = ::read(options.in_fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::size_t start = 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        if (chunk[i] != '\n') continue;
        if (!discarding) {
          buf.append(chunk, start, i - start);
          if (!stopping.load()) sess->handle_text(buf);
        }
        buf.clear();
        if (buf.capacity() > 1024 * 1024) buf = std::string();
        discarding = false;
        start = i + 1;
      }
      if (!discarding) buf.append(chunk, start, static_cast<std::size_t>(n) - start);
      if (!discarding && buf.size() > options.max_line_bytes) {
        log::warning("discarding an input line longer than " + std::to_string(options.max_line_bytes) +
                     " bytes");
        writer->write_line(R"({"jsonrpc":"2.0","error":{"code":-32600,"message":"request too large: a line exceeds )" +
                           std::to_string(options.max_line_bytes) + R"( bytes"}})");
        buf = std::string();
        discarding = true;
      }
    }
    if (!discarding && !buf.empty() && !stopping.load()) sess->handle_text(buf);
    // End of input: every line has been dispatched; wait for running calls.
    sess->wait_idle();
    asio::post(ioc, [&] {
      signals.cancel();
      guard.reset();
    });
  });

  ioc.run();
  if (interrupted) {
    // The reader may still be blocked in read(); it holds no resources worth waiting for.
    sess->wait_idle();
    if (options.on_signal_exit) options.on_signal_exit();
    std::_Exit(0);
  }
  reader.join();
  return 0;
}

}  // namespace omgdb::transports
