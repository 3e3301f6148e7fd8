#include "mcp/session.hpp"

#include <chrono>
#include <exception>
#include <new>

#include <unistd.h>

#include "common/json.hpp"
#include "common/log.hpp"
#include "mcp/modern.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

namespace {
// Sets the call's flag, recording `why` unless an earlier reason was recorded.
template <class Call>
void cancel_call(Call& c, cancel_reason why) {
  cancel_reason none = cancel_reason::none;
  c.reason.compare_exchange_strong(none, why);
  c.cancelled = true;
}
// A call cancelled for its client (by it, or because it went away) gets no response; a call
// stopped by its deadline or by a shutdown answers with the error saying so.
template <class Call>
bool answer_dropped(const Call& c) {
  if (!c.cancelled) return false;
  auto why = c.reason.load();
  return why == cancel_reason::client || why == cancel_reason::client_gone;
}

// What the history and the log add to the outcome of a call that finished although its flag
// was set meanwhile (a write that committed as its client hung up).
std::string_view finished_note(cancel_reason why) {
  switch (why) {
    case cancel_reason::client: return "cancelled by the client";
    case cancel_reason::client_gone: return "client gone";
    case cancel_reason::deadline: return "deadline passed";
    case cancel_reason::shutdown: return "server stopping";
    default: return "";
  }
}

constexpr std::int64_t not_started = 0;
constexpr std::int64_t no_deadline = INT64_MAX;
std::int64_t steady_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
}  // namespace

struct session::call_state {
  bj::value id;
  std::string key;  // serialized id
  const tool* target = nullptr;
  bj::object args;
  bj::value progress_token;  // null when absent
  call_style style;
  std::atomic<bool> cancelled{false};
  std::atomic<cancel_reason> reason{cancel_reason::none};  // why `cancelled` was set
  // When its deadline passes (steady clock, ns): not_started until it runs, no_deadline
  // without one. Read by overdue() (stdio's end of input).
  std::atomic<std::int64_t> due_ns{not_started};
  std::mutex progress_mu;
  double last_progress = -1;
  double last_total = 0;
};

session::session(server& srv, auth::scope ceiling, send_fn send)
    : server_(srv), ceiling_(ceiling), send_(std::move(send)), log_level_(default_level) {
  static std::atomic<unsigned long> counter{0};
  id_ = "mcp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  server_.enlist(this);  // last: a shutdown may reach this session from now on
}

session::~session() {
  server_.delist(this);  // first: no shutdown walks a session being destroyed
  cancel_all();
  wait_idle();
}

std::string session::negotiated_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

session_state session::export_state() const {
  std::lock_guard lock(mu_);
  return session_state{version_, initialized_.load(), level_name_};
}

status session::import_state(const session_state& state) {
  if (auto why = invalid_state(state)) return make_error("cannot restore the session: " + *why);
  std::lock_guard lock(mu_);
  version_ = state.version;
  initialized_ = state.initialized;
  level_name_ = state.log_level;
  log_level_ = state.log_level.empty() ? default_level : level_index(state.log_level);
  return {};
}

namespace {
std::string line_name(std::uint64_t line) {
  return line ? "input line " + std::to_string(line) : std::string("a message");
}
}  // namespace

void session::handle_text(std::string_view text, std::uint64_t line) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
  if (i == text.size()) return;  // blank line
  auto parsed = json::parse(text);
  if (!parsed) {
    // Ignored as the seed says, but where a person sees it: an agent may be waiting for it.
    log::warning("ignored " + line_name(line) + ": not JSON (" + parsed.error().message + ")");
    return;
  }
  auto e = read_envelope(parsed->value, parsed->violation_depth == 1 ? parsed->violation : std::string());
  dispatch(e, parsed->violation, line);  // ours: tools/call may move its arguments
}

void session::handle_message(bj::value&&, const envelope& e, const std::string& violation) {
  dispatch(e, violation, 0);  // the caller gave it up: tools/call may move its arguments
}

void session::refuse_oversized(std::string_view prefix, std::size_t limit) {
  auto id = recover_id(prefix);
  std::string out = R"({"jsonrpc":"2.0",)";
  if (id) {
    out += R"("id":)";
    json::append(out, *id);
    out += ",";
  }
  out += R"("error":{"code":-32600,"message":"request too large: a line exceeds )" + std::to_string(limit) +
         R"( bytes"}})";
  send(message_kind::response, std::move(out), id ? json::serialize(*id) : std::string());
}

