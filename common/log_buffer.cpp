// omgdb common — coalesced log output (see log.hpp, "Coalescing").
#include "common/log.hpp"
#include "common/fd_io.hpp"

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace omgdb::log {
namespace {

constexpr std::size_t flush_at_bytes = 64 * 1024;
constexpr long flush_after_ns = 10'000'000;  // 10 ms

// Never destroyed: the detached flusher thread and exit()'s handler may use it while static
// objects are being torn down. Lock order: write_mu, then mu.
struct buffer_state {
  std::mutex write_mu;  // held while lines go to fd 2, so they leave in the order buffered
  std::mutex mu;
  std::condition_variable has_lines;
  std::string lines;    // waiting to be written
  std::string sending;  // being written (under write_mu)
  bool flusher_started = false;
};

std::atomic<int> scopes{0};
std::atomic<buffer_state*> state_ptr{nullptr};

// Writes what is buffered, then `extra` (a warning or an error line), in order.
void flush_state(buffer_state& s, std::string_view extra) noexcept {
  std::lock_guard w(s.write_mu);
  {
    std::lock_guard lock(s.mu);
    s.sending.swap(s.lines);
  }
  if (!s.sending.empty()) fd_io::write_all(2, s.sending);
  if (s.sending.capacity() > 4 * flush_at_bytes) {
    std::string().swap(s.sending);
  } else {
    s.sending.clear();
  }
  if (!extra.empty()) fd_io::write_all(2, extra);
}

void flusher(buffer_state* s) {
  ::pthread_setname_np(::pthread_self(), "omgdb-log");
  for (;;) {
    {
      std::unique_lock lock(s->mu);
      s->has_lines.wait(lock, [s] { return !s->lines.empty(); });
    }
    // Let the burst gather (a plain sleep: no wake-up is needed to end it early).
    timespec ts{0, flush_after_ns};
    while (::nanosleep(&ts, &ts) != 0) {
    }
    flush_state(*s, {});
  }
}

buffer_state& state() {
  buffer_state* s = state_ptr.load(std::memory_order_acquire);
  if (s) return *s;
  static buffer_state* created = [] {
    auto* fresh = new buffer_state;
    state_ptr.store(fresh, std::memory_order_release);
    std::atexit([] { flush(); });
    // A forked child has no flusher thread and may have copied a held mutex: it starts over
    // with fresh state (the parent's copy is abandoned).
    ::pthread_atfork(nullptr, nullptr, [] { state_ptr.store(new buffer_state, std::memory_order_release); });
    return fresh;
  }();
  (void)created;
  return *state_ptr.load(std::memory_order_acquire);
}

}  // namespace

void write_line(level l, std::string_view line) noexcept {
  if (scopes.load(std::memory_order_relaxed) == 0) {
    buffer_state* s = state_ptr.load(std::memory_order_acquire);
    if (s == nullptr) {
      fd_io::write_all(2, line);
      return;
    }
    return flush_state(*s, line);  // lines buffered before the last scope ended go first
  }
  buffer_state& s = state();
  if (l >= level::warning) return flush_state(s, line);
  bool wake = false;
  std::size_t size = 0;
  try {
    std::lock_guard lock(s.mu);
    if (!s.flusher_started) {
      std::thread(flusher, &s).detach();
      s.flusher_started = true;
    }
    wake = s.lines.empty();
    s.lines.append(line);
    size = s.lines.size();
  } catch (...) {
    return flush_state(s, line);  // no memory or no thread: write it now
  }
  if (size >= flush_at_bytes) return flush_state(s, {});
  if (wake) s.has_lines.notify_one();
}

void flush() noexcept {
  if (buffer_state* s = state_ptr.load(std::memory_order_acquire)) flush_state(*s, {});
}

coalescing_scope::coalescing_scope() noexcept { scopes.fetch_add(1); }

coalescing_scope::~coalescing_scope() {
  scopes.fetch_sub(1);
  flush();
}

}  // namespace omgdb::log
