// omgdb sql — the SQL service: the configured connections, the access policy, and the flows
// behind the eight SQL tools (tools/sql_tools.cpp parses arguments and formats results; the
// decisions are made here).
//
// Access policy (seed 003 "Per-connection access", issue #8):
//  - a connection is named by a call or, without a name, is the active one (`omgdb sql use`);
//    when none was chosen and exactly one connection is configured, that one is active;
//  - `off` and unknown connections answer nothing, not even getActiveSql, and are refused with
//    the same message (an agent cannot tell which);
//  - the session's scope caps the connection's access: a session that may not write (scope
//    `read`) gets read-only access everywhere;
//  - executeSql: the classifier first (refused never runs; a write only at read-write access),
//    then a person's approval (every execution with `approve = "all"`, writes only with
//    `approve = "writes"`), then the adapter, read-only unless the statement is an approved
//    write at read-write access. No approver reachable: fail closed.
// Every call that names a usable connection is recorded in the history (never rows).
// Thread-safe: calls may run concurrently on the worker pool.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "config/connection.hpp"
#include "sql/adapter.hpp"
#include "sql/admin.hpp"
#include "sql/approvals.hpp"
#include "sql/classifier/classifier.hpp"
#include "sql/history.hpp"
#include "sql/worksheet.hpp"

namespace omgdb::sql {

using adapter_factory = std::function<result<std::unique_ptr<adapter>>(const config::connection&)>;
using classifier_fn = std::function<classification(std::string_view, config::sql_dialect)>;

struct service_options {
  std::filesystem::path state_dir;             // "" = default_state_dir()
  std::chrono::seconds approval_timeout{120};  // 1 s .. 10 min
  std::size_t max_pending = 4;                 // approvals waiting at once
  bool approvals_enabled = true;               // false: everything that needs a person fails closed
  adapter_factory make_adapter;                // default sql::make_adapter
  classifier_fn classify;                      // default sql::classify (tests may swap it)
};

// Who is calling, and what ends the call early.
struct caller {
  bool may_write = false;  // the session's scope is read-write or above
  std::string tool;
  std::string session;
  std::string request;
  const std::atomic<bool>* cancelled = nullptr;
  const std::atomic<bool>* client_gone = nullptr;
  std::function<void(const std::string&)> notify;  // "waiting for approval …" (may be empty)
  std::size_t reply_limit = 256 * 1024;            // the server's largest tool result
};

// Tool limits (seed 003 §4b/§4c).
inline constexpr std::size_t max_tool_sql_bytes = 32 * 1024;
inline constexpr std::size_t max_rationale_bytes = 8 * 1024;
inline constexpr std::size_t max_result_bytes = 256 * 1024;
inline constexpr std::size_t default_row_limit = 100;
inline constexpr std::size_t max_row_limit = 1000;
inline constexpr std::size_t default_schema_limit = 50;
inline constexpr std::size_t max_schema_limit = 100;

class service {
 public:
  service(std::vector<config::connection> connections, service_options options);
  ~service();
  service(const service&) = delete;
  service& operator=(const service&) = delete;

  // True when no connection was configured when the service was made (the SQL tools are then
  // not listed at all).
  bool empty() const noexcept { return initially_empty_; }
  // Follows a config reload (SIGHUP): the next call sees the new connections and access
  // levels; adapters whose connection settings changed are rebuilt, in-flight calls finish
  // on the old ones.
  void replace_connections(std::vector<config::connection> connections);
  worksheet_store& worksheets() noexcept { return sheets_; }
  history_log& history() noexcept { return history_; }
  approval_queue& approvals() noexcept { return approvals_; }
  const std::filesystem::path& state_dir() const noexcept { return state_dir_; }

  // Starts listening for decisions on the admin channel (sql/admin.hpp) in `dir`. Without a
  // running channel (or with approvals disabled) nothing that needs a person can run.
  status open_admin_channel(const std::filesystem::path& dir);
  void close_admin_channel();
  bool approver_reachable() const;
  std::string admin_socket() const;  // "" when closed

  // The connection a call targets and the access it gets. Never reveals whether an off
  // connection exists.
  struct target {
    std::shared_ptr<const config::connection> conn;
    config::mcp_access access = config::mcp_access::off;  // effective: config ∧ session
    bool active = false;
  };
  result<target> resolve(std::string_view name, bool may_write) const;

  // The tools' flows. Each returns the tool's JSON result or a message for the agent.
  result<boost::json::object> active_sql(std::string_view name, const caller& who);
  result<boost::json::object> connection_context(std::string_view name, const caller& who);
  result<boost::json::object> schema_summary(std::string_view name, std::string_view schema,
                                             std::string_view table, std::size_t offset,
                                             std::size_t limit, const caller& who);
  result<boost::json::object> table_indexes(std::string_view name, std::string_view schema,
                                            std::string_view table, const caller& who);
  result<boost::json::object> explain(std::string_view name, std::string_view sql, const caller& who);
  result<boost::json::object> latest_error(std::string_view name, const caller& who);
  result<boost::json::object> propose_edit(std::string_view name, std::string_view sql,
                                           std::string_view rationale, const caller& who);
  // executeSql returns its JSON text directly: the rows the adapter wrote as text are copied
  // into it once, never turned back into JSON values.
  result<std::string> execute(std::string_view name, std::string_view sql, std::size_t limit,
                              std::size_t max_bytes, const caller& who);

 private:
  result<std::shared_ptr<adapter>> adapter_for(const config::connection& conn);
  std::shared_ptr<const std::vector<config::connection>> snapshot() const;
  exec_options read_options(const config::connection& conn, const caller& who) const;
  void record(const config::connection& conn, const caller& who, std::chrono::steady_clock::time_point start,
              std::string outcome, std::string_view sql = {}, std::string keyword = {}, std::string detail = {});
  // Submits an approval and waits; the outcome and the approval id.
  result<std::pair<approval_outcome, std::string>> ask_person(approval_request req, const caller& who,
                                                               std::function<bool()> still_valid);
  std::string no_approver_message(std::string_view what) const;

  std::shared_ptr<const std::vector<config::connection>> connections_;
  bool initially_empty_ = true;
  service_options options_;
  std::filesystem::path state_dir_;
  worksheet_store sheets_;
  history_log history_;
  approval_queue approvals_;
  mutable std::mutex mu_;
  struct built_adapter {
    config::connection settings;
    std::shared_ptr<adapter> instance;
  };
  std::map<std::string, built_adapter> adapters_;
  std::unique_ptr<admin_server> admin_;
  std::string admin_error_;
};

// The message for an approval that did not end in `approved` ("… nothing ran").
std::string outcome_message(approval_outcome o, std::string_view id, std::chrono::seconds timeout);

}  // namespace omgdb::sql
