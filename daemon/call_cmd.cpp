// omgdb daemon — `omgdb call TOOL [ARGS]`: one tool call from the shell, through an MCP
// session of its own (daemon/commands.hpp add_call_command).
//
// The call goes through exactly what an MCP client's tools/call goes through: the session's
// dispatcher (tool lookup, the scope ceiling, the arguments' decoder and checks), the worker
// pool with the per-call deadline and memory budget, and the result envelope of protocol
// 2025-06-18. Only the printing differs: the text blocks on stdout (the error's on stderr),
// or with --json the `result` object an MCP client receives. The exit status says the
// failure's kind (call_exit_status; README.md "Any tool from the shell").
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>

#include <CLI/CLI.hpp>

#include "auth/scope.hpp"
#include "common/json.hpp"
#include "daemon/commands.hpp"
#include "daemon/logging.hpp"
#include "daemon/runtime.hpp"
#include "daemon/sql_runtime.hpp"
#include "engine/store/store.hpp"
#include "mcp/server.hpp"
#include "mcp/session.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;

int call_exit_status(failure_kind kind) noexcept { return 3 + static_cast<int>(kind); }

namespace {

// Arguments given as `-` are read from stdin, at most this many bytes (the stdio transport's
// line bound).
constexpr std::size_t k_max_stdin_arguments = 16u << 20;

struct call_args {
  std::optional<std::string> config_file;
  config::overrides given;
  std::string tool;
  std::string arguments = "{}";
  bool as_json = false;
};

int usage(const std::string& message) {
  std::cerr << "omgdb: " << message << "\n";
  return 2;
}

// The text of ARGS: the argument itself, or stdin for "-".
std::optional<std::string> arguments_text(const std::string& given) {
  if (given != "-") return given;
  std::string text;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    text.append(buf, n);
    if (text.size() > k_max_stdin_arguments) return std::nullopt;
  }
  return text;
}

// What the session answered the call with, and the kind its observer saw.
struct answer {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<std::string> response;
  std::optional<failure_kind> kind;  // set when the call ran on a worker and failed
};

// The failure kind a tool error carries (`_meta.error.kind`, mcp/structured.hpp), by name.
std::optional<failure_kind> kind_of(const bj::object& result) {
  const auto* meta = result.if_contains("_meta");
  const auto* error = meta && meta->is_object() ? meta->get_object().if_contains("error") : nullptr;
  const auto* kind = error && error->is_object() ? error->get_object().if_contains("kind") : nullptr;
  if (!kind || !kind->is_string()) return std::nullopt;
  for (int k = 0; k <= static_cast<int>(failure_kind::permission_denied); ++k) {
    if (kind->get_string() == to_string(static_cast<failure_kind>(k))) return static_cast<failure_kind>(k);
  }
  return std::nullopt;
}

int print_result(const call_args& a, const std::string& response, std::optional<failure_kind> kind) {
  auto msg = json::parse_strict(response);
  if (!msg || !msg->is_object()) return usage("the session's answer is not JSON: " + response);
  const auto& o = msg->get_object();
  if (auto* err = o.if_contains("error")) {
    // A JSON-RPC error: the request itself was refused (never for a well-formed call).
    std::cerr << "omgdb: " << json::serialize(*err) << "\n";
    return 2;
  }
  const auto* result = o.if_contains("result");
  if (!result || !result->is_object()) return usage("the session's answer has no result: " + response);
  const auto& r = result->get_object();
  const bool is_error = r.contains("isError") && r.at("isError").is_bool() && r.at("isError").get_bool();
  if (a.as_json) {
    std::cout << json::serialize(r) << "\n";
  } else if (const auto* content = r.if_contains("content"); content && content->is_array()) {
    std::ostream& out = is_error ? std::cerr : std::cout;
    for (const auto& block : content->get_array()) {
      if (!block.is_object()) continue;
      const auto* text = block.get_object().if_contains("text");
      if (!text || !text->is_string()) continue;
      std::string_view t = text->get_string();
      out << t;
      if (t.empty() || t.back() != '\n') out << '\n';
    }
  }
  std::cout.flush();
  if (!is_error) return 0;
  // The kind the error carries, whether the call ran or was refused before it ran (an
  // unknown tool: not_found; a scope above the ceiling: permission_denied; arguments that do
  // not match the schema: invalid_argument); never read from the message.
  if (auto carried = kind_of(r)) return call_exit_status(*carried);
  return call_exit_status(kind.value_or(failure_kind::internal));
}

