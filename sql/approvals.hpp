// omgdb sql — pending approvals: a person decides whether an SQL execution (or a proposed
// worksheet edit) goes ahead.
//
// A pending approval records who asked (session, request id), the connection and the exact
// SQL. It is single-use: the first decision wins, a second one (a replay) is refused, and the
// entry disappears when its waiting call returns. It expires `timeout` after it was submitted
// (120 s by default, at most 10 min). The daemon runs the SQL stored here; a decision carries
// only the id. At most `max_pending` approvals wait at once, so waiting calls (each blocks the
// worker thread of its own call) can never take every worker: the daemon adds `max_pending`
// workers to its pool for them (docs/sql-tools.md).
//
// Thread-safe. Nothing here runs SQL; sql/service does, after wait() says `approved`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace omgdb::sql {

enum class approval_kind { execute, edit };

struct approval_request {
  approval_kind kind = approval_kind::execute;
  std::string connection;
  std::string label;
  std::string dialect;
  std::string session;   // the MCP session that asked
  std::string request;   // its JSON-RPC request id (serialized)
  std::string sql;       // execute: the exact statement; edit: the proposed worksheet text
  std::string before;    // edit: the worksheet when the edit was proposed
  std::string rationale; // edit: why
  std::string keyword;   // execute: the statement's leading keyword
  bool write = false;    // execute: the classifier said it writes
  std::size_t limit = 0; // execute: rows returned at most
};

enum class approval_outcome {
  approved,
  rejected,             // a person said no
  expired,              // nobody decided in time
  cancelled,            // the client cancelled the request (notifications/cancelled)
  client_gone,          // the client disconnected / its session ended
  connection_switched,  // the active connection changed before the decision
  shutdown,             // the daemon is stopping
};

std::string_view to_string(approval_outcome o) noexcept;  // "approved", "rejected", …

// What the waiting call watches besides the person's decision.
struct wait_hooks {
  const std::atomic<bool>* cancelled = nullptr;
  const std::atomic<bool>* client_gone = nullptr;
  std::function<bool()> still_valid;  // false: the active connection changed
  std::chrono::milliseconds poll{100};
};

class approval_queue {
 public:
  // `timeout` is clamped to 1 s .. 10 min; `max_pending` to at least 1.
  approval_queue(std::chrono::seconds timeout, std::size_t max_pending);

  std::chrono::seconds timeout() const noexcept { return timeout_; }
  std::size_t max_pending() const noexcept { return max_pending_; }

  // Registers a request and returns its id (12 hex digits). Refused when `max_pending`
  // approvals are already waiting or the queue is shut down.
  result<std::string> submit(approval_request r);

  // Blocks until the request is decided, expires, or a hook ends it; then forgets it.
  approval_outcome wait(const std::string& id, const wait_hooks& hooks);

  // A person's decision. Only the first decision of a pending request counts; an unknown,
  // decided or expired id is an error saying which.
  status decide(std::string_view id, bool approve);

  // Pending (undecided, unexpired) requests, oldest first, as JSON for the admin channel:
  // {"id","kind","connection","label","dialect","session","request","sql","before"?,
  //  "rationale"?,"keyword"?,"write"?,"limit"?,"created","expiresInMs"}.
  std::vector<boost::json::object> list() const;
  std::optional<boost::json::object> show(std::string_view id) const;

  // Blocks up to `timeout` until the pending set changes after version `seen`; returns the
  // current version (start with 0).
  std::uint64_t wait_change(std::uint64_t seen, std::chrono::milliseconds timeout) const;

  // Ends every wait with `shutdown` and refuses new requests.
  void shutdown();

 private:
  enum class state { pending, approved, rejected };
  struct entry {
    approval_request req;
    std::string created;
    std::chrono::steady_clock::time_point expires;
    state st = state::pending;
  };
  boost::json::object to_json(const std::string& id, const entry& e) const;
  void bump();

  std::chrono::seconds timeout_;
  std::size_t max_pending_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, entry> entries_;
  std::uint64_t version_ = 1;
  bool stopping_ = false;
};

}  // namespace omgdb::sql
