// omgdb daemon — what a running daemon is configured with, and the one place its tool
// catalogue is built.
//
// `effective_settings` stacks the layers (defaults < file < environment < command line).
// `live_settings` holds the current settings; `omgdb serve` replaces them on SIGHUP, so code
// that must follow reloads (the SQL tools and their `settings.connections`) keeps a
// `std::shared_ptr<live_settings>` and calls `current()` per call.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/config.hpp"
#include "daemon/logging.hpp"
#include "engine/store/store.hpp"
#include "mcp/tool.hpp"
#include "sql/service.hpp"

namespace omgdb::daemon {

result<config::settings> effective_settings(const std::optional<std::string>& config_file,
                                            const config::overrides& given);

// Thread-safe holder of the current settings.
class live_settings {
 public:
  explicit live_settings(config::settings s) : current_(std::make_shared<const config::settings>(std::move(s))) {}
  std::shared_ptr<const config::settings> current() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  void replace(config::settings s) {
    auto next = std::make_shared<const config::settings>(std::move(s));
    std::lock_guard lock(mu_);
    current_ = std::move(next);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const config::settings> current_;
};

// The whole tool catalogue of this process: the document tools over `stores`, then the SQL
// tools over `sql` (daemon/sql_runtime.hpp), listed only when it has connections. Builds no
// connection and opens no store.
std::vector<mcp::tool> build_catalogue(std::shared_ptr<live_settings> live,
                                       std::shared_ptr<engine::store_registry> stores,
                                       std::shared_ptr<sql::service> sql = nullptr);

// The catalogue of a server with SQL connections (names, schemas, annotations, scopes: the
// document tools and seed 003's eight SQL tools) whose every call answers an "unavailable"
// error without touching a store, a database or the network.
std::vector<mcp::tool> standalone_catalogue();

}  // namespace omgdb::daemon
