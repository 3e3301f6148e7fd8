// omgdb transports — the table of HTTP sessions and what POST, GET and DELETE do to it.
//
// Sessions: `initialize` (POST without `Mcp-Session-Id`) creates one with a 128-bit random
// id, returned in the `Mcp-Session-Id` header; every later request must carry it (missing:
// 400; unknown, deleted or expired: 404 with -32001 "Session not found"). At most
// `max_sessions` live at once, at most `max_sessions_per_token` of them created by one token.
// A new session over either limit takes the place of the longest-idle one in its way (the
// token's own, then any) that has been idle `evict_idle_ms`; with none, initialize gets 503.
// A session with no open request or stream for `idle_ms` is expired. Records are saved in
// `state_dir` (by a state_writer thread) so that a restarted daemon accepts live ids: a
// restored session's dispatcher imports the recorded state (mcp::session_state) before it
// handles the request.
// Not thread-safe: the HTTP event loop owns the table; `post` hands the dispatcher's
// messages (sent from worker threads) to that loop; those sent on the loop itself (quick tools
// run inline, see set_on_loop) are routed at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>

#include "auth/paths.hpp"
#include "auth/scope.hpp"
#include "common/json.hpp"
#include "mcp/server.hpp"
#include "transports/http_rules.hpp"
#include "transports/http_session.hpp"
#include "transports/http_state_file.hpp"

namespace omgdb::transports::http {

struct table_options {
  std::size_t max_sessions = 512;
  std::size_t max_sessions_per_token = 256;  // 0 = no per-token quota
  std::int64_t idle_ms = 15 * 60 * 1000;
  std::int64_t evict_idle_ms = 60 * 1000;    // a session idle this long may be evicted for a new one
  session_limits limits;
  std::string state_dir;  // "" = records kept in memory only
  std::shared_ptr<const auth::path_policy> paths;  // every session's confinement (null: none)
};

// The result of a POST or GET: a finished reply, or an outlet to stream from (then `reply`
// carries the status and headers to send with it).
struct exchange {
  http_reply reply;
  std::shared_ptr<http_session> session;
  std::shared_ptr<outlet> out;
};

class session_table {
 public:
  using post_fn = std::function<void(std::function<void()>)>;
  using clock_fn = std::function<std::int64_t()>;  // milliseconds since the Unix epoch

  session_table(mcp::server& srv, auth::scope ceiling, table_options options, post_fn post,
                clock_fn now = nullptr);
  ~session_table();
  // Tells whether the caller is on the event-loop thread: a message a session sends from there
  // (the reply of a quick tool run inline, a ping's) is routed at once instead of posted.
  // Without it every message is posted. Set before the first session starts.
  void set_on_loop(std::function<bool()> on_loop) { on_loop_ = std::move(on_loop); }
  session_table(const session_table&) = delete;
  session_table& operator=(const session_table&) = delete;

  exchange handle_post(const request_view& req, std::string_view body);
  // A stateless (2026-07-28) POST, on a session of its own (transports/http_modern.cpp).
  exchange handle_modern_post(const request_view& req, json::parsed&& parsed, const mcp::envelope& e);
  exchange handle_get(const request_view& req);
  http_reply handle_delete(const request_view& req);

  void expire_idle();                 // timer tick: expire idle sessions, save touched records
  void end_get_streams();             // shutdown, first step
  bool any_pending() const;           // a POST still waits for its response
  // Shutdown, once the deadline has passed: every open response ends (a waiting POST gets an
  // error carrying `reason`) and every running call is cancelled. Records are kept.
  void end_all(std::string_view reason);
  // After the event loop has stopped: saves the records, waits for cancelled calls to
  // return (during a shutdown, at most until the server's stop deadline), and drops every
  // dispatcher (so none of them posts to the loop afterwards).
  void close_all();
  // SIGHUP: new limits for sessions created or expired from now on.
  void set_limits(std::size_t max_sessions, std::int64_t idle_ms, std::size_t max_sessions_per_token) {
    options_.max_sessions = max_sessions;
    options_.idle_ms = idle_ms;
    options_.max_sessions_per_token = max_sessions_per_token;
  }
  std::size_t live_count() const noexcept { return live_.size(); }
  std::size_t open_get_streams() const noexcept {
    std::size_t n = 0;
    for (const auto& [id, hs] : live_) n += hs->has_get_stream() ? 1 : 0;
    return n;
  }
  std::size_t queued_calls() const { return server_.pool().queued(); }
  // The web console (transports/console_sessions.cpp): the live sessions as JSON, and ending
  // one by its label (the first 8 hex digits of its id) as DELETE would.
  boost::json::array describe() const;
  bool end_session(std::string_view label);
  std::size_t size() const noexcept { return live_.size() + dormant_.size(); }

 private:
  std::shared_ptr<http_session> lookup(const request_view& req, http_reply& refusal);
  std::shared_ptr<http_session> create(const request_view& req, http_reply& refusal);
  std::shared_ptr<http_session> revive(const session_record& rec);
  void start_dispatcher(const std::shared_ptr<http_session>& hs);
  void remove(const std::string& id, std::string_view reason);
  // Sessions (live or dormant) created by `token`.
  std::size_t sessions_of(const std::string& token) const;
  // Removes the longest-idle session idle at least evict_idle_ms (of `token` when given);
  // false when there is none.
  bool evict_longest_idle(const std::string* token);
  // After a message: saves the records when the dispatcher's state changed.
  void note_state(http_session& hs);
  static session_record record_of(http_session& hs);
  void save();  // hands a snapshot to writer_

  mcp::server& server_;
  auth::scope ceiling_;
  table_options options_;
  post_fn post_;
  std::function<bool()> on_loop_;
  clock_fn now_;
  std::map<std::string, std::shared_ptr<http_session>> live_;
  std::map<std::string, session_record> dormant_;  // loaded at start-up, not yet used again
  bool dirty_ = false;
  std::unique_ptr<state_writer> writer_;  // null without state_dir
  // The carriers of stateless (2026-07-28) requests, reused by requests of the same token and
  // scope (transports/http_modern.cpp): at most max_carriers, each with few requests at once.
  std::vector<std::shared_ptr<http_session>> modern_;
  std::shared_ptr<http_session> carrier_for(const request_view& req, const std::string& key);
  std::shared_ptr<mcp::warm_keys> modern_warm_ = std::make_shared<mcp::warm_keys>();
  // The worker-share key of each token name (mcp::session::set_share_owner); kept for the
  // table's life (token names are few), so one name always maps to one key.
  std::map<std::string, std::shared_ptr<const void>> share_keys_;
};

}  // namespace omgdb::transports::http
