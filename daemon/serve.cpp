// `omgdb serve` (MCP over Streamable HTTP): settings, tokens, reload and service hooks.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "auth/origin.hpp"
#include "auth/paths.hpp"
#include "auth/scope.hpp"
#include "auth/token.hpp"
#include "common/log.hpp"
#include "daemon/commands.hpp"
#include "daemon/observe.hpp"
#include "daemon/runtime.hpp"
#include "daemon/service.hpp"
#include "daemon/sql_runtime.hpp"
#include "engine/store.hpp"
#include "mcp/server.hpp"
#include "tools/conformance_tools.hpp"
#include "transports/http_server.hpp"
#include "transports/http_state_file.hpp"

namespace omgdb::daemon {
namespace {

constexpr const char* token_env = "OMGDB_HTTP_TOKEN";

// The configured tokens plus OMGDB_HTTP_TOKEN (named "env", at the server's scope). An
// unusable OMGDB_HTTP_TOKEN is an error; the token itself is never printed.
result<auth::token_set> tokens_of(const config::settings& s) {
  auth::token_set set;
  for (const auto& t : s.http.tokens) set.add({t.name, t.hash, t.scope});
  if (const char* value = std::getenv(token_env); value && *value) {
    if (auto ok = auth::check_token_text(value); !ok) {
      return make_error(std::string(token_env) + " is not usable: " + ok.error().message);
    }
    // "$…" cannot be a config token's name, so sessions of the two never mix.
    set.add({std::string("$") + token_env, auth::sha256(value), auth::scope::dangerous});
  }
  return set;
}

transports::http_reloadable reloadable_of(const config::settings& s, auth::token_set tokens) {
  transports::http_reloadable r;
  r.tokens = std::move(tokens);
  r.allow_origins = s.http.allow_origins;
  r.allow_hosts = s.http.allow_hosts;
  r.max_body_bytes = s.http.max_body_bytes;
  r.max_connections = s.http.max_connections;
  r.max_sessions = s.http.max_sessions;
  r.session_idle = s.http.session_idle;
  r.sse_keepalive = s.http.sse_keepalive;
  return r;
}

std::string state_dir_of(const config::settings& s) {
  if (!s.http.state_dir.empty()) return s.http.state_dir;
  if (const char* sd = std::getenv("STATE_DIRECTORY"); sd && *sd == '/') {
    std::string dir(sd);
    return dir.substr(0, dir.find(':'));  // systemd lists several directories with ':'
  }
  return transports::http::default_state_dir();
}

}  // namespace

int run_serve(const serve_command& cmd) {
  auto loaded = effective_settings(cmd.config_file, cmd.given);
  if (!loaded) {
    std::cerr << "omgdb: " << loaded.error().message << "\n";
    return 2;
  }
  apply_logging(*loaded);
  const config::settings& s = *loaded;
  auto address = auth::parse_listen_address(s.http.listen);
  if (!address) {
    std::cerr << "omgdb: " << address.error().message << "\n";
    return 2;
  }
  int activated = service::listen_fd();
  // In the container image (OMGDB_CONTAINER=1) the loopback address of the host is reached
  // through a published port, so the daemon must listen on the container's own interfaces.
  const char* container_env = std::getenv("OMGDB_CONTAINER");
  bool in_container = container_env && std::string_view(container_env) == "1";
  if (activated < 0 && !auth::is_loopback_host(address->host) && in_container) {
    log::warning("listening on " + s.http.listen + " inside a container: publish the port on the host's loopback only "
                 "(docker run -p 127.0.0.1:41922:41922)");
  } else if (activated < 0 && !auth::is_loopback_host(address->host)) {
    std::cerr << "omgdb: refusing to listen on " << s.http.listen
              << ": only loopback addresses (127.0.0.1, ::1, localhost) are allowed; HTTPS is not available yet.\n"
              << "For remote agents, put a tunnel or an HTTPS reverse proxy in front of a loopback listener\n"
              << "and admit its name with --allow-host and --allow-origin.\n";
    return 2;
  }
  transports::http_options http;
  http.host = address->host;
  http.port = address->port;
  http.listen_fd = activated;
  http.container_any_address = in_container && !auth::is_loopback_host(address->host);
  http.no_auth = cmd.no_auth;
  if (!cmd.no_auth) {
    auto tokens = tokens_of(s);
    if (!tokens) {
      std::cerr << "omgdb: " << tokens.error().message << "\n";
      return 2;
    }
    if (tokens->empty()) {
      std::cerr << "omgdb: no bearer token is configured. `omgdb serve` requires one:\n"
                << "  export " << token_env << "=$(omgdb token new)\n"
                << "or add an [[http.tokens]] entry to the config file (`omgdb token new --name N --scope S`\n"
                << "prints one), then give clients the header `Authorization: Bearer <that token>`.\n"
                << "(--no-auth exists for loopback test runs only.)\n";
      return 2;
    }
    http.tokens = std::move(*tokens);
  }
  http.allow_origins = s.http.allow_origins;
  http.allow_hosts = s.http.allow_hosts;
  http.state_dir = state_dir_of(s);
  http.max_body_bytes = s.http.max_body_bytes;
  http.max_sessions = s.http.max_sessions;
  http.max_connections = s.http.max_connections;
  http.session_idle = s.http.session_idle;
  http.sse_keepalive = s.http.sse_keepalive;
  http.shutdown_deadline = s.http.shutdown_deadline;
  http.event_log_events = s.http.event_log_events;
  http.event_log_bytes = s.http.event_log_bytes;

  auto live = std::make_shared<live_settings>(s);
  auth::set_store_roots(s.store_roots);
  auto sql = make_sql_service(s, true);  // its admin channel lets a person approve
  http.on_reload = [&cmd, live, sql]() -> std::optional<transports::http_reloadable> {
    auto next = effective_settings(cmd.config_file, cmd.given);
    if (!next) {
      log::error("SIGHUP: the config is not usable, keeping the current one: " + next.error().message);
      return std::nullopt;
    }
    auto tokens = cmd.no_auth ? result<auth::token_set>(auth::token_set{}) : tokens_of(*next);
    if (!tokens || (!cmd.no_auth && tokens->empty())) {
      log::error(std::string("SIGHUP: keeping the current config: ") +
                 (tokens ? "the new one has no bearer token" : tokens.error().message));
      return std::nullopt;
    }
    auto changed = config::changed_sections(*live->current(), *next);
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    log::info("SIGHUP: reloaded " + (next->source.empty() ? std::string("the defaults") : next->source) +
              (list.empty() ? "; nothing changed" : "; changed: " + list));
    apply_logging(*next);
    auth::set_store_roots(next->store_roots);
    auto r = reloadable_of(*next, std::move(*tokens));
    sql->replace_connections(next->connections);
    live->replace(std::move(*next));
    service::notify_status("reloaded; serving");
    return r;
  };
  service::watchdog_hooks(http.heartbeat_interval, http.on_heartbeat);
  http.on_stopping = [] { service::notify_stopping(); };
  http.metrics_text = [live] { return tool_metrics_text() + store_metrics_text(live->current()->store_roots); };

  std::string scope_name(auth::to_string(s.scope));
  std::size_t token_count = http.tokens.size();
  http.on_listening = [&](const std::string& url) {
    std::cerr << "omgdb: listening on " << url << (activated >= 0 ? " (socket from systemd)" : "") << "\n";
    if (cmd.no_auth) {
      std::cerr << "omgdb: WARNING: --no-auth: every local process and user that can reach " << url
                << " may call every tool at scope " << scope_name << " without a token.\n"
                << "omgdb: WARNING: use --no-auth for loopback test runs only.\n";
    } else {
      std::cerr << "omgdb: clients authenticate with the header `Authorization: Bearer <token>`; " << token_count
                << " token(s) accepted (not shown)\n";
    }
    std::cerr << "omgdb: scope " << scope_name << "; session records in "
              << (http.state_dir.empty() ? std::string("memory only") : http.state_dir) << "\n";
    std::cerr.flush();
    service::notify_ready("serving " + url);
  };

  auto stores = std::make_shared<engine::store_registry>();
  mcp::server_options opts;
  opts.scope = s.scope;
  opts.max_result_bytes = s.max_result_bytes;
  opts.workers = workers_for(s.workers, sql.get());
  opts.max_in_flight = s.http.max_in_flight;
  install_observer(opts);
  int status = 0;
  {
    auto catalogue = build_catalogue(live, stores, sql);
    if (cmd.conformance_fixtures) {
      std::cerr << "omgdb: WARNING: --conformance-fixtures adds the conformance suite's test tools; test runs only.\n";
      for (auto& t : tools::conformance_fixture_tools()) catalogue.push_back(std::move(t));
    }
    mcp::server srv(opts, std::move(catalogue));
    status = transports::run_http(srv, s.scope, http);
  }
  stores->close_all();
  if (status == 0) log::info("stopped");
  return status;
}

int run_token_new(const std::string& name, const std::string& scope_text) {
  auto scope = auth::parse_scope(scope_text);
  if (!scope) {
    std::cerr << "omgdb: unknown scope `" << scope_text << "`: use read, read-write or dangerous\n";
    return 2;
  }
  if (!config::valid_name(name)) {
    std::cerr << "omgdb: token name `" << name << "` must match [A-Za-z0-9_.-]{1,64}\n";
    return 2;
  }
  auto token = auth::new_token();
  if (!token) {
    std::cerr << "omgdb: " << token.error().message << "\n";
    return 1;
  }
  auto digest = auth::sha256(*token);
  std::string hex = auth::to_hex(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  std::cout << *token << "\n";
  std::cout.flush();
  std::cerr << "omgdb: this token is shown once. Either start the daemon with " << token_env
            << " set to it, or add to the config file:\n\n"
            << "[[http.tokens]]\nname = \"" << name << "\"\nsha256 = \"" << hex << "\"\nscope = \""
            << auth::to_string(*scope) << "\"\n\n"
            << "Clients send `Authorization: Bearer <token>`.\n";
  return 0;
}

}  // namespace omgdb::daemon
