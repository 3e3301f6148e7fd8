#include "transports/stdio.hpp"
#include "transports/stdio_link.hpp"
#include "transports/line_reader.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include <chrono>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include "common/log.hpp"
#include "common/fd_io.hpp"
#include "mcp/session.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;

namespace detail {

// Writes whole lines to one fd, in the order write_line is called. While one thread is in
// write(2), lines from other threads queue and leave with its next write: a busy session makes
// one syscall for several replies, an idle one sends each reply at once. Between hold() and
// release() (the reader dispatching the lines of one read(2), some of them answered on the
// spot) lines queue too and leave together at release(). After the first failed write (the
// client went away) further output is dropped. drain() waits until every queued line has left
// (or failed), so that nothing is lost at the end of input.
class line_writer {
 public:
  explicit line_writer(int fd) : fd_(fd) {}

  void write_line(std::string message) {
    message.push_back('\n');
    std::unique_lock lock(mu_);
    if (broken_) return;
    if (pending_.empty() && !writing_) {
      pending_.swap(message);  // the usual idle case: no copy
    } else {
      pending_.append(message);
    }
    if (writing_ || held_) return;  // the thread in write(2), or release(), sends it next
    send_pending(lock);
  }

  void hold() {
    std::lock_guard lock(mu_);
    held_ = true;
  }

  void release() {
    std::unique_lock lock(mu_);
    held_ = false;
    if (!writing_ && !pending_.empty()) return send_pending(lock);
    idle_.notify_all();
  }

  void drain() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [&] { return !writing_ && !held_; });
  }

  // drain(), at most until `until` (a client that stops reading stdout blocks write(2)).
  bool drain_until(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mu_);
    return idle_.wait_until(lock, until, [&] { return !writing_ && !held_; });
  }

 private:
  void send_pending(std::unique_lock<std::mutex>& lock) {
    writing_ = true;
    while (!pending_.empty() && !broken_) {
      sending_.swap(pending_);
      lock.unlock();
      const bool ok = fd_io::write_all(fd_, sending_);
      lock.lock();
      if (sending_.capacity() > (1u << 20)) sending_ = std::string();  // do not keep a huge reply's buffer
      sending_.clear();
      if (!ok) {
        broken_ = true;
        pending_.clear();
        log::warning("stdout closed; dropping further output");
      }
    }
    writing_ = false;
    idle_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable idle_;
  int fd_;
  bool broken_ = false;
  bool writing_ = false;
  bool held_ = false;
  std::string pending_;  // lines waiting for the writing thread
  std::string sending_;  // what the writing thread is sending (only it touches this)
};

stdio_link::stdio_link(asio::io_context& ioc, mcp::server& srv, auth::scope ceiling, stdio_options options,
                       std::function<void()> on_input_end)
    : ioc_(ioc), options_(std::move(options)), on_input_end_(std::move(on_input_end)) {
  writer_ = std::make_shared<line_writer>(options_.out_fd);
  session_ = std::make_shared<mcp::session>(
      srv, ceiling, [writer = writer_](mcp::outgoing m) {
        if (m.kind != mcp::message_kind::abandoned) writer->write_line(std::move(m.text));
      });
  session_->set_label("stdio");
  // Quick tools (get) run on the reader thread: no hop to a worker and back, and the replies to
  // the lines of one read(2) leave in one write(2) (the writer is held while they are read).
  session_->set_run_quick_inline(true);
  // Flow control: while the worker queue is full the reader waits for room (and reads no more
  // stdin, so the pipe holds a pipelining client back) instead of answering "server busy".
  session_->set_wait_for_room(true);

  // A blocking reader thread works for pipes, terminals and regular files alike (epoll
  // refuses regular files). It dispatches each complete line itself: handle_text parses and
  // queues (tool calls run on the worker pool, quick ones here while the pool is idle), so a
  // hop to the event loop would cost a thread wake-up per request and buy nothing. After a
  // signal it dispatches no more lines.
  reader_ = std::thread([this, sess = session_, stopping = stopping_, abandoned = abandoned_] {
    ::pthread_setname_np(::pthread_self(), "omgdb-stdin");
    auto& ioc = ioc_;
    auto& writer = writer_;
    const auto& options = options_;
    bool holding = false;
    std::uint64_t line_no = 0;  // names an ignored line in the warning
    read_lines(
        options.in_fd, options.max_line_bytes,
        [&](std::string& line) {
          ++line_no;
          if (stopping->load()) return;
          if (holding && sess->queue_full()) {
            writer->release();  // the answers held so far leave while the reader waits for room
            holding = false;
          }
          if (!holding) writer->hold();
          holding = true;
          sess->handle_text(line, line_no);
        },
        [&](std::string_view prefix) {
          ++line_no;
          log::warning("discarding input line " + std::to_string(line_no) + ": longer than " +
                       std::to_string(options.max_line_bytes) + " bytes");
          sess->refuse_oversized(prefix, options.max_line_bytes);  // with its id when the prefix holds it
        },
        [&] {
          if (holding) writer->release();
          holding = false;
        });
    writer->release();  // the last line may have come without its '\n'
    // End of input: every line has been dispatched; the calls still running are answered, each
    // bounded by its own deadline. One that runs past its deadline by more than the shutdown
    // deadline ignores its flag: it is abandoned instead of holding the process forever.
    sess->end_of_input();  // nobody is left to approve for or answer a waiting SQL call
    const auto grace = options.shutdown_deadline;
    for (;;) {
      if (sess->wait_idle_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(50))) break;
      if (sess->overdue(grace)) {
        log::warning("end of input: a call has run past its deadline by more than the shutdown deadline (" +
                     std::to_string(grace.count()) + " ms) and ignores its cancellation; it is abandoned");
        abandoned->store(true);
        break;
      }
    }
    // The last replies may still be leaving from another thread (bounded: a client that stops
    // reading stdout must not hold the process).
    if (!writer->drain_until(std::chrono::steady_clock::now() + grace)) abandoned->store(true);
    asio::post(ioc, on_input_end_);
  });
}

stdio_link::~stdio_link() {
  // After a signal the reader may still be blocked in read(); it holds nothing worth waiting for.
  if (reader_.joinable()) reader_.detach();
}

void stdio_link::stop_reading() { stopping_->store(true); }
bool stdio_link::wait_idle_until(std::chrono::steady_clock::time_point until) {
  return session_->wait_idle_until(until) && writer_->drain_until(until);
}
bool stdio_link::abandoned() const { return abandoned_->load(); }
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
    link.stop_reading();
    srv.begin_shutdown(options.shutdown_deadline);  // every call's flag, reason `shutdown`
    guard.reset();
    ioc.stop();
  });

  {
    log::coalescing_scope coalesce;  // the per-call lines of a busy session leave together
    ioc.run();
  }
  if (interrupted || link.abandoned()) {
    // End of input with a call stuck past its deadline: the calls still queued stop too.
    if (!interrupted) srv.begin_shutdown(std::chrono::milliseconds(0));
    // The reader may still be blocked in read(); it holds no resources worth waiting for.
    if (!link.wait_idle_until(srv.stop_deadline())) {
      log::warning("shutdown deadline reached: " + std::to_string(srv.pool().running()) +
                   " call(s) still running ignore their cancellation");
    }
    srv.abandon_stuck_calls();  // the daemon's hook ends the process when calls are stuck
    if (options.on_signal_exit) options.on_signal_exit();
    log::flush();
    std::_Exit(0);
  }
  link.join();
  return 0;
}

}  // namespace omgdb::transports
