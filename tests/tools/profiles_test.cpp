// Tool profiles (tools/profiles.cpp, docs/tools.md): a server lists and serves only the tools of
// its profiles; the default is the seeds' full catalogue.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "config/config.hpp"
#include "tools/catalog.hpp"
#include "tools/profiles.hpp"

using namespace omgdb;

namespace {

std::vector<std::string> names_of(const std::vector<std::string>& profiles) {
  auto tools = tools::document_tools(std::make_shared<engine::store_registry>());
  tools::apply_profiles(tools, profiles);
  std::vector<std::string> out;
  for (const auto& t : tools) out.push_back(t.name);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& name) { return std::find(v.begin(), v.end(), name) != v.end(); }

}  // namespace

TEST_CASE("no profile and the profile all both serve the full catalogue") {
  const auto all = names_of({});
  CHECK(all.size() == tools::document_tools(std::make_shared<engine::store_registry>()).size());
  CHECK(names_of({"all"}) == all);
  CHECK(names_of({"core", "all"}) == all);
}

TEST_CASE("every document tool belongs to core or search, so no tool is unreachable by profile") {
  for (const auto& name : names_of({})) {
    CAPTURE(name);
    CHECK((tools::in_profile("core", name) || tools::in_profile("search", name)));
  }
}

TEST_CASE("core holds the document tools but not search, vectors or context packs") {
  const auto core = names_of({"core"});
  CHECK(has(core, "find"));
  CHECK(has(core, "update_many"));
  CHECK(has(core, "aggregate"));
  CHECK_FALSE(has(core, "search"));
  CHECK_FALSE(has(core, "vsearch"));
  CHECK_FALSE(has(core, "context_pack"));
  CHECK(core.size() < names_of({}).size());
}

TEST_CASE("search holds retrieval and a few reads; profiles combine as a union in catalogue order") {
  const auto search = names_of({"search"});
  CHECK(has(search, "search"));
  CHECK(has(search, "context_pack"));
  CHECK(has(search, "get"));
  CHECK_FALSE(has(search, "update_many"));
  const auto both = names_of({"search", "core"});
  CHECK(both == names_of({"core", "search"}));
  CHECK(both.size() == names_of({}).size());
}

TEST_CASE("sql holds only the SQL tools: a document catalogue keeps nothing") {
  CHECK(names_of({"sql"}).empty());
  CHECK(tools::in_profile("sql", "executeSql"));
  CHECK_FALSE(tools::in_profile("sql", "find"));
}

TEST_CASE("the profile names the config accepts are the ones the tools know") {
  for (auto p : config::k_tool_profiles) CHECK(config::is_tool_profile(p));
  CHECK_FALSE(config::is_tool_profile("everything"));
}