int run_call(const call_args& a) {
  auto text = arguments_text(a.arguments);
  if (!text) return usage("the arguments on stdin are larger than 16 MiB");
  auto args = json::parse_strict(*text);
  if (!args) return usage("ARGS is not valid JSON: " + args.error().message);
  if (!args->is_object()) return usage("ARGS must be a JSON object, e.g. '{\"path\":\"app.omgdb\"}'");

  auto loaded = effective_settings(a.config_file, a.given);
  if (!loaded) return usage(loaded.error().message);
  apply_logging(*loaded);
  auto live = std::make_shared<live_settings>(*loaded);
  auto sql = make_sql_service(*loaded, true);  // `omgdb sql approve` may decide, as for `omgdb mcp`
  auto stores = std::make_shared<engine::store_registry>();
  apply_store_limits(*loaded);
  mcp::server_options opts;
  opts.scope = loaded->scope;
  opts.max_result_bytes = loaded->max_result_bytes;
  opts.workers = workers_for(loaded->workers, sql.get());
  opts.call_timeout = loaded->call_timeout;
  opts.person_wait = loaded->approvals.timeout;
  opts.session_workers = 256;  // the only session
  opts.call_memory_bytes = loaded->call_memory_bytes;
  auto got = std::make_shared<answer>();
  opts.on_call = [got](const mcp::call_event& e) {
    if (!e.result || !e.result->is_error) return;
    std::lock_guard lock(got->mu);
    got->kind = e.result->kind;
  };

  int status = 0;
  {
    mcp::server srv(opts, build_catalogue(live, stores, sql));
    auto session = std::make_shared<mcp::session>(srv, opts.scope, [got](mcp::outgoing m) {
      if (m.kind != mcp::message_kind::response || m.related != "2") return;
      std::lock_guard lock(got->mu);
      got->response = std::move(m.text);
      got->cv.notify_all();
    });
    session->set_label("cli");
    bj::object init_params{{"protocolVersion", "2025-06-18"},
                           {"capabilities", bj::object{}},
                           {"clientInfo", bj::object{{"name", "omgdb call"}, {"version", OMGDB_VERSION}}}};
    session->handle_text(json::serialize(bj::object{
        {"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", std::move(init_params)}}));
    session->handle_text(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    bj::object call{{"jsonrpc", "2.0"},
                    {"id", 2},
                    {"method", "tools/call"},
                    {"params", bj::object{{"name", a.tool}, {"arguments", std::move(*args)}}}};
    session->handle_text(json::serialize(call));
    session->wait_idle();
    std::unique_lock lock(got->mu);
    got->cv.wait(lock, [&] { return got->response.has_value(); });
    std::string response = std::move(*got->response);
    auto kind = got->kind;
    lock.unlock();
    status = print_result(a, response, kind);
  }
  stores->close_all();
  return status;
}

}  // namespace

std::function<std::optional<int>()> add_call_command(CLI::App& app) {
  auto a = std::make_shared<call_args>();
  auto* cmd = app.add_subcommand(
      "call", "Call one MCP tool from the shell, as an MCP client would (same checks, scope and output)");
  cmd->add_option("TOOL", a->tool, "The tool's name (`omgdb tools` lists them)")->required();
  cmd->add_option("ARGS", a->arguments, "Its arguments as a JSON object (default {}); - reads them from stdin");
  cmd->add_option_function<std::string>("--config", [a](const std::string& v) { a->config_file = v; },
                                        "Config file (default: the search list, as for `omgdb mcp`)");
  cmd->add_option_function<std::string>("--scope", [a](const std::string& v) { a->given.scope = v; },
                                        "Capability ceiling: read (ro), read-write (write, rw; default) or dangerous (all)");
  cmd->add_option_function<std::size_t>("--max-result-bytes", [a](std::size_t v) { a->given.max_result_bytes = v; },
                                        "Largest tool result in bytes; bigger results are cut and say how to continue")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  cmd->add_option_function<std::uint64_t>("--call-timeout", [a](std::uint64_t v) { a->given.call_timeout_ms = v; },
                                          "Deadline of the call in milliseconds (default 60000; 0: none)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{24} * 3600 * 1000));
  cmd->add_option_function<std::uint64_t>("--call-memory", [a](std::uint64_t v) { a->given.call_memory_bytes = v; },
                                          "Bytes the call may build (default 134217728)")
      ->check(CLI::Range(std::uint64_t{1} << 20, std::uint64_t{64} << 30));
  cmd->add_flag("--json", a->as_json,
                "Print the MCP result object (content, structuredContent, isError) instead of its text");
  return [a, cmd]() -> std::optional<int> {
    if (!*cmd) return std::nullopt;
    return run_call(*a);
  };
}

}  // namespace omgdb::daemon
