#include "mcp/worker_pool.hpp"

#include <pthread.h>

#include <algorithm>

namespace omgdb::mcp {

worker_pool::worker_pool(std::size_t threads, std::size_t max_queue) : max_queue_(max_queue) {
  threads = std::max<std::size_t>(1, threads);
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      ::pthread_setname_np(::pthread_self(), "omgdb-worker");  // tells them apart in top, perf, /proc
      run();
    });
  }
}

worker_pool::~worker_pool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool worker_pool::try_submit(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || jobs_.size() >= max_queue_) return false;
    jobs_.push_back(std::move(job));
    unfinished_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_one();
  return true;
}

std::size_t worker_pool::queued() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

void worker_pool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
    job = nullptr;  // what the job holds goes before the pool counts it finished
    unfinished_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace omgdb::mcp