void session::dispatch(const envelope& e, const std::string& violation, std::uint64_t line) {
  if (e.kind == inbound_kind::ignored) {
    log::warning("ignored " + line_name(line) + ": " + std::string(e.ignored_because));
    return;
  }
  if (e.kind == inbound_kind::response) return;  // this server sends no requests to answer
  const bool is_request = e.kind == inbound_kind::request;
  if (e.error_code != 0) {
    if (is_request) return reply_error(*e.id, e.error_code, e.error);
    log::warning("ignored a notification from " + line_name(line) + ": " + e.error);
    return;
  }
  if (e.params_not_object) {
    if (is_request) reply_error(*e.id, -32602, "invalid params");
    return;
  }
  static const bj::object empty;
  const bj::object& params = e.params ? *e.params : empty;
  if (!is_request) {
    if (e.method == "notifications/cancelled") on_cancelled(params);
    else if (e.method == "notifications/initialized") initialized_ = true;
    return;  // every notification, known or not, gets no reply
  }
  const bj::value& id = *e.id;
  if (e.method == "initialize") return on_initialize(id, params);
  if (auto modern = declared_version(e.params)) return dispatch_modern(e, *modern, params, violation);
  if (e.method == "ping") return reply_result(id, bj::object{});
  if (e.method == "tools/list") return on_tools_list(id, params);
  if (e.method == "tools/call") return on_tools_call(id, params, violation, legacy_style());
  if (e.method == "logging/setLevel") return on_set_level(id, params);
  reply_error(id, -32601, "method not found");
}

