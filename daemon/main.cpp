// omgdb — entry point: parses the command line and runs one subcommand.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "auth/scope.hpp"
#include "common/json.hpp"
#include "daemon/cli_sql.hpp"
#include "daemon/console_cmd.hpp"
#include "daemon/commands.hpp"
#include "daemon/model_commands.hpp"
#include "daemon/markdown_import.hpp"

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

CLI::Option* add_config_option(CLI::App* cmd, std::optional<std::string>& target) {
  return cmd->add_option_function<std::string>("--config", [&target](const std::string& v) { target = v; },
                                        "Config file (default: $XDG_CONFIG_HOME/omgdb/omgdb.toml, else /etc/omgdb/omgdb.toml)");
}

void add_scope_option(CLI::App* cmd, omgdb::config::overrides& given) {
  cmd->add_option_function<std::string>("--scope", [&given](const std::string& v) { given.scope = v; },
                                        "Capability ceiling: read (ro), read-write (write, rw; default) or dangerous (all)");
}

void add_worker_options(CLI::App* cmd, omgdb::config::overrides& given) {
  cmd->add_option_function<std::size_t>("--max-result-bytes", [&given](std::size_t v) { given.max_result_bytes = v; },
                                        "Largest tool result in bytes (default 24576, under 10,000 tokens); bigger results are cut and say how to continue")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  cmd->add_option_function<std::vector<std::string>>(
      "--profile", [&given](const std::vector<std::string>& v) { given.tool_profiles = v; },
      "Tool profiles to serve, repeatable: core, search, sql or all (default all; [tools] profile)");
  cmd->add_option_function<std::size_t>("--workers", [&given](std::size_t v) { given.workers = v; },
                                        "Tool worker threads (default: one per core, at least 2)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{256}));
  cmd->add_option_function<std::uint64_t>("--call-timeout", [&given](std::uint64_t v) { given.call_timeout_ms = v; },
                                          "Deadline of every tool call in milliseconds (default 60000; 0: none)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{24} * 3600 * 1000));
  cmd->add_option_function<std::size_t>("--session-workers", [&given](std::size_t v) { given.session_workers = v; },
                                        "Workers one session may occupy at once (default 0: all but one)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{256}));
  cmd->add_option_function<std::uint64_t>("--call-memory", [&given](std::uint64_t v) { given.call_memory_bytes = v; },
                                          "Bytes one tool call may build (values, held documents, parses; default 134217728)")
      ->check(CLI::Range(std::uint64_t{1} << 20, std::uint64_t{64} << 30));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"omgdb — a document store and SQL gateway for coding agents, over MCP"};
  app.set_version_flag("--version", std::string("omgdb ") + OMGDB_VERSION);
  app.require_subcommand(1);

  omgdb::daemon::mcp_command mcp;
  auto* mcp_cmd = app.add_subcommand("mcp", "Serve MCP over stdio (newline-delimited JSON-RPC)");
  add_config_option(mcp_cmd, mcp.config_file);
  add_scope_option(mcp_cmd, mcp.given);
  add_worker_options(mcp_cmd, mcp.given);
  mcp_cmd->add_flag("--standalone", mcp.standalone,
                    "List the tools only: every call answers `unavailable`, touching no store, database or network "
                    "(also OMGDB_MCP_STANDALONE=1)");
  mcp_cmd->add_flag_function("--unconfined-stores", [&mcp](std::int64_t) { mcp.given.stores_unconfined = true; },
                             "With --http and no store roots, open stores and read files anywhere this user can");
  auto* via_opt = mcp_cmd->add_option("--via", mcp.via,
                                      "Forward to a running `omgdb serve` at this URL, e.g. http://127.0.0.1:41922/mcp "
                                      "(token from OMGDB_HTTP_TOKEN)");
  mcp_cmd->add_option_function<unsigned>("--shutdown-deadline",
                                         [&mcp](unsigned v) { mcp.given.shutdown_deadline_seconds = v; },
                                         "Seconds calls get to stop after SIGTERM, or past their own deadline after the "
                                         "end of stdin, before the process ends without them (default 10)")
      ->check(CLI::Range(0u, 3600u));
  mcp_cmd->add_flag("--conformance-fixtures", mcp.conformance_fixtures,
                    "Add the test fixture tools, as `serve --conformance-fixtures` does (test runs only)");
  auto* http_opt = mcp_cmd->add_option("--http", mcp.http,
                                       "Also serve Streamable HTTP on HOST:PORT from the same server (tokens and limits "
                                       "as `omgdb serve`; docs/http.md)");

  omgdb::daemon::serve_command serve;
  auto* serve_cmd = app.add_subcommand("serve", "Serve MCP over Streamable HTTP on a loopback address (docs/http.md)");
  add_config_option(serve_cmd, serve.config_file);
  auto& g = serve.given;
  serve_cmd->add_option_function<std::string>("--listen", [&g](const std::string& v) { g.listen = v; },
                                              "HOST:PORT to listen on, loopback only (default 127.0.0.1:41922; port 0: any)");
  add_scope_option(serve_cmd, g);
  serve_cmd->add_flag("--no-auth", serve.no_auth, "Accept requests without a bearer token (loopback test runs only)");
  serve_cmd->add_option("--allow-origin", g.allow_origins, "Also accept this Origin, e.g. https://tunnel.example (repeatable)");
  serve_cmd->add_option("--allow-host", g.allow_hosts, "Also accept this Host header, NAME or NAME:PORT (repeatable)");
  serve_cmd->add_option_function<std::string>("--state-dir", [&g](const std::string& v) { g.state_dir = v; },
                                              "Where session records are kept (default $XDG_STATE_HOME/omgdb)");
  serve_cmd->add_option_function<std::vector<std::string>>(
      "--store-root", [&g](const std::vector<std::string>& v) { g.store_roots = v; },
      "Store paths must resolve under this directory (repeatable; replaces [stores] roots; default: the data "
      "directory, ~/.local/share/omgdb)");
  serve_cmd->add_flag_function("--unconfined-stores", [&g](std::int64_t) { g.stores_unconfined = true; },
                               "With no store roots, open stores and read files anywhere this user can ([stores] "
                               "unconfined)");
  add_worker_options(serve_cmd, g);
  serve_cmd->add_option_function<std::size_t>("--max-body-bytes", [&g](std::size_t v) { g.max_body_bytes = v; },
                                              "Largest POST body (default 4 MiB)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  serve_cmd->add_option_function<std::size_t>("--max-sessions", [&g](std::size_t v) { g.max_sessions = v; },
                                              "Live sessions at most (default 512)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  serve_cmd->add_option_function<std::size_t>(
               "--max-sessions-per-token", [&g](std::size_t v) { g.max_sessions_per_token = v; },
               "Live sessions one bearer token may hold (default 256; 0: no quota)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  serve_cmd->add_option_function<std::size_t>("--max-connections", [&g](std::size_t v) { g.max_connections = v; },
                                              "Open connections at most (default 256)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  serve_cmd->add_option_function<unsigned>("--session-idle", [&g](unsigned v) { g.session_idle_seconds = v; },
                                           "Seconds before an unused session expires (default 900)")
      ->check(CLI::Range(1u, 7u * 24 * 3600));
  serve_cmd->add_option_function<unsigned>("--sse-keepalive", [&g](unsigned v) { g.sse_keepalive_seconds = v; },
                                           "Seconds between keep-alive comments on idle SSE streams (default 15)")
      ->check(CLI::Range(1u, 3600u));
  serve_cmd->add_option_function<unsigned>("--shutdown-deadline", [&g](unsigned v) { g.shutdown_deadline_seconds = v; },
                                           "Seconds running calls get to stop after SIGTERM before the process ends "
                                           "without them (default 10)")
      ->check(CLI::Range(0u, 3600u));
  serve_cmd->add_option_function<std::size_t>("--event-log-events", [&g](std::size_t v) { g.event_log_events = v; },
                                              "SSE events kept per session for Last-Event-ID (default 1024)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  serve_cmd->add_option_function<std::size_t>("--event-log-bytes", [&g](std::size_t v) { g.event_log_bytes = v; },
                                              "Bytes of SSE events kept per session (default 4 MiB)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  serve_cmd->add_option_function<std::size_t>("--max-in-flight", [&g](std::size_t v) { g.max_in_flight = v; },
                                              "Tool calls one session may have running or queued (default 32)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  serve_cmd->add_flag("--conformance-fixtures", serve.conformance_fixtures,
                      "Add the MCP conformance suite's fixture tools (test runs only)");

  auto* token_cmd = app.add_subcommand("token", "Bearer tokens for `omgdb serve`");
  token_cmd->require_subcommand(1);
  auto* token_new_cmd = token_cmd->add_subcommand("new", "Print a fresh random token (shown once) and its config entry");
  std::string token_name = "default", token_scope = "read-write";
  token_new_cmd->add_option("--name", token_name, "Name of the token in the config and the logs (default: default)");
  token_new_cmd->add_option("--scope", token_scope, "Scope ceiling of the token: read, read-write (default) or dangerous");

  std::optional<std::string> config_file;
  auto* config_cmd = app.add_subcommand("config", "The config file (docs/config.md)");
  config_cmd->require_subcommand(1);
  auto* config_check_cmd = config_cmd->add_subcommand("check", "Validate the config that would be used, and summarize it");
  auto* config_check_opt = add_config_option(config_check_cmd, config_file);
  config_check_cmd
      ->add_option_function<std::string>("FILE", [&config_file](const std::string& v) { config_file = v; },
                                         "The config file to check (as --config FILE)")
      ->excludes(config_check_opt);
  auto* config_example_cmd = config_cmd->add_subcommand("example", "Print a commented example config (config/omgdb.toml)");

  std::string client, client_url;
  auto* client_cmd = app.add_subcommand("client-config", "Print the MCP client configuration snippet to paste");
  client_cmd->add_option("--client", client, "claude-desktop, claude-code, codex or cursor")
      ->required()
      ->check(CLI::IsMember({"claude-desktop", "claude-code", "codex", "cursor"}));
  client_cmd->add_option("--http", client_url, "Connect to `omgdb serve` at this URL instead of spawning `omgdb mcp`");
  add_config_option(client_cmd, config_file);

  auto* doctor_cmd = app.add_subcommand("doctor", "Check a setup and say what to fix; with STORE, the store's size by part");
  add_config_option(doctor_cmd, config_file);
  std::string doctor_store;
  doctor_cmd->add_option("STORE", doctor_store, "A store: its size split into documents, indexes, op-log, search, "
                                                "vectors, and what retention would free");

  std::string path, collection, json_arg, filter = "{}", sort, scope = "read-write";
  long long skip = -1, limit = -1;
  bool as_json = false;

  auto* create_cmd = app.add_subcommand("create", "Create an empty store (a directory)");
  create_cmd->add_option("PATH", path, "Store directory to create")->required();

  std::string import_file;
  std::uint64_t import_batch = 1000, import_from = 1;
  auto* import_cmd = app.add_subcommand("import", "Import a JSON Lines file in atomic batches (the import_jsonl tool)");
  import_cmd->add_option("PATH", path)->required();
  import_cmd->add_option("COLLECTION", collection)->required();
  import_cmd->add_option("FILE", import_file, "The JSON Lines file, one document per line")->required();
  import_cmd->add_option("--batch-size", import_batch, "Lines per atomic batch (default 1000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100000}));
  import_cmd->add_option("--from-line", import_from,
                         "Start at this line (1-based): resume an import that stopped, as its error says")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 62));

  auto* recover_cmd = app.add_subcommand(
      "recover", "Open a store whose write-ahead log is damaged, dropping the writes after the damage (docs/durability.md)");
  recover_cmd->add_option("PATH", path, "Store directory")->required();

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
  auto run_model_command = omgdb::daemon::add_model_commands(app);
  auto run_console_command = omgdb::daemon::add_console_command(app);
  auto run_markdown_command = omgdb::daemon::add_markdown_commands(app);
  auto run_call_command = omgdb::daemon::add_call_command(app);
  auto run_store_life_command = omgdb::daemon::add_store_life_commands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2 (CLI11's own codes are 100+).
    return app.exit(e) == 0 ? 0 : 2;
  }

  using namespace omgdb::daemon;
  if (auto status = run_sql_command()) return *status;
  if (auto status = run_model_command()) return *status;
  if (auto status = run_console_command()) return *status;
  if (auto status = run_markdown_command()) return *status;
  if (auto status = run_call_command()) return *status;
  if (auto status = run_store_life_command()) return *status;
  if (*mcp_cmd) {
    if (const char* env = std::getenv("OMGDB_MCP_STANDALONE"); env && std::string(env) == "1") mcp.standalone = true;
    if (via_opt->count() && mcp.standalone) mcp.rejected.push_back("--via");
    if (http_opt->count() && mcp.standalone) mcp.rejected.push_back("--http");
    if (mcp.standalone) {
      if (mcp.config_file) mcp.rejected.push_back("--config");
    } else if (http_opt->count() && via_opt->count()) {
      std::cerr << "omgdb: --http and --via cannot be combined: --via forwards to a daemon that serves HTTP already\n";
      return 2;
    }
    return run_mcp(mcp);
  }
  if (*serve_cmd) return run_serve(serve);
  if (*token_new_cmd) return run_token_new(token_name, token_scope);
  if (*config_check_cmd) return run_config_check(config_file);
  if (*config_example_cmd) return run_config_example();
  if (*client_cmd) return run_client_config(client, client_url, config_file);
  if (*doctor_cmd) return doctor_store.empty() ? run_doctor(config_file) : run_store_doctor(doctor_store);
  if (*tools_cmd) return run_tools_list(scope, as_json);
  if (*create_cmd) return run_create(path);
  if (*dump_cmd) return run_dump(path);
  if (*recover_cmd) return run_recover(path);
  if (*import_cmd) return run_import(path, collection, import_file, import_batch, import_from);
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
