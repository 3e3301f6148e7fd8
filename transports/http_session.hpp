// omgdb transports — one MCP session over HTTP: where each outgoing message goes.
//
// The dispatcher (`mcp::session`) hands over every message with its kind (response or
// notification) and `related`, the serialized id of the request it answers or reports on.
// Routing:
//  - a message related to a request whose POST is still open goes to that POST: the
//    response alone becomes an `application/json` reply; a notification first turns the
//    reply into an SSE stream (when the client accepts one) that ends after the response;
//  - everything else (unrelated notifications, or notifications of a request whose client
//    accepts no SSE) goes to the GET stream; a response with no open POST is dropped;
//  - a request the client cancelled (kind `abandoned`) ends its open POST without an answer;
//  - every SSE event gets the next id of the session and is appended to the event log, so a
//    GET with `Last-Event-ID` replays what a dropped stream missed and, for a request still
//    running, carries the rest of its messages.
// Not thread-safe: the HTTP event loop owns it (the dispatcher's messages are posted there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/session.hpp"

namespace omgdb::transports::http {

// The session's bounded log of SSE events, for `Last-Event-ID` replay: every event sent (or
// meant to be sent) on one of its streams, with its id and stream ("" for the GET stream, or
// the serialized id of the request whose POST stream carried it). Beyond `max_events`
// events or `max_bytes` bytes of data the oldest are dropped.
struct sse_event {
  std::uint64_t id = 0;
  std::string stream;  // "" = the GET stream, else a request's serialized id
  std::string data;    // one JSON-RPC message
  bool is_response = false;
};

class event_log {
 public:
  event_log(std::size_t max_events, std::size_t max_bytes) : max_events_(max_events), max_bytes_(max_bytes) {}

  void append(sse_event e);
  // The stream of a retained event, or nullopt when `id` was never logged or is dropped.
  std::optional<std::string> stream_of(std::uint64_t id) const;
  // The retained events of `stream` after `id`, oldest first.
  std::vector<const sse_event*> after(std::string_view stream, std::uint64_t id) const;

  std::size_t size() const noexcept { return events_.size(); }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::deque<sse_event> events_;  // ascending ids
  std::size_t bytes_ = 0;
  std::size_t max_events_;
  std::size_t max_bytes_;
};

// An open HTTP response the session writes into; the connection that owns the socket
// drains `out` whenever `wake` is called.
struct outlet {
  enum class kind { undecided, json, sse };
  kind mode = kind::undecided;
  bool accepts_sse = false;
  std::string stream;            // "" for the GET stream, else the request's serialized id
  std::vector<std::string> out;  // json: the one body; sse: whole frames (no allocation until used)
  std::size_t out_bytes = 0;
  bool finished = false;         // end the response once `out` is written
  bool gone = false;             // the connection is lost (or too slow): write nothing more
  std::function<void()> wake;

  void push(std::string text);
  void finish();
};

struct session_limits {
  std::size_t log_events = 1024;
  std::size_t log_bytes = 4u << 20;
  std::size_t max_buffered_bytes = 8u << 20;  // unread output per stream before it is dropped
};

class http_session {
 public:
  // `first_event_id` seeds the ids (chosen above any id a previous daemon may have issued).
  http_session(std::string id, const session_limits& limits, std::uint64_t first_event_id);

  const std::string& id() const noexcept { return id_; }
  void attach(std::shared_ptr<mcp::session> s) { mcp_ = std::move(s); }
  mcp::session& mcp() { return *mcp_; }

  // A POST of the request whose serialized id is `key`; nullptr while that id is in flight.
  std::shared_ptr<outlet> open_request(const std::string& key, bool accepts_sse, bool sse_only);
  // A GET: a fresh stream (nullptr when one is open: the caller answers 409), or the
  // resumption of the stream that carried event `last_id` (takes over a stale stream).
  std::shared_ptr<outlet> open_stream(std::optional<std::uint64_t> last_id);
  // The connection is done with `o`: fully written, or `dropped` (a write failed).
  void release(const std::shared_ptr<outlet>& o, bool dropped);
  // One message from the dispatcher (called on the loop thread).
  void dispatch(mcp::outgoing message);

  void end_get_stream();
  // DELETE, expiry, shutdown deadline: every open response ends; a POST still waiting gets
  // a JSON-RPC error carrying `reason`.
  void end_all(std::string_view reason);
  bool has_get_stream() const noexcept { return static_cast<bool>(get_); }
  bool busy() const noexcept { return !pending_.empty() || static_cast<bool>(get_); }
  std::size_t open_requests() const noexcept { return pending_.size(); }  // the console's in-flight count

  std::uint64_t next_event_id() const noexcept { return next_event_; }
  const event_log& events() const noexcept { return log_; }

  std::int64_t created_ms = 0;
  std::int64_t last_used_ms = 0;
  mcp::session_state saved;  // the dispatcher's state as last handed to the state file
  std::string token_name;  // the bearer token that created it; only that token may use it
  auth::scope granted = auth::scope::read;  // server ceiling ∧ the token's scope
  // A carrier of stateless (2026-07-28) requests: a dropped response cancels its request and
  // frees its id at once (there is no resumption).
  bool cancel_on_drop = false;
  std::size_t in_flight() const noexcept { return pending_.size(); }
  bool has_pending(const std::string& key) const { return pending_.count(key) != 0; }

 private:
  // The client cancelled request `key`: its open POST ends without an answer.
  void cancelled(const std::string& key);
  void to_get_stream(std::string message, bool response);
  void emit(outlet& o, std::string_view stream, std::string message, bool response);

  std::string id_;
  session_limits limits_;
  std::shared_ptr<mcp::session> mcp_;
  std::map<std::string, std::shared_ptr<outlet>> pending_;  // open POSTs by request key
  std::shared_ptr<outlet> get_;
  event_log log_;
  std::uint64_t next_event_;
};

}  // namespace omgdb::transports::http
