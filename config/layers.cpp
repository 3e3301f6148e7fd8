// omgdb config — where the file is found and the layers over it: environment, command line.
#include <cstdlib>
#include <system_error>

#include "auth/origin.hpp"
#include "config/config.hpp"

namespace omgdb::config {
namespace {

const char* env(const getenv_fn& getenv, const char* name) {
  return getenv ? getenv(name) : std::getenv(name);
}

std::optional<std::size_t> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  return v;
}

status set_scope(settings& s, std::string_view text, std::string_view from) {
  auto v = auth::parse_scope(text);
  if (!v) return make_error(std::string(from) + ": unknown scope `" + std::string(text) + "` (read, read-write or dangerous)");
  s.scope = *v;
  return {};
}

status set_listen(settings& s, std::string_view text, std::string_view from) {
  if (!auth::parse_listen_address(text)) {
    return make_error(std::string(from) + ": `" + std::string(text) + "` is not HOST:PORT");
  }
  s.http.listen = std::string(text);
  return {};
}

status set_roots(settings& s, const std::vector<std::string>& roots, std::string_view from) {
  std::vector<std::filesystem::path> out;
  for (const auto& r : roots) {
    if (r.empty()) continue;
    std::filesystem::path p(r);
    if (!p.is_absolute()) return make_error(std::string(from) + ": store root `" + r + "` must be an absolute path");
    out.push_back(p.lexically_normal());
  }
  s.store_roots = std::move(out);
  return {};
}

status set_level(settings& s, std::string_view text, std::string_view from) {
  auto v = parse_log_level(text);
  if (!v) return make_error(std::string(from) + ": log level `" + std::string(text) + "` is not debug, info, warning, error or off");
  s.logging.level = *v;
  return {};
}

}  // namespace

std::optional<std::filesystem::path> find_config_file(const getenv_fn& getenv) {
  std::vector<std::filesystem::path> candidates;
  const char* xdg = env(getenv, "XDG_CONFIG_HOME");
  const char* home = env(getenv, "HOME");
  if (xdg && *xdg == '/') candidates.emplace_back(std::filesystem::path(xdg) / "omgdb" / "omgdb.toml");
  else if (home && *home == '/') candidates.emplace_back(std::filesystem::path(home) / ".config" / "omgdb" / "omgdb.toml");
  // systemd's ConfigurationDirectory= (the unit sets it to /etc/omgdb).
  if (const char* cd = env(getenv, "CONFIGURATION_DIRECTORY"); cd && *cd == '/') {
    candidates.emplace_back(std::filesystem::path(cd) / "omgdb.toml");
  }
  candidates.emplace_back("/etc/omgdb/omgdb.toml");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(c, ec)) return c;
  }
  return std::nullopt;
}

result<settings> resolve(const std::optional<std::filesystem::path>& explicit_file, const getenv_fn& getenv) {
  if (explicit_file) {
    std::error_code ec;
    if (!std::filesystem::exists(*explicit_file, ec)) {
      return make_error(explicit_file->string() + ": no such config file (given with --config)");
    }
    return load_file(*explicit_file);
  }
  if (const char* named = env(getenv, "OMGDB_CONFIG"); named && *named) {
    std::error_code ec;
    if (!std::filesystem::exists(named, ec)) return make_error(std::string(named) + ": no such config file (named by OMGDB_CONFIG)");
    return load_file(named);
  }
  if (auto found = find_config_file(getenv)) return load_file(*found);
  return settings{};
}

