// `omgdb client-config`: the configuration snippet each MCP host expects, to paste as is.
//
// stdio: the host spawns `omgdb mcp` (absolute path of this binary). HTTP: the host connects
// to `omgdb serve` and sends the bearer token, which the snippet only references through the
// OMGDB_HTTP_TOKEN environment variable in the host's own syntax; no token is ever printed.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "daemon/commands.hpp"

namespace omgdb::daemon {
namespace {

constexpr const char* token_var = "OMGDB_HTTP_TOKEN";

std::string json_text(std::string_view s) {
  std::string out;
  json::append_quoted(out, s);  // also a valid TOML basic string for the text we quote
  return out;
}

std::string self_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("omgdb") : p.string();
}

std::string json_args(const std::vector<std::string>& args) {
  std::string out = "[";
  for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + json_text(args[i]);
  return out + "]";
}

}  // namespace

int run_client_config(const std::string& client, const std::string& url, const std::optional<std::string>& config_file) {
  if (!url.empty() && url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    std::cerr << "omgdb: --http wants the endpoint URL, e.g. http://127.0.0.1:41922/mcp\n";
    return 2;
  }
  std::string command = self_path();
  std::vector<std::string> args{"mcp"};
  if (config_file) {
    args.push_back("--config");
    args.push_back(std::filesystem::absolute(*config_file).string());
  }
  std::string where, out;
  std::string bearer = std::string("Bearer ${") + token_var + "}";
  if (client == "codex") {
    where = "~/.codex/config.toml";
    out = "[mcp_servers.omgdb]\n";
    if (url.empty()) {
      out += "command = " + json_text(command) + "\nargs = " + json_args(args) + "\n";
    } else {
      out += "url = " + json_text(url) + "\nbearer_token_env_var = " + json_text(token_var) + "\n";
    }
  } else {
    std::string entry;
    if (url.empty()) {
      entry = "{\n      " + std::string(client == "claude-code" ? "\"type\": \"stdio\",\n      " : "") +
              "\"command\": " + json_text(command) + ",\n      \"args\": " + json_args(args) + "\n    }";
    } else if (client == "claude-code") {
      entry = "{\n      \"type\": \"http\",\n      \"url\": " + json_text(url) +
              ",\n      \"headers\": {\"Authorization\": " + json_text(bearer) + "}\n    }";
    } else if (client == "cursor") {
      entry = "{\n      \"url\": " + json_text(url) + ",\n      \"headers\": {\"Authorization\": " +
              json_text(std::string("Bearer ${env:") + token_var + "}") + "}\n    }";
    } else {  // claude-desktop reaches HTTP servers through the mcp-remote bridge
      entry = "{\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"mcp-remote\", " + json_text(url) +
              ", \"--header\", \"Authorization:${OMGDB_AUTH_HEADER}\"],\n      \"env\": {\"OMGDB_AUTH_HEADER\": " +
              json_text("Bearer <the token printed by `omgdb token new`>") + "}\n    }";
    }
    out = "{\n  \"mcpServers\": {\n    \"omgdb\": " + entry + "\n  }\n}\n";
    where = client == "claude-code" ? ".mcp.json in the project (or `claude mcp add-json omgdb '<the omgdb entry>'`)"
            : client == "cursor"    ? "~/.cursor/mcp.json (or .cursor/mcp.json in the project)"
                                    : "claude_desktop_config.json (Settings → Developer → Edit Config)";
  }
  std::cout << out;
  std::cout.flush();
  std::cerr << "omgdb: paste into " << where << ".\n";
  if (!url.empty() && client != "claude-desktop") {
    std::cerr << "omgdb: the token is read from " << token_var << " in the client's environment; it is not in the snippet.\n";
  } else if (!url.empty()) {
    std::cerr << "omgdb: replace the placeholder with your token; Claude Desktop passes it to mcp-remote only.\n";
  }
  return 0;
}

}  // namespace omgdb::daemon
