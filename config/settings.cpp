// omgdb config — small parsers shared by the layers, and what changed between two loads.
#include <cctype>
#include <climits>

#include "config/config.hpp"

namespace omgdb::config {

std::optional<log::level> parse_log_level(std::string_view s) noexcept {
  if (s == "debug") return log::level::debug;
  if (s == "info") return log::level::info;
  if (s == "warning" || s == "warn") return log::level::warning;
  if (s == "error") return log::level::error;
  if (s == "off" || s == "none") return log::level::off;
  return std::nullopt;
}

std::optional<log_format> parse_log_format(std::string_view s) noexcept {
  if (s == "text") return log_format::text;
  if (s == "json") return log_format::json;
  return std::nullopt;
}

std::string_view to_string(log_format f) noexcept { return f == log_format::json ? "json" : "text"; }

std::optional<std::chrono::milliseconds> parse_duration(std::string_view s) noexcept {
  std::size_t i = 0;
  long long n = 0;
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (n > (LLONG_MAX / 1000 - 9) / 10 / 3600) return std::nullopt;
    n = n * 10 + (s[i++] - '0');
  }
  std::string_view unit = s.substr(i);
  if (unit.empty() || unit == "s") return std::chrono::milliseconds(n * 1000);
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "m" || unit == "min") return std::chrono::milliseconds(n * 60 * 1000);
  if (unit == "h") return std::chrono::milliseconds(n * 3600 * 1000);
  return std::nullopt;
}

bool valid_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {

bool same_tokens(const std::vector<token_entry>& a, const std::vector<token_entry>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].hash != b[i].hash || a[i].scope != b[i].scope) return false;
  }
  return true;
}

bool same_connection(const connection& a, const connection& b) {
  return a.name == b.name && a.label == b.label && a.dialect == b.dialect && a.host == b.host && a.port == b.port &&
         a.user == b.user && a.database == b.database && a.password == b.password && a.file == b.file &&
         a.access == b.access && a.approve == b.approve && a.statement_timeout == b.statement_timeout &&
         a.pool_size == b.pool_size;
}

bool same_limits(const http_settings& a, const http_settings& b) {
  return a.max_body_bytes == b.max_body_bytes && a.max_sessions == b.max_sessions &&
         a.max_sessions_per_token == b.max_sessions_per_token &&
         a.max_connections == b.max_connections && a.session_idle == b.session_idle &&
         a.sse_keepalive == b.sse_keepalive && a.shutdown_deadline == b.shutdown_deadline &&
         a.event_log_events == b.event_log_events && a.event_log_bytes == b.event_log_bytes;
}

}  // namespace

std::vector<std::string> changed_sections(const settings& before, const settings& after) {
  std::vector<std::string> out;
  if (before.scope != after.scope) out.emplace_back("scope");
  if (before.max_result_bytes != after.max_result_bytes || before.workers != after.workers ||
      before.call_timeout != after.call_timeout || before.session_workers != after.session_workers ||
      before.call_memory_bytes != after.call_memory_bytes || before.write_budget_bytes != after.write_budget_bytes ||
      before.aggregation_stage_bytes != after.aggregation_stage_bytes) {
    out.emplace_back("limits");
  }
  if (before.store_roots != after.store_roots) out.emplace_back("stores.roots");
  if (before.tool_profiles != after.tool_profiles) out.emplace_back("tools.profile");
  if (before.stores_unconfined != after.stores_unconfined) out.emplace_back("stores.unconfined");
  if (before.http.listen != after.http.listen) out.emplace_back("http.listen");
  if (!same_tokens(before.http.tokens, after.http.tokens)) out.emplace_back("http.tokens");
  if (before.http.allow_origins != after.http.allow_origins) out.emplace_back("http.allow_origins");
  if (before.http.allow_hosts != after.http.allow_hosts) out.emplace_back("http.allow_hosts");
  if (!same_limits(before.http, after.http)) out.emplace_back("http limits");
  if (before.http.tls_cert != after.http.tls_cert || before.http.tls_key != after.http.tls_key ||
      before.http.allow_remote != after.http.allow_remote || before.http.state_dir != after.http.state_dir) {
    out.emplace_back("http (restart needed)");
  }
  bool conns = before.connections.size() != after.connections.size();
  for (std::size_t i = 0; !conns && i < before.connections.size(); ++i) {
    conns = !same_connection(before.connections[i], after.connections[i]);
  }
  if (conns) out.emplace_back("connections");
  if (before.approvals.enabled != after.approvals.enabled || before.approvals.timeout != after.approvals.timeout) {
    out.emplace_back("approvals");
  }
  if (before.logging.level != after.logging.level || before.logging.format != after.logging.format) out.emplace_back("logging");
  return out;
}

}  // namespace omgdb::config
