#include "mcp/server.hpp"

#include <stdexcept>
#include <thread>

#include "mcp/session.hpp"

namespace omgdb::mcp {

server::server(server_options options, std::vector<tool> tools)
    : options_(std::move(options)), tools_(std::move(tools)) {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    if (!by_name_.emplace(tools_[i].name, i).second) {
      throw std::logic_error("duplicate tool name " + tools_[i].name);
    }
  }
  std::size_t n = options_.workers;
  if (n == 0) n = std::max<std::size_t>(2, std::thread::hardware_concurrency());
  std::size_t share = options_.session_workers;
  if (share == 0) share = n > 1 ? n - 1 : 1;
  deadlines_ = std::make_unique<deadline_timer>();
  pool_ = std::make_unique<worker_pool>(n, options_.max_queue, share);
}

void server::enlist(session* s) {
  std::lock_guard lock(sessions_mu_);
  sessions_.insert(s);
}

void server::delist(session* s) {
  std::lock_guard lock(sessions_mu_);
  sessions_.erase(s);
}

void server::begin_shutdown(std::chrono::milliseconds grace) {
  std::chrono::steady_clock::time_point overdue_at;
  {
    std::lock_guard lock(sessions_mu_);
    if (stopping_.load()) return;
    stop_at_ = std::chrono::steady_clock::now() + grace;
    overdue_at = stop_at_ + options_.overdue_margin;
    // Set before the sessions are walked: a call admitted meanwhile sees it as it starts
    // (session::run_call) and stops there.
    stopping_.store(true, std::memory_order_release);
    for (session* s : sessions_) s->stop_calls();
  }
  if (options_.on_abandon) {
    // Detached, holding no reference to the server: it must outlive whatever blocks (a stuck
    // worker keeps ~server from returning) and fire even if the orderly stop is stuck.
    std::thread([fire = options_.on_abandon, overdue_at] {
      std::this_thread::sleep_until(overdue_at);
      fire(true);
    }).detach();
  }
}

void server::abandon_stuck_calls() {
  if (!stopping() || pool_->idle() || !options_.on_abandon) return;
  if (abandoning_.exchange(true)) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // the first caller ends the process
  }
  options_.on_abandon(false);
}

std::chrono::steady_clock::time_point server::stop_deadline() const {
  std::lock_guard lock(sessions_mu_);
  return stop_at_;
}

bool server::drain() const {
  if (!stopping()) return pool_->idle();
  return pool_->wait_idle_until(stop_deadline());
}

const tool* server::find(std::string_view name) const noexcept {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &tools_[it->second];
}

std::vector<const tool*> server::visible(auth::scope ceiling) const {
  std::vector<const tool*> out;
  for (const auto& t : tools_) {
    if (auth::allows(ceiling, t.required_scope)) out.push_back(&t);
  }
  return out;
}

}  // namespace omgdb::mcp
