// Helpers for the tests of the per-call budget (common/call_budget.hpp) in expressions and
// pipelines: a budget installed for one test, the process's peak resident set growth, CPU
// time, and a flag set from another thread after a delay.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <time.h>

#include "common/call_budget.hpp"
#include "common/result.hpp"

namespace omgdb::engine::budget_test {

// A call budget of `bytes`, with its own stop flag, installed as the thread's current budget
// while the object lives (what mcp/session.cpp does for a tool call).
struct installed_budget {
  std::atomic<bool> stop{false};
  call_budget budget;
  budget_scope scope;
  explicit installed_budget(std::uint64_t bytes) : budget(bytes, &stop), scope(&budget) {}
};

// A /proc/self/status figure in KiB ("VmHWM:", "VmRSS:"), or 0 without /proc.
inline std::int64_t status_kib(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = key;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  }
  return 0;
}

// How far the process's peak resident set rose above its current size while `f` ran, in MiB
// (the peak is reset first, through /proc/self/clear_refs).
template <class F>
double peak_growth_mib(F&& f) {
  {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
  }
  const std::int64_t before = status_kib("VmRSS:");
  f();
  const std::int64_t peak = status_kib("VmHWM:");
  return static_cast<double>(peak - before) / 1024.0;
}

// The CPU time `f` took on this thread, in seconds: what an algorithm costs, unaffected by
// how busy the machine is (wall time is what the cancellation tests measure).
template <class F>
double cpu_seconds(F&& f) {
  auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  };
  const double t0 = now();
  f();
  return now() - t0;
}

// Sets `flag` after `delay` on another thread and records when; join() waits for it.
class delayed_stop {
 public:
  delayed_stop(std::atomic<bool>& flag, std::chrono::milliseconds delay)
      : thread_([this, &flag, delay] {
          std::this_thread::sleep_for(delay);
          set_at_ = std::chrono::steady_clock::now();
          flag.store(true);
        }) {}
  ~delayed_stop() {
    if (thread_.joinable()) thread_.join();
  }
  // Milliseconds from the flag being set until now (joins the thread first).
  double ms_since_set() {
    const auto now = std::chrono::steady_clock::now();
    thread_.join();
    return std::chrono::duration<double, std::milli>(now - set_at_).count();
  }

 private:
  std::chrono::steady_clock::time_point set_at_{};
  std::thread thread_;
};

// The failure is the call's memory bound (kind limit_exceeded, the bound named).
inline void check_memory_bound(const failure& f, const std::string& bound) {
  CAPTURE(f.message);
  CHECK(f.kind == failure_kind::limit_exceeded);
  CHECK(f.message.find("exceeded its memory limit of " + bound) != std::string::npos);
}

}  // namespace omgdb::engine::budget_test
