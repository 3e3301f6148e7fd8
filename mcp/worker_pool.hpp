// omgdb mcp — a bounded pool of worker threads for tool handlers.
//
// Jobs run in submission order on up to `threads` threads, except that the jobs of one owner
// (a bearer token's sessions together over HTTP, else one session) occupy at most
// `owner_share` threads at once: a free worker takes the oldest job whose owner is under its
// share, so one client flooding the pool leaves a worker for the others' calls while its own
// wait. The queue holds at most `max_queue` jobs waiting to
// start; try_submit refuses more, so a flood of requests gets a clear "server busy" answer
// instead of unbounded memory. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace omgdb::mcp {

class worker_pool {
 public:
  // `owner_share` 0: no per-owner limit.
  worker_pool(std::size_t threads, std::size_t max_queue, std::size_t owner_share = 0);
  ~worker_pool();  // finishes queued jobs, then joins (a stuck job blocks it: see wait_idle_until)
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  // False when the queue is full or the pool is stopping.
  // `owner` (null: none, never limited) names whose share the job counts against.
  bool try_submit(std::function<void()> job, const void* owner = nullptr);
  std::size_t queued() const;
  // Blocks until the queue has room for one more job (or the pool is stopping), at most until
  // `until`; true when it has room. Another thread may take the room first: try_submit again.
  bool wait_for_room_until(std::chrono::steady_clock::time_point until) const;
  bool accepting() const;  // not stopping
  // No job queued or running (a snapshot: another thread may submit the next moment).
  bool idle() const noexcept { return unfinished_.load(std::memory_order_acquire) == 0; }
  // Blocks until no job is queued or running, or until `until`; true when idle.
  bool wait_idle_until(std::chrono::steady_clock::time_point until) const;
  // Jobs running now (a snapshot).
  std::size_t running() const;
  std::size_t max_queue() const noexcept { return max_queue_; }
  std::size_t threads() const noexcept { return threads_.size(); }
  std::size_t owner_share() const noexcept { return share_; }

 private:
  struct job_entry {
    std::function<void()> run;
    const void* owner = nullptr;
  };
  void run();
  // The oldest queued job whose owner is under its share, or jobs_.end(). Under mu_.
  std::deque<job_entry>::iterator next_eligible();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  mutable std::condition_variable idle_cv_;  // notified when unfinished_ reaches 0
  mutable std::condition_variable room_cv_;  // notified when a job leaves the queue
  std::deque<job_entry> jobs_;
  std::map<const void*, std::size_t> running_;  // owner → jobs running now (owners with none absent)
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> unfinished_{0};  // queued or running
  std::size_t max_queue_;
  std::size_t share_;
  bool stopping_ = false;
};

}  // namespace omgdb::mcp
