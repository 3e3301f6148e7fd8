// The eight SQL tools: strict arguments in, JSON text out; sql::service decides.
#include "tools/sql_tools.hpp"

#include <algorithm>
#include <cmath>

#include "common/json.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

const param p_connection{"connection", param_type::string, false};
const mcp::annotations read_hints{true, true, false};

// Refuses empty strings and strings over their cap; the dispatcher already checked types.
std::optional<std::string> check_strings(const bj::object& args) {
  for (const auto& kv : args) {
    if (!kv.value().is_string()) continue;
    std::string_view key = kv.key();
    const auto& s = kv.value().get_string();
    if (s.empty()) return "argument `" + std::string(key) + "` must not be empty";
    std::size_t cap = key == "rationale" ? sql::max_rationale_bytes
                      : key == "connection" ? 64
                                            : sql::max_tool_sql_bytes;
    if (s.size() > cap) {
      return "argument `" + std::string(key) + "` is " + std::to_string(s.size()) + " bytes; at most " +
             std::to_string(cap) + " are accepted";
    }
  }
  return std::nullopt;
}

std::string text_arg(const bj::object& args, std::string_view name) {
  auto it = args.find(name);
  return it != args.end() && it->value().is_string() ? std::string(it->value().get_string()) : std::string();
}

