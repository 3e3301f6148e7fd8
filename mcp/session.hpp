// omgdb mcp — one client connection: JSON-RPC framing rules, lifecycle, and the dispatcher.
//
// The session is the single choke point of a request: method → tool exists → scope →
// arguments → worker pool → result envelope. Rules (seeds/000 "JSON-RPC methods" and
// "Error handling"):
//  - lines that are blank, not a JSON object, or without a string `method` are ignored (all
//    but blank ones with a warning on stderr naming the line);
//  - the envelope rules of mcp/envelope.hpp (`jsonrpc` "2.0", a string or number `id`, no
//    repeated envelope key): -32600 with the id;
//  - initialize on a session that has received notifications/initialized: -32600;
//  - notifications (no `id`) never get a reply;
//  - `params` present but not an object: -32602 "invalid params";
//  - tools/call without a string `params.name`: -32602 "missing tool name";
//  - any other method: -32601 "method not found" (also before initialize);
//  - tool-level failures are results with isError true and one text block "Error: …".
// Tool calls run on the server's worker pool and may complete out of order. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "auth/scope.hpp"
#include "common/result.hpp"
#include "mcp/envelope.hpp"
#include "mcp/server.hpp"
#include "mcp/session_state.hpp"
#include "mcp/structured.hpp"

namespace omgdb::mcp {

// What a session hands its transport: one message, its kind, and the request it concerns.
enum class message_kind {
  response,      // the answer to a client request (the last message about that request)
  notification,  // progress or a log line of a running call, or unrelated to any request
  request,       // a request from the server to the client (none are sent today)
  abandoned,     // no message (`text` is empty): request `related` was cancelled by the
                 // client and will get no response
};

struct outgoing {
  message_kind kind = message_kind::notification;
  std::string text;     // one serialized JSON-RPC message, no trailing newline
  std::string related;  // serialized id of the request it answers or reports on; "" if none
};

// How one tools/call is answered and which log lines it sends (mcp/modern.hpp).
struct call_style {
  result_style result;        // structuredContent, resultType
  int min_log_level = -2;     // -2: the session's (logging/setLevel); -1: none; else a level index
};

// The warm keys of tool::quick_once_warm, shareable between the sessions of one transport
// (HTTP serves each modern request with a session of its own). Bounded (64 keys).
struct warm_keys {
  std::mutex mu;
  std::set<std::string, std::less<>> keys;
};

class session : public std::enable_shared_from_this<session> {
 public:
  // Hands one outgoing message to the transport, which routes by its kind and `related`
  // (an HTTP transport: the POST of that request, or the GET stream). Must be thread-safe.
  using send_fn = std::function<void(outgoing message)>;

  session(server& srv, auth::scope ceiling, send_fn send);
  ~session();

  // One incoming message as text (a stdin line). `line` (1-based, 0 = unknown) names it in
  // the warning logged when the message is ignored (not JSON, not an object, no method).
  void handle_text(std::string_view text, std::uint64_t line = 0);
  // One incoming message its transport has already parsed with json::parse and read with
  // read_envelope (`e` describes `msg`; `violation` is the parse's violation, "" when
  // clean). tools/call takes its arguments out of `msg` instead of copying them.
  void handle_message(boost::json::value&& msg, const envelope& e, const std::string& violation);
  // A message cut at the transport's size limit after `prefix`: answered with -32600
  // "request too large", carrying the request's id when the prefix holds it.
  void refuse_oversized(std::string_view prefix, std::size_t limit);

  // What the session has agreed with its client, for a transport to save; and the same given
  // back to a fresh session (instead of replaying initialize). import_state refuses a state
  // invalid_state refuses, and changes nothing then.
  session_state export_state() const;
  [[nodiscard]] status import_state(const session_state& state);

  // Cancels every call still queued or running; their replies are dropped. Calls see the
  // client as gone (call_context::client_gone).
  void cancel_all();
  // The client went away from one request (its HTTP POST closed before the answer, or a
  // 2026-07-28 response closed at any point): the call `key` (a serialized id) is cancelled as
  // cancel_all does (reason client_gone), and its reply dropped. False when no such call is
  // queued or running.
  bool cancel_request(const std::string& key);
  // The client stopped sending (end of stdin): running calls continue and are answered, but
  // waits for a person (SQL approvals) end, since nobody is left to receive their result.
  void end_of_input();
  // A process-unique id ("mcp-<pid>-<n>"), recorded with SQL approvals and history.
  const std::string& id() const noexcept { return id_; }
  // Blocks until no call of this session is queued or running.
  void wait_idle();
  // The same, at most until `until`; true when idle.
  bool wait_idle_until(std::chrono::steady_clock::time_point until);
  // Shutdown (server::begin_shutdown): every call queued or running gets its flag set with
  // reason `shutdown`; each still answers (the shutdown error, or its result if it finished).
  void stop_calls();
  // True when a running call has passed its deadline by more than `grace`: it ignores its
  // cancellation flag (stdio's end of input gives up waiting for it).
  bool overdue(std::chrono::milliseconds grace) const;

