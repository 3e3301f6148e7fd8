// omgdb daemon — the effective settings and the tool catalogue of a process.
#include "daemon/runtime.hpp"

#include "auth/paths.hpp"
#include "tools/catalog.hpp"
#include "tools/sql_tools.hpp"

namespace omgdb::daemon {

result<config::settings> effective_settings(const std::optional<std::string>& config_file,
                                            const config::overrides& given) {
  std::optional<std::filesystem::path> file;
  if (config_file) file = std::filesystem::path(*config_file);
  auto s = config::resolve(file);
  if (!s) return s;
  if (auto ok = config::apply_environment(*s); !ok) return std::move(ok).error();
  if (auto ok = config::apply_overrides(*s, given); !ok) return std::move(ok).error();
  return s;
}

namespace {

// A tool that reads a file named by a `file` argument (import_jsonl) gets the same
// confinement as store paths: under `omgdb serve` with store roots, the file must be inside.
void confine_file_argument(mcp::tool& t) {
  bool takes_file = false;
  for (const auto& p : t.params) takes_file = takes_file || (p.name == "file" && p.type == mcp::param_type::string);
  if (!takes_file) return;
  t.handler = [inner = std::move(t.handler)](const boost::json::object& args, mcp::call_context& ctx) {
    auto it = args.find("file");
    if (it == args.end() || !it->value().is_string()) return inner(args, ctx);
    auto confined = auth::confine_store_path(std::string_view(it->value().get_string()),
                                             auth::confined_argument::file);
    if (!confined) return mcp::tool_result::failure(confined.error().message);
    boost::json::object copy = args;
    copy["file"] = *confined;
    return inner(copy, ctx);
  };
}

}  // namespace

std::vector<mcp::tool> build_catalogue(std::shared_ptr<live_settings> live,
                                       std::shared_ptr<engine::store_registry> stores,
                                       std::shared_ptr<sql::service> sql) {
  // The SQL service follows SIGHUP itself (serve.cpp hands it the reloaded connections).
  (void)live;
  auto tools = tools::document_tools(std::move(stores));
  for (auto& t : tools) confine_file_argument(t);
  for (auto& t : tools::sql_tools(std::move(sql))) tools.push_back(std::move(t));
  return tools;
}

std::vector<mcp::tool> standalone_catalogue() {
  // The registry is never used: every handler is replaced before anything can call it.
  auto tools = build_catalogue(std::make_shared<live_settings>(config::settings{}),
                               std::make_shared<engine::store_registry>());
  for (auto& t : tools) {
    t.handler = [name = t.name](const boost::json::object&, mcp::call_context&) {
      return mcp::tool_result::failure(
          "unavailable: omgdb runs in standalone mode (`omgdb mcp --standalone`), which only lists its tools; `" +
          name + "` did nothing. Run `omgdb mcp` (stdio) or `omgdb serve` (HTTP) to use the tools.");
    };
  }
  return tools;
}

}  // namespace omgdb::daemon
