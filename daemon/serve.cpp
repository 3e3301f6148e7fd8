// `omgdb serve` (MCP over Streamable HTTP) and `omgdb token new`.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "auth/origin.hpp"
#include "auth/scope.hpp"
#include "auth/token.hpp"
#include "common/log.hpp"
#include "daemon/commands.hpp"
#include "daemon/sql_runtime.hpp"
#include "engine/store.hpp"
#include "mcp/server.hpp"
#include "tools/catalog.hpp"
#include "transports/http_server.hpp"
#include "transports/http_state_file.hpp"

namespace omgdb::daemon {
namespace {

constexpr const char* token_env = "OMGDB_HTTP_TOKEN";

// The bearer token from the environment, checked; nullopt (after explaining why) when the
// daemon must not start. The token itself is never printed.
std::optional<std::string> token_from_env() {
  const char* value = std::getenv(token_env);
  if (!value || !*value) {
    std::cerr << "omgdb: " << token_env << " is not set. `omgdb serve` requires a bearer token:\n"
              << "  export " << token_env << "=$(omgdb token new)\n"
              << "then give clients the header `Authorization: Bearer <that token>`.\n"
              << "(--no-auth exists for loopback test runs only.)\n";
    return std::nullopt;
  }
  std::string token(value);
  if (auto ok = auth::check_token_text(token); !ok) {
    std::cerr << "omgdb: " << token_env << " is not usable: " << ok.error().message << "\n";
    return std::nullopt;
  }
  return token;
}

}  // namespace

int run_serve(const serve_command& cmd) {
  auto scope = auth::parse_scope(cmd.scope);
  if (!scope) {
    std::cerr << "omgdb: unknown scope `" << cmd.scope
              << "`: use read (alias ro), read-write (aliases write, rw) or dangerous (alias all)\n";
    return 2;
  }
  auto address = auth::parse_listen_address(cmd.listen);
  if (!address) {
    std::cerr << "omgdb: " << address.error().message << "\n";
    return 2;
  }
  if (!auth::is_loopback_host(address->host)) {
    std::cerr << "omgdb: refusing to listen on " << cmd.listen
              << ": only loopback addresses (127.0.0.1, ::1, localhost) are allowed until TLS is supported.\n"
              << "For remote agents, put a tunnel or an HTTPS reverse proxy in front of a loopback listener\n"
              << "and admit its name with --allow-host and --allow-origin.\n";
    return 2;
  }
  transports::http_options http;
  http.host = address->host;
  http.port = address->port;
  http.no_auth = cmd.no_auth;
  if (!cmd.no_auth) {
    auto token = token_from_env();
    if (!token) return 2;
    http.token = std::move(*token);
  }
  for (const auto& origin : cmd.allow_origins) {
    if (!auth::normalize_origin(origin)) {
      std::cerr << "omgdb: --allow-origin `" << origin << "` is not an origin (scheme://host[:port])\n";
      return 2;
    }
  }
  http.allow_origins = cmd.allow_origins;
  http.allow_hosts = cmd.allow_hosts;
  http.state_dir = cmd.state_dir.empty() ? transports::http::default_state_dir() : cmd.state_dir;
  http.max_body_bytes = cmd.max_body_bytes;
  http.max_sessions = cmd.max_sessions;
  http.max_connections = cmd.max_connections;
  http.session_idle = std::chrono::seconds(cmd.session_idle_seconds);
  http.sse_keepalive = std::chrono::seconds(cmd.sse_keepalive_seconds);
  http.shutdown_deadline = std::chrono::seconds(cmd.shutdown_deadline_seconds);
  http.event_log_events = cmd.event_log_events;
  http.event_log_bytes = cmd.event_log_bytes;

  std::string scope_name(auth::to_string(*scope));
  http.on_listening = [&](const std::string& url) {
    std::cerr << "omgdb: listening on " << url << "\n";
    if (cmd.no_auth) {
      std::cerr << "omgdb: WARNING: --no-auth: every local process and user that can reach " << url
                << " may call every tool at scope " << scope_name << " without a token.\n"
                << "omgdb: WARNING: use --no-auth for loopback test runs only.\n";
    } else {
      std::cerr << "omgdb: clients authenticate with the header `Authorization: Bearer <token>`, the token in "
                << token_env << " (not shown)\n";
    }
    std::cerr << "omgdb: scope " << scope_name << "; session records in "
              << (http.state_dir.empty() ? std::string("memory only") : http.state_dir) << "\n";
    std::cerr.flush();
  };

  auto settings = load_settings(cmd.config_file);
  if (!settings) return 2;
  auto sql = make_sql_service(*settings, true);
  auto stores = std::make_shared<engine::store_registry>();
  mcp::server_options opts;
  opts.scope = *scope;
  opts.max_result_bytes = cmd.max_result_bytes;
  opts.workers = workers_for(cmd.workers, sql.get());
  int status = 0;
  {
    mcp::server srv(opts, with_sql_tools(tools::document_tools(stores), sql));
    status = transports::run_http(srv, *scope, http);
  }
  stores->close_all();
  if (status == 0) log::info("stopped");
  return status;
}

int run_token_new() {
  auto token = auth::new_token();
  if (!token) {
    std::cerr << "omgdb: " << token.error().message << "\n";
    return 1;
  }
  std::cout << *token << "\n";
  std::cout.flush();
  std::cerr << "omgdb: this token is shown once. Start the daemon with " << token_env
            << " set to it; clients send `Authorization: Bearer <token>`.\n";
  return 0;
}

}  // namespace omgdb::daemon
