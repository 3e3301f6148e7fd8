// omgdb — entry point: parses the command line and runs one subcommand.
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "auth/scope.hpp"
#include "common/json.hpp"
#include "daemon/cli_sql.hpp"
#include "daemon/commands.hpp"

namespace {

// JSON text for a command-line `_id`: JSON as given, else the raw text as a string.
std::string id_json(const std::string& raw) {
  if (omgdb::json::parse_strict(raw)) return raw;
  std::string out;
  omgdb::json::append_quoted(out, raw);
  return out;
}

std::string json_str(const std::string& s) {
  std::string out;
  omgdb::json::append_quoted(out, s);
  return out;
}

// A JSON argument given on the command line, checked before use.
bool check_json(const std::string& what, const std::string& text) {
  auto r = omgdb::json::parse_strict(text);
  if (!r) {
    std::cerr << "omgdb: " << what << " is not valid JSON: " << r.error().message << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"omgdb — a document store and SQL gateway for coding agents, over MCP"};
  app.set_version_flag("--version", std::string("omgdb ") + OMGDB_VERSION);
  app.require_subcommand(1);

  omgdb::daemon::mcp_command mcp;
  auto* mcp_cmd = app.add_subcommand("mcp", "Serve MCP over stdio (newline-delimited JSON-RPC)");
  mcp_cmd->add_option("--scope", mcp.scope,
                      "Capability ceiling: read (ro), read-write (write, rw; default) or dangerous (all)");
  mcp_cmd->add_option("--max-result-bytes", mcp.max_result_bytes,
                      "Largest tool result in bytes; bigger results are cut and say how to continue")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  mcp_cmd->add_option("--workers", mcp.workers, "Tool worker threads (default: one per core, at least 2)");
  mcp_cmd->add_option("--config", mcp.config_file, "Config file (SQL connections, approvals)");

  omgdb::daemon::serve_command serve;
  auto* serve_cmd = app.add_subcommand("serve", "Serve MCP over Streamable HTTP on a loopback address (docs/http.md)");
  serve_cmd->add_option("--listen", serve.listen, "HOST:PORT to listen on, loopback only (default 127.0.0.1:41922; port 0: any)");
  serve_cmd->add_option("--scope", serve.scope, "Capability ceiling: read, read-write (default) or dangerous");
  serve_cmd->add_flag("--no-auth", serve.no_auth, "Accept requests without a bearer token (loopback test runs only)");
  serve_cmd->add_option("--allow-origin", serve.allow_origins, "Also accept this Origin, e.g. https://tunnel.example (repeatable)");
  serve_cmd->add_option("--allow-host", serve.allow_hosts, "Also accept this Host header, NAME or NAME:PORT (repeatable)");
  serve_cmd->add_option("--state-dir", serve.state_dir, "Where session records are kept (default $XDG_STATE_HOME/omgdb)");
  serve_cmd->add_option("--max-result-bytes", serve.max_result_bytes, "Largest tool result in bytes")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  serve_cmd->add_option("--workers", serve.workers, "Tool worker threads (default: one per core, at least 2)");
  serve_cmd->add_option("--config", serve.config_file, "Config file (SQL connections, approvals)");
  serve_cmd->add_option("--max-body-bytes", serve.max_body_bytes, "Largest POST body (default 4 MiB)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  serve_cmd->add_option("--max-sessions", serve.max_sessions, "Live sessions at most (default 64)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  serve_cmd->add_option("--max-connections", serve.max_connections, "Open connections at most (default 256)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  serve_cmd->add_option("--session-idle", serve.session_idle_seconds, "Seconds before an unused session expires (default 900)")
      ->check(CLI::Range(1u, 7u * 24 * 3600));
  serve_cmd->add_option("--sse-keepalive", serve.sse_keepalive_seconds, "Seconds between keep-alive comments on idle SSE streams (default 15)")
      ->check(CLI::Range(1u, 3600u));
  serve_cmd->add_option("--shutdown-deadline", serve.shutdown_deadline_seconds, "Seconds running calls get after SIGTERM (default 10)")
      ->check(CLI::Range(0u, 3600u));
  serve_cmd->add_option("--event-log-events", serve.event_log_events, "SSE events kept per session for Last-Event-ID (default 1024)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  serve_cmd->add_option("--event-log-bytes", serve.event_log_bytes, "Bytes of SSE events kept per session (default 4 MiB)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));

  auto* token_cmd = app.add_subcommand("token", "Bearer tokens for `omgdb serve`");
  token_cmd->require_subcommand(1);
  auto* token_new_cmd = token_cmd->add_subcommand("new", "Print a fresh random token (shown once)");

  std::string path, collection, json_arg, filter = "{}", sort, scope = "read-write";
  long long skip = -1, limit = -1;
  bool as_json = false;

  auto* create_cmd = app.add_subcommand("create", "Create an empty store (a directory)");
  create_cmd->add_option("PATH", path, "Store directory to create")->required();

  auto* insert_cmd = app.add_subcommand("insert", "Insert one JSON document");
  insert_cmd->add_option("PATH", path)->required();
  insert_cmd->add_option("COLLECTION", collection)->required();
  insert_cmd->add_option("JSON", json_arg, "The document, e.g. '{\"name\":\"ana\"}'")->required();

  auto* find_cmd = app.add_subcommand("find", "Print matching documents as NDJSON");
  find_cmd->add_option("PATH", path)->required();
  find_cmd->add_option("COLLECTION", collection)->required();
  find_cmd->add_option("FILTER", filter, "MongoDB-style filter (default {})");
  find_cmd->add_option("--sort", sort, "Sort specification, e.g. '{\"age\":-1}'");
  find_cmd->add_option("--skip", skip)->check(CLI::NonNegativeNumber);
  find_cmd->add_option("--limit", limit)->check(CLI::NonNegativeNumber);

  auto* get_cmd = app.add_subcommand("get", "Print one document by _id");
  get_cmd->add_option("PATH", path)->required();
  get_cmd->add_option("COLLECTION", collection)->required();
  get_cmd->add_option("ID", json_arg, "The _id as JSON (5, \"abc\", {\"$oid\":\"…\"}); other text is a string")
      ->required();

  auto* inspect_cmd = app.add_subcommand("inspect", "Print collections and document counts as JSON");
  inspect_cmd->add_option("PATH", path)->required();

  auto* dump_cmd = app.add_subcommand("dump", "Print a deterministic canonical export of every document");
  dump_cmd->add_option("PATH", path)->required();

  auto* tools_cmd = app.add_subcommand("tools", "Print the MCP tool catalogue at a scope");
  tools_cmd->add_option("--scope", scope, "read, read-write (default) or dangerous");
  tools_cmd->add_flag("--json", as_json, "Print the tools/list entries as JSON");

  auto run_sql_command = omgdb::daemon::add_sql_commands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  using namespace omgdb::daemon;
  if (auto status = run_sql_command()) return *status;
  if (*mcp_cmd) return run_mcp(mcp);
  if (*serve_cmd) return run_serve(serve);
  if (*token_new_cmd) return run_token_new();
  if (*tools_cmd) return run_tools_list(scope, as_json);
  if (*create_cmd) return run_create(path);
  if (*dump_cmd) return run_dump(path);
  if (*inspect_cmd) return run_tool_command("inspect", "{\"path\":" + json_str(path) + "}");
  if (*insert_cmd) {
    if (!check_json("JSON", json_arg)) return 2;
    return run_tool_command("insert", "{\"path\":" + json_str(path) + ",\"collection\":" + json_str(collection) +
                                          ",\"document\":" + json_arg + "}");
  }
  if (*get_cmd) {
    return run_tool_command("get", "{\"path\":" + json_str(path) + ",\"collection\":" + json_str(collection) +
                                       ",\"id\":" + id_json(json_arg) + "}");
  }
  if (*find_cmd) {
    if (!check_json("FILTER", filter) || (!sort.empty() && !check_json("--sort", sort))) return 2;
    std::string args = "{\"path\":" + json_str(path) + ",\"collection\":" + json_str(collection) + ",\"filter\":" + filter;
    if (!sort.empty()) args += ",\"sort\":" + sort;
    if (skip >= 0) args += ",\"skip\":" + std::to_string(skip);
    if (limit >= 0) args += ",\"limit\":" + std::to_string(limit);
    return run_tool_command("find", args + "}");
  }
  return 2;
}