void session::on_initialize(const bj::value& id, const bj::object& params) {
  if (initialized_) {
    // A second handshake would renegotiate what the client already relies on.
    return reply_error(id, -32600,
                       "invalid request: this session is already initialized; start a new session to "
                       "negotiate again");
  }
  auto pv = params.find("protocolVersion");
  std::string_view version = negotiate_version(pv == params.end() ? nullptr : &pv->value());
  std::string client;
  if (auto ci = params.find("clientInfo"); ci != params.end() && ci->value().is_object()) {
    if (auto n = ci->value().get_object().find("name"); n != ci->value().get_object().end() && n->value().is_string()) {
      for (char ch : n->value().get_string()) {
        if (client.size() >= 64) break;
        if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) client.push_back(ch);
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    version_ = std::string(version);
    client_name_ = std::move(client);
  }
  bj::object caps{{"tools", bj::object{{"listChanged", false}}}, {"logging", bj::object{}}};
  bj::object info{{"name", "omgdb"}, {"version", server_.options().version}};
  reply_result(id, bj::object{{"protocolVersion", version},
                              {"capabilities", std::move(caps)},
                              {"serverInfo", std::move(info)}});
}

std::string session::name() const {
  std::lock_guard lock(mu_);
  return client_name_.empty() ? label_ : label_ + " \u00b7 " + client_name_;
}

void session::on_tools_list(const bj::value& id, const bj::object& params) {
  if (auto c = params.find("cursor"); c != params.end() && !c->value().is_null()) {
    return reply_error(id, -32602, "invalid cursor: this server returns every tool in one page");
  }
  bj::array list;
  const bool structured = has_structured_results(negotiated_version());
  for (const tool* t : server_.visible(ceiling_)) list.push_back(describe_for(*t, structured));
  reply_result(id, bj::object{{"tools", std::move(list)}});
}

void session::on_set_level(const bj::value& id, const bj::object& params) {
  auto it = params.find("level");
  int lvl = -1;
  if (it != params.end() && it->value().is_string()) {
    lvl = level_index(std::string_view(it->value().get_string().data(), it->value().get_string().size()));
  }
  if (lvl < 0) {
    return reply_error(id, -32602,
                       "invalid log level: expected one of debug, info, notice, warning, error, "
                       "critical, alert, emergency");
  }
  {
    std::lock_guard lock(mu_);  // validated above: only a known level name is kept
    level_name_ = std::string(level_names[lvl]);
    log_level_ = lvl;
  }
  reply_result(id, bj::object{});
}

void session::on_cancelled(const bj::object& params) {
  auto it = params.find("requestId");
  if (it == params.end()) return;
  std::string key = json::serialize(it->value());
  bool found = false;
  {
    std::lock_guard lock(mu_);
    auto [b, e] = calls_.equal_range(key);
    for (auto c = b; c != e; ++c) {
      cancel_call(*c->second, cancel_reason::client);
      found = true;
    }
  }
  if (found) send(message_kind::abandoned, std::string(), std::move(key));  // no response follows
}

void session::on_tools_call(const bj::value& id, const bj::object& params,
                            const std::string& violation, const call_style& style) {
  auto nit = params.find("name");
  if (nit == params.end() || !nit->value().is_string()) {
    return reply_error(id, -32602, "missing tool name");
  }
  std::string name(nit->value().get_string());
  // A refusal before the call runs: the same envelope (and kind) as a failed call's.
  auto fail = [&](const std::string& message, failure_kind kind = failure_kind::invalid_argument) {
    send(message_kind::response,
         call_result_envelope(id, tool_result::failure(message, kind), result_shape::text, style.result),
         json::serialize(id));
  };
  const tool* t = server_.find(name);
  if (!t && style.result.modern) return reply_error(id, -32602, "Unknown tool: " + name);
  if (!t) return fail("unknown tool `" + name + "`", failure_kind::not_found);
  if (!auth::allows(ceiling_, t->required_scope)) {
    return fail("tool `" + name + "` requires `" + std::string(auth::to_string(t->required_scope)) +
                    "` scope but this server runs with `" + std::string(auth::to_string(ceiling_)) + "` scope",
                failure_kind::permission_denied);
  }
  if (!violation.empty()) return fail("invalid JSON in the request: " + violation);
  if (server_.stopping()) {
    return fail("the server is shutting down; `" + name + "` was not started. Retry once it is back",
                failure_kind::unavailable);
  }
  auto call = std::make_shared<call_state>();
  if (auto ait = params.find("arguments"); ait != params.end() && !ait->value().is_null()) {
    if (!ait->value().is_object()) return fail("`arguments` must be an object");
    // The message is the session's (handle_text's own parse, or given up by the transport)
    // and gone after this call: take the arguments instead of deep-copying them.
    call->args = std::move(const_cast<bj::object&>(ait->value().get_object()));
  }
  if (auto problem = check_arguments(*t, call->args)) return fail(*problem);
  if (auto mit = params.find("_meta"); mit != params.end() && mit->value().is_object()) {
    if (auto tk = mit->value().get_object().find("progressToken");
        tk != mit->value().get_object().end() && (tk->value().is_string() || tk->value().is_number())) {
      call->progress_token = tk->value();
    }
  }
  call->id = id;
  call->key = json::serialize(id);
  call->target = t;
  call->style = style;
  const std::size_t limit = server_.options().max_in_flight;
  bool admitted = false;
  {
    std::lock_guard lock(mu_);
    if (limit == 0 || calls_.size() < limit) {
      calls_.emplace(call->key, call);
      admitted = true;
    }
  }
  if (!admitted) {
    return fail("session busy: this session already has " + std::to_string(limit) +
                    " tool calls in flight; wait for one to finish or cancel one, then retry",
                failure_kind::busy);
  }
  // A quick tool runs here only while the pool is idle: a busy worker may hold what the tool
  // needs (a store being opened), and a queued call should not be overtaken indefinitely.
  if (may_run_inline(*t, call->args)) return run_call(call, true);
  auto self = shared_from_this();
  // A quick tool (bounded, never waits) does not count against the session's share of the
  // workers, so it is never stuck behind the session's own long call.
  // The share is the owner's: the session's, or over HTTP its token's (set_share_owner).
  const void* owner = share_owner_ ? share_owner_.get() : static_cast<const void*>(this);
  const std::function<void()> job = [self, call] { self->run_call(call); };
  auto& pool = server_.pool();
  bool queued = pool.try_submit(job, t->quick ? nullptr : owner);
  // stdio: the reader waits for room (the client's pipe holds it back) instead of failing.
  while (!queued && wait_for_room_ && !server_.stopping() && pool.accepting()) {
    if (pool.wait_for_room_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(100))) {
      queued = pool.try_submit(job, t->quick ? nullptr : owner);
    }
  }
  if (!queued && server_.stopping()) {
    finish_call(call, std::string());
    return fail("the server is shutting down; `" + name + "` was not started. Retry once it is back",
                failure_kind::unavailable);
  }
  if (!queued) {
    finish_call(call, std::string());
    fail("server busy: " + std::to_string(server_.pool().max_queue()) +
             " tool calls are already waiting; retry shortly",
         failure_kind::busy);
  }
}

namespace {
// The least severe level a call sends to its client: the session's, the request's, or none.
int effective_level(const call_style& s, int session_level) {
  return s.min_log_level == -2 ? session_level : s.min_log_level == -1 ? 1000 : s.min_log_level;
}

const bj::string* warm_key(const tool& t, const bj::object& args) {
  auto it = args.find(t.quick_once_warm);
  return it != args.end() && it->value().is_string() ? &it->value().get_string() : nullptr;
}
}  // namespace

