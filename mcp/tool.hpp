// omgdb mcp — a tool is data: name, description, parameters, annotations, scope, handler.
//
// `tools/list` is generated from the same table that `tools/call` enforces, so what a client
// is shown and what dispatch accepts can never disagree.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "auth/scope.hpp"
#include "common/call_budget.hpp"
#include "common/result.hpp"

namespace omgdb::auth {
class path_policy;
}

namespace omgdb::mcp {

enum class param_type {
  string,
  integer,           // JSON Schema "integer": a number with no fractional part
  number,
  boolean,
  object,
  array,
  array_of_objects,  // {"type":"array","items":{"type":"object"}}
  any,               // {} — any JSON value
};

struct param {
  std::string name;
  param_type type = param_type::string;
  bool required = true;
  std::string description;  // the property's "description" in tools/list ("": none)
};

struct annotations {
  bool read_only = false;    // readOnlyHint: touches nothing on disk
  bool idempotent = false;   // idempotentHint
  bool destructive = false;  // destructiveHint
};

// What a successful result's first text block holds, for structured results (2025-06-18 and
// later): the tool then declares an outputSchema and its result carries structuredContent
// beside the text blocks (mcp/structured.hpp says how each shape is wrapped).
enum class result_shape {
  text,         // prose or Markdown: no structured result
  json_object,  // one JSON object
  json_array,   // one JSON array: {"items": [...]}
  json_value,   // a document or null: {"document": ...}
  ndjson,       // one JSON document a line: {"documents": [...]} plus later JSON-object blocks' members
};

enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

// Why a call's cancellation flag was set (the first reason wins).
enum class cancel_reason : std::uint8_t {
  none,
  client,       // notifications/cancelled
  client_gone,  // the HTTP connection closed before the response, the session ended, stdin closed
  deadline,     // the per-call deadline passed (server_options::call_timeout)
  shutdown,     // the server is stopping
};

// What a handler may use while it runs. Thread-safe; valid for the duration of the call.
struct call_context {
  auth::scope scope = auth::scope::read;
  // Set by notifications/cancelled, session end or shutdown; long loops poll it.
  const std::atomic<bool>* cancelled = nullptr;
  // Reports progress; a no-op unless the caller sent a progressToken. `total` 0 = unknown.
  std::function<void(double progress, double total, const std::string& message)> progress;
  // Sends a log notification to the client (filtered by its logging/setLevel) and to stderr.
  std::function<void(log_level, const std::string&)> log;
  // Upper bound on the text a tool returns; larger results are cut at a record boundary.
  std::size_t max_result_bytes = 24 * 1024;
  // Who is calling: a process-unique id of the MCP session and the call's JSON-RPC id
  // (serialized). Empty outside a session (the command line, unit tests).
  std::string session_id;
  std::string request_id;
  // How people are shown the session (mcp::session::name(): "a1b2c3d4 · claude-code"); empty
  // outside a session.
  std::string session_name;
  // Set when the client went away (stdin closed, HTTP session ended); `cancelled` is set too.
  // Lets a long wait (an SQL approval) say which of the two ended it.
  const std::atomic<bool>* client_gone = nullptr;
  // Where the calling session may open stores and read files (its transport's policy, e.g.
  // the daemon's `[stores] roots` over HTTP); null: not confined (stdio, the command line).
  std::shared_ptr<const auth::path_policy> paths;
  // Why `cancelled` was set (null: not recorded), and the call's deadline as configured (0: none),
  // for the error a cancelled call reports (tools::run_tool).
  const std::atomic<cancel_reason>* cancel_why = nullptr;
  std::chrono::milliseconds deadline{0};

  bool is_cancelled() const noexcept { return cancelled && cancelled->load(); }
  // What the call may build (common/call_budget.hpp); installed as the thread's current budget
  // while the handler runs. Null outside a session (current_budget() then gives a default).
  call_budget* budget = nullptr;

  cancel_reason why_cancelled() const noexcept {
    if (!is_cancelled()) return cancel_reason::none;
    return cancel_why ? cancel_why->load() : cancel_reason::client;
  }
  bool is_client_gone() const noexcept { return client_gone && client_gone->load(); }
};

// The body of a tools/call result: text blocks, flagged as an error or not.
struct tool_result {
  std::vector<std::string> texts;
  bool is_error = false;
  failure_kind kind = failure_kind::internal;  // when is_error: what kind of failure
  // Members added to structuredContent (2025-06-18 and later) beside what the first text block
  // gives: how to continue a cut or paged result ({"continuation": {...}}) and what a cut left
  // out ({"truncated": {...}}). The text blocks say the same in a note, for text-only clients.
  boost::json::object structured_extra;

  static tool_result text(std::string t) {
    tool_result r;
    r.texts.push_back(std::move(t));
    return r;
  }
  // `message` without the "Error: " prefix, which this adds.
  static tool_result failure(const std::string& message,
                             failure_kind kind = failure_kind::invalid_argument) {
    tool_result r;
    r.texts.push_back("Error: " + message);
    r.is_error = true;
    r.kind = kind;
    return r;
  }
  static tool_result failure(const omgdb::failure& f) { return failure(f.message, f.kind); }
};

using tool_handler = std::function<tool_result(const boost::json::object& args, call_context& ctx)>;

struct tool {
  std::string name;
  std::string description;
  std::vector<param> params;
  annotations hints;
  auth::scope required_scope = auth::scope::read;
  tool_handler handler;
  // Bounded work that never waits (no SQL, approvals, imports or scans of unknown size): a
  // transport may run it on its own thread instead of handing it to the worker pool.
  bool quick = false;
  // For a quick tool whose first call on a resource may be slow (a store being opened): the
  // argument naming that resource. The tool then runs on the transport's thread only once a
  // call with the same value of that argument has finished in the session. "": always.
  std::string quick_once_warm;
  result_shape shape = result_shape::text;  // for outputSchema and structuredContent
  // It may wait for a person (an SQL approval): its deadline is server_options::call_timeout
  // plus server_options::person_wait, so a call waiting for a decision is not cut first.
  bool waits_for_person = false;
};

// The tool's inputSchema: root type object, properties in declaration order (each its type
// and, when the param has one, its description), required exactly the required params,
// additionalProperties false.
boost::json::object input_schema(const tool& t);

// The tools/list entry: name, description, inputSchema, annotations (readOnlyHint,
// idempotentHint, destructiveHint, requiredScope).
boost::json::object describe(const tool& t);

// The error when `v` is not of type `t` ("argument `limit` must be an integer, not a number"),
// or nullopt; array_of_objects checks the elements too.
std::optional<std::string> type_error(std::string_view name, param_type t, const boost::json::value& v);

// Checks `args` against the tool's params: every required one present, every present one of
// the declared type, no unknown ones. Returns the error message (without "Error: "), or
// nullopt when the arguments are acceptable.
std::optional<std::string> check_arguments(const tool& t, const boost::json::object& args);

}  // namespace omgdb::mcp
