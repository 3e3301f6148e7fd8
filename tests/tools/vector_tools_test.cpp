// tools/vector_tools: vsync, vstale and vsearch through their handlers, with a model
// directory the test writes; verify lists the vector cache; the write tools refuse
// `<collection>.__vectors`.
#include <doctest/doctest.h>

#include "common/json.hpp"
#include "engine/embed/loaders.hpp"
#include "tests/engine/embed/model_files.hpp"
#include "tests/tools/tool_bench.hpp"
#include "tools/catalog.hpp"

using namespace omgdb;
namespace bj = boost::json;

namespace {

struct vector_bench {
  test::tool_bench b{"omgdb-vector-tools-"};
  std::vector<mcp::tool> tools;

  vector_bench() {
    engine::test::write_file(b.dir() / "w.txt",
                             "cat 1 0 0\nkitten 0.9 0.1 0\ndog 0.6 0.8 0\ntable 0 0 1\nchair 0 0.1 0.9\n");
    REQUIRE(engine::embed::install_model(b.dir() / "models", "tiny", b.dir() / "w.txt", std::string(64, 'f')).ok());
    tools = tools::catalogue(
        tools::tool_env{b.stores(), nullptr, std::make_shared<engine::embed::model_registry>(b.dir() / "models")});
  }

  mcp::tool_result call(const std::string& name, const std::string& args_json) {
    auto parsed = json::parse_strict(args_json);
    REQUIRE(parsed.ok());
    bj::object args = parsed->as_object();
    args["path"] = b.path();
    for (auto& t : tools) {
      if (t.name != name) continue;
      mcp::call_context ctx;
      ctx.scope = auth::scope::read_write;
      return t.handler(args, ctx);
    }
    FAIL("no tool " << name);
    return {};
  }
  bj::object json_of(const std::string& name, const std::string& args_json) {
    auto r = call(name, args_json);
    REQUIRE_MESSAGE(!r.is_error, r.texts.at(0));
    auto j = json::parse_strict(r.texts.at(0));
    REQUIRE(j.ok());
    return j->as_object();
  }
};

}  // namespace

TEST_CASE("vsync, vstale and vsearch answer through the tools with counts, binding and ranked _ids") {
  vector_bench v;
  REQUIRE_FALSE(v.call("insert_many", R"({"collection":"pets","documents":[
      {"_id":1,"name":"a kitten"},{"_id":2,"name":"the dog"},{"_id":3,"name":"a table"},{"_id":4,"name":"chair"}]})")
                    .is_error);
  auto synced = v.json_of("vsync", R"({"collection":"pets","field":"name","model":"tiny"})");
  CHECK(synced.at("embedded").as_int64() == 4);
  CHECK(synced.at("collection").as_string() == "pets.__vectors");
  CHECK(synced.at("binding").at("model").as_string() == "tiny");
  auto found = v.json_of("vsearch", R"({"collection":"pets","field":"name","query":"cat","k":2})");
  const auto& results = found.at("results").as_array();
  REQUIRE(results.size() == 2);
  CHECK(results[0].at("_id").as_int64() == 1);
  CHECK(results[1].at("_id").as_int64() == 2);
  CHECK(found.at("stale").as_int64() == 0);
  CHECK(found.at("method").as_string() == "exact");
  auto filtered = v.json_of("vsearch", R"({"collection":"pets","field":"name","query":"dog","filter":{"_id":{"$gt":2}}})");
  CHECK(filtered.at("results").as_array().size() == 2);
  CHECK(filtered.at("results").as_array()[0].at("_id").as_int64() == 4);  // chair leans to dog more than table
  REQUIRE_FALSE(v.call("update_one", R"({"collection":"pets","filter":{"_id":3},"update":{"$set":{"name":"cat"}}})").is_error);
  auto stale = v.json_of("vstale", R"({"collection":"pets","field":"name"})");
  CHECK(json::serialize(stale.at("ids")) == "[3]");
  CHECK(stale.at("truncated").as_bool() == false);
  auto noted = v.json_of("vsearch", R"({"collection":"pets","field":"name","query":"cat"})");
  CHECK(noted.at("stale").as_int64() == 1);
  CHECK(noted.at("note").as_string().find("stale or missing") != std::string::npos);
  auto verified = v.json_of("verify", "{}");
  CHECK(verified.at("ok").as_bool());
  REQUIRE(verified.at("caches").as_array().size() == 1);
  CHECK(verified.at("caches").as_array()[0].at("kind").as_string() == "vectors");
}

TEST_CASE("the write tools refuse `.__vectors` collections, which stay readable") {
  vector_bench v;
  REQUIRE_FALSE(v.call("insert", R"({"collection":"pets","document":{"_id":1,"name":"cat"}})").is_error);
  REQUIRE_FALSE(v.call("vsync", R"({"collection":"pets","field":"name","model":"tiny"})").is_error);
  auto refused = v.call("insert", R"({"collection":"pets.__vectors","document":{"_id":9}})");
  REQUIRE(refused.is_error);
  CHECK(refused.texts.at(0).find("written only by vsync") != std::string::npos);
  CHECK(v.call("delete_many", R"({"collection":"pets.__vectors","filter":{}})").is_error);
  auto n = v.json_of("count_documents", R"({"collection":"pets.__vectors"})");
  CHECK(n.at("count").as_int64() == 2);
}

TEST_CASE("vsearch names the missing model and how to install it") {
  vector_bench v;
  REQUIRE_FALSE(v.call("insert", R"({"collection":"pets","document":{"_id":1,"name":"cat"}})").is_error);
  auto r = v.call("vsync", R"({"collection":"pets","field":"name","model":"glove"})");
  REQUIRE(r.is_error);
  CHECK(r.texts.at(0).find("model `glove` is not installed") != std::string::npos);
  CHECK(r.texts.at(0).find("omgdb model add glove PATH") != std::string::npos);
}

TEST_CASE("vsync with only the seed's parameters (path, collection, field) binds the only installed model") {
  vector_bench v;
  REQUIRE_FALSE(v.call("insert_many", R"({"collection":"pets","documents":[{"_id":1,"name":"a kitten"},{"_id":2,"name":"chair"}]})")
                    .is_error);
  auto synced = v.json_of("vsync", R"({"collection":"pets","field":"name"})");
  CHECK(synced.at("embedded").as_int64() == 2);
  CHECK(synced.at("binding").at("model").as_string() == "tiny");
  CHECK(synced.at("rebound").as_bool());
  auto found = v.json_of("vsearch", R"({"collection":"pets","field":"name","query":"cat","k":1})");
  CHECK(found.at("results").as_array().at(0).at("_id").as_int64() == 1);
}
