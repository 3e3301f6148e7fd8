// omgdb config — reads omgdb.toml into `settings`: one function per section.
#include <fstream>
#include <set>
#include <sstream>

#include "auth/origin.hpp"
#include "config/config.hpp"
#include "config/toml_reader.hpp"

namespace omgdb::config {
namespace detail {
void read_connections(table_reader& root, std::vector<connection>& out);  // config/connections.cpp
}  // namespace detail

namespace {
using detail::problem_sink;
using detail::table_reader;
using namespace std::chrono_literals;

constexpr std::int64_t gib = std::int64_t{1} << 30;

void read_scope(table_reader& r, std::string_view key, auth::scope& out) {
  std::string text;
  if (!r.has(key)) return;
  r.str(key, text);
  if (r.sink().failed()) return;
  auto s = auth::parse_scope(text);
  if (!s) return r.fail(key, "`" + r.name(key) + "` must be read, read-write or dangerous, not `" + text + "`");
  out = *s;
}

std::optional<int> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

void read_token(const toml::table& t, std::size_t index, problem_sink& sink, std::set<std::string>& names,
                std::vector<token_entry>& out) {
  table_reader r(t, "http.tokens[" + std::to_string(index) + "]", sink);
  token_entry e;
  if (!r.has("name")) r.fail_here("`" + r.name("name") + "` is required");
  r.str("name", e.name);
  if (!sink.failed() && !valid_name(e.name)) r.fail("name", "token name `" + e.name + "` must match [A-Za-z0-9_.-]{1,64}");
  if (!sink.failed() && !names.insert(e.name).second) r.fail("name", "a second token is named `" + e.name + "`");
  bool has_hash = r.has("sha256"), has_value = r.has("value");
  if (!sink.failed() && has_hash == has_value) {
    r.fail_here("token `" + e.name + "` needs exactly one of `sha256` (the hash `omgdb token new` prints) or `value` (e.g. \"${env:NAME}\")");
  }
  if (has_hash) {
    std::string hex;
    r.str("sha256", hex);
    if (!sink.failed() && hex.size() != 64) r.fail("sha256", "`" + r.name("sha256") + "` must be 64 hexadecimal digits");
    for (std::size_t i = 0; !sink.failed() && i < 32; ++i) {
      auto hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
      if (!hi || !lo) r.fail("sha256", "`" + r.name("sha256") + "` must be 64 hexadecimal digits");
      else e.hash[i] = static_cast<std::uint8_t>(*hi * 16 + *lo);
    }
  }
  if (has_value) {
    std::string value;
    r.str("value", value);
    if (!sink.failed()) {
      if (auto ok = auth::check_token_text(value); !ok) r.fail("value", "token `" + e.name + "`: " + ok.error().message);
      else e.hash = auth::sha256(value);
    }
  }
  read_scope(r, "scope", e.scope);
  r.finish();
  if (!sink.failed()) out.push_back(std::move(e));
}

void read_http(table_reader& r, http_settings& h) {
  r.str("listen", h.listen);
  if (!r.sink().failed() && r.has("listen") && !auth::parse_listen_address(h.listen)) {
    r.fail("listen", "`http.listen` must be HOST:PORT or [V6]:PORT, not `" + h.listen + "`");
  }
  r.strings("allow_origins", h.allow_origins);
  for (const auto& o : h.allow_origins) {
    if (!r.sink().failed() && !auth::normalize_origin(o)) {
      r.fail("allow_origins", "`" + o + "` in `http.allow_origins` is not an origin (scheme://host[:port])");
    }
  }
  r.strings("allow_hosts", h.allow_hosts);
  r.str("state_dir", h.state_dir);
  r.count("max_body_bytes", 1024, gib, h.max_body_bytes);
  r.count("max_sessions", 1, 100000, h.max_sessions);
  r.count("max_sessions_per_token", 0, 100000, h.max_sessions_per_token);
  r.count("max_connections", 1, 100000, h.max_connections);
  r.count("max_in_flight", 1, 100000, h.max_in_flight);
  r.seconds("session_idle", 1s, std::chrono::hours(24 * 7), h.session_idle);
  r.seconds("sse_keepalive", 1s, 1h, h.sse_keepalive);
  r.seconds("shutdown_deadline", 0s, 1h, h.shutdown_deadline);
  r.count("event_log_events", 1, std::int64_t{1} << 20, h.event_log_events);
  r.count("event_log_bytes", 1024, gib, h.event_log_bytes);
  r.boolean("allow_remote", h.allow_remote);
  std::string cert, key;
  r.str("tls_cert", cert);
  r.str("tls_key", key);
  h.tls_cert = cert;
  h.tls_key = key;
  if (!r.sink().failed() && cert.empty() != key.empty()) r.fail_here("`http.tls_cert` and `http.tls_key` go together: set both or neither");
  std::set<std::string> names;
  auto list = r.tables("tokens");
  for (std::size_t i = 0; i < list.size() && !r.sink().failed(); ++i) read_token(*list[i], i, r.sink(), names, h.tokens);
  if (r.sink().failed()) return;
  auto address = auth::parse_listen_address(h.listen);
  if (address && !auth::is_loopback_host(address->host)) {
    if (!h.allow_remote) r.fail("listen", "`http.listen` " + h.listen + " is not a loopback address: set `allow_remote = true` and a TLS certificate and key, or listen on 127.0.0.1");
    else if (cert.empty()) r.fail("listen", "`http.listen` " + h.listen + " is not a loopback address: `http.tls_cert` and `http.tls_key` are required");
  }
}

void read_root(const toml::table& root, problem_sink& sink, settings& s) {
  table_reader r(root, "", sink);
  read_scope(r, "scope", s.scope);
  r.count("max_result_bytes", 1024, gib, s.max_result_bytes);
  r.count("workers", 0, 256, s.workers);
  if (const auto* t = r.table("limits")) {
    table_reader l(*t, "limits", sink);
    std::int64_t ms = s.call_timeout.count();
    l.count("call_timeout_ms", 0, std::int64_t{24} * 3600 * 1000, ms);
    s.call_timeout = std::chrono::milliseconds(ms);
    l.count("session_workers", 0, 256, s.session_workers);
    l.count("call_memory_bytes", std::uint64_t{1} << 20, std::uint64_t{64} << 30, s.call_memory_bytes);
    l.count("write_budget_bytes", std::uint64_t{1} << 20, std::uint64_t{64} << 30, s.write_budget_bytes);
    l.count("aggregation_stage_bytes", std::uint64_t{1} << 20, std::uint64_t{64} << 30, s.aggregation_stage_bytes);
    l.finish();
  }
  if (const auto* t = r.table("stores")) {
    table_reader st(*t, "stores", sink);
    std::vector<std::string> roots;
    st.strings("roots", roots);
    st.boolean("unconfined", s.stores_unconfined);
    for (const auto& p : roots) {
      if (sink.failed()) break;
      std::filesystem::path path(p);
      if (!path.is_absolute()) st.fail("roots", "store root `" + p + "` must be an absolute path");
      else s.store_roots.push_back(path.lexically_normal());
    }
    st.finish();
  }
  if (const auto* t = r.table("http")) {
    table_reader h(*t, "http", sink);
    read_http(h, s.http);
    h.finish();
  }
  detail::read_connections(r, s.connections);
  if (const auto* t = r.table("approvals")) {
    table_reader a(*t, "approvals", sink);
    a.boolean("enabled", s.approvals.enabled);
    a.seconds("timeout", 1s, 600s, s.approvals.timeout);
    a.finish();
  }
  if (const auto* t = r.table("console")) {
    table_reader c(*t, "console", sink);
    c.boolean("enabled", s.console.enabled);
    c.seconds("login_ttl", 30s, 3600s, s.console.login_ttl);
    c.finish();
  }
  if (const auto* t = r.table("tools")) {
    table_reader tl(*t, "tools", sink);
    tl.string_or_strings("profile", s.tool_profiles);
    for (const auto& p : s.tool_profiles) {
      if (!sink.failed() && !is_tool_profile(p)) {
        tl.fail("profile", "`tools.profile` `" + p + "` is not a profile: core, search, sql or all");
      }
    }
    tl.finish();
  }
  if (const auto* t = r.table("context")) {
    table_reader c(*t, "context", sink);
    c.str("o200k_file", s.o200k_file);
    if (!sink.failed() && c.has("o200k_file") && !std::filesystem::path(s.o200k_file).is_absolute()) {
      c.fail("o200k_file", "`context.o200k_file` must be an absolute path, not `" + s.o200k_file + "`");
    }
    c.finish();
  }
  if (const auto* t = r.table("vectors")) {
    table_reader v(*t, "vectors", sink);
    v.str("default_model", s.default_model);
    if (!sink.failed() && v.has("default_model")) {
      const std::string& m = s.default_model;
      bool ok = !m.empty() && m.size() <= 64 && m.front() != '.';
      for (char ch : m) {
        ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '-');
      }
      if (!ok) {
        v.fail("default_model", "`vectors.default_model` must be an installed model's name (1 to 64 letters, digits, "
                                "'.', '_' or '-', not starting with '.'), not `" + m + "`");
      }
    }
    v.finish();
  }
  if (const auto* t = r.table("logging")) {
    table_reader l(*t, "logging", sink);
    std::string level, format;
    l.str("level", level);
    if (!sink.failed() && l.has("level")) {
      auto v = parse_log_level(level);
      if (!v) l.fail("level", "`logging.level` must be debug, info, warning, error or off, not `" + level + "`");
      else s.logging.level = *v;
    }
    l.str("format", format);
    if (!sink.failed() && l.has("format")) {
      auto v = parse_log_format(format);
      if (!v) l.fail("format", "`logging.format` must be text or json, not `" + format + "`");
      else s.logging.format = *v;
    }
    l.finish();
  }
  r.finish();
}

result<settings> load(std::string_view text, std::string origin, const getenv_fn& getenv) {
  detail::problem_sink sink;
  sink.file = std::move(origin);
  sink.getenv = getenv;
  settings s;
  try {
    toml::table root = toml::parse(text, sink.file);
    read_root(root, sink, s);
  } catch (const toml::parse_error& e) {
    return make_error(detail::where(sink.file, e.source(), std::string(e.description())));
  } catch (const std::exception& e) {
    return make_error(sink.file + ": " + e.what());
  }
  if (sink.first) return std::move(*sink.first);
  s.source = sink.file;
  return s;
}

}  // namespace

result<settings> load_string(std::string_view toml, std::string_view origin_name) {
  return load(toml, std::string(origin_name), nullptr);
}

result<settings> load_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return make_error(file.string() + ": not a regular file (the config file must be a TOML file)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error(file.string() + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(file.string() + ": cannot read the config file");
  return load(text.str(), file.string(), nullptr);
}

}  // namespace omgdb::config
