#include "common/log.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace omgdb::log {
namespace {

level initial_threshold() {
  const char* env = std::getenv("OMGDB_LOG_LEVEL");
  if (!env) return level::info;
  std::string_view s(env);
  if (s == "debug") return level::debug;
  if (s == "warning" || s == "warn") return level::warning;
  if (s == "error") return level::error;
  if (s == "off" || s == "none") return level::off;
  return level::info;
}

std::atomic<int>& threshold_ref() {
  static std::atomic<int> t{static_cast<int>(initial_threshold())};
  return t;
}

std::string_view name(level l) {
  switch (l) {
    case level::debug: return "debug";
    case level::info: return "info";
    case level::warning: return "warning";
    case level::error: return "error";
    case level::off: return "off";
  }
  return "info";
}

}  // namespace

static std::atomic<sink_fn>& sink_ref() {
  static std::atomic<sink_fn> s{nullptr};
  return s;
}

void set_sink(sink_fn sink) noexcept { sink_ref().store(sink); }

void set_threshold(level l) noexcept { threshold_ref().store(static_cast<int>(l)); }
level threshold() noexcept { return static_cast<level>(threshold_ref().load()); }
bool enabled(level l) noexcept { return static_cast<int>(l) >= threshold_ref().load(); }

namespace {

// getpid() without a syscall per line; a forked child starts over.
std::atomic<int> pid_cache{0};

int current_pid() noexcept {
  static const bool registered = [] {
    ::pthread_atfork(nullptr, nullptr, [] { pid_cache.store(0); });
    return true;
  }();
  (void)registered;
  int pid = pid_cache.load(std::memory_order_relaxed);
  if (pid == 0) {
    pid = static_cast<int>(::getpid());
    pid_cache.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

// "2026-11-30T02:24:46.123Z omgdb[pid] " for the current millisecond. The part up to the
// seconds is recomputed (gmtime_r) once per second per thread, the pid part when it changes.
std::size_t line_prefix(char* out) noexcept {
  using namespace std::chrono;
  struct cache {
    std::time_t secs = -1;
    char date[64];  // "2026-11-30T02:24:46."
    char pid[32];   // "Z omgdb[1234] "
    std::size_t pid_len = 0;
    int pid_of = 0;
  };
  thread_local cache c;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  int ms = static_cast<int>(duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000);
  if (ms < 0) ms += 1000;
  if (secs != c.secs) {
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::snprintf(c.date, sizeof c.date, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    c.secs = secs;
  }
  if (int pid = current_pid(); pid != c.pid_of) {
    int n = std::snprintf(c.pid, sizeof c.pid, "Z omgdb[%d] ", pid);
    c.pid_len = n > 0 ? static_cast<std::size_t>(n) : 0;
    c.pid_of = pid;
  }
  std::size_t len = std::strlen(c.date);
  std::memcpy(out, c.date, len);
  out[len++] = static_cast<char>('0' + ms / 100);
  out[len++] = static_cast<char>('0' + ms / 10 % 10);
  out[len++] = static_cast<char>('0' + ms % 10);
  std::memcpy(out + len, c.pid, c.pid_len);
  return len + c.pid_len;
}


}  // namespace

void write(level l, std::string_view message) noexcept {
  if (!enabled(l) || l == level::off) return;
  if (sink_fn sink = sink_ref().load()) return sink(l, message);
  // Formatted on the stack when it fits (every per-call line does), else in one allocation;
  // either way the line is handed on whole, so concurrent lines never interleave.
  char stack[1024];
  char prefix[96];
  std::size_t plen = line_prefix(prefix);
  std::string_view lname = name(l);
  std::size_t total = plen + lname.size() + 2 + message.size() + 1;
  std::string heap;
  char* buf = stack;
  if (total > sizeof stack) {
    try {
      heap.resize(total);
    } catch (...) {
      return;
    }
    buf = heap.data();
  }
  char* p = buf;
  std::memcpy(p, prefix, plen);
  p += plen;
  std::memcpy(p, lname.data(), lname.size());
  p += lname.size();
  *p++ = ':';
  *p++ = ' ';
  std::memcpy(p, message.data(), message.size());
  p += message.size();
  *p++ = '\n';
  write_line(l, std::string_view(buf, total));
}

}  // namespace omgdb::log
