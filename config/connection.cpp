// omgdb config — names of the connection model's enumerations.
#include "config/connection.hpp"

namespace omgdb::config {

std::string_view to_string(sql_dialect d) noexcept {
  switch (d) {
    case sql_dialect::postgres: return "postgres";
    case sql_dialect::mysql: return "mysql";
    case sql_dialect::sqlite: return "sqlite";
    case sql_dialect::mssql: return "mssql";
    case sql_dialect::ansi: return "ansi";
  }
  return "sqlite";
}

std::string_view to_string(mcp_access a) noexcept {
  switch (a) {
    case mcp_access::off: return "off";
    case mcp_access::read_only: return "read-only";
    case mcp_access::read_write: return "read-write";
  }
  return "off";
}

std::string_view to_string(approve_mode a) noexcept {
  return a == approve_mode::writes ? "writes" : "all";
}

std::optional<sql_dialect> parse_dialect(std::string_view s) noexcept {
  if (s == "postgres" || s == "postgresql") return sql_dialect::postgres;
  if (s == "mysql" || s == "mariadb") return sql_dialect::mysql;
  if (s == "sqlite") return sql_dialect::sqlite;
  if (s == "mssql" || s == "sqlserver" || s == "tsql") return sql_dialect::mssql;
  if (s == "ansi") return sql_dialect::ansi;
  return std::nullopt;
}

std::string_view kind_name(const connection& c) noexcept {
  if (c.kind == connection_kind::odbc) return c.dialect == sql_dialect::mssql && c.odbc.empty() ? "mssql" : "odbc";
  return to_string(c.dialect);
}

std::optional<mcp_access> parse_access(std::string_view s) noexcept {
  if (s == "off") return mcp_access::off;
  if (s == "read-only") return mcp_access::read_only;
  if (s == "read-write") return mcp_access::read_write;
  return std::nullopt;
}

std::optional<approve_mode> parse_approve(std::string_view s) noexcept {
  if (s == "all") return approve_mode::all;
  if (s == "writes") return approve_mode::writes;
  return std::nullopt;
}

}  // namespace omgdb::config
