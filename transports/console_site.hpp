// omgdb transports — the local web console (docs/console.md): login links, console sessions,
// CSRF tokens and the console's routes under `/console`, as plain data. No Asio or Beast
// here: transports/console_serve.hpp copies the few headers it needs into a `request` and
// writes back the `answer` (a reply, or the start of an event stream).
//
// Access: a login link `/console/login?key=K` (K: 256 random bits, single-use, expiring
// after `login_ttl`) sets the cookie `omgdb_console` (HttpOnly, SameSite=Strict,
// Path=/console). Every other route needs that cookie; a state-changing request (POST) also
// needs the session's CSRF token in `X-Omgdb-Csrf` and an allowed `Origin` (present: a
// POST without Origin is refused). Host and Origin are checked as for /mcp. A request that
// carries `Authorization` is refused: an agent's bearer token opens nothing here. Only
// digests of keys and cookies are kept. Not thread-safe: the HTTP event loop owns it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "auth/origin.hpp"
#include "common/result.hpp"
#include "transports/http_rules.hpp"

namespace omgdb::transports::console {

// Where the console's data come from (the daemon wires these; see daemon/console_wiring.cpp).
// Called on the event loop: each must be quick (in-memory, or an already open store).
struct backend {
  std::function<boost::json::array()> approvals;     // pending, as sql::approval_queue::list
  std::function<std::uint64_t()> approvals_version;  // changes whenever the pending set does
  std::function<status(std::string_view id, bool approve)> decide;  // the approvals' own rules
  // Newest first; `store`/`connection` "" for any.
  std::function<boost::json::array(const std::string& store, const std::string& connection)> history;
  std::function<std::uint64_t()> history_version;
  std::function<boost::json::object()> stores;  // {"stores":[…],"connections":[…]}
  // The last call of an MCP session (by mcp::session::id), for the Sessions page.
  std::function<std::optional<boost::json::object>(std::string_view mcp_session)> last_call;
};

// What the console may do to the MCP sessions of its listener.
struct session_view {
  std::function<boost::json::array()> list;               // http::session_table::describe
  std::function<bool(std::string_view handle)> end;       // by its 8-hex label
};

struct settings {
  std::chrono::seconds login_ttl{600};        // a login link is good this long, once
  std::chrono::seconds session_ttl{8 * 3600}; // a console session lasts this long at most
  std::chrono::seconds session_idle{3600};    // and ends after this long unused
  std::size_t max_sessions = 8;               // console sessions at once (the oldest goes)
  std::size_t max_links = 4;                  // unused login links at once (the oldest goes)
  std::size_t max_streams = 8;                // event streams at once (more: 503)
  // Called with "/console/login?key=…" whenever a link is minted: the daemon prints it where
  // the person, not an agent, reads it (docs/console.md). A visit to /console without a
  // session mints one when no unused link is outstanding (at most one per 10 s).
  std::function<void(const std::string& path)> on_login_link;
};

struct request {
  std::string method;
  std::string target;  // path and query
  std::optional<std::string> host, origin, authorization, cookie, csrf;
  bool has_body = false;
};

struct answer {
  http::http_reply reply;
  bool stream = false;          // start an event stream with reply's headers
  std::string session_digest;   // stream: the console session it belongs to
};

// The state of one event stream: what it has sent so far.
struct stream_state {
  std::string session_digest;
  std::uint64_t approvals_version = 0;
  std::uint64_t history_version = 0;
  std::string sessions_text;
  std::uint64_t next_id = 1;
};

// True for `/console` and every path under it.
bool is_console_path(std::string_view target) noexcept;

class site {
 public:
  using clock = std::chrono::steady_clock;
  site(backend b, settings s);

  // A fresh login link path ("/console/login?key=…"); also handed to on_login_link.
  result<std::string> mint_login();
  answer handle(const request& r, const auth::origin_policy& origins, const session_view& sessions);
  // The next frames of an event stream ("" when nothing changed), or nullopt when its console
  // session has ended (logged out or expired): the stream ends then.
  std::optional<std::string> next_events(stream_state& st, const session_view& sessions);
  void stream_closed() noexcept {
    if (streams_ > 0) --streams_;
  }
  // Testing: moves the clock forward.
  void advance(std::chrono::seconds by) noexcept { skew_ += by; }

 private:
  struct link {
    clock::time_point expires;
  };
  struct login {
    std::string csrf;
    clock::time_point created, last_used;
  };
  clock::time_point now() const noexcept { return clock::now() + skew_; }
  void sweep();
  answer route(const request& r, const std::string& digest, login& who, const session_view& sessions);
  answer log_in(std::string_view query);
  answer signed_out(const request& r);
  login* session_of(const std::optional<std::string>& cookie, std::string& digest);

  backend backend_;
  settings settings_;
  std::map<std::string, link> links_;    // by SHA-256 of the key
  std::map<std::string, login> logins_;  // by SHA-256 of the cookie value
  std::size_t streams_ = 0;
  clock::time_point last_auto_mint_{};
  std::chrono::seconds skew_{0};
};

// The compiled-in assets (console/*.html|css|js; generated by CMake from the committed files).
struct asset {
  std::string_view content_type;
  std::string_view body;
};
std::optional<asset> find_asset(std::string_view name);  // "index.html", "app.js", "app.css"

}  // namespace omgdb::transports::console
