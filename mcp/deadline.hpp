// omgdb mcp — the per-call deadline (MongoDB's maxTimeMS as the model): one thread per server
// that fires a callback at each armed time point. A call arms its deadline as it starts on a
// worker and disarms it as it ends; firing sets the call's cancellation flag with the reason
// `deadline`, which every engine loop already polls (engine::scan_control::cancelled).
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace omgdb::mcp {

class deadline_timer {
 public:
  using clock = std::chrono::steady_clock;

  deadline_timer();
  ~deadline_timer();  // unfired callbacks are dropped
  deadline_timer(const deadline_timer&) = delete;
  deadline_timer& operator=(const deadline_timer&) = delete;

  // Calls `fire` on the timer's thread at `when` unless disarmed first. Returns the ticket.
  std::uint64_t arm(clock::time_point when, std::function<void()> fire);
  // Removes an armed callback; once this returns it will not run (it may be running now, on
  // the timer thread, when the deadline is just passing: disarm then waits for it).
  void disarm(std::uint64_t ticket);
  std::size_t armed() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<clock::time_point, std::pair<std::uint64_t, std::function<void()>>> queue_;
  std::map<std::uint64_t, clock::time_point> by_ticket_;
  std::uint64_t next_ = 1;
  std::uint64_t firing_ = 0;  // the ticket whose callback runs now (0: none)
  std::condition_variable fired_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace omgdb::mcp
