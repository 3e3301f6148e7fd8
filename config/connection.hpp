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

enum class sql_dialect { postgres, mysql, sqlite };

// Per-connection MCP access (seed 003 "Per-connection access"). Unknown connections are off.
enum class mcp_access { off, read_only, read_write };

// Which executions wait for a person: `all` (every executeSql, the seed's default) or
// `writes` (read-only statements run without a person; writes always need one).
enum class approve_mode { all, writes };

struct connection {
  std::string name;   // identifier used by tools and the CLI: [A-Za-z0-9_.-]{1,64}
  std::string label;  // free text shown to people and agents; defaults to name
  sql_dialect dialect = sql_dialect::sqlite;

  // postgres / mysql: host (or a Unix socket directory/path) and port (0 = dialect default).
  std::string host;
  std::uint16_t port = 0;
  std::string user;
  std::string database;
  std::string password;  // resolved secret; NEVER shown
  // sqlite: the database file.
  std::string file;

  mcp_access access = mcp_access::read_only;
  approve_mode approve = approve_mode::all;
  std::chrono::milliseconds statement_timeout{30000};
  unsigned pool_size = 2;  // 1..16
};

std::string_view to_string(sql_dialect d) noexcept;  // "postgres" | "mysql" | "sqlite"
std::string_view to_string(mcp_access a) noexcept;   // "off" | "read-only" | "read-write"
std::string_view to_string(approve_mode a) noexcept; // "all" | "writes"
std::optional<sql_dialect> parse_dialect(std::string_view s) noexcept;   // also "mariadb"→mysql, "postgresql"
std::optional<mcp_access> parse_access(std::string_view s) noexcept;
std::optional<approve_mode> parse_approve(std::string_view s) noexcept;

}  // namespace omgdb::config
