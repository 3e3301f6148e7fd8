// tools/catalog and tools/tool_def: the one catalogue list, and tests built from it — every
// parameter of every tool described and decoded as declared.
#include <doctest/doctest.h>

#include <fstream>

#include "auth/paths.hpp"
#include "common/json.hpp"
#include "tests/tools/tool_bench.hpp"
#include "tools/catalog.hpp"

using namespace omgdb;
namespace bj = boost::json;

namespace {

// A value of the declared type, acceptable to every decoder (1 is within every bound).
bj::value valid_value(const mcp::param& p, const std::string& store_path) {
  if (p.name == "path") return bj::value(store_path);
  switch (p.type) {
    case mcp::param_type::string: return bj::value("x");
    case mcp::param_type::integer: return bj::value(1);
    case mcp::param_type::number: return bj::value(1.5);
    case mcp::param_type::boolean: return bj::value(true);
    case mcp::param_type::object: return bj::object{};
    case mcp::param_type::array:
    case mcp::param_type::array_of_objects: return bj::array{};
    case mcp::param_type::any: return bj::value(1);
  }
  return nullptr;
}

// A value of another type; nullopt for `any`, which takes every value.
std::optional<bj::value> wrong_value(const mcp::param& p) {
  switch (p.type) {
    case mcp::param_type::string: return bj::value(1);
    case mcp::param_type::integer:
    case mcp::param_type::number:
    case mcp::param_type::boolean: return bj::value("x");
    case mcp::param_type::object: return bj::value(bj::array{});
    case mcp::param_type::array:
    case mcp::param_type::array_of_objects: return bj::value(bj::object{});
    case mcp::param_type::any: return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> names_of(const std::vector<mcp::tool>& tools) {
  std::vector<std::string> out;
  for (const auto& t : tools) out.push_back(t.name);
  return out;
}

}  // namespace

TEST_CASE("the catalogue is the seeds' order of the implemented tools") {
  const std::vector<std::string> seed_000{
      "get", "inspect", "list_collections", "list_indexes", "find", "count_documents", "distinct", "cursor_open",
      "cursor_next", "cursor_close", "aggregate", "describe", "dump", "verify", "validate", "explain", "suggest_indexes",
      "diagnose", "search", "search_index_status", "vsearch", "vstale", "context_pack", "insert", "insert_many",
      "import_jsonl", "replace", "delete", "update_one", "update_many", "delete_many", "find_one_and_update",
      "bulk_write", "define_collection", "create_collection", "create_index", "create_named_index", "drop_index",
      "define_search_index", "drop_search_index", "rebuild_search_index", "markdown_set_section",
      "markdown_patch_frontmatter", "plan_update", "apply", "rollback", "vsync", "drop_collection"};
  const std::vector<std::string> seed_003{"getActiveSql", "getActiveConnectionContext", "getSchemaSummary",
                                          "getTableIndexes", "explainSql", "getLatestSqlExecutionError",
                                          "proposeSqlEdit", "executeSql"};
  CHECK(names_of(tools::document_tools(std::make_shared<engine::store_registry>())) == seed_000);
  std::vector<std::string> all = seed_000;
  all.insert(all.end(), seed_003.begin(), seed_003.end());
  std::vector<std::string> defs;
  for (const auto* d : tools::catalogue_defs()) defs.emplace_back(d->info.name);
  CHECK(defs == all);
}

TEST_CASE("tools/list shows a description for every parameter of every tool") {
  for (const auto* d : tools::catalogue_defs()) {
    auto entry = mcp::describe(d->make(tools::tool_env{}));
    for (const auto& prop : entry.at("inputSchema").at("properties").as_object()) {
      CAPTURE(d->info.name);
      CAPTURE(std::string(prop.key()));
      REQUIRE(prop.value().as_object().contains("description"));
      CHECK(prop.value().at("description").as_string().size() > 5);
    }
  }
}

TEST_CASE("the decoder accepts every declared parameter of its type and refuses each wrong type by name") {
  test::tool_bench b("omgdb-catalog-");
  const tools::tool_env env{b.stores(), nullptr};
  mcp::call_context ctx;
  const tools::call c{ctx, env, "test"};
  for (const auto* d : tools::catalogue_defs()) {
    CAPTURE(d->info.name);
    const auto params = d->params();
    bj::object args;
    for (const auto& p : params) args[p.name] = valid_value(p, b.path());
    auto ok = d->decode(args, c);
    CHECK_MESSAGE(ok.ok(), (ok ? std::string() : ok.error().message));
    for (const auto& p : params) {
      auto wrong = wrong_value(p);
      if (!wrong) continue;
      CAPTURE(p.name);
      bj::object bad = args;
      bad[p.name] = *wrong;
      auto refused = d->decode(bad, c);
      REQUIRE_FALSE(refused.ok());
      CHECK(refused.error().message.find("argument `" + p.name + "`") != std::string::npos);
    }
    for (const auto& p : params) {
      if (!p.required) continue;
      bj::object missing = args;
      missing.erase(p.name);
      auto refused = d->decode(missing, c);
      REQUIRE_FALSE(refused.ok());
      CHECK(refused.error().message == "missing argument `" + p.name + "`");
    }
  }
}

TEST_CASE("idempotentHint is true for exactly the read-only tools, delete and the two Markdown edits") {
  for (const auto& t : tools::document_tools(std::make_shared<engine::store_registry>())) {
    CAPTURE(t.name);
    const bool markdown_edit = t.name == "markdown_set_section" || t.name == "markdown_patch_frontmatter";
    CHECK(t.hints.idempotent == (t.hints.read_only || t.name == "delete" || markdown_edit));
    if (markdown_edit) CHECK(t.hints.destructive);
  }
}

TEST_CASE("store and file paths are confined by the calling session's policy, by role, not by name") {
  test::tool_bench b("omgdb-confine-");
  const auto lines = b.dir() / "in.jsonl";
  std::ofstream(lines) << "{\"_id\":1}\n";
  const auto elsewhere = std::filesystem::temp_directory_path() / "omgdb-not-under-the-root.jsonl";
  std::ofstream(elsewhere) << "{\"_id\":2}\n";
  auto inside = std::make_shared<auth::path_policy>(std::vector<std::filesystem::path>{b.dir()});
  auto other = std::make_shared<auth::path_policy>(std::vector<std::filesystem::path>{b.dir() / "sub"});
  CHECK_FALSE(b.call("count_documents", R"({"collection":"c"})", inside).is_error);
  auto refused = b.call("count_documents", R"({"collection":"c"})", other);
  REQUIRE(refused.is_error);
  CHECK(refused.texts.at(0).find("outside the store roots") != std::string::npos);
  const std::string far = json::serialize(bj::value(elsewhere.string()));
  auto file_refused = b.call("import_jsonl", R"({"collection":"c","file":)" + far + "}", inside);
  REQUIRE(file_refused.is_error);
  CHECK(file_refused.texts.at(0).find("outside the store roots") != std::string::npos);
  const std::string near = json::serialize(bj::value(lines.string()));
  CHECK(b.call("import_jsonl", R"({"collection":"c","file":)" + near + "}", inside).texts.at(0) ==
        R"({"imported":1,"batches":1})");
  // No policy (stdio, the command line): any path.
  CHECK_FALSE(b.call("import_jsonl", R"({"collection":"d","file":)" + far + "}").is_error);
  std::filesystem::remove(elsewhere);
}

TEST_CASE("a read on a collection that does not exist keeps its empty result and names the nearest one") {
  test::tool_bench b("omgdb-missing-");
  b.call("insert_many", R"({"collection":"users","documents":[{"_id":1},{"_id":2}]})");
  const std::string note = "Note: collection `user` does not exist; did you mean `users`?";
  const std::vector<std::pair<const char*, const char*>> reads{
      {"find", R"({"collection":"user"})"},
      {"count_documents", R"({"collection":"user"})"},
      {"distinct", R"({"collection":"user","field":"a"})"},
      {"update_many", R"({"collection":"user","filter":{},"update":{"$set":{"a":1}}})"},
      {"delete_many", R"({"collection":"user","filter":{}})"},
      {"cursor_open", R"({"collection":"user"})"},
      {"get", R"({"collection":"user","id":1})"}};
  for (const auto& [tool, args] : reads) {
    CAPTURE(tool);
    auto r = b.call(tool, args);
    REQUIRE_FALSE(r.is_error);
    REQUIRE(r.texts.size() >= 2);
    CHECK(r.texts.back() == note);
  }
  CHECK(b.call("count_documents", R"({"collection":"user"})").texts.front() == R"({"count":0})");
  CHECK(b.call("count_documents", R"({"collection":"users"})").texts.size() == 1);
  CHECK(b.call("find", R"({"collection":"zzzzzz"})").texts.back() ==
        "Note: collection `zzzzzz` does not exist; its collections are `users`.");
  CHECK(b.call("drop_collection", R"({"collection":"users"})").texts.size() == 1);  // gone, as asked
}

TEST_CASE("distinct with maxValues reached says how many values it returned and how many exist") {
  test::tool_bench b("omgdb-distinct-");
  b.call("insert_many", R"({"collection":"c","documents":[{"v":1},{"v":2},{"v":3},{"v":3.0},{"v":"x"}]})");
  auto r = b.call("distinct", R"({"collection":"c","field":"v","maxValues":2})");
  REQUIRE_FALSE(r.is_error);
  CHECK(r.texts.at(0) == R"({"values":[1,2],"count":2,"truncated":true,"distinctCount":4})");
  CHECK(r.texts.at(1).find("these are the first 2 in BSON order") != std::string::npos);
  CHECK(b.call("distinct", R"({"collection":"c","field":"v"})").texts.at(0) ==
        R"({"values":[1,2,3,"x"],"count":4,"truncated":false})");
}
