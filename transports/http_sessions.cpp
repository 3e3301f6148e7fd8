#include "transports/http_sessions.hpp"

#include <algorithm>
#include <chrono>

#include <boost/json/object.hpp>

#include "auth/token.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "transports/http_modern.hpp"

namespace omgdb::transports::http {
namespace bj = boost::json;

namespace {

std::int64_t system_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Session ids are not secrets on their own, but logs show only a prefix.
std::string short_id(const std::string& id) { return id.substr(0, 8) + "…"; }

bool string_or_integer(const bj::value& id) { return id.is_string() || id.is_int64() || id.is_uint64(); }

}  // namespace

session_table::session_table(mcp::server& srv, auth::scope ceiling, table_options options, post_fn post,
                             clock_fn now)
    : server_(srv), ceiling_(ceiling), options_(std::move(options)), post_(std::move(post)),
      now_(now ? std::move(now) : clock_fn(system_ms)) {
  if (options_.state_dir.empty()) return;
  writer_ = std::make_unique<state_writer>(options_.state_dir);
  auto records = load_records(options_.state_dir);
  if (!records) {
    log::warning(records.error().message);
    return;
  }
  std::int64_t t = now_();
  for (auto& r : *records) {
    if (t - r.last_used_ms <= options_.idle_ms) dormant_.emplace(r.id, std::move(r));
  }
  if (!dormant_.empty()) log::info("kept " + std::to_string(dormant_.size()) + " HTTP session(s) from the last run");
}

session_table::~session_table() { close_all(); }

void session_table::start_dispatcher(const std::shared_ptr<http_session>& hs) {
  std::weak_ptr<http_session> weak = hs;
  post_fn post = post_;
  std::function<bool()> on_loop = on_loop_;
  hs->attach(std::make_shared<mcp::session>(server_, hs->granted, [weak, post, on_loop](mcp::outgoing message) {
    if (on_loop && on_loop()) {
      if (auto s = weak.lock()) s->dispatch(std::move(message));
      return;
    }
    post([weak, message = std::move(message)]() mutable {
      if (auto s = weak.lock()) s->dispatch(std::move(message));
    });
  }));
  hs->mcp().set_label(hs->id().substr(0, 8));
  hs->mcp().set_path_policy(options_.paths);
  // One share of the workers per bearer token, whatever number of sessions (and stateless
  // carriers) it opens; without a token (--no-auth) each session has its own.
  if (!hs->token_name.empty()) {
    auto& key = share_keys_[hs->token_name];
    if (!key) key = std::make_shared<char>('\0');
    hs->mcp().set_share_owner(key);
  }
  // Quick tools (get) run on the event loop while the worker pool is idle: the two thread hops
  // to a worker and back cost more of the loop's time than the tool itself (bench/README.md).
  hs->mcp().set_run_quick_inline(true);
}

std::shared_ptr<http_session> session_table::create(const request_view& req, http_reply& refusal) {
  if (size() >= options_.max_sessions) expire_idle();
  // A token at its quota first gives up its own longest-idle session; a full table then gives
  // up the longest-idle session of any token. Only sessions idle for evict_idle_ms qualify, so
  // a burst of initialize calls cannot push out sessions that are in use.
  if (options_.max_sessions_per_token > 0 && sessions_of(req.token_name) >= options_.max_sessions_per_token &&
      !evict_longest_idle(&req.token_name)) {
    refusal = json_error(503, -32000,
                         "Service Unavailable: this token already holds " +
                             std::to_string(options_.max_sessions_per_token) +
                             " sessions, its limit (--max-sessions-per-token); end unused clients (DELETE their "
                             "session) or wait for idle sessions to expire");
    refusal.set("Retry-After", "60");
    return nullptr;
  }
  if (size() >= options_.max_sessions && !evict_longest_idle(nullptr)) {
    refusal = json_error(503, -32000,
                         "Service Unavailable: this daemon already serves " + std::to_string(options_.max_sessions) +
                             " sessions, its limit (--max-sessions); end unused clients or wait for idle sessions "
                             "to expire");
    refusal.set("Retry-After", "60");
    return nullptr;
  }
  auto id = auth::random_hex_id();
  if (!id) {
    refusal = json_error(503, -32000, "Service Unavailable: " + id.error().message);
    return nullptr;
  }
  std::int64_t t = now_();
  auto hs = std::make_shared<http_session>(*id, options_.limits, static_cast<std::uint64_t>(t) * 1000);
  hs->created_ms = hs->last_used_ms = t;
  hs->token_name = req.token_name;
  hs->granted = auth::intersect(ceiling_, req.granted);
  start_dispatcher(hs);
  live_.emplace(*id, hs);
  log::info("HTTP session " + short_id(*id) + " started at scope " + std::string(auth::to_string(hs->granted)) +
            (hs->token_name.empty() ? std::string() : " for token " + hs->token_name) + " (" +
            std::to_string(live_.size()) + " live)");
  return hs;
}

std::shared_ptr<http_session> session_table::revive(const session_record& rec) {
  std::uint64_t first = std::max(rec.next_event, static_cast<std::uint64_t>(now_()) * 1000);
  auto hs = std::make_shared<http_session>(rec.id, options_.limits, first);
  hs->created_ms = rec.created_ms;
  hs->last_used_ms = rec.last_used_ms;
  hs->token_name = rec.token_name;
  auto recorded = auth::parse_scope(rec.scope);
  hs->granted = recorded ? auth::intersect(ceiling_, *recorded) : ceiling_;
  start_dispatcher(hs);
  if (auto imported = hs->mcp().import_state(rec.state); !imported) {
    log::warning("HTTP session " + short_id(rec.id) + ": " + imported.error().message + "; it starts afresh");
  }
  hs->saved = hs->mcp().export_state();
  live_.emplace(rec.id, hs);
  log::info("HTTP session " + short_id(rec.id) + " restored from the state directory");
  return hs;
}

std::shared_ptr<http_session> session_table::lookup(const request_view& req, http_reply& refusal) {
  if (!req.session_id || req.session_id->empty()) {
    refusal = json_error(400, -32000, "Bad Request: Mcp-Session-Id header is required (initialize first)");
    return nullptr;
  }
  // A session belongs to the token that created it, at the scope it had then: another token
  // (or the same name with a changed scope after a reload) does not find it.
  auth::scope wanted = auth::intersect(ceiling_, req.granted);
  if (auto it = live_.find(*req.session_id); it != live_.end()) {
    if (it->second->token_name == req.token_name && it->second->granted == wanted) return it->second;
  } else if (auto d = dormant_.find(*req.session_id); d != dormant_.end()) {
    auto recorded = auth::parse_scope(d->second.scope);
    // Records written before sessions were bound to tokens (no scope) go to the first token
    // that presents them.
    bool legacy = d->second.scope.empty();
    if (legacy || (d->second.token_name == req.token_name && recorded && auth::intersect(ceiling_, *recorded) == wanted)) {
      session_record rec = d->second;
      if (legacy) {
        rec.token_name = req.token_name;
        rec.scope = std::string(auth::to_string(wanted));
      }
      dormant_.erase(d);
      return revive(rec);
    }
  }
  refusal = json_error(404, -32001, "Session not found");
  return nullptr;
}

exchange session_table::handle_post(const request_view& req, std::string_view body) {
  exchange ex;
  auto parsed = json::parse(body);
  if (!parsed) {
    ex.reply = json_error(400, -32700, "Parse error: " + parsed.error().message);
    return ex;
  }
  const bj::value& msg = parsed->value;
  if (msg.is_array()) {
    ex.reply = json_error(400, -32600, "Invalid Request: batches are not supported; POST one message at a time");
    return ex;
  }
  if (!msg.is_object()) {
    ex.reply = json_error(400, -32600, "Invalid Request: the body must be one JSON-RPC object");
    return ex;
  }
  mcp::envelope e = mcp::read_envelope(msg, parsed->violation_depth == 1 ? parsed->violation : std::string());
  const bool is_request = e.kind == mcp::inbound_kind::request;
  if (e.kind == mcp::inbound_kind::ignored) {
    ex.reply = json_error(400, -32600, "Invalid Request: not a JSON-RPC request, notification or response",
                          e.id && string_or_integer(*e.id) ? *e.id : bj::value());
    return ex;
  }
  if (is_request && !string_or_integer(*e.id)) {
    ex.reply = json_error(400, -32600, "Invalid Request: the id must be a string or an integer");
    return ex;
  }
  if (is_request && e.error_code != 0) {  // the envelope rules, before any session is made
    ex.reply = json_error(400, e.error_code, e.error, *e.id);
    return ex;
  }
  if (is_modern_post(req, e)) return handle_modern_post(req, std::move(*parsed), e);

  http_reply refusal;
  auto hs = e.opens_session ? create(req, refusal) : lookup(req, refusal);
  if (!hs) {
    ex.reply = std::move(refusal);
    return ex;
  }
  hs->last_used_ms = now_();
  dirty_ = true;
  ex.session = hs;
  ex.reply.set("Mcp-Session-Id", hs->id());

  if (!is_request) {  // a notification or a client's response: nothing comes back on this POST
    hs->mcp().handle_message(std::move(parsed->value), e, parsed->violation);
    note_state(*hs);
    ex.reply.status = 202;
    return ex;
  }
  accept_info accept = parse_accept(req.accept);
  ex.out = hs->open_request(e.key, accept.sse, accept.sse && !accept.json);
  if (!ex.out) {
    ex.reply = json_error(400, -32600, "Invalid Request: request id " + e.key + " is already in flight", *e.id);
    return ex;
  }
  hs->mcp().handle_message(std::move(parsed->value), e, parsed->violation);  // the last use of msg
  note_state(*hs);
  return ex;
}

void session_table::note_state(http_session& hs) {
  if (hs.mcp().export_state() == hs.saved) return;
  save();  // initialize, notifications/initialized, logging/setLevel: worth keeping at once
}

std::size_t session_table::sessions_of(const std::string& token) const {
  std::size_t n = 0;
  for (const auto& [id, hs] : live_) n += hs->token_name == token ? 1 : 0;
  for (const auto& [id, rec] : dormant_) n += rec.token_name == token ? 1 : 0;
  return n;
}

bool session_table::evict_longest_idle(const std::string* token) {
  std::int64_t t = now_();
  std::string victim;
  std::int64_t oldest = t - options_.evict_idle_ms;  // only sessions idle at least this long
  bool found = false;
  for (const auto& [id, hs] : live_) {
    if (hs->busy() || (token && hs->token_name != *token) || hs->last_used_ms > oldest) continue;
    oldest = hs->last_used_ms;
    victim = id;
    found = true;
  }
  for (const auto& [id, rec] : dormant_) {
    if ((token && rec.token_name != *token) || rec.last_used_ms > oldest) continue;
    oldest = rec.last_used_ms;
    victim = id;
    found = true;
  }
  if (!found) return false;
  log::info("HTTP session " + short_id(victim) + " evicted after " + std::to_string((t - oldest) / 1000) +
            " s without use, to make room for a new one" + (token ? " of the same token" : ""));
  remove(victim, "the session was evicted to make room for a new one");
  return true;
}

exchange session_table::handle_get(const request_view& req) {
  exchange ex;
  auto hs = lookup(req, ex.reply);
  if (!hs) return ex;
  std::optional<std::uint64_t> last;
  if (req.last_event_id) last = parse_last_event_id(*req.last_event_id);
  hs->last_used_ms = now_();
  dirty_ = true;
  ex.out = hs->open_stream(last);
  if (!ex.out) {
    ex.reply = json_error(409, -32000, "Conflict: this session already has an open SSE stream");
    return ex;
  }
  ex.session = hs;
  ex.reply.set("Mcp-Session-Id", hs->id());
  add_sse_headers(ex.reply);
  return ex;
}

http_reply session_table::handle_delete(const request_view& req) {
  http_reply refusal;
  auto hs = lookup(req, refusal);
  if (!hs) return refusal;
  remove(hs->id(), "the session was ended by the client (DELETE)");
  log::info("HTTP session " + short_id(hs->id()) + " ended by the client");
  return empty_reply(200);
}

void session_table::remove(const std::string& id, std::string_view reason) {
  if (auto it = live_.find(id); it != live_.end()) {
    auto hs = it->second;
    live_.erase(it);
    hs->end_all(reason);
    hs->mcp().cancel_all();
  }
  dormant_.erase(id);
  save();
}

void session_table::expire_idle() {
  std::int64_t t = now_();
  std::vector<std::string> idle;
  for (auto& [id, hs] : live_) {
    if (!hs->busy() && t - hs->last_used_ms > options_.idle_ms) idle.push_back(id);
  }
  for (auto it = dormant_.begin(); it != dormant_.end();) {
    if (t - it->second.last_used_ms > options_.idle_ms) {
      it = dormant_.erase(it);
      dirty_ = true;
    } else {
      ++it;
    }
  }
  for (const auto& id : idle) {
    log::info("HTTP session " + short_id(id) + " expired after " + std::to_string(options_.idle_ms / 1000) +
              " s without use");
    remove(id, "the session expired");
  }
  if (dirty_) save();
}

void session_table::end_get_streams() {
  for (auto& [id, hs] : live_) hs->end_get_stream();
}

bool session_table::any_pending() const {
  auto stateless_busy = [](const std::shared_ptr<http_session>& hs) { return hs->busy(); };
  return std::any_of(live_.begin(), live_.end(), [](const auto& kv) { return kv.second->busy(); }) ||
         std::any_of(modern_.begin(), modern_.end(), stateless_busy);
}

void session_table::end_all(std::string_view reason) {
  for (auto& [id, hs] : live_) {
    hs->end_all(reason);
    hs->mcp().cancel_all();
  }
  for (auto& hs : modern_) {
    hs->end_all(reason);
    hs->mcp().cancel_all();
  }
}

void session_table::close_all() {
  // During a shutdown the wait ends at the stop deadline: a call that ignores its flag is
  // abandoned (the daemon then ends the process), its session's record kept all the same.
  auto wait = [this](mcp::session& m) {
    if (server_.stopping()) (void)m.wait_idle_until(server_.stop_deadline());
    else m.wait_idle();
  };
  for (auto& hs : modern_) {
    hs->mcp().cancel_all();
    wait(hs->mcp());
  }
  modern_.clear();
  for (auto& [id, hs] : live_) hs->mcp().cancel_all();
  for (auto& [id, hs] : live_) {
    wait(hs->mcp());
    dormant_[id] = record_of(*hs);  // live sessions stay valid for the next run
  }
  live_.clear();
  save();
  if (writer_) writer_->flush();
}

session_record session_table::record_of(http_session& hs) {
  session_record r;
  r.id = hs.id();
  r.created_ms = hs.created_ms;
  r.last_used_ms = hs.last_used_ms;
  r.state = hs.mcp().export_state();
  r.next_event = hs.next_event_id();
  r.token_name = hs.token_name;
  r.scope = std::string(auth::to_string(hs.granted));
  return r;
}

void session_table::save() {
  dirty_ = false;
  if (!writer_) return;
  std::vector<session_record> records;
  records.reserve(live_.size() + dormant_.size());
  for (auto& [id, hs] : live_) {
    records.push_back(record_of(*hs));
    hs->saved = records.back().state;
  }
  for (auto& [id, rec] : dormant_) records.push_back(rec);
  writer_->submit(std::move(records));  // written off the loop; a burst of saves coalesces
}

}  // namespace omgdb::transports::http
