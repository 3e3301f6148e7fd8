// omgdb daemon — the web console's wiring (docs/console.md): the process's call history, the
// console's data from this process (approvals, calls, stores, SQL connections), and turning
// the console on for an HTTP listener with the login link printed where the person reads it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "daemon/runtime.hpp"
#include "engine/store/store.hpp"
#include "mcp/call_history.hpp"
#include "mcp/server.hpp"
#include "sql/service.hpp"
#include "transports/console_site.hpp"
#include "transports/http_server.hpp"

namespace omgdb::daemon {

// Adds `history` to the server's call observer (after the one already installed).
void record_calls(mcp::server_options& opts, std::shared_ptr<mcp::call_history> history);

// The console's data from this very process.
transports::console::backend local_console_backend(std::shared_ptr<sql::service> sql,
                                                   std::shared_ptr<engine::store_registry> stores,
                                                   std::shared_ptr<mcp::call_history> history,
                                                   std::shared_ptr<live_settings> live);

// The SQL connections as the console shows them: name, label, dialect, access, approve mode
// and reachability (probed off the event loop, at most every 30 s); never hosts, users,
// files or secrets.
boost::json::array console_connections(const std::vector<config::connection>& connections);

// Where a login link goes: printed for the person, never into the MCP channel.
using link_printer = std::function<void(const std::string& url)>;
link_printer print_to_stderr();    // `omgdb serve`: its terminal or the journal
link_printer print_to_terminal();  // `omgdb mcp --http`: /dev/tty only (stderr may be the agent's)
link_printer print_to_stdout();    // `omgdb console`

// Turns the console on for `http`: makes the site and, once listening, mints the first login
// link. The existing on_listening runs first. Every approval decided through the console is
// kept (the newest 200) and shown in its History as "approved/rejected in the console at T".
void enable_console(transports::http_options& http, const config::settings& s, transports::console::backend b,
                    link_printer print);

}  // namespace omgdb::daemon
