#include "sql/approvals.hpp"

#include <algorithm>

#include "auth/token.hpp"
#include "sql/history.hpp"

namespace omgdb::sql {
namespace bj = boost::json;
using clock = std::chrono::steady_clock;

std::string_view to_string(approval_outcome o) noexcept {
  switch (o) {
    case approval_outcome::approved: return "approved";
    case approval_outcome::rejected: return "rejected";
    case approval_outcome::expired: return "expired";
    case approval_outcome::cancelled: return "cancelled";
    case approval_outcome::client_gone: return "client-gone";
    case approval_outcome::connection_switched: return "connection-switched";
    case approval_outcome::shutdown: return "shutdown";
  }
  return "unknown";
}

approval_queue::approval_queue(std::chrono::seconds timeout, std::size_t max_pending)
    : timeout_(std::clamp(timeout, std::chrono::seconds(1), std::chrono::seconds(600))),
      max_pending_(std::max<std::size_t>(1, max_pending)) {}

void approval_queue::bump() {
  ++version_;
  cv_.notify_all();
}

result<std::string> approval_queue::submit(approval_request r) {
  auto id = auth::random_hex_id();
  if (!id) return make_error("cannot create an approval id: " + id.error().message, id.error().kind);
  std::string short_id = id->substr(0, 12);
  std::lock_guard lock(mu_);
  if (stopping_) return make_error("the server is stopping; no new approvals are accepted", failure_kind::unavailable);
  std::size_t waiting = 0;
  for (const auto& [k, e] : entries_) waiting += e.st == state::pending ? 1 : 0;
  if (waiting >= max_pending_) {
    return make_error(std::to_string(max_pending_) +
                      " approvals are already waiting for a person (the limit, so that waiting calls never "
                      "hold every worker); decide them with `omgdb approvals list` / `approve ID` / `reject ID`, "
                      "or retry later", failure_kind::busy);
  }
  entry e;
  e.req = std::move(r);
  e.created = utc_now_text();
  e.expires = clock::now() + timeout_;
  entries_.emplace(short_id, std::move(e));
  bump();
  return short_id;
}

approval_outcome approval_queue::wait(const std::string& id, const wait_hooks& hooks) {
  std::unique_lock lock(mu_);
  auto finish = [&](approval_outcome o) {
    entries_.erase(id);
    bump();
    return o;
  };
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return approval_outcome::expired;
    // Anything that ends the request wins over a decision made at the same moment.
    if (hooks.client_gone && hooks.client_gone->load()) return finish(approval_outcome::client_gone);
    if (hooks.cancelled && hooks.cancelled->load()) return finish(approval_outcome::cancelled);
    if (stopping_) return finish(approval_outcome::shutdown);
    if (it->second.st == state::rejected) return finish(approval_outcome::rejected);
    if (hooks.still_valid) {
      lock.unlock();
      bool valid = hooks.still_valid();
      lock.lock();
      if (!valid) return finish(approval_outcome::connection_switched);
      it = entries_.find(id);
      if (it == entries_.end()) return approval_outcome::expired;
    }
    if (it->second.st == state::approved) return finish(approval_outcome::approved);
    auto now = clock::now();
    if (now >= it->second.expires) return finish(approval_outcome::expired);
    auto until = std::min(it->second.expires, now + hooks.poll);
    cv_.wait_until(lock, until);
  }
}

status approval_queue::decide(std::string_view id, bool approve) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(std::string(id));
  if (it == entries_.end()) {
    return make_error("no pending approval `" + std::string(id) +
                      "`: it was already decided, expired, was cancelled, or never existed", failure_kind::not_found);
  }
  if (it->second.st != state::pending) {
    return make_error("approval `" + std::string(id) + "` was already " +
                      (it->second.st == state::approved ? "approved" : "rejected") + "; a decision counts once", failure_kind::conflict);
  }
  if (clock::now() >= it->second.expires) {
    return make_error("approval `" + std::string(id) + "` has expired; nothing ran", failure_kind::not_found);
  }
  it->second.st = approve ? state::approved : state::rejected;
  bump();
  return {};
}

bj::object approval_queue::to_json(const std::string& id, const entry& e) const {
  const auto& r = e.req;
  bj::object o{{"id", id},
               {"kind", r.kind == approval_kind::execute ? "execute" : "edit"},
               {"connection", r.connection},
               {"label", r.label},
               {"dialect", r.dialect},
               {"session", r.session},
               {"request", r.request},
               {"sql", r.sql}};
  if (r.kind == approval_kind::edit) {
    o["before"] = r.before;
    o["rationale"] = r.rationale;
  } else {
    o["keyword"] = r.keyword;
    o["write"] = r.write;
    o["limit"] = r.limit;
  }
  o["created"] = e.created;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(e.expires - clock::now()).count();
  o["expiresInMs"] = std::max<long long>(0, left);
  return o;
}

std::vector<bj::object> approval_queue::list() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, const entry*>> pending;
  auto now = clock::now();
  for (const auto& [id, e] : entries_) {
    if (e.st == state::pending && now < e.expires) pending.emplace_back(id, &e);
  }
  std::sort(pending.begin(), pending.end(),
            [](const auto& a, const auto& b) { return a.second->expires < b.second->expires; });
  std::vector<bj::object> out;
  for (const auto& [id, e] : pending) out.push_back(to_json(id, *e));
  return out;
}

std::optional<bj::object> approval_queue::show(std::string_view id) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(std::string(id));
  if (it == entries_.end() || it->second.st != state::pending || clock::now() >= it->second.expires) {
    return std::nullopt;
  }
  return to_json(it->first, it->second);
}

std::uint64_t approval_queue::wait_change(std::uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return version_ != seen || stopping_; });
  return version_;
}

void approval_queue::shutdown() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  bump();
}

}  // namespace omgdb::sql
