// omgdb config — one SQL connection as declared in the config file (`[[connections]]`).
//
// This is the model only; config/loader.cpp reads it from TOML (with `${env:NAME}` already
// resolved) and sql/ consumes it. Secrets live in `password` and must never be printed,
// logged or returned by a tool.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace omgdb::config {

// The SQL a connection speaks: what the read-only classifier reads the text as. `mssql` is
// T-SQL (SQL Server, Sybase); `ansi` is a data source none of the others describes (Oracle,
// Db2, Snowflake, … through ODBC): its text must be read-only under every one of them.
enum class sql_dialect { postgres, mysql, sqlite, mssql, ansi };

// How omgdb reaches the database: its own client library (libpq, libmariadb, sqlite3) or
// unixODBC and an installed ODBC driver. For `odbc` connections the database does not back
// the read-only check up: read-only is the classifier's text check alone (seed 003).
enum class connection_kind { native, odbc };

// Per-connection MCP access (seed 003 "Per-connection access"). Unknown connections are off.
enum class mcp_access { off, read_only, read_write };

// Which executions wait for a person: `all` (every executeSql, the seed's default) or
// `writes` (read-only statements run without a person; writes always need one).
enum class approve_mode { all, writes };

struct connection {
  std::string name;   // identifier used by tools and the CLI: [A-Za-z0-9_.-]{1,64}
  std::string label;  // free text shown to people and agents; defaults to name
  sql_dialect dialect = sql_dialect::sqlite;
  // `dialect = "mssql"` and `dialect = "odbc"` in the file are odbc connections; postgres,
  // mysql and sqlite are native unless a test or a caller asks otherwise.
  connection_kind kind = connection_kind::native;

  // postgres / mysql: host (or a Unix socket directory/path) and port (0 = dialect default).
  std::string host;
  std::uint16_t port = 0;
  std::string user;
  std::string database;
  std::string password;  // resolved secret; NEVER shown
  // sqlite: the database file.
  std::string file;
  // odbc: the connection string WITHOUT secrets ("Driver={…};Server=…;Database=…"); the
  // password is added as PWD={…} when the connection opens. mssql without `odbc`: built from
  // host, port, user and database with the driver `odbc_driver` (default "FreeTDS").
  std::string odbc;
  std::string odbc_driver;

  mcp_access access = mcp_access::read_only;
  approve_mode approve = approve_mode::all;
  std::chrono::milliseconds statement_timeout{30000};
  unsigned pool_size = 2;  // 1..16
};

std::string_view to_string(sql_dialect d) noexcept;  // "postgres" | "mysql" | "sqlite" | "mssql" | "ansi"
std::string_view to_string(mcp_access a) noexcept;   // "off" | "read-only" | "read-write"
std::string_view to_string(approve_mode a) noexcept; // "all" | "writes"
std::optional<sql_dialect> parse_dialect(std::string_view s) noexcept;   // also "mariadb"→mysql, "postgresql",
                                                                         // "sqlserver"/"tsql"→mssql
// What the config file's `dialect` says: "postgres", "mysql", "sqlite", "mssql" (T-SQL through
// ODBC) or "odbc" (any ODBC data source, its SQL declared by `odbc_dialect`).
std::string_view kind_name(const connection& c) noexcept;
// True when read-only on this connection rests on the text check alone (every odbc
// connection): config check, doctor, the console and getActiveConnectionContext say so.
inline bool text_check_only(const connection& c) noexcept { return c.kind == connection_kind::odbc; }
// The sentence they show for such a connection.
inline constexpr std::string_view k_text_check_notice =
    "read-only here is a text check only; use a database user without write rights";
std::optional<mcp_access> parse_access(std::string_view s) noexcept;
std::optional<approve_mode> parse_approve(std::string_view s) noexcept;

}  // namespace omgdb::config
