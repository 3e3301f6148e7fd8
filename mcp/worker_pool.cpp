#include "mcp/worker_pool.hpp"

#include <pthread.h>

#include <algorithm>

namespace omgdb::mcp {

worker_pool::worker_pool(std::size_t threads, std::size_t max_queue, std::size_t owner_share)
    : max_queue_(max_queue), share_(owner_share) {
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
  room_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool worker_pool::try_submit(std::function<void()> job, const void* owner) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || jobs_.size() >= max_queue_) return false;
    jobs_.push_back(job_entry{std::move(job), owner});
    unfinished_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_one();
  return true;
}

bool worker_pool::wait_idle_until(std::chrono::steady_clock::time_point until) const {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_until(lock, until, [this] { return idle(); });
}

std::size_t worker_pool::running() const {
  std::lock_guard lock(mu_);
  std::size_t all = unfinished_.load(std::memory_order_acquire);
  return all > jobs_.size() ? all - jobs_.size() : 0;
}

bool worker_pool::wait_for_room_until(std::chrono::steady_clock::time_point until) const {
  std::unique_lock lock(mu_);
  return room_cv_.wait_until(lock, until, [this] { return stopping_ || jobs_.size() < max_queue_; }) && !stopping_;
}

bool worker_pool::accepting() const {
  std::lock_guard lock(mu_);
  return !stopping_;
}

std::size_t worker_pool::queued() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

std::deque<worker_pool::job_entry>::iterator worker_pool::next_eligible() {
  if (share_ == 0) return jobs_.begin();
  return std::find_if(jobs_.begin(), jobs_.end(), [this](const job_entry& j) {
    if (j.owner == nullptr) return true;
    auto it = running_.find(j.owner);
    return it == running_.end() || it->second < share_;
  });
}

void worker_pool::run() {
  for (;;) {
    job_entry job;
    {
      std::unique_lock lock(mu_);
      auto pick = jobs_.end();
      cv_.wait(lock, [&] {
        pick = next_eligible();
        return pick != jobs_.end() || (stopping_ && jobs_.empty());
      });
      if (pick == jobs_.end()) return;  // stopping and drained
      job = std::move(*pick);
      jobs_.erase(pick);
      if (job.owner != nullptr) ++running_[job.owner];
    }
    room_cv_.notify_all();  // a transport may wait for room (stdio's flow control)
    job.run();
    job.run = nullptr;  // what the job holds goes before the pool counts it finished
    bool had_owner = job.owner != nullptr;
    if (had_owner) {
      std::lock_guard lock(mu_);
      auto it = running_.find(job.owner);
      if (it != running_.end() && --it->second == 0) running_.erase(it);
    }
    if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mu_);  // a waiter checks idle() under mu_: no wake-up is lost
      idle_cv_.notify_all();
    }
    // A job of this owner may have waited for its share: another worker may take it now.
    if (had_owner && share_ != 0) cv_.notify_all();
  }
}

}  // namespace omgdb::mcp
