// omgdb config — the settings of one daemon, as read from `omgdb.toml` (docs/config.md).
//
// Where the file comes from (`find_config_file`): `--config FILE`, else
// `$XDG_CONFIG_HOME/omgdb/omgdb.toml` (`~/.config/omgdb/omgdb.toml` when XDG_CONFIG_HOME is
// unset), else `/etc/omgdb/omgdb.toml`, else no file: the defaults below.
// Precedence: command line > environment (`apply_environment`) > file > defaults.
//
// Every string value may contain `${env:NAME}`, replaced by that environment variable when the
// file is loaded (a missing variable is an error naming it). Unknown keys, wrong types and bad
// values are errors of the form "FILE:LINE:COLUMN: what is wrong". Secrets (token values,
// passwords) are held only here and in config::connection::password; nothing in config/
// prints or logs them. Plain data; thread-compatible (copy it to share).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/scope.hpp"
#include "auth/token.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "config/connection.hpp"

namespace omgdb::config {

// `[[http.tokens]]`: a bearer token accepted by `omgdb serve`, as a name, the SHA-256 of the
// token (`sha256 = "<64 hex digits>"`, what `omgdb token new` prints) or the token itself
// (`value = "${env:NAME}"`, hashed on load and then forgotten), and a scope ceiling.
struct token_entry {
  std::string name;  // [A-Za-z0-9_.-]{1,64}, unique; shown in logs instead of the token
  auth::sha256_digest hash{};
  auth::scope scope = auth::scope::read_write;  // a session's ceiling: server scope ∧ this
};

// `[http]`: the Streamable HTTP endpoint of `omgdb serve` (docs/http.md). Defaults as today's
// serve flags.
struct http_settings {
  std::string listen = "127.0.0.1:41922";
  std::vector<token_entry> tokens;
  std::vector<std::string> allow_origins;  // e.g. "https://tunnel.example"
  std::vector<std::string> allow_hosts;    // e.g. "tunnel.example" or "tunnel.example:443"
  std::string state_dir;                   // "" = $XDG_STATE_HOME/omgdb (or $STATE_DIRECTORY)
  std::size_t max_body_bytes = 4u << 20;          // 1 KiB .. 1 GiB
  std::size_t max_sessions = 512;                 // 1 .. 100000
  std::size_t max_sessions_per_token = 256;       // 0 (no quota) .. 100000
  std::size_t max_connections = 256;              // 1 .. 100000
  std::size_t max_in_flight = 32;                 // tool calls per session, 1 .. 100000 (at start)
  std::chrono::seconds session_idle{15 * 60};     // 1 s .. 7 days
  std::chrono::seconds sse_keepalive{15};         // 1 s .. 1 h
  std::chrono::seconds shutdown_deadline{10};     // 0 .. 1 h
  std::size_t event_log_events = 1024;            // 1 .. 2^20
  std::size_t event_log_bytes = 4u << 20;         // 1 KiB .. 1 GiB
  bool allow_remote = false;  // a non-loopback `listen` also needs tls_cert and tls_key
  std::filesystem::path tls_cert;  // PEM; both or neither
  std::filesystem::path tls_key;
};

// `[approvals]`: how long a SQL execution waits for a person (seed 003).
struct approval_settings {
  bool enabled = true;
  std::chrono::seconds timeout{120};  // 1 .. 600
};

// `[console]`: the local web console under /console of the HTTP listener (docs/console.md).
struct console_settings {
  bool enabled = false;
  std::chrono::seconds login_ttl{600};  // a login link is good this long, once; 30 .. 3600
};

enum class log_format { text, json };

// `[logging]`. Under systemd (JOURNAL_STREAM set) lines go to the journal whatever `format`.
struct logging_settings {
  log::level level = log::level::info;
  log_format format = log_format::text;
};

// The tool profiles (`[tools] profile`, `--profile`; tools/profiles.hpp says what each holds).
inline constexpr std::array<std::string_view, 4> k_tool_profiles{"core", "search", "sql", "all"};

inline bool is_tool_profile(std::string_view name) {
  for (auto p : k_tool_profiles) {
    if (p == name) return true;
  }
  return false;
}

struct settings {
  auth::scope scope = auth::scope::read_write;  // the server's capability ceiling
  // Replies sized for agents: 24 KiB stays under 10,000 o200k tokens on real data
  // (docs/limits.md "Replies"); 1 KiB .. 1 GiB.
  std::size_t max_result_bytes = 24 * 1024;
  std::size_t workers = 0;                       // 0: one per core, at least 2; at most 256
  // `[limits]`: the per-call deadline (0: none; at most 24 h) and the workers one session may
  // occupy at once (0: all but one, at least one; at most 256). docs/limits.md.
  std::chrono::milliseconds call_timeout{60000};
  std::size_t session_workers = 0;
  // `[limits] call_memory_bytes`: what one call may build (common/call_budget.hpp; 1 MiB … 64 GiB).
  std::uint64_t call_memory_bytes = std::uint64_t{128} << 20;
  // `[limits] write_budget_bytes`: what one mutating call may hold before its commit
  // (store_options::max_write_bytes; 1 MiB … 64 GiB). `[limits] aggregation_stage_bytes`: what
  // one holding aggregation stage may hold (pipeline_options::max_stage_bytes; 1 MiB … 64 GiB).
  std::uint64_t write_budget_bytes = std::uint64_t{1} << 30;
  std::uint64_t aggregation_stage_bytes = std::uint64_t{100} << 20;
  // `[stores] roots`: absolute directories. Over HTTP a store `path` must resolve under one of
  // them (auth/paths.hpp); empty: stores are not confined (stdio, the local user's own files).
  std::vector<std::filesystem::path> store_roots;
  // `[stores] unconfined`: with no roots, an HTTP daemon opens stores and reads files anywhere
  // its user can (otherwise it confines them to its data directory, daemon/http_setup.hpp).
  bool stores_unconfined = false;
  http_settings http;
  std::vector<connection> connections;  // `[[connections]]`, names unique
  approval_settings approvals;
  console_settings console;
  logging_settings logging;
  // `[context] o200k_file`: an o200k_base.tiktoken rank file; context_pack then counts tokens
  // exactly (docs/context-packs.md). Empty: OMGDB_O200K_FILE, else the estimate.
  std::string o200k_file;
  // `[tools] profile`: the tool profiles served, their union (tools/profiles.hpp: core, search,
  // sql, all); empty: all (the seeds' full catalogue). A string or an array of strings.
  std::vector<std::string> tool_profiles{"all"};  // each one of k_tool_profiles
  // `[vectors] default_model`: the installed model vsync embeds a field with when the call
  // names no `model` and none is bound to the field yet (docs/vectors.md). Empty: the only
  // installed model, if exactly one is.
  std::string default_model;
  std::string source;  // the file these came from; "" for defaults only
};

// Parses and validates a whole file. The error names the file, line and column.
result<settings> load_file(const std::filesystem::path& file);
// The same for text; `origin_name` stands for the file name in errors.
result<settings> load_string(std::string_view toml, std::string_view origin_name);

using getenv_fn = std::function<const char*(const char*)>;  // std::getenv by default

// The config file to read when `--config` is not given: the first of the search list that
// exists, or nullopt (then the defaults apply).
std::optional<std::filesystem::path> find_config_file(const getenv_fn& getenv = nullptr);

// `--config FILE` when given (it must exist), else find_config_file(), else defaults.
result<settings> resolve(const std::optional<std::filesystem::path>& explicit_file,
                         const getenv_fn& getenv = nullptr);

// The environment layer, applied over the file: OMGDB_SCOPE, OMGDB_LISTEN, OMGDB_STORE_ROOTS
// (':'-separated absolute paths), OMGDB_LOG_LEVEL, OMGDB_LOG_FORMAT, OMGDB_WORKERS. An
// unusable value is an error naming the variable. (OMGDB_HTTP_TOKEN is read by `serve`.)
status apply_environment(settings& s, const getenv_fn& getenv = nullptr);

// The command-line layer: what was given on the command line, applied last.
struct overrides {
  std::optional<std::string> scope;
  std::optional<std::string> listen;
  std::optional<std::vector<std::string>> store_roots;
  std::optional<bool> stores_unconfined;  // --unconfined-stores
  std::optional<std::string> log_level;
  std::optional<std::size_t> max_result_bytes;
  std::optional<std::vector<std::string>> tool_profiles;  // --profile (repeatable)
  std::optional<std::size_t> workers;
  std::optional<std::uint64_t> call_timeout_ms;  // --call-timeout
  std::optional<std::size_t> session_workers;    // --session-workers
  std::optional<std::uint64_t> call_memory_bytes;  // --call-memory
  std::vector<std::string> allow_origins;  // added to the file's
  std::vector<std::string> allow_hosts;    // added to the file's
  std::optional<std::string> state_dir;
  std::optional<std::size_t> max_body_bytes, max_sessions, max_sessions_per_token, max_connections, max_in_flight, event_log_events,
      event_log_bytes;
  std::optional<unsigned> session_idle_seconds, sse_keepalive_seconds, shutdown_deadline_seconds;
};
status apply_overrides(settings& s, const overrides& o);

// The commented example config, byte-identical to the committed `config/omgdb.toml`.
std::string_view example_text() noexcept;

// Names the settings that differ between two loads (for the SIGHUP log line), never values
// of secrets: e.g. {"http.tokens", "connections"}.
std::vector<std::string> changed_sections(const settings& before, const settings& after);

// Parsers shared by the loader, the environment layer and the command line.
std::optional<log::level> parse_log_level(std::string_view s) noexcept;  // debug|info|warning|error|off
std::optional<log_format> parse_log_format(std::string_view s) noexcept;  // text|json
std::string_view to_string(log_format f) noexcept;
// "90", "90s", "1500ms", "2m", "1h" → milliseconds; nullopt when malformed or negative.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view s) noexcept;
// A name of a token or connection: [A-Za-z0-9_.-]{1,64}.
bool valid_name(std::string_view s) noexcept;

}  // namespace omgdb::config
