// The SQL service's flows that classify, wait for a person, or run statements:
// explainSql, proposeSqlEdit and executeSql (sql/service.hpp).
#include <algorithm>

#include "common/json.hpp"
#include "common/log.hpp"
#include "sql/service.hpp"

namespace omgdb::sql {
namespace bj = boost::json;
using config::mcp_access;
using clock = std::chrono::steady_clock;

std::string outcome_message(approval_outcome o, std::string_view id, std::chrono::seconds timeout) {
  std::string a = "approval `" + std::string(id) + "`";
  switch (o) {
    case approval_outcome::approved: return a + " was approved";
    case approval_outcome::rejected: return "a person rejected " + a + "; nothing ran";
    case approval_outcome::expired:
      return "nobody decided " + a + " within " + std::to_string(timeout.count()) + " s, so it expired; nothing ran";
    case approval_outcome::cancelled: return "the request was cancelled before a person approved it (" + a + "); nothing ran";
    case approval_outcome::client_gone:
      return "the client disconnected before a person approved it (" + a + "); nothing ran";
    case approval_outcome::connection_switched:
      return "the active connection changed before a person approved it (" + a +
             "); nothing ran. Check `getActiveConnectionContext` and call again";
    case approval_outcome::shutdown: return "the server is stopping (" + a + "); nothing ran";
  }
  return "nothing ran";
}

// The kind of an approval that did not end in `approved`.
static failure_kind outcome_kind(approval_outcome o) {
  switch (o) {
    case approval_outcome::rejected: return failure_kind::permission_denied;  // a person said no
    case approval_outcome::expired: return failure_kind::unavailable;         // nobody was there to decide
    case approval_outcome::cancelled:
    case approval_outcome::client_gone: return failure_kind::cancelled;
    case approval_outcome::connection_switched: return failure_kind::conflict;
    case approval_outcome::shutdown: return failure_kind::unavailable;
    case approval_outcome::approved: break;
  }
  return failure_kind::internal;
}

std::string service::no_approver_message(std::string_view what) const {
  std::string why;
  {
    std::lock_guard lock(mu_);
    why = !options_.approvals_enabled ? "approvals are disabled (`[approvals] enabled = false` in omgdb.toml)"
          : admin_error_.empty()      ? "this server has no admin channel"
                                      : "the admin channel could not start: " + admin_error_;
  }
  return std::string(what) + " needs a person's approval, but no person can be reached: " + why +
         ". Nothing ran. To enable approvals, set `[approvals] enabled = true` in omgdb.toml and run "
         "`omgdb serve` or `omgdb mcp` (each listens for decisions on a private local socket), then decide "
         "with `omgdb approvals list` and `omgdb approvals approve ID`. On a connection with "
         "`approve = \"writes\"`, read-only statements run without a person.";
}

result<std::pair<approval_outcome, std::string>> service::ask_person(approval_request req, const caller& who,
                                                                     std::function<bool()> still_valid) {
  req.session = who.session;
  req.request = who.request;
  auto id = approvals_.submit(std::move(req));
  if (!id) return std::move(id).error();
  std::string hint = "waiting up to " + std::to_string(approvals_.timeout().count()) +
                     " s for a person: `omgdb approvals show " + *id + "`, then `omgdb approvals approve " + *id +
                     "` or `omgdb approvals reject " + *id + "`";
  log::info("SQL approval " + *id + " pending (" + who.tool + "): " + hint);
  if (who.notify) who.notify(hint);
  wait_hooks hooks;
  hooks.cancelled = who.cancelled;
  hooks.client_gone = who.client_gone;
  hooks.still_valid = std::move(still_valid);
  auto outcome = approvals_.wait(*id, hooks);
  log::info("SQL approval " + *id + ": " + std::string(to_string(outcome)));
  return std::make_pair(outcome, *id);
}

result<bj::object> service::explain(std::string_view name, std::string_view sql, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  const auto& c = *t->conn;
  auto verdict = options_.classify(sql, c.dialect);
  if (verdict.kind == verdict::refused) {
    record(c, who, start, "refused", sql, verdict.keyword, verdict.reason);
    return make_error("refused: " + verdict.reason, failure_kind::permission_denied);
  }
  bool writes = verdict.kind == verdict::write;
  if (writes && t->access != mcp_access::read_write) {
    record(c, who, start, "refused", sql, verdict.keyword, verdict.reason);
    return make_error("refused: connection `" + c.name + "` is read-only for this session, and " + verdict.reason, failure_kind::permission_denied);
  }
  if (verdict.keyword == "EXPLAIN" || verdict.keyword == "ANALYZE" || verdict.keyword == "DESCRIBE" ||
      verdict.keyword == "DESC") {
    record(c, who, start, "refused", sql, verdict.keyword, "explainSql plans a statement; it adds EXPLAIN itself");
    return make_error("refused: pass the statement to plan without " + verdict.keyword +
                      " (explainSql adds EXPLAIN itself and never runs EXPLAIN ANALYZE)");
  }
  auto a = adapter_for(c);
  if (!a) return std::move(a).error();
  // A plan only (never ANALYZE), in a transaction that is rolled back; read-only unless the
  // statement writes and this session may write on this connection (some servers refuse to plan
  // a write inside a read-only transaction).
  exec_options o = read_options(c, who);
  o.read_only = !writes;
  auto r = (*a)->explain(sql, o);
  if (!r) {
    record(c, who, start, "error", sql, verdict.keyword, r.error().message);
    return std::move(r).error();
  }
  (*r)["connection"] = c.name;
  (*r)["statement"] = verdict.keyword;
  record(c, who, start, "ok", sql, verdict.keyword);
  return std::move(*r);
}

result<bj::object> service::propose_edit(std::string_view name, std::string_view sql, std::string_view rationale,
                                         const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  const auto& c = *t->conn;
  if (!approver_reachable()) {
    record(c, who, start, "no-approver", sql);
    return make_error(no_approver_message("proposeSqlEdit"), failure_kind::unavailable);
  }
  approval_request req;
  req.kind = approval_kind::edit;
  req.connection = c.name;
  req.label = c.label.empty() ? c.name : c.label;
  req.dialect = std::string(config::to_string(c.dialect));
  req.before = sheets_.sheet(c.name);
  req.sql = std::string(sql);
  req.rationale = std::string(rationale);
  std::string before = req.before;
  std::string active_then = sheets_.active();
  auto asked = ask_person(std::move(req), who, [this, &c, &before, &active_then] {
    return sheets_.active() == active_then && sheets_.sheet(c.name) == before;
  });
  if (!asked) {
    record(c, who, start, "busy", sql, {}, asked.error().message);
    return std::move(asked).error();
  }
  auto [outcome, id] = *asked;
  bj::object out{{"connection", c.name}, {"approval", id}};
  if (outcome == approval_outcome::approved || outcome == approval_outcome::connection_switched) {
    if (sheets_.sheet(c.name) != before || sheets_.active() != active_then) {
      record(c, who, start, "stale", sql);
      out["approved"] = false;
      out["outcome"] = "stale";
      out["message"] = "the worksheet or the active connection changed while the proposal waited; it was not applied";
      return out;
    }
  }
  if (outcome != approval_outcome::approved) {
    record(c, who, start, std::string(to_string(outcome)), sql);
    if (outcome == approval_outcome::rejected) {
      out["approved"] = false;
      out["outcome"] = "rejected";
      out["message"] = "a person rejected the proposal; the worksheet is unchanged";
      return out;
    }
    return make_error(outcome_message(outcome, id, approvals_.timeout()), outcome_kind(outcome));
  }
  if (auto s = sheets_.set_sheet(c.name, sql); !s) {
    record(c, who, start, "error", sql, {}, s.error().message);
    return make_error("the proposal was approved but could not be applied: " + s.error().message, s.error().kind);
  }
  record(c, who, start, "applied", sql);
  out["approved"] = true;
  out["outcome"] = "applied";
  return out;
}

result<std::string> service::execute(std::string_view name, std::string_view sql, std::size_t limit,
                                     std::size_t max_bytes, const caller& who) {
  auto start = clock::now();
  auto t = resolve(name, who.may_write);
  if (!t) return std::move(t).error();
  const auto& c = *t->conn;
  // Layer 1: the classifier. Refused never runs; a write only at read-write access.
  auto verdict = options_.classify(sql, c.dialect);
  if (verdict.kind == verdict::refused) {
    record(c, who, start, "refused", sql, verdict.keyword, verdict.reason);
    return make_error("refused: " + verdict.reason + ". Nothing ran", failure_kind::permission_denied);
  }
  const bool writes = verdict.kind == verdict::write;
  if (writes && t->access != mcp_access::read_write) {
    std::string why = c.access == mcp_access::read_write
                          ? "this session's scope is `read`, so every connection is read-only to it"
                          : "its mcp_access is \"read-only\"";
    record(c, who, start, "refused", sql, verdict.keyword, verdict.reason);
    return make_error("refused: connection `" + c.name + "` allows only read-only statements (" + why + "), and " +
                      verdict.reason + ". Nothing ran", failure_kind::permission_denied);
  }
  // A person, unless `approve = "writes"` and the statement is read-only.
  std::string approval = "not required (approve = \"writes\", read-only statement)";
  if (writes || c.approve == config::approve_mode::all) {
    if (!approver_reachable()) {
      record(c, who, start, "no-approver", sql, verdict.keyword);
      return make_error(no_approver_message("executeSql"), failure_kind::unavailable);
    }
    approval_request req;
    req.kind = approval_kind::execute;
    req.connection = c.name;
    req.label = c.label.empty() ? c.name : c.label;
    req.dialect = std::string(config::to_string(c.dialect));
    req.sql = std::string(sql);
    req.keyword = verdict.keyword;
    req.write = writes;
    req.limit = limit;
    std::string active_then = sheets_.active();
    auto asked = ask_person(std::move(req), who, [this, active_then] { return sheets_.active() == active_then; });
    if (!asked) {
      record(c, who, start, "busy", sql, verdict.keyword, asked.error().message);
      return std::move(asked).error();
    }
    if (asked->first != approval_outcome::approved) {
      record(c, who, start, std::string(to_string(asked->first)), sql, verdict.keyword);
      return make_error(outcome_message(asked->first, asked->second, approvals_.timeout()), outcome_kind(asked->first));
    }
    approval = asked->second;
  }
  if (who.cancelled && who.cancelled->load()) {
    record(c, who, start, "cancelled", sql, verdict.keyword);
    return make_error("the request was cancelled before the statement started; nothing ran", failure_kind::cancelled);
  }
  auto a = adapter_for(c);
  if (!a) {
    record(c, who, start, "error", sql, verdict.keyword, a.error().message);
    return std::move(a).error();
  }
  exec_options o = read_options(c, who);
  o.read_only = !writes || t->access != mcp_access::read_write;  // layer 2: the database's own read-only mode
  o.max_rows = std::clamp<std::size_t>(limit, 1, max_row_limit);
  o.max_bytes = std::min(max_bytes, max_result_bytes);
  auto r = (*a)->execute(sql, o);  // the stored statement: `sql` never changed since it was approved
  if (!r) {
    bj::object err{{"message", r.error().message}, {"time", utc_now_text()}, {"tool", who.tool},
                   {"digest", statement_digest(sql)}};
    (void)sheets_.set_latest_error(c.name, err);
    record(c, who, start, "error", sql, verdict.keyword, r.error().message);
    return std::move(r).error();
  }
  (void)sheets_.clear_latest_error(c.name);
  // {"connection","statement","readOnly","columns","rows","rowsMoreAvailable","truncated",
  //  "elapsedMs","committed","approval","rowsAffected"?}, written once around the rows' text.
  std::string out;
  out.reserve(r->rows_text.size() + 96 * r->columns.size() + 512);
  auto key = [&out](std::string_view k) {
    out += ",\"";
    out += k;
    out += "\":";
  };
  out += "{\"connection\":";
  json::append_quoted(out, c.name);
  key("statement");
  json::append_quoted(out, verdict.keyword);
  key("readOnly");
  out += o.read_only ? "true" : "false";
  key("columns");
  out += '[';
  for (std::size_t i = 0; i < r->columns.size(); ++i) {
    const auto& col = r->columns[i];
    out += i ? ",{\"name\":" : "{\"name\":";
    json::append_quoted(out, col.name);
    out += ",\"dataType\":";
    json::append_quoted(out, col.type);
    out += ",\"nullable\":";
    out += !col.nullable ? "null}" : *col.nullable ? "true}" : "false}";
  }
  out += ']';
  key("rows");
  out += '[';
  out += r->rows_text;
  out += ']';
  key("rowsMoreAvailable");
  out += r->rows_more_available ? "true" : "false";
  key("truncated");
  out += r->truncated ? "true" : "false";
  key("elapsedMs");
  json::append_double(out, r->elapsed_ms);
  key("committed");
  out += r->committed ? "true" : "false";
  key("approval");
  json::append_quoted(out, approval);
  if (r->affected) {
    key("rowsAffected");
    out += std::to_string(*r->affected);
  }
  out += '}';
  record(c, who, start, "ok", sql, verdict.keyword);
  return out;
}

}  // namespace omgdb::sql
