// omgdb mcp — what every session of one process shares: the tool table, the worker pool and
// the server's limits. Transport-agnostic: a transport creates one `session` per client.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
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
  bool cancelled = false;
  // For the console's call history (mcp/call_history.hpp): the dispatcher's id, the call's
  // arguments (only `path` and `connection` are read) and its result (only an error's text).
  std::string_view session_id;
  const boost::json::object* arguments = nullptr;
  const tool_result* result = nullptr;
  std::string_view session_name;  // mcp::session::name(): the label and the client's name
};

struct server_options {
  auth::scope scope = auth::scope::read_write;  // the server's ceiling (--scope)
  std::size_t max_result_bytes = 1 << 20;        // per tool result (--max-result-bytes)
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
  // Workers one session's calls may occupy at once (--session-workers, [limits]
  // session_workers); 0: all but one (at least one). Its further calls wait in the queue while
  // other sessions' calls are served.
  std::size_t session_workers = 0;
  // What one call may build (--call-memory, [limits] call_memory_bytes): each call's
  // call_budget (common/call_budget.hpp). Past it the call answers `limit_exceeded`.
  std::uint64_t call_memory_bytes = std::uint64_t{128} << 20;
  std::string version = OMGDB_VERSION;
  // Called on a worker thread after every tools/call (thread-safe observers only).
  std::function<void(const call_event&)> on_call;
};

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

 private:
  server_options options_;
  std::vector<tool> tools_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unique_ptr<deadline_timer> deadlines_;  // before the pool: running calls disarm on it
  std::unique_ptr<worker_pool> pool_;
};

}  // namespace omgdb::mcp
