// omgdb daemon — the command-line subcommands. Each returns the process exit status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/config.hpp"

namespace CLI {
class App;
}

namespace omgdb::daemon {

// `omgdb mcp`: MCP over stdio (with --http, also Streamable HTTP from the same server).
struct mcp_command {
  std::optional<std::string> config_file;  // --config
  config::overrides given;                 // options given on the command line
  bool standalone = false;                 // --standalone or OMGDB_MCP_STANDALONE=1
  std::vector<std::string> rejected;       // options that standalone mode refuses (--http, …)
  std::string via;                         // --via URL: bridge stdio to a running daemon
  std::string http;                        // --http HOST:PORT: also serve Streamable HTTP there
  bool conformance_fixtures = false;       // add the test fixture tools (tests only)
};

int run_mcp(const mcp_command& cmd);

// `omgdb serve`: MCP over Streamable HTTP on a loopback address (daemon/serve.cpp).
struct serve_command {
  std::optional<std::string> config_file;  // --config
  config::overrides given;
  bool no_auth = false;
  bool conformance_fixtures = false;  // add the conformance suite's fixture tools (tests only)
};

int run_serve(const serve_command& cmd);
// `omgdb token new [--name N --scope S]`: prints a fresh random bearer token (32 bytes,
// base64url) once, and on stderr the `[[http.tokens]]` lines holding its hash.
int run_token_new(const std::string& name, const std::string& scope);
int run_tools_list(const std::string& scope, bool as_json);

// `omgdb config check [--config F]`: loads the effective settings and says what was read.
int run_config_check(const std::optional<std::string>& config_file);
// `omgdb config example`: prints config/omgdb.toml.
int run_config_example();

// `omgdb client-config --client NAME [--http URL]` (daemon/client_config.cpp).
int run_client_config(const std::string& client, const std::string& http_url, const std::optional<std::string>& config_file);

// `omgdb doctor [--config F]` (daemon/doctor.cpp).
int run_doctor(const std::optional<std::string>& config_file);

int run_create(const std::string& path);
// `omgdb import PATH COLLECTION FILE [--batch-size N] [--from-line N]` (daemon/store_commands.cpp):
// import_jsonl from the command line; --from-line resumes an import that stopped.
int run_import(const std::string& path, const std::string& collection, const std::string& file,
               std::uint64_t batch_size, std::uint64_t from_line);
// `omgdb recover PATH` (daemon/store_commands.cpp): drops what follows damage in the store's
// write-ahead log, reporting how much; exit status 1 when it cannot.
int run_recover(const std::string& path);
int run_dump(const std::string& path);
// Direct commands that call the tool of the same name (at `dangerous` scope: the local user
// owns the store) and print its text to stdout, or its error to stderr with exit status 1.
int run_tool_command(const std::string& tool, const std::string& arguments_json);

// `omgdb call TOOL [ARGS] [--scope S] [--config F] [--json]` (daemon/call_cmd.cpp): one
// tools/call through an MCP session of its own, with the settings `omgdb mcp` would have (so
// the same scope ceiling, decoder, bounds and result). Adds the subcommand; the returned
// function runs it when it was chosen (nullopt otherwise). Exit status: 0 when the call
// succeeded, 2 for a usage error (the command line, ARGS not a JSON object, a bad config),
// else call_exit_status of the failure's kind.
std::function<std::optional<int>()> add_call_command(CLI::App& app);
// 3 + the kind's index: invalid_argument 3, not_found 4, conflict 5, busy 6, cancelled 7,
// limit_exceeded 8, unavailable 9, corrupt 10, io 11, internal 12.
int call_exit_status(failure_kind kind) noexcept;

// `omgdb backup`, `restore`, `load`, `oplog trim|retention` (daemon/store_life_cmd.cpp,
// docs/backup.md). Adds the subcommands; the function runs the chosen one (nullopt otherwise).
std::function<std::optional<int>()> add_store_life_commands(CLI::App& app);
// `omgdb doctor STORE`: the store's size by part and what its retention would free.
int run_store_doctor(const std::string& path);
}  // namespace omgdb::daemon

namespace omgdb::engine {
class store_registry;
}  // namespace omgdb::engine

namespace omgdb::daemon {
// The config's store limits ([limits] write_budget_bytes, aggregation_stage_bytes) for every
// store this process opens and every aggregate call it runs.
void apply_store_limits(const config::settings& s);
// Answers `backup` and `oplog_trim` of the stores this process holds on its admin socket.
void serve_store_admin(std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::daemon
