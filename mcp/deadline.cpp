#include "mcp/deadline.hpp"

#include <pthread.h>

namespace omgdb::mcp {

deadline_timer::deadline_timer() {
  thread_ = std::thread([this] {
    ::pthread_setname_np(::pthread_self(), "omgdb-deadline");
    run();
  });
}

deadline_timer::~deadline_timer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::uint64_t deadline_timer::arm(clock::time_point when, std::function<void()> fire) {
  std::uint64_t ticket;
  bool earliest;
  {
    std::lock_guard lock(mu_);
    ticket = next_++;
    earliest = queue_.empty() || when < queue_.begin()->first;
    queue_.emplace(when, std::make_pair(ticket, std::move(fire)));
    by_ticket_.emplace(ticket, when);
  }
  if (earliest) cv_.notify_all();
  return ticket;
}

void deadline_timer::disarm(std::uint64_t ticket) {
  std::unique_lock lock(mu_);
  fired_cv_.wait(lock, [&] { return firing_ != ticket; });
  auto it = by_ticket_.find(ticket);
  if (it == by_ticket_.end()) return;  // fired already
  auto [b, e] = queue_.equal_range(it->second);
  for (auto q = b; q != e; ++q) {
    if (q->second.first == ticket) {
      queue_.erase(q);
      break;
    }
  }
  by_ticket_.erase(it);
}

std::size_t deadline_timer::armed() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void deadline_timer::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (queue_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = queue_.begin();
    if (const clock::time_point when = first->first; clock::now() < when) {
      // A copy: the entry may be disarmed (erased) while this waits without the lock.
      cv_.wait_until(lock, when);
      continue;
    }
    auto [ticket, fire] = std::move(first->second);
    queue_.erase(first);
    by_ticket_.erase(ticket);
    firing_ = ticket;
    lock.unlock();
    fire();
    lock.lock();
    firing_ = 0;
    fired_cv_.notify_all();
  }
}

}  // namespace omgdb::mcp
