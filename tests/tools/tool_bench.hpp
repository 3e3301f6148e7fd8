// A temporary store and the document-tool catalogue over it, for tests that drive tools
// through their handlers (as the dispatcher would, minus the protocol).
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "auth/paths.hpp"
#include "common/json.hpp"
#include "tools/catalog.hpp"

namespace omgdb::test {

class tool_bench {
 public:
  explicit tool_bench(const std::string& prefix) {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / (prefix + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "app.omgdb").string();
    REQUIRE(engine::store::create(path_).ok());
    restart();
  }
  ~tool_bench() {
    stores_->close_all();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  tool_bench(const tool_bench&) = delete;
  tool_bench& operator=(const tool_bench&) = delete;

  // Closes every store and builds a fresh catalogue, as a restarted server would.
  void restart() {
    if (stores_) stores_->close_all();
    stores_ = std::make_shared<engine::store_registry>();
    tools_ = tools::document_tools(stores_);
  }

  const std::string& path() const { return path_; }
  const std::filesystem::path& dir() const { return dir_; }
  const std::shared_ptr<engine::store_registry>& stores() const { return stores_; }

  // Calls `name` with `args_json` (without `path`) at read-write scope, confined by `paths`.
  mcp::tool_result call(const std::string& name, const std::string& args_json,
                        std::shared_ptr<const auth::path_policy> paths = nullptr) {
    mcp::call_context ctx;
    ctx.scope = auth::scope::read_write;
    ctx.paths = std::move(paths);
    return call_in(ctx, name, args_json);
  }

  // The same with the caller's context (its cancellation flag, deadline, path policy).
  mcp::tool_result call_in(mcp::call_context& ctx, const std::string& name, const std::string& args_json) {
    auto parsed = json::parse_strict(args_json);
    REQUIRE(parsed.ok());
    boost::json::object args = parsed->as_object();
    if (!args.contains("path")) args["path"] = path_;
    for (auto& t : tools_) {
      if (t.name != name) continue;
      return t.handler(args, ctx);
    }
    FAIL("no tool " << name);
    return {};
  }

 private:
  std::filesystem::path dir_;
  std::string path_;
  std::shared_ptr<engine::store_registry> stores_;
  std::vector<mcp::tool> tools_;
};

}  // namespace omgdb::test
