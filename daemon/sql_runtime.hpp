// omgdb daemon — the SQL service of a running process: built from the settings' connections,
// with the admin channel for approvals opened by the processes that serve MCP.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "sql/service.hpp"

namespace omgdb::daemon {

// Pending approvals at once; the worker pool gets this many extra threads so that calls
// waiting for a person never hold the workers every other call needs.
inline constexpr std::size_t max_pending_approvals = 4;

// The SQL service for `s.connections` (an empty service when there are none: the SQL tools
// are then not listed). With `serve_approvals`, approvals enabled and at least one
// connection, the admin channel is opened; when it cannot be, a warning says why and
// everything that needs a person fails closed.
std::shared_ptr<sql::service> make_sql_service(const config::settings& s, bool serve_approvals);

// Prometheus lines for `/metrics`: `omgdb_sql_pending_approvals` (executions waiting for a
// person now) when SQL connections exist, else nothing.
std::string sql_metrics_text(sql::service* sql);

// The worker threads to start: `configured` (0: one per core, at least 2) plus room for the
// pending approvals when SQL connections exist.
std::size_t workers_for(std::size_t configured, const sql::service* sql);

}  // namespace omgdb::daemon