status apply_environment(settings& s, const getenv_fn& getenv) {
  if (const char* v = env(getenv, "OMGDB_SCOPE"); v && *v) {
    if (auto ok = set_scope(s, v, "OMGDB_SCOPE"); !ok) return ok;
  }
  if (const char* v = env(getenv, "OMGDB_LISTEN"); v && *v) {
    if (auto ok = set_listen(s, v, "OMGDB_LISTEN"); !ok) return ok;
  }
  if (const char* v = env(getenv, "OMGDB_STORE_ROOTS"); v && *v) {
    std::vector<std::string> roots;
    std::string_view rest(v);
    while (true) {
      auto colon = rest.find(':');
      roots.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    if (auto ok = set_roots(s, roots, "OMGDB_STORE_ROOTS"); !ok) return ok;
  }
  if (const char* v = env(getenv, "OMGDB_LOG_LEVEL"); v && *v) {
    if (auto ok = set_level(s, v, "OMGDB_LOG_LEVEL"); !ok) return ok;
  }
  if (const char* v = env(getenv, "OMGDB_LOG_FORMAT"); v && *v) {
    auto f = parse_log_format(v);
    if (!f) return make_error("OMGDB_LOG_FORMAT: `" + std::string(v) + "` is not text or json");
    s.logging.format = *f;
  }
  if (const char* v = env(getenv, "OMGDB_WORKERS"); v && *v) {
    auto n = parse_count(v);
    if (!n || *n > 256) return make_error("OMGDB_WORKERS: `" + std::string(v) + "` is not a number of threads (0..256)");
    s.workers = *n;
  }
  return {};
}

status apply_overrides(settings& s, const overrides& o) {
  if (o.scope) {
    if (auto ok = set_scope(s, *o.scope, "--scope"); !ok) return ok;
  }
  if (o.listen) {
    if (auto ok = set_listen(s, *o.listen, "--listen"); !ok) return ok;
  }
  if (o.store_roots) {
    if (auto ok = set_roots(s, *o.store_roots, "--store-root"); !ok) return ok;
  }
  if (o.stores_unconfined) s.stores_unconfined = *o.stores_unconfined;
  if (o.log_level) {
    if (auto ok = set_level(s, *o.log_level, "--log-level"); !ok) return ok;
  }
  for (const auto& origin : o.allow_origins) {
    if (!auth::normalize_origin(origin)) return make_error("--allow-origin `" + origin + "` is not an origin (scheme://host[:port])");
    s.http.allow_origins.push_back(origin);
  }
  for (const auto& host : o.allow_hosts) s.http.allow_hosts.push_back(host);
  if (o.max_result_bytes) s.max_result_bytes = *o.max_result_bytes;
  if (o.tool_profiles) {
    for (const auto& p : *o.tool_profiles) {
      if (!is_tool_profile(p)) return make_error("--profile `" + p + "` is not a profile: core, search, sql or all");
    }
    s.tool_profiles = *o.tool_profiles;
  }
  if (o.workers) s.workers = *o.workers;
  if (o.call_timeout_ms) s.call_timeout = std::chrono::milliseconds(*o.call_timeout_ms);
  if (o.session_workers) s.session_workers = *o.session_workers;
  if (o.call_memory_bytes) s.call_memory_bytes = *o.call_memory_bytes;
  if (o.state_dir) s.http.state_dir = *o.state_dir;
  if (o.max_body_bytes) s.http.max_body_bytes = *o.max_body_bytes;
  if (o.max_sessions) s.http.max_sessions = *o.max_sessions;
  if (o.max_sessions_per_token) s.http.max_sessions_per_token = *o.max_sessions_per_token;
  if (o.max_connections) s.http.max_connections = *o.max_connections;
  if (o.max_in_flight) s.http.max_in_flight = *o.max_in_flight;
  if (o.event_log_events) s.http.event_log_events = *o.event_log_events;
  if (o.event_log_bytes) s.http.event_log_bytes = *o.event_log_bytes;
  if (o.session_idle_seconds) s.http.session_idle = std::chrono::seconds(*o.session_idle_seconds);
  if (o.sse_keepalive_seconds) s.http.sse_keepalive = std::chrono::seconds(*o.sse_keepalive_seconds);
  if (o.shutdown_deadline_seconds) s.http.shutdown_deadline = std::chrono::seconds(*o.shutdown_deadline_seconds);
  return {};
}

}  // namespace omgdb::config
