// The SQL service: registry, access policy and the read flows (sql/service.hpp). The flows
// that wait for a person or run statements are in service_exec.cpp.
#include "sql/service.hpp"

#include <algorithm>

#include "common/log.hpp"

namespace omgdb::sql {
namespace bj = boost::json;
using config::mcp_access;
using clock = std::chrono::steady_clock;

namespace {

std::filesystem::path pick_state_dir(const service_options& o) {
  return o.state_dir.empty() ? default_state_dir() : o.state_dir;
}

}  // namespace

service::service(std::vector<config::connection> connections, service_options options)
    : connections_(std::make_shared<const std::vector<config::connection>>(std::move(connections))),
      initially_empty_(connections_->empty()),
      options_(std::move(options)),
      state_dir_(pick_state_dir(options_)),
      sheets_(state_dir_),
      history_(state_dir_),
      approvals_(options_.approval_timeout, options_.max_pending) {
  if (!options_.make_adapter) options_.make_adapter = [](const config::connection& c) { return make_adapter(c); };
  if (!options_.classify) options_.classify = [](std::string_view s, config::sql_dialect d) { return classify(s, d); };
}

service::~service() {
  approvals_.shutdown();
  close_admin_channel();
}

status service::open_admin_channel(const std::filesystem::path& dir) {
  if (!options_.approvals_enabled) return make_error("approvals are disabled in the config", failure_kind::unavailable);
  auto srv = admin_server::start(dir, approvals_);
  std::lock_guard lock(mu_);
  if (!srv) {
    admin_error_ = srv.error().message;
    return make_error(admin_error_, failure_kind::unavailable);
  }
  admin_ = std::move(*srv);
  admin_error_.clear();
  return {};
}

void service::close_admin_channel() {
  std::unique_ptr<admin_server> gone;
  {
    std::lock_guard lock(mu_);
    gone = std::move(admin_);
  }
}

bool service::approver_reachable() const {
  std::lock_guard lock(mu_);
  return options_.approvals_enabled && admin_ != nullptr;
}

std::string service::admin_socket() const {
  std::lock_guard lock(mu_);
  return admin_ ? admin_->socket_path().string() : std::string();
}

std::shared_ptr<const std::vector<config::connection>> service::snapshot() const {
  std::lock_guard lock(mu_);
  return connections_;
}

void service::replace_connections(std::vector<config::connection> connections) {
  auto next = std::make_shared<const std::vector<config::connection>>(std::move(connections));
  std::lock_guard lock(mu_);
  connections_ = std::move(next);
}

result<service::target> service::resolve(std::string_view name, bool may_write) const {
  auto all = snapshot();
  const std::string chosen = sheets_.active();  // read once: a person may change it meanwhile
  // Without a choice, a single configured connection is the active one.
  const std::string active = !chosen.empty() ? chosen : all->size() == 1 ? all->front().name : std::string();
  const std::string wanted = name.empty() ? active : std::string(name);
  if (wanted.empty()) {
    return make_error("no active SQL connection: a person chooses one with `omgdb sql use NAME`, or pass "
                      "`connection`", failure_kind::unavailable);
  }
  for (const auto& c : *all) {
    if (c.name != wanted || c.access == mcp_access::off) continue;
    target t;
    t.conn = std::shared_ptr<const config::connection>(all, &c);
    t.access = c.access == mcp_access::read_write && !may_write ? mcp_access::read_only : c.access;
    t.active = wanted == active;
    return t;
  }
  std::string what = name.empty() ? "the active connection `" + wanted + "`" : "connection `" + wanted + "`";
  return make_error(what + " is not available to MCP (it is unknown, or its mcp_access is \"off\")", failure_kind::unavailable);
}

namespace {

bool same_settings(const config::connection& a, const config::connection& b) {
  return a.dialect == b.dialect && a.kind == b.kind && a.odbc == b.odbc && a.odbc_driver == b.odbc_driver && a.host == b.host && a.port == b.port && a.user == b.user &&
         a.database == b.database && a.password == b.password && a.file == b.file && a.pool_size == b.pool_size &&
         a.statement_timeout == b.statement_timeout;
}

}  // namespace

result<std::shared_ptr<adapter>> service::adapter_for(const config::connection& conn) {
  std::lock_guard lock(mu_);
  auto it = adapters_.find(conn.name);
  if (it != adapters_.end() && same_settings(it->second.settings, conn)) return it->second.instance;
  auto made = options_.make_adapter(conn);
  if (!made) return std::move(made).error();
  std::shared_ptr<adapter> shared(std::move(*made));
  adapters_[conn.name] = built_adapter{conn, shared};
  return shared;
}

exec_options service::read_options(const config::connection& conn, const caller& who) const {
  exec_options o;
  o.read_only = true;
  o.timeout = conn.statement_timeout;
  o.cancelled = who.cancelled;
  return o;
}

void service::record(const config::connection& conn, const caller& who, clock::time_point start,
                     std::string outcome, std::string_view sql, std::string keyword, std::string detail) {
  history_entry e;
  e.connection = conn.name;
  e.tool = who.tool;
  e.session = who.session;
  e.duration_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
  e.outcome = std::move(outcome);
  if (!sql.empty()) e.digest = statement_digest(sql);
  e.keyword = std::move(keyword);
  e.detail = std::move(detail);
  history_.append(e);
}

result<bj::object> service::active_sql(std::string_view name, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  bj::object out{{"connection", t->conn->name},
                 {"dialect", config::to_string(t->conn->dialect)},
                 {"sql", sheets_.sheet(t->conn->name)}};
  record(*t->conn, who, start, "ok");
  return out;
}

result<bj::object> service::connection_context(std::string_view name, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  const auto& c = *t->conn;
  // Safe context only: never password, user, host, port, file path or a DSN.
  bj::object out{{"connection", c.name},
                 {"label", c.label.empty() ? c.name : c.label},
                 {"dialect", config::to_string(c.dialect)},
                 {"active", t->active},
                 {"access", config::to_string(t->access)},
                 {"configuredAccess", config::to_string(c.access)},
                 {"approve", config::to_string(c.approve)},
                 {"approverReachable", approver_reachable()},
                 {"statementTimeoutMs", static_cast<std::int64_t>(c.statement_timeout.count())},
                 {"kind", config::kind_name(c)},
                 {"readOnlyEnforcement", config::text_check_only(c) ? "text check only" : "text check and database"}};
  // Seed 003: on these kinds read-only rests on the text check alone; the agent is told so.
  if (config::text_check_only(c)) out["readOnlyNotice"] = std::string(config::k_text_check_notice);
  if (c.dialect != config::sql_dialect::sqlite && !c.database.empty()) out["database"] = c.database;
  bj::array others;
  auto all = snapshot();
  for (const auto& o : *all) {
    if (o.access == mcp_access::off) continue;
    mcp_access eff = o.access == mcp_access::read_write && !who.may_write ? mcp_access::read_only : o.access;
    bj::object entry{{"connection", o.name},
                     {"label", o.label.empty() ? o.name : o.label},
                     {"dialect", config::to_string(o.dialect)},
                     {"kind", config::kind_name(o)},
                     {"access", config::to_string(eff)}};
    if (config::text_check_only(o)) entry["readOnlyNotice"] = std::string(config::k_text_check_notice);
    others.push_back(std::move(entry));
  }
  out["available"] = std::move(others);
  record(c, who, start, "ok");
  return out;
}

result<bj::object> service::schema_summary(std::string_view name, std::string_view schema, std::string_view table,
                                           std::size_t offset, std::size_t limit, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  auto a = adapter_for(*t->conn);
  if (!a) return std::move(a).error();
  auto r = (*a)->schema_summary(schema, table, offset, limit, read_options(*t->conn, who));
  if (!r) {
    record(*t->conn, who, start, "error", {}, {}, r.error().message);
    return std::move(r).error();
  }
  (*r)["connection"] = t->conn->name;
  record(*t->conn, who, start, "ok");
  return std::move(*r);
}

result<bj::object> service::table_indexes(std::string_view name, std::string_view schema, std::string_view table,
                                          const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  auto a = adapter_for(*t->conn);
  if (!a) return std::move(a).error();
  auto r = (*a)->table_indexes(schema, table, read_options(*t->conn, who));
  if (!r) {
    record(*t->conn, who, start, "error", {}, {}, r.error().message);
    return std::move(r).error();
  }
  (*r)["connection"] = t->conn->name;
  record(*t->conn, who, start, "ok");
  return std::move(*r);
}

result<bj::object> service::latest_error(std::string_view name, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  bj::object out{{"connection", t->conn->name}};
  auto e = sheets_.latest_error(t->conn->name);
  if (e) out["error"] = std::move(*e);
  else out["error"] = nullptr;
  record(*t->conn, who, start, "ok");
  return out;
}

}  // namespace omgdb::sql
