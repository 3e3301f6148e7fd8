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
#include "daemon/console_wiring.hpp"
#include "daemon/http_setup.hpp"
#include "daemon/observe.hpp"
#include "daemon/runtime.hpp"
#include "daemon/service.hpp"
#include "daemon/shutdown.hpp"
#include "daemon/sql_runtime.hpp"
#include "engine/store/store.hpp"
#include "mcp/server.hpp"
#include "tools/catalog.hpp"
#include "transports/http_server.hpp"
#include "transports/http_state_file.hpp"

namespace omgdb::daemon {

int run_serve(const serve_command& cmd) {
  auto loaded = effective_settings(cmd.config_file, cmd.given);
  if (!loaded) {
    std::cerr << "omgdb: " << loaded.error().message << "\n";
    return 2;
  }
  apply_logging(*loaded);
  const config::settings& s = *loaded;
  int activated = service::listen_fd();
  // In the container image (OMGDB_CONTAINER=1) the loopback address of the host is reached
  // through a published port, so the daemon must listen on the container's own interfaces.
  const char* container_env = std::getenv("OMGDB_CONTAINER");
  bool in_container = container_env && std::string_view(container_env) == "1";
  auto configured = http_options_of(s, s.http.listen, cmd.no_auth, activated >= 0 || in_container);
  if (!configured) {
    std::cerr << "omgdb: " << configured.error().message << "\n";
    return 2;
  }
  transports::http_options http = std::move(*configured);
  bool remote = !auth::is_loopback_host(http.host);
  if (activated < 0 && remote && in_container && http.tls_cert.empty()) {
    log::warning("listening on " + s.http.listen + " inside a container: publish the port on the host's loopback only "
                 "(docker run -p 127.0.0.1:41922:41922)");
  }
  http.listen_fd = activated;
  http.container_any_address = in_container && remote;
  if (!cmd.no_auth && http.tokens.empty()) {
    std::cerr << "omgdb: " << missing_token_help("omgdb serve") << "\n(--no-auth exists for loopback test runs only.)\n";
    return 2;
  }
  http.state_dir = state_dir_of(s);

  auto live = std::make_shared<live_settings>(s);
  auto paths = std::make_shared<auth::path_policy>(prepare_http_store_roots(s));  // HTTP sessions' confinement
  http.paths = paths;
  auto sql = make_sql_service(s, true);  // its admin channel lets a person approve
  http.on_reload = make_reloader(cmd.config_file, cmd.given, cmd.no_auth, live, [sql, paths](const config::settings& next) {
    sql->replace_connections(next.connections);
    paths->replace(prepare_http_store_roots(next));
  });
  service::watchdog_hooks(http.heartbeat_interval, http.on_heartbeat);
  http.on_stopping = [] { service::notify_stopping(); };
  http.metrics_text = [live, sql] {
    return tool_metrics_text() + store_metrics_text(http_store_roots(*live->current())) + sql_metrics_text(sql.get());
  };

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
    std::cerr << "omgdb: " << confinement_note(s) << "\n";
    std::cerr << "omgdb: scope " << scope_name << "; session records in "
              << (http.state_dir.empty() ? std::string("memory only") : http.state_dir) << "\n";
    std::cerr.flush();
    service::notify_ready("serving " + url);
  };

  auto stores = std::make_shared<engine::store_registry>();
  serve_store_admin(stores);
  apply_store_limits(s);
  mcp::server_options opts;
  opts.scope = s.scope;
  opts.max_result_bytes = s.max_result_bytes;
  opts.workers = workers_for(s.workers, sql.get());
  opts.max_in_flight = s.http.max_in_flight;
  opts.call_timeout = s.call_timeout;
  opts.person_wait = s.approvals.timeout;
  opts.session_workers = s.session_workers;
  opts.call_memory_bytes = s.call_memory_bytes;
  install_observer(opts);
  end_process_on_abandon(opts, stores);  // SIGTERM with calls that ignore their flag
  auto calls = std::make_shared<mcp::call_history>();
  record_calls(opts, calls);
  if (s.console.enabled) enable_console(http, s, local_console_backend(sql, stores, calls, live), print_to_stderr());
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
