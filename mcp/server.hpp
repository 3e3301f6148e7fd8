// omgdb mcp — what every session of one process shares: the tool table, the worker pool and
// the server's limits. Transport-agnostic: a transport creates one `session` per client.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/scope.hpp"
#include "mcp/deadline.hpp"
#include "mcp/tool.hpp"
#include "mcp/worker_pool.hpp"

namespace omgdb::mcp {

// One finished tools/call, for the per-call log line and metrics. Never carries arguments.
struct call_event {
  std::string_view tool;
  std::string_view request_id;  // the JSON-RPC id, serialized
  std::string_view session;     // the transport's label for the session ("stdio", a short id)
  double milliseconds = 0;
  bool is_error = false;
  // The call stopped because its cancellation flag was set (it answered an error). A call that
  // finished (a write that committed) is not cancelled even when the flag was set after: its
  // outcome is ok or error, and `note` says what happened meanwhile.
  bool cancelled = false;
  // For a call that finished although its flag was set: "client gone", "cancelled by the
  // client", "deadline passed", "server stopping"; else "".
  std::string_view note;
  // For the console's call history (mcp/call_history.hpp): the dispatcher's id, the call's
  // arguments (only `path` and `connection` are read) and its result (only an error's text).
  std::string_view session_id;
  const boost::json::object* arguments = nullptr;
  const tool_result* result = nullptr;
  std::string_view session_name;  // mcp::session::name(): the label and the client's name
};

struct server_options {
  auth::scope scope = auth::scope::read_write;  // the server's ceiling (--scope)
  std::size_t max_result_bytes = 24 * 1024;     // per tool result (--max-result-bytes)
  std::size_t workers = 0;                       // 0: one per core, at least 2
  std::size_t max_queue = 256;                   // tool calls waiting for a worker
  std::size_t max_in_flight = 0;                 // tool calls one session may have running or queued
                                                 // (0: no per-session limit, only max_queue; stdio)
  // The per-call deadline, from the moment a call starts on a worker (--call-timeout,
  // [limits] call_timeout_ms; 0: none). Past it the call's cancellation flag is set and the
  // call answers `limit_exceeded` (docs/limits.md).
  std::chrono::milliseconds call_timeout{60000};
  // Added to the deadline of a tool that may wait for a person (mcp::tool::waits_for_person):
  // the SQL approval timeout.
  std::chrono::milliseconds person_wait{0};
  // Workers one owner's calls may occupy at once (--session-workers, [limits]
  // session_workers): a session's, or the sessions sharing an owner key together (HTTP: one
  // bearer token; session::set_share_owner); 0: all but one (at least one). Its further calls
  // wait in the queue while other owners' calls are served.
  std::size_t session_workers = 0;
  // What one call may build (--call-memory, [limits] call_memory_bytes): each call's
  // call_budget (common/call_budget.hpp). Past it the call answers `limit_exceeded`.
  std::uint64_t call_memory_bytes = std::uint64_t{128} << 20;
  std::string version = OMGDB_VERSION;
  // Called on a worker thread after every tools/call (thread-safe observers only).
  std::function<void(const call_event&)> on_call;
  // The hard end of a shutdown (server::begin_shutdown), when calls ignore their flag: called
  // by server::abandon_stuck_calls at the end of a transport's orderly stop (`overdue` false),
  // or, if the process still runs `overdue_margin` after the stop deadline, from a thread of
  // its own (`overdue` true: whatever the orderly stop waits for, it ends now). The daemon's
  // ends the process (_exit) and does not return; null: nothing happens.
  std::function<void(bool overdue)> on_abandon;
  std::chrono::milliseconds overdue_margin{1000};
};

class session;

class server {
 public:
  server(server_options options, std::vector<tool> tools);

  const server_options& options() const noexcept { return options_; }
  const tool* find(std::string_view name) const noexcept;
  // Tools whose required scope is within `ceiling`, in catalogue order.
  std::vector<const tool*> visible(auth::scope ceiling) const;
  const std::vector<tool>& tools() const noexcept { return tools_; }
  worker_pool& pool() noexcept { return *pool_; }
  deadline_timer& deadlines() noexcept { return *deadlines_; }

  // Shutdown (SIGTERM; stdio: end of input with a call stuck past its deadline). From now on
  // every call queued or running has its cancellation flag set with reason `shutdown` — it
  // stops at its next poll and answers "the server is shutting down", unless it has already
  // committed, then it answers as it finished — and calls that arrive later are refused.
  // `grace` from now is the stop deadline; options().on_overdue runs if the process lives
  // past it by options().overdue_margin. Idempotent: the first deadline stays.
  void begin_shutdown(std::chrono::milliseconds grace);
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  // The stop deadline (meaningful once stopping()).
  std::chrono::steady_clock::time_point stop_deadline() const;
  // Waits until no call is queued or running on the pool, or until the stop deadline; true
  // when idle. Before begin_shutdown: true at once when idle, else false.
  bool drain() const;
  // After a shutdown's orderly stop, while the transport's event loop still exists: when a
  // call is still queued or running (it ignored its flag past the deadline), runs
  // options().on_abandon(false) — the daemon's never returns. Only one thread runs the hook;
  // another that asks meanwhile waits for the process to end. Without a shutdown, or with
  // the pool idle, returns at once.
  void abandon_stuck_calls();

  // Sessions register themselves (mcp::session's constructor and destructor) so that a
  // shutdown reaches every call of every transport.
  void enlist(session* s);
  void delist(session* s);

 private:
  server_options options_;
  std::vector<tool> tools_;
  std::unordered_map<std::string, std::size_t> by_name_;
  // Before the pool: a session whose last holder is a job it queued delists itself as the
  // pool's destructor drops that job.
  mutable std::mutex sessions_mu_;
  std::set<session*> sessions_;  // live sessions (under sessions_mu_)
  std::atomic<bool> stopping_{false};
  std::atomic<bool> abandoning_{false};
  std::chrono::steady_clock::time_point stop_at_{};  // under sessions_mu_
  std::unique_ptr<deadline_timer> deadlines_;  // before the pool: running calls disarm on it
  std::unique_ptr<worker_pool> pool_;
};

}  // namespace omgdb::mcp
