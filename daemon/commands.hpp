// omgdb daemon — the command-line subcommands. Each returns the process exit status.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace omgdb::daemon {

struct mcp_command {
  std::string scope = "read-write";
  std::size_t max_result_bytes = 1 << 20;
  std::size_t workers = 0;
};

int run_mcp(const mcp_command& cmd);
int run_tools_list(const std::string& scope, bool as_json);

int run_create(const std::string& path);
int run_dump(const std::string& path);
// Direct commands that call the tool of the same name (at `dangerous` scope: the local user
// owns the store) and print its text to stdout, or its error to stderr with exit status 1.
int run_tool_command(const std::string& tool, const std::string& arguments_json);

}  // namespace omgdb::daemon
