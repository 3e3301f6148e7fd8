// omgdb daemon — the HTTP listener's settings, shared by `omgdb serve` and `omgdb mcp --http`.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/token_set.hpp"
#include "common/result.hpp"
#include "config/config.hpp"
#include "daemon/runtime.hpp"
#include "transports/http_server.hpp"

namespace omgdb::daemon {

inline constexpr const char* token_env = "OMGDB_HTTP_TOKEN";

// The configured tokens plus OMGDB_HTTP_TOKEN (named "$OMGDB_HTTP_TOKEN", at the server's
// scope). An unusable OMGDB_HTTP_TOKEN is an error; the token itself is never printed.
result<auth::token_set> tokens_of(const config::settings& s);

// What SIGHUP may change in a running listener.
transports::http_reloadable reloadable_of(const config::settings& s, auth::token_set tokens);

// `http.state_dir`, else systemd's STATE_DIRECTORY, else $XDG_STATE_HOME/omgdb.
std::string state_dir_of(const config::settings& s);

// The listener's options for `listen` (HOST:PORT) from `s`, without callbacks: the address
// (non-loopback only with `allow_remote` and TLS, unless `any_address`: socket activation or
// the container image), TLS files, limits and tokens (unless `no_auth`; an empty set is
// the caller's to refuse). The error is the message to print.
result<transports::http_options> http_options_of(const config::settings& s, const std::string& listen, bool no_auth,
                                                 bool any_address);

// Where `make run` keeps the default store: systemd's STATE_DIRECTORY, else
// $XDG_DATA_HOME/omgdb, else ~/.local/share/omgdb ("" when none of them is set).
std::filesystem::path data_dir();

// The directories an HTTP daemon (`serve`, `mcp --http`) confines store paths and `file`
// arguments to: `[stores] roots`; with none, the data directory; nothing (no confinement)
// only with `[stores] unconfined = true` (--unconfined-stores).
std::vector<std::filesystem::path> http_store_roots(const config::settings& s);
// http_store_roots, creating the data directory if it is the one in use: what the HTTP
// sessions' path policy (auth::path_policy) is built from, at start and at SIGHUP.
std::vector<std::filesystem::path> prepare_http_store_roots(const config::settings& s);

// The start-up line that says where stores and files are confined to (or that they are not).
std::string confinement_note(const config::settings& s);

// The bearer token file `make run` creates and passes as OMGDB_HTTP_TOKEN:
// ~/.config/omgdb/http-token ("" without HOME).
std::filesystem::path make_run_token_file();

// The text that explains how to give the daemon a token (no token configured).
std::string missing_token_help(std::string_view command);

// SIGHUP: re-reads the config the daemon started with; on success applies logging and store
// roots, calls `on_applied` (e.g. the SQL service takes the new connections), replaces `live`
// and returns the listener's new settings; else logs why and keeps them.
std::function<std::optional<transports::http_reloadable>()> make_reloader(
    std::optional<std::string> config_file, config::overrides given, bool no_auth, std::shared_ptr<live_settings> live,
    std::function<void(const config::settings&)> on_applied = {});

}  // namespace omgdb::daemon