// An optional integer in [lo, hi]; absent → fallback.
result<std::size_t> int_arg(const bj::object& args, std::string_view name, std::size_t fallback, std::size_t lo,
                            std::size_t hi) {
  auto it = args.find(name);
  if (it == args.end()) return fallback;
  const auto& v = it->value();
  double d = v.is_int64() ? static_cast<double>(v.get_int64())
             : v.is_uint64() ? static_cast<double>(v.get_uint64())
             : v.is_double() ? v.get_double() : -1;
  if (!std::isfinite(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
    return make_error("argument `" + std::string(name) + "` must be an integer from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
  }
  return static_cast<std::size_t>(d);
}

sql::caller caller_of(const std::string& tool, mcp::call_context& ctx) {
  sql::caller who;
  who.may_write = auth::allows(ctx.scope, auth::scope::read_write);
  who.tool = tool;
  who.session = ctx.session_id;
  who.request = ctx.request_id;
  who.cancelled = ctx.cancelled;
  who.client_gone = ctx.client_gone;
  who.reply_limit = ctx.max_result_bytes;
  who.notify = [&ctx](const std::string& m) {
    if (ctx.progress) ctx.progress(1, 0, m);
    if (ctx.log) ctx.log(mcp::log_level::notice, m);
  };
  return who;
}

// A flow answers with the tool's JSON text (executeSql writes it directly) or an error.
using flow = std::function<result<std::string>(sql::service&, const bj::object&, const sql::caller&)>;

result<std::string> as_text(result<bj::object> r) {
  if (!r) return std::move(r).error();
  return json::serialize(*r);
}

tool_result answer(result<std::string> r) {
  if (!r) return tool_result::failure(r.error().message);
  tool_result out;  // not tool_result::text: its braced list would copy the (large) text
  out.texts.push_back(std::move(*r));
  return out;
}

mcp::tool make(std::shared_ptr<sql::service> svc, std::string name, std::string description,
               std::vector<param> params, mcp::annotations hints, flow fn) {
  params.push_back(p_connection);
  mcp::tool t;
  t.name = name;
  t.description = std::move(description);
  t.params = std::move(params);
  t.hints = hints;
  t.required_scope = auth::scope::read;
  t.handler = [svc = std::move(svc), name, fn = std::move(fn)](const bj::object& args, mcp::call_context& ctx) {
    if (auto bad = check_strings(args)) return tool_result::failure(*bad);
    return answer(fn(*svc, args, caller_of(name, ctx)));
  };
  return t;
}

}  // namespace

std::vector<mcp::tool> sql_tools(std::shared_ptr<sql::service> svc) {
  std::vector<mcp::tool> out;
  if (!svc || svc->empty()) return out;
  out.push_back(make(svc, "getActiveSql",
                     "SQL text and dialect of the active connection's worksheet (or of `connection`).", {},
                     read_hints, [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(s.active_sql(text_arg(a, "connection"), w));
                     }));
  out.push_back(make(svc, "getActiveConnectionContext",
                     "Safe context of the active connection (name, label, dialect, access, approval mode) and "
                     "the other connections this session may use; never passwords, DSNs or credentials.",
                     {}, read_hints, [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(s.connection_context(text_arg(a, "connection"), w));
                     }));
  out.push_back(make(svc, "getSchemaSummary",
                     "Schemas, relations and columns; filter by `schema`/`table`; pages of `limit` relations "
                     "(default 50, max 100) from `offset`; `nextOffset` when more exist.",
                     {{"schema", param_type::string, false},
                      {"table", param_type::string, false},
                      {"offset", param_type::integer, false},
                      {"limit", param_type::integer, false}},
                     read_hints, [](sql::service& s, const bj::object& a, const sql::caller& w) -> result<std::string> {
                       auto offset = int_arg(a, "offset", 0, 0, 1u << 30);
                       if (!offset) return std::move(offset).error();
                       auto limit = int_arg(a, "limit", sql::default_schema_limit, 1, sql::max_schema_limit);
                       if (!limit) return std::move(limit).error();
                       return as_text(s.schema_summary(text_arg(a, "connection"), text_arg(a, "schema"),
                                                       text_arg(a, "table"), *offset, *limit, w));
                     }));
  out.push_back(make(svc, "getTableIndexes", "Indexes of one table (`schema` optional).",
                     {{"table", param_type::string, true}, {"schema", param_type::string, false}}, read_hints,
                     [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(
                           s.table_indexes(text_arg(a, "connection"), text_arg(a, "schema"), text_arg(a, "table"), w));
                     }));
  out.push_back(make(svc, "explainSql",
                     "Query plan of one statement without executing it (never EXPLAIN ANALYZE); only for SQL "
                     "the connection's access allows.",
                     {{"sql", param_type::string, true}}, read_hints,
                     [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(s.explain(text_arg(a, "connection"), text_arg(a, "sql"), w));
                     }));
  out.push_back(make(svc, "getLatestSqlExecutionError",
                     "The latest executeSql error on the active connection (or `connection`), or null.", {},
                     read_hints, [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(s.latest_error(text_arg(a, "connection"), w));
                     }));
  out.push_back(make(svc, "proposeSqlEdit",
                     "Propose new worksheet SQL with a rationale; a person applies or rejects it (stale if the "
                     "worksheet changed meanwhile). Returns {approved, outcome}.",
                     {{"sql", param_type::string, true}, {"rationale", param_type::string, true}},
                     mcp::annotations{false, false, false},
                     [](sql::service& s, const bj::object& a, const sql::caller& w) {
                       return as_text(
                           s.propose_edit(text_arg(a, "connection"), text_arg(a, "sql"), text_arg(a, "rationale"), w));
                     }));
  out.push_back(make(svc, "executeSql",
                     "Run one SQL statement after a person approves it (read-only statements run without a "
                     "person where the connection says `approve = \"writes\"`); `limit` rows (default 100, "
                     "max 1,000); returns columns, rows, rowsAffected, rowsMoreAvailable, truncated (256 KiB "
                     "cap) and elapsedMs. Writes need read-write access and a read-write session.",
                     {{"sql", param_type::string, true}, {"limit", param_type::integer, false}},
                     mcp::annotations{false, false, true},
                     [](sql::service& s, const bj::object& a, const sql::caller& w) -> result<std::string> {
                       auto limit = int_arg(a, "limit", sql::default_row_limit, 1, sql::max_row_limit);
                       if (!limit) return std::move(limit).error();
                       return s.execute(text_arg(a, "connection"), text_arg(a, "sql"), *limit,
                                        std::min(sql::max_result_bytes, w.reply_limit > 8192 ? w.reply_limit - 8192 : 1024), w);
                     }));
  return out;
}

}  // namespace omgdb::tools