bool session::queue_full() const { return server_.pool().queued() >= server_.pool().max_queue(); }

bool session::may_run_inline(const tool& t, const bj::object& args) {
  if (!run_quick_inline_ || !t.quick || !server_.pool().idle()) return false;
  if (t.quick_once_warm.empty()) return true;
  const bj::string* key = warm_key(t, args);
  if (!key) return false;
  std::lock_guard lock(warm_->mu);
  return warm_->keys.find(std::string_view(key->data(), key->size())) != warm_->keys.end();
}

void session::note_warm(const tool& t, const bj::object& args) {
  if (!t.quick || t.quick_once_warm.empty()) return;
  const bj::string* key = warm_key(t, args);
  if (!key) return;
  std::string_view k(key->data(), key->size());
  std::lock_guard lock(warm_->mu);
  if (warm_->keys.find(k) != warm_->keys.end()) return;
  if (warm_->keys.size() >= 64) warm_->keys.clear();  // bounded: a session touching many stores starts over
  warm_->keys.emplace(k);
}

void session::run_call(const std::shared_ptr<call_state>& call, bool inline_run) {
  // A call admitted as the shutdown began, after it walked the sessions, stops here too.
  if (server_.stopping()) cancel_call(*call, cancel_reason::shutdown);
  if (call->cancelled) {
    if (answer_dropped(*call)) return finish_call(call, std::string());
    // Shut down (or, in theory, past a deadline) before it started: answered, never run.
    tool_result r = tool_result::failure("`" + call->target->name + "` was not started: the server is shutting down",
                                         failure_kind::unavailable);
    return finish_call(call, call_result_envelope(call->id, r, call->target->shape, call->style.result));
  }
  std::chrono::milliseconds timeout = server_.options().call_timeout;
  if (timeout.count() > 0 && call->target->waits_for_person) timeout += server_.options().person_wait;
  call_context ctx;
  ctx.cancel_why = &call->reason;
  ctx.deadline = timeout;
  ctx.scope = ceiling_;
  ctx.cancelled = &call->cancelled;
  ctx.max_result_bytes = server_.options().max_result_bytes;
  ctx.session_id = id_;
  ctx.session_name = name();
  ctx.request_id = call->key;
  ctx.client_gone = &client_gone_;
  ctx.paths = paths_;
  // What the call may build, and its stop flag, reached by the engine as the thread's budget.
  call_budget budget(server_.options().call_memory_bytes, &call->cancelled);
  ctx.budget = &budget;
  // Raw pointers keep both callbacks within std::function's inline storage (no allocation);
  // `call` outlives ctx, which is local to this function.
  call_state* c = call.get();
  ctx.progress = [this, c](double progress, double total, const std::string& message) {
    if (c->progress_token.is_null() || c->cancelled) return;
    std::lock_guard lock(c->progress_mu);
    if (progress <= c->last_progress) return;  // progress must strictly increase
    c->last_progress = progress;
    c->last_total = total;
    bj::object p{{"progressToken", c->progress_token}, {"progress", progress}};
    if (total > 0) p["total"] = total;
    if (!message.empty()) p["message"] = message;
    notify("notifications/progress", std::move(p), c->key);
  };
  ctx.log = [this, c](log_level level, const std::string& message) {
    log::write(level >= log_level::error ? log::level::error
               : level >= log_level::warning ? log::level::warning
               : level >= log_level::info ? log::level::info : log::level::debug,
               message);
    if (static_cast<int>(level) < effective_level(c->style, log_level_.load())) return;
    notify("notifications/message",
           bj::object{{"level", level_names[static_cast<int>(level)]}, {"logger", "omgdb"}, {"data", message}},
           c->key);
  };

  // A first notification as the call starts (not one as it ends: clients such as the
  // TypeScript SDK drop a progress notification that arrives in the same read as the result).
  ctx.progress(0, 0, "started");
  tool_result r;
  auto started = std::chrono::steady_clock::now();
  call->due_ns = timeout.count() > 0 ? steady_ns(started + timeout) : no_deadline;
  std::uint64_t ticket = 0;
  if (timeout.count() > 0) {
    // The timer holds the call weakly: a call that ended is not kept alive by its deadline.
    std::weak_ptr<call_state> weak = call;
    ticket = server_.deadlines().arm(started + timeout, [weak] {
      if (auto c = weak.lock()) cancel_call(*c, cancel_reason::deadline);
    });
  }
  try {
    budget_scope installed(&budget);
    r = call->target->handler(call->args, ctx);
  } catch (const std::bad_alloc&) {
    r = tool_result::failure("out of memory while running `" + call->target->name + "`", failure_kind::internal);
  } catch (const call_error& e) {
    r = tool_result::failure(e.to_failure());  // a bound or a cancellation raised past the tool layer
  } catch (const std::exception& e) {
    r = tool_result::failure(std::string("internal error in `") + call->target->name + "`: " + e.what(),
                             failure_kind::internal);
  } catch (...) {
    r = tool_result::failure("internal error in `" + call->target->name + "`", failure_kind::internal);
  }
  // Every exception was caught above: the deadline is disarmed on every path, before the call
  // counts as finished.
  if (ticket != 0) server_.deadlines().disarm(ticket);
  auto ms = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count() / 1000.0;
  if (!inline_run) note_warm(*call->target, call->args);  // inline: warm already
  if (const auto& observe = server_.options().on_call) {
    // A call whose flag was set but that finished (a write that committed as its client hung
    // up) is logged with its own outcome: "cancelled" means it stopped because of the flag.
    const bool flagged = call->cancelled.load();
    call_event e{call->target->name, call->key, label_, ms, r.is_error, flagged && r.is_error,
                 flagged && !r.is_error ? finished_note(call->reason.load()) : std::string_view(), id_,
                 &call->args, &r};
    e.session_name = ctx.session_name;
    observe(e);
  }
  if (answer_dropped(*call)) return finish_call(call, std::string());
  if (log::enabled(log::level::debug) ||
      static_cast<int>(log_level::debug) >= effective_level(call->style, log_level_.load())) {
    ctx.log(log_level::debug, "tool " + call->target->name + " took " + std::to_string(ms) + " ms" +
                                  (r.is_error ? " (error)" : ""));
  }
  finish_call(call, call_result_envelope(call->id, r, call->target->shape, call->style.result));
}

