// omgdb daemon — the effective settings and the tool catalogue of a process.
#include "daemon/runtime.hpp"

#include "daemon/model_commands.hpp"
#include "engine/context/tokens.hpp"
#include "tools/catalog.hpp"
#include "tools/profiles.hpp"

namespace omgdb::daemon {

result<config::settings> effective_settings(const std::optional<std::string>& config_file,
                                            const config::overrides& given) {
  std::optional<std::filesystem::path> file;
  if (config_file) file = std::filesystem::path(*config_file);
  auto s = config::resolve(file);
  if (!s) return s;
  if (auto ok = config::apply_environment(*s); !ok) return std::move(ok).error();
  if (auto ok = config::apply_overrides(*s, given); !ok) return std::move(ok).error();
  engine::context::set_o200k_file(s->o200k_file);  // context_pack's token counter
  return s;
}

std::vector<mcp::tool> build_catalogue(std::shared_ptr<live_settings> live,
                                       std::shared_ptr<engine::store_registry> stores,
                                       std::shared_ptr<sql::service> sql) {
  // The SQL service follows SIGHUP itself (serve.cpp hands it the reloaded connections); the
  // tool profiles are read once (a change needs a restart: config::changed_sections).
  const auto profiles = live ? live->current()->tool_profiles : std::vector<std::string>{"all"};
  // The installed embedding models (daemon/model_commands.hpp), loaded on first use; the
  // default model ([vectors] default_model) is read at start.
  std::string default_model = live ? live->current()->default_model : std::string();
  auto models = std::make_shared<const engine::embed::model_registry>(models_dir(), std::move(default_model));
  auto tools = tools::catalogue(tools::tool_env{std::move(stores), std::move(sql), std::move(models)});
  tools::apply_profiles(tools, profiles);
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
          name + "` did nothing. Run `omgdb mcp` (stdio) or `omgdb serve` (HTTP) to use the tools.",
          failure_kind::unavailable);
    };
  }
  return tools;
}

}  // namespace omgdb::daemon
