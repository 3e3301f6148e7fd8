// omgdb daemon — what every tool call leaves behind: one log line (request id, session, tool,
// duration, outcome; never argument values) and Prometheus metrics (calls, errors and a
// latency histogram per tool), rendered for `GET /metrics`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mcp/server.hpp"

namespace omgdb::daemon {

// Sets `opts.on_call` to record metrics and write the per-call log line.
void install_observer(mcp::server_options& opts);

// Records one call (thread-safe).
void record_call(const mcp::call_event& e);

// The per-tool metrics in the Prometheus text exposition format (version 0.0.4).
std::string tool_metrics_text();

// `omgdb_store_bytes{root,store}`: bytes on disk of each directory directly under a store
// root (a store). Bounded: at most 64 stores per root and 20000 files in all are looked at.
std::string store_metrics_text(const std::vector<std::filesystem::path>& roots);

}  // namespace omgdb::daemon