  auth::scope ceiling() const noexcept { return ceiling_; }
  // Quick tools (tool::quick) run on the thread that hands the message over instead of on the
  // worker pool while the pool is idle: saves two thread hops per call for a transport whose
  // own thread can afford it.
  void set_run_quick_inline(bool on) noexcept { run_quick_inline_ = on; }
  // A full worker queue makes the thread handing the message over wait for room instead of
  // answering "server busy": for a transport with flow control of its own (stdio: while the
  // reader waits, the client's pipe fills and holds the client back). Without it (HTTP,
  // where sessions compete) a full queue refuses the call.
  void set_wait_for_room(bool on) noexcept { wait_for_room_ = on; }
  // True when a tools/call handed over now would find the queue full (the transport may
  // flush what it holds before handing it over and waiting).
  bool queue_full() const;
  // How logs and metrics name this session (set by the transport before the first message).
  void set_label(std::string label) { label_ = std::move(label); }
  // How people are shown this session (the console, approvals, SQL history): the label, then
  // " · " and the client's name from initialize (`clientInfo.name`, printable bytes, at most
  // 64) when it gave one, e.g. "a1b2c3d4 · claude-code", "stdio · codex". Thread-safe.
  std::string name() const;
  // Where this session's calls may open stores and read files (call_context::paths); set by
  // the transport before the first message. None (the default): not confined.
  void set_path_policy(std::shared_ptr<const auth::path_policy> paths) { paths_ = std::move(paths); }
  // Shares the keys with other sessions (set by the transport before the first message).
  void share_warm_keys(std::shared_ptr<warm_keys> keys) { warm_ = std::move(keys); }
  // Whose share of the workers this session's calls count against (worker_pool's owner):
  // sessions given the same key share one share (HTTP: every session of one bearer token).
  // None (the default): the session's own. Set by the transport before the first message.
  void set_share_owner(std::shared_ptr<const void> key) { share_owner_ = std::move(key); }
  std::string negotiated_version() const;
  bool initialized() const noexcept { return initialized_.load(); }

 private:
  struct call_state;

  void reply_result(const boost::json::value& id, boost::json::value result);
  void reply_error(const boost::json::value& id, int code, std::string_view message);
  void on_initialize(const boost::json::value& id, const boost::json::object& params);
  void on_tools_list(const boost::json::value& id, const boost::json::object& params);
  // `e` points into a message the caller gives up: tools/call may move its arguments out.
  void dispatch(const envelope& e, const std::string& violation, std::uint64_t line);
  void on_tools_call(const boost::json::value& id, const boost::json::object& params,
                     const std::string& violation, const call_style& style = {});
  // Modern requests (mcp/modern_session.cpp).
  void dispatch_modern(const envelope& e, std::string_view version, const boost::json::object& params,
                       const std::string& violation);
  void on_discover(const boost::json::value& id);
  void on_modern_tools_list(const boost::json::value& id, const boost::json::object& params);
  void reply_error_object(const boost::json::value& id, boost::json::object error);
  // The style of a legacy tools/call: structured from 2025-06-18 on.
  call_style legacy_style() const;
  void on_set_level(const boost::json::value& id, const boost::json::object& params);
  void on_cancelled(const boost::json::object& params);
  void run_call(const std::shared_ptr<call_state>& call, bool inline_run = false);
  bool may_run_inline(const tool& t, const boost::json::object& args);
  void note_warm(const tool& t, const boost::json::object& args);
  void finish_call(const std::shared_ptr<call_state>& call, std::string message);
  void notify(std::string_view method, boost::json::object params, std::string_view related);
  void send(message_kind kind, std::string text, std::string related);

  server& server_;
  auth::scope ceiling_;
  send_fn send_;
  std::atomic<bool> initialized_{false};
  std::atomic<bool> client_gone_{false};
  std::string id_;
  std::atomic<int> log_level_;
  std::string label_ = "-";
  bool run_quick_inline_ = false;
  bool wait_for_room_ = false;
  std::shared_ptr<const auth::path_policy> paths_;
  std::shared_ptr<const void> share_owner_;  // null: this session

  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::string version_;
  std::string level_name_;  // as set by logging/setLevel ("" = never set)
  std::string client_name_;  // clientInfo.name of initialize, cleaned (name())
  std::multimap<std::string, std::shared_ptr<call_state>> calls_;  // by serialized id
  std::shared_ptr<warm_keys> warm_ = std::make_shared<warm_keys>();  // tool::quick_once_warm values seen finished
};

}  // namespace omgdb::mcp