void session::finish_call(const std::shared_ptr<call_state>& call, std::string message) {
  if (!message.empty()) send(message_kind::response, std::move(message), call->key);
  std::lock_guard lock(mu_);
  auto [b, e] = calls_.equal_range(call->key);
  for (auto c = b; c != e; ++c) {
    if (c->second == call) {
      calls_.erase(c);
      break;
    }
  }
  if (calls_.empty()) idle_cv_.notify_all();
}

void session::end_of_input() { client_gone_ = true; }

void session::stop_calls() {
  std::lock_guard lock(mu_);
  for (auto& [k, c] : calls_) cancel_call(*c, cancel_reason::shutdown);
}

bool session::wait_idle_until(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_until(lock, until, [this] { return calls_.empty(); });
}

bool session::overdue(std::chrono::milliseconds grace) const {
  const std::int64_t now = steady_ns(std::chrono::steady_clock::now());
  const std::int64_t g = std::chrono::duration_cast<std::chrono::nanoseconds>(grace).count();
  std::lock_guard lock(mu_);
  for (const auto& [k, c] : calls_) {
    std::int64_t due = c->due_ns.load();
    if (due != not_started && due != no_deadline && now - due > g) return true;
  }
  return false;
}

void session::cancel_all() {
  client_gone_ = true;
  std::lock_guard lock(mu_);
  for (auto& [k, c] : calls_) cancel_call(*c, cancel_reason::client_gone);
}

bool session::cancel_request(const std::string& key) {
  std::lock_guard lock(mu_);
  auto [b, e] = calls_.equal_range(key);
  for (auto c = b; c != e; ++c) cancel_call(*c->second, cancel_reason::client_gone);
  return b != e;
}

void session::wait_idle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return calls_.empty(); });
}

void session::reply_result(const bj::value& id, bj::value result) {
  bj::object envelope{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  send(message_kind::response, json::serialize(envelope), json::serialize(id));
}

void session::reply_error(const bj::value& id, int code, std::string_view message) {
  bj::object err{{"code", code}, {"message", message}};
  bj::object envelope{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
  send(message_kind::response, json::serialize(envelope), json::serialize(id));
}

void session::notify(std::string_view method, bj::object params, std::string_view related) {
  bj::object msg{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
  send(message_kind::notification, json::serialize(msg), std::string(related));
}

void session::send(message_kind kind, std::string text, std::string related) {
  send_(outgoing{kind, std::move(text), std::move(related)});
}

}  // namespace omgdb::mcp
