// The eight SQL tools of seed 003 over sql::service (docs/sql-tools.md): strict arguments in,
// JSON text out; sql::service decides.
//
// All eight are listed at scope `read`: the session's scope caps each connection's access
// instead (a `read` session is read-only everywhere; executeSql then runs read-only SQL only).
// They are listed only when a connection is configured (tool_info::needs_sql).
#include <algorithm>

#include "common/json.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {

namespace {

constexpr spec sql_spec{"One SQL statement.", {}, sql::max_tool_sql_bytes};

// Every SQL tool's last parameter: the connection, by name ("": the active one).
struct on_connection : no_args {
  std::string connection;
  void connection_field(arg_list& a) {
    a.optional("connection", connection,
               {"The configured connection's name; default the active connection.", {}, 64});
  }
  void fields(arg_list& a) { connection_field(a); }
};

sql::caller caller_of(const call& c) {
  sql::caller who;
  who.may_write = auth::allows(c.ctx.scope, auth::scope::read_write);
  who.tool = std::string(c.tool);
  // The name people see for the session (its label and client), the same in the console,
  // `omgdb approvals` and the SQL history; the id when the call has no session.
  who.session = c.ctx.session_name.empty() ? c.ctx.session_id : c.ctx.session_name;
  who.request = c.ctx.request_id;
  who.cancelled = c.ctx.cancelled;
  who.client_gone = c.ctx.client_gone;
  who.reply_limit = c.ctx.max_result_bytes;
  who.notify = [&ctx = c.ctx](const std::string& m) {
    if (ctx.progress) ctx.progress(1, 0, m);
    if (ctx.log) ctx.log(mcp::log_level::notice, m);
  };
  return who;
}

handler_result as_text(result<boost::json::object> r) {
  OMGDB_TRY(object, r);
  return json_text(object);
}

// The tools that take only `connection`: active_sql, connection_context, latest_error.
template <result<boost::json::object> (sql::service::*fn)(std::string_view, const sql::caller&)>
handler_result on_connection_only(on_connection& a, const call& c) {
  return as_text(((*c.env.sql).*fn)(a.connection, caller_of(c)));
}

struct schema_args : on_connection {
  std::string schema, table;
  std::uint64_t offset = 0, limit = sql::default_schema_limit;
  void fields(arg_list& a) {
    a.optional("schema", schema, {"Only this schema.", {}, sql::max_tool_sql_bytes});
    a.optional("table", table, {"Only relations whose name is this.", {}, sql::max_tool_sql_bytes});
    a.optional("offset", offset, {"Relations to pass over (the previous page's `nextOffset`).", 0, 1u << 30, "0"});
    a.optional("limit", limit, {"Relations per page.", 1, sql::max_schema_limit, "50"});
    connection_field(a);
  }
};

handler_result schema_summary(schema_args& a, const call& c) {
  return as_text(c.env.sql->schema_summary(a.connection, a.schema, a.table, a.offset, a.limit, caller_of(c)));
}

struct table_args : on_connection {
  std::string table, schema;
  void fields(arg_list& a) {
    a.required("table", table, {"The table.", {}, sql::max_tool_sql_bytes});
    a.optional("schema", schema, {"Its schema; default the connection's search path.", {}, sql::max_tool_sql_bytes});
    connection_field(a);
  }
};

handler_result table_indexes(table_args& a, const call& c) {
  return as_text(c.env.sql->table_indexes(a.connection, a.schema, a.table, caller_of(c)));
}

struct explain_args : on_connection {
  std::string statement;
  void fields(arg_list& a) {
    a.required("sql", statement, sql_spec);
    connection_field(a);
  }
};

handler_result explain_sql(explain_args& a, const call& c) {
  return as_text(c.env.sql->explain(a.connection, a.statement, caller_of(c)));
}

struct propose_args : on_connection {
  std::string statement, rationale;
  void fields(arg_list& a) {
    a.required("sql", statement, {"The proposed worksheet SQL.", {}, sql::max_tool_sql_bytes});
    a.required("rationale", rationale, {"Why, for the person who decides.", {}, sql::max_rationale_bytes});
    connection_field(a);
  }
};

handler_result propose_edit(propose_args& a, const call& c) {
  return as_text(c.env.sql->propose_edit(a.connection, a.statement, a.rationale, caller_of(c)));
}

struct execute_args : on_connection {
  std::string statement;
  std::uint64_t limit = sql::default_row_limit;
  void fields(arg_list& a) {
    a.required("sql", statement, sql_spec);
    a.optional("limit", limit, {"Most rows to return.", 1, sql::max_row_limit, "100"});
    connection_field(a);
  }
};

handler_result execute_sql(execute_args& a, const call& c) {
  const auto who = caller_of(c);
  OMGDB_TRY(text, c.env.sql->execute(a.connection, a.statement, a.limit,
                                     std::min(sql::max_result_bytes, who.reply_limit > 8192 ? who.reply_limit - 8192 : 1024),
                                     who));
  mcp::tool_result out;  // not tool_result::text: its braced list would copy the (large) text
  out.texts.push_back(std::move(text));
  return out;
}

tool_info sql_info(std::string_view name, std::string_view description, mcp::annotations hints = read_only) {
  return tool_info{name, description, hints, auth::scope::read, false, {}, true};
}

}  // namespace

const tool_def get_active_sql_tool = define<on_connection>(
    sql_info("getActiveSql", "SQL text and dialect of the active connection's worksheet (or of `connection`)."),
    on_connection_only<&sql::service::active_sql>);
const tool_def connection_context_tool = define<on_connection>(
    sql_info("getActiveConnectionContext",
             "Safe context of the active connection (name, label, dialect, access, approval mode) and the other "
             "connections this session may use; never passwords, DSNs or credentials."),
    on_connection_only<&sql::service::connection_context>);
const tool_def schema_summary_tool = define<schema_args>(
    sql_info("getSchemaSummary",
             "Schemas, relations and columns; filter by `schema`/`table`; pages of `limit` relations (default 50, "
             "max 100) from `offset`; `nextOffset` when more exist."),
    schema_summary);
const tool_def table_indexes_tool =
    define<table_args>(sql_info("getTableIndexes", "Indexes of one table (`schema` optional)."), table_indexes);
const tool_def explain_sql_tool = define<explain_args>(
    sql_info("explainSql",
             "Query plan of one statement without executing it (never EXPLAIN ANALYZE); only for SQL the "
             "connection's access allows."),
    explain_sql);
const tool_def latest_error_tool = define<on_connection>(
    sql_info("getLatestSqlExecutionError",
             "The latest executeSql error on the active connection (or `connection`), or null."),
    on_connection_only<&sql::service::latest_error>);
const tool_def propose_edit_tool = define<propose_args>(
    sql_info("proposeSqlEdit",
             "Propose new worksheet SQL with a rationale; a person applies or rejects it (stale if the worksheet "
             "changed meanwhile). Returns {approved, outcome}.",
             plain_write),
    propose_edit);
const tool_def execute_sql_tool = define<execute_args>(
    sql_info("executeSql",
             "Run one SQL statement after a person approves it (read-only statements run without a person where the "
             "connection says `approve = \"writes\"`); `limit` rows (default 100, max 1,000); returns columns, rows, "
             "rowsAffected, rowsMoreAvailable, truncated (256 KiB cap) and elapsedMs. Writes need read-write access "
             "and a read-write session.",
             {false, false, true}),
    execute_sql);

}  // namespace omgdb::tools
