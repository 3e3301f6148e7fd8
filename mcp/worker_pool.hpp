// omgdb mcp — a bounded pool of worker threads for tool handlers.
//
// Jobs run in submission order on up to `threads` threads. The queue holds at most
// `max_queue` jobs waiting to start; try_submit refuses more, so a flood of requests gets a
// clear "server busy" answer instead of unbounded memory. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace omgdb::mcp {

class worker_pool {
 public:
  worker_pool(std::size_t threads, std::size_t max_queue);
  ~worker_pool();  // finishes queued jobs, then joins
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  // False when the queue is full or the pool is stopping.
  bool try_submit(std::function<void()> job);
  std::size_t queued() const;
  // No job queued or running (a snapshot: another thread may submit the next moment).
  bool idle() const noexcept { return unfinished_.load(std::memory_order_acquire) == 0; }
  std::size_t max_queue() const noexcept { return max_queue_; }

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> unfinished_{0};  // queued or running
  std::size_t max_queue_;
  bool stopping_ = false;
};

}  // namespace omgdb::mcp
