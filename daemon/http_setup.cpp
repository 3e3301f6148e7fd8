// omgdb daemon — the HTTP listener's settings from the config (serve and mcp --http).
#include "daemon/http_setup.hpp"

#include <cstdlib>

#include "auth/origin.hpp"
#include "auth/paths.hpp"
#include "auth/token.hpp"
#include "common/log.hpp"
#include "daemon/logging.hpp"
#include "daemon/service.hpp"
#include "transports/http_state_file.hpp"

namespace omgdb::daemon {

result<auth::token_set> tokens_of(const config::settings& s) {
  auth::token_set set;
  for (const auto& t : s.http.tokens) set.add({t.name, t.hash, t.scope});
  if (const char* value = std::getenv(token_env); value && *value) {
    if (auto ok = auth::check_token_text(value); !ok) {
      return make_error(std::string(token_env) + " is not usable: " + ok.error().message, ok.error().kind);
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
  r.max_sessions_per_token = s.http.max_sessions_per_token;
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

std::filesystem::path data_dir() {
  if (const char* sd = std::getenv("STATE_DIRECTORY"); sd && *sd == '/') {
    std::string dir(sd);
    return dir.substr(0, dir.find(':'));
  }
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') return std::filesystem::path(xdg) / "omgdb";
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    return std::filesystem::path(home) / ".local" / "share" / "omgdb";
  }
  return {};
}

std::vector<std::filesystem::path> http_store_roots(const config::settings& s) {
  if (!s.store_roots.empty() || s.stores_unconfined) return s.store_roots;
  auto dir = data_dir();
  if (dir.empty()) return {std::filesystem::path("/nonexistent-omgdb-data-dir")};  // confine to nothing
  return {dir.lexically_normal()};
}

std::vector<std::filesystem::path> prepare_http_store_roots(const config::settings& s) {
  auto roots = http_store_roots(s);
  if (s.store_roots.empty() && !roots.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(roots.front(), ec);  // as `make run` does; a failure shows at open
  }
  return roots;
}

std::string confinement_note(const config::settings& s) {
  auto roots = http_store_roots(s);
  if (roots.empty()) {
    return "WARNING: [stores] unconfined = true: tools may open a store and import a file anywhere this user can";
  }
  std::string list;
  for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r.string();
  if (!s.store_roots.empty()) return "stores and imported files are confined to the store roots " + list;
  return "stores and imported files are confined to the data directory " + list +
         " (no [stores] roots configured; set them, or `[stores] unconfined = true` to allow any path)";
}

std::filesystem::path make_run_token_file() {
  const char* home = std::getenv("HOME");
  if (!home || *home != '/') return {};
  return std::filesystem::path(home) / ".config" / "omgdb" / "http-token";
}

std::string missing_token_help(std::string_view command) {
  return "no bearer token is configured. `" + std::string(command) + "` requires one:\n" + "  export " + token_env +
         "=$(omgdb token new)\n" +
         "or add an [[http.tokens]] entry to the config file (`omgdb token new --name N --scope S`\n"
         "prints one), then give clients the header `Authorization: Bearer <that token>`.";
}

result<transports::http_options> http_options_of(const config::settings& s, const std::string& listen, bool no_auth,
                                                 bool any_address) {
  auto address = auth::parse_listen_address(listen);
  if (!address) return std::move(address).error();
  bool loopback = auth::is_loopback_host(address->host);
  bool tls = !s.http.tls_cert.empty() && !s.http.tls_key.empty();
  if (!loopback && !any_address && !(s.http.allow_remote && tls)) {
    return make_error("refusing to listen on " + listen +
                      ": not a loopback address (127.0.0.1, ::1, localhost). Remote access needs HTTPS: set "
                      "`allow_remote = true`, `tls_cert` and `tls_key` in the [http] section of the config.\n"
                      "Otherwise put a tunnel or an HTTPS reverse proxy in front of a loopback listener and\n"
                      "admit its name with --allow-host and --allow-origin.");
  }
  if (!loopback && !any_address && no_auth) {
    return make_error("--no-auth is for loopback test runs only; it cannot be combined with " + listen);
  }
  transports::http_options http;
  http.host = address->host;
  http.port = address->port;
  http.allow_remote = s.http.allow_remote;
  http.tls_cert = s.http.tls_cert.string();
  http.tls_key = s.http.tls_key.string();
  http.no_auth = no_auth;
  auth::token_set tokens;
  if (!no_auth) {
    auto configured = tokens_of(s);
    if (!configured) return std::move(configured).error();
    tokens = std::move(*configured);
  }
  transports::apply_reloadable(http, reloadable_of(s, std::move(tokens)));
  http.shutdown_deadline = s.http.shutdown_deadline;
  http.event_log_events = s.http.event_log_events;
  http.event_log_bytes = s.http.event_log_bytes;
  return http;
}

std::function<std::optional<transports::http_reloadable>()> make_reloader(
    std::optional<std::string> config_file, config::overrides given, bool no_auth, std::shared_ptr<live_settings> live,
    std::function<void(const config::settings&)> on_applied) {
  return [config_file, given, no_auth, live, on_applied]() -> std::optional<transports::http_reloadable> {
    auto next = effective_settings(config_file, given);
    if (!next) {
      log::error("SIGHUP: the config is not usable, keeping the current one: " + next.error().message);
      return std::nullopt;
    }
    auto tokens = no_auth ? result<auth::token_set>(auth::token_set{}) : tokens_of(*next);
    if (!tokens || (!no_auth && tokens->empty())) {
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
    auto r = reloadable_of(*next, std::move(*tokens));
    if (on_applied) on_applied(*next);
    live->replace(std::move(*next));
    service::notify_status("reloaded; serving");
    return r;
  };
}

}  // namespace omgdb::daemon
