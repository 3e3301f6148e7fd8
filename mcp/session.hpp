// omgdb mcp — one client connection: JSON-RPC framing rules, lifecycle, and the dispatcher.
//
// The session is the single choke point of a request: method → tool exists → scope →
// arguments → worker pool → result envelope. Rules (seeds/000 "JSON-RPC methods" and
// "Error handling"):
//  - lines that are blank, not a JSON object, or without a string `method` are ignored;
//  - notifications (no `id`) never get a reply;
//  - `params` present but not an object: -32602 "invalid params";
//  - tools/call without a string `params.name`: -32602 "missing tool name";
//  - any other method: -32601 "method not found" (also before initialize);
//  - tool-level failures are results with isError true and one text block "Error: …".
// Tool calls run on the server's worker pool and may complete out of order. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "auth/scope.hpp"
#include "mcp/server.hpp"

namespace omgdb::mcp {

// The protocol versions this server speaks, newest first.
inline constexpr std::string_view supported_versions[] = {"2025-11-25", "2025-06-18",
                                                          "2025-03-26", "2024-11-05"};

// Version negotiation: the requested version when supported; an unknown one gets the newest;
// none at all (no params.protocolVersion string) gets 2024-11-05.
std::string_view negotiate_version(const boost::json::value* requested) noexcept;

class session : public std::enable_shared_from_this<session> {
 public:
  // Sends one serialized JSON-RPC message (no trailing newline). `related` is the serialized
  // id of the request the message answers or reports on (a response, or a progress or log
  // notification of a running call), or "" for a message unrelated to any request; an HTTP
  // transport routes by it. Must be thread-safe.
  using send_fn = std::function<void(std::string message, std::string_view related)>;

  session(server& srv, auth::scope ceiling, send_fn send);
  ~session();

  // One incoming message as text (a stdin line or an HTTP body).
  void handle_text(std::string_view text);
  // One incoming message its transport has already parsed with json::parse; `violation` is
  // that parse's strictness violation ("" when clean). Non-objects are ignored.
  void handle_message(const boost::json::value& msg, const std::string& violation);
  // The same for a parsed message the transport hands over: tools/call takes its arguments
  // out of it instead of copying them (`msg` is left valid but unspecified).
  void handle_message(boost::json::value&& msg, const std::string& violation);

  // Cancels every call still queued or running; their replies are dropped. Calls see the
  // client as gone (call_context::client_gone).
  void cancel_all();
  // The client stopped sending (end of stdin): running calls continue and are answered, but
  // waits for a person (SQL approvals) end, since nobody is left to receive their result.
  void end_of_input();
  // A process-unique id ("mcp-<pid>-<n>"), recorded with SQL approvals and history.
  const std::string& id() const noexcept { return id_; }
  // Blocks until no call of this session is queued or running.
  void wait_idle();

  auth::scope ceiling() const noexcept { return ceiling_; }
  // Quick tools (tool::quick) run on the thread that hands the message over instead of on the
  // worker pool while the pool is idle: saves two thread hops per call for a transport whose
  // own thread can afford it.
  void set_run_quick_inline(bool on) noexcept { run_quick_inline_ = on; }
  // How logs and metrics name this session (set by the transport before the first message).
  void set_label(std::string label) { label_ = std::move(label); }
  // Where this session's calls may open stores and read files (call_context::paths); set by
  // the transport before the first message. None (the default): not confined.
  void set_path_policy(std::shared_ptr<const auth::path_policy> paths) { paths_ = std::move(paths); }
  std::string negotiated_version() const;
  bool initialized() const noexcept { return initialized_.load(); }

 private:
  struct call_state;

  void reply_result(const boost::json::value& id, boost::json::value result);
  void reply_error(const boost::json::value& id, int code, std::string_view message);
  void on_initialize(const boost::json::value& id, const boost::json::object& params);
  void on_tools_list(const boost::json::value& id, const boost::json::object& params);
  // `owned`: msg is handle_text's own (non-const) parse result, which tools/call may move from.
  void dispatch(const boost::json::value& msg, const std::string& violation, bool owned);
  void on_tools_call(const boost::json::value& id, const boost::json::object& params,
                     const std::string& violation, bool owned);
  void on_set_level(const boost::json::value& id, const boost::json::object& params);
  void on_cancelled(const boost::json::object& params);
  void run_call(const std::shared_ptr<call_state>& call, bool inline_run = false);
  bool may_run_inline(const tool& t, const boost::json::object& args);
  void note_warm(const tool& t, const boost::json::object& args);
  void finish_call(const std::shared_ptr<call_state>& call, std::string message);
  void notify(std::string_view method, boost::json::object params, std::string_view related);

  server& server_;
  auth::scope ceiling_;
  send_fn send_;
  std::atomic<bool> initialized_{false};
  std::atomic<bool> client_gone_{false};
  std::string id_;
  std::atomic<int> log_level_;
  std::string label_ = "-";
  bool run_quick_inline_ = false;
  std::shared_ptr<const auth::path_policy> paths_;

  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::string version_;
  std::multimap<std::string, std::shared_ptr<call_state>> calls_;  // by serialized id
  std::set<std::string, std::less<>> warm_;  // tool::quick_once_warm values seen finished
};

}  // namespace omgdb::mcp
