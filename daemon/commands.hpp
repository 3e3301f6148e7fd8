// omgdb daemon — the command-line subcommands. Each returns the process exit status.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace omgdb::daemon {

struct mcp_command {
  std::string config_file;  // --config (SQL connections and approvals); "" = the usual search
  std::string scope = "read-write";
  std::size_t max_result_bytes = 1 << 20;
  std::size_t workers = 0;
};

int run_mcp(const mcp_command& cmd);

// `omgdb serve`: MCP over Streamable HTTP on a loopback address (daemon/serve.cpp).
struct serve_command {
  std::string config_file;  // --config (SQL connections and approvals); "" = the usual search
  std::string listen = "127.0.0.1:41922";
  std::string scope = "read-write";
  bool no_auth = false;
  std::vector<std::string> allow_origins;
  std::vector<std::string> allow_hosts;
  std::string state_dir;  // "" = $XDG_STATE_HOME/omgdb or ~/.local/state/omgdb
  std::size_t max_result_bytes = 1 << 20;
  std::size_t workers = 0;
  std::size_t max_body_bytes = 4u << 20;
  std::size_t max_sessions = 64;
  std::size_t max_connections = 256;
  unsigned session_idle_seconds = 15 * 60;
  unsigned sse_keepalive_seconds = 15;
  unsigned shutdown_deadline_seconds = 10;
  std::size_t event_log_events = 1024;
  std::size_t event_log_bytes = 4u << 20;
};

int run_serve(const serve_command& cmd);
// `omgdb token new`: prints a fresh random bearer token (32 bytes, base64url) once.
int run_token_new();
int run_tools_list(const std::string& scope, bool as_json);

int run_create(const std::string& path);
int run_dump(const std::string& path);
// Direct commands that call the tool of the same name (at `dangerous` scope: the local user
// owns the store) and print its text to stdout, or its error to stderr with exit status 1.
int run_tool_command(const std::string& tool, const std::string& arguments_json);

}  // namespace omgdb::daemon
