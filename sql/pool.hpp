// omgdb sql — a small pool of client-library sessions for one connection.
//
// At most `capacity` sessions exist at once. `acquire` hands out an idle session or opens a new
// one (through the factory, outside the lock); when all are busy it waits in ~50 ms slices
// until one comes back, the deadline passes or the call is cancelled. A lease returns its
// session on destruction only if the adapter marked it `reusable()` after resetting its
// session state; anything in doubt (an error mid-protocol, a cancelled statement, a failed
// reset) is closed instead. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/result.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

template <class Session>
class pool {
 public:
  using factory = std::function<result<std::unique_ptr<Session>>(const deadline&)>;

  class lease {
   public:
    lease() = default;
    lease(pool* owner, std::unique_ptr<Session> s) : owner_(owner), session_(std::move(s)) {}
    lease(lease&& o) noexcept : owner_(o.owner_), session_(std::move(o.session_)), reusable_(o.reusable_) {
      o.owner_ = nullptr;
    }
    lease& operator=(lease&&) = delete;
    ~lease() {
      if (owner_) owner_->give_back(reusable_ ? std::move(session_) : nullptr);
    }
    Session& operator*() { return *session_; }
    Session* operator->() { return session_.get(); }
    // Call after the session state was reset; without it the session is closed on release.
    void reusable(bool yes = true) { reusable_ = yes; }

   private:
    pool* owner_ = nullptr;
    std::unique_ptr<Session> session_;
    bool reusable_ = false;
  };

  pool(unsigned capacity, factory make) : capacity_(capacity ? capacity : 1), make_(std::move(make)) {}

  // acquire, then `setup(session)` — our own commands before the caller's statement. A pooled
  // session found dead during setup (the server restarted, an idle timeout closed it) is
  // closed and replaced once; the caller's statement itself is never retried.
  template <class Setup>
  result<lease> acquire_ready(const deadline& dl, Setup&& setup) {
    for (int attempt = 0;; ++attempt) {
      auto l = acquire(dl);
      if (!l) return l;
      status st = setup(*l.value());
      if (st) return l;
      if (attempt > 0 || !(*l.value()).broken()) return std::move(st).error();
    }
  }

  result<lease> acquire(const deadline& dl) {
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (!idle_.empty()) {
          auto s = std::move(idle_.back());
          idle_.pop_back();
          return lease(this, std::move(s));
        }
        if (open_ < capacity_) {
          ++open_;
          break;
        }
        if (dl.expired()) {
          return make_error("no database session became free in time: " + dl.stop_message(),
                            dl.cancelled() ? failure_kind::cancelled : failure_kind::busy);
        }
        freed_.wait_for(lock, std::chrono::milliseconds(50));
      }
    }
    auto made = make_(dl);
    if (!made) {
      give_back(nullptr);
      return std::move(made).error();
    }
    return lease(this, std::move(made).value());
  }

 private:
  // A null session means the lease's session is closed (by the lease, outside the lock).
  void give_back(std::unique_ptr<Session> s) {
    {
      std::lock_guard lock(mutex_);
      if (s) idle_.push_back(std::move(s));
      else --open_;
    }
    freed_.notify_one();
  }

  unsigned capacity_;
  factory make_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Session>> idle_;
  unsigned open_ = 0;
};

}  // namespace omgdb::sql::detail
