#include "daemon/sql_runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "common/log.hpp"

namespace omgdb::daemon {

std::shared_ptr<sql::service> make_sql_service(const config::settings& s, bool serve_approvals) {
  sql::service_options o;
  o.approval_timeout = s.approvals.timeout;
  o.approvals_enabled = s.approvals.enabled;
  o.max_pending = max_pending_approvals;
  auto svc = std::make_shared<sql::service>(s.connections, o);
  if (!serve_approvals) return svc;
  if (svc->empty() || !s.approvals.enabled) {
    if (!svc->empty()) {
      log::warning("SQL approvals are disabled ([approvals] enabled = false): every execution that needs a person "
                   "fails closed");
    }
    // The channel still serves the store commands (`omgdb backup` of a store this process
    // holds, docs/backup.md); approvals stay off (service::approvals_ready needs them enabled).
    // Without connections it is opened only in a runtime directory (a login session's
    // XDG_RUNTIME_DIR, systemd's RUNTIME_DIRECTORY / STATE_DIRECTORY): a plain `omgdb mcp`
    // leaves nothing in the user's home.
    const bool runtime_dir = std::getenv("XDG_RUNTIME_DIR") != nullptr || std::getenv("RUNTIME_DIRECTORY") != nullptr ||
                             std::getenv("STATE_DIRECTORY") != nullptr;
    if (svc->empty() && !runtime_dir) return svc;
    if (auto ok = svc->open_admin_channel(sql::admin_socket_dir()); !ok) {
      log::debug("admin channel unavailable (`omgdb backup` of the stores this process holds will fail): " +
                 ok.error().message);
    }
    return svc;
  }
  if (auto ok = svc->open_admin_channel(sql::admin_socket_dir()); !ok) {
    log::warning("SQL approvals unavailable, executions that need a person fail closed: " + ok.error().message);
  } else {
    log::info("SQL approvals: decide with `omgdb approvals list|approve ID|reject ID` (admin socket " +
              svc->admin_socket() + ")");
  }
  return svc;
}

std::string sql_metrics_text(sql::service* sql) {
  if (!sql || sql->empty()) return {};
  return "# HELP omgdb_sql_pending_approvals SQL executions waiting for a person's decision.\n"
         "# TYPE omgdb_sql_pending_approvals gauge\n"
         "omgdb_sql_pending_approvals " + std::to_string(sql->approvals().list().size()) + "\n";
}

std::size_t workers_for(std::size_t configured, const sql::service* sql) {
  std::size_t base = configured != 0 ? configured : std::max<std::size_t>(2, std::thread::hardware_concurrency());
  if (sql && !sql->empty()) base += max_pending_approvals;
  return base;
}

}  // namespace omgdb::daemon
