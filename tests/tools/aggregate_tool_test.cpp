// The aggregate tool through its handler: NDJSON output, the reply cap with its `$skip` note,
// the refusals ($out / $merge at every scope, JavaScript, unknown stages), wrong argument
// types, cancellation and progress.
#include <doctest/doctest.h>

#include <atomic>

#include "common/json.hpp"
#include "tests/tools/tool_bench.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

struct aggregate_bench : test::tool_bench {
  aggregate_bench() : test::tool_bench("omgdb-aggregate-tool-") {
    REQUIRE_FALSE(call("insert_many", R"({"collection":"orders","documents":[
        {"_id":1,"item":"pen","qty":5,"price":2.5},
        {"_id":2,"item":"ink","qty":2,"price":10},
        {"_id":3,"item":"pen","qty":1,"price":2.5},
        {"_id":4,"item":"pad","qty":7,"price":4}]})").is_error);
  }

  // Calls aggregate directly, with the context's scope, cap and hooks as given.
  mcp::tool_result run(const std::string& args_json, const mcp::call_context& base = {}) {
    auto parsed = json::parse_strict(args_json);
    REQUIRE(parsed.ok());
    bj::object args = parsed->as_object();
    if (!args.contains("path")) args["path"] = path();
    for (auto& t : tools::document_tools(stores())) {
      if (t.name != "aggregate") continue;
      mcp::call_context ctx = base;
      return t.handler(args, ctx);
    }
    FAIL("no aggregate tool");
    return {};
  }

  std::string error(const std::string& args_json, const mcp::call_context& base = {}) {
    auto r = run(args_json, base);
    REQUIRE(r.is_error);
    return r.texts.at(0);
  }
};

}  // namespace

TEST_CASE("aggregate groups a collection and returns NDJSON in relaxed Extended JSON") {
  aggregate_bench b;
  auto r = b.run(R"({"collection":"orders","pipeline":[
      {"$group":{"_id":"$item","qty":{"$sum":"$qty"},"revenue":{"$sum":{"$multiply":["$qty","$price"]}}}},
      {"$sort":{"_id":1}}]})");
  REQUIRE_FALSE(r.is_error);
  REQUIRE(r.texts.size() == 1);
  CHECK(r.texts[0] == "{\"_id\":\"ink\",\"qty\":2,\"revenue\":20}\n"
                      "{\"_id\":\"pad\",\"qty\":7,\"revenue\":28}\n"
                      "{\"_id\":\"pen\",\"qty\":6,\"revenue\":15.0}\n");
}

TEST_CASE("aggregate's tools/list entry is the seed's: path, collection and pipeline, all required, read scope") {
  for (const auto* d : tools::catalogue_defs()) {
    if (d->info.name != "aggregate") continue;
    std::vector<std::string> names;
    for (const auto& p : d->params()) {
      names.push_back(p.name);
      CHECK(p.required);
    }
    CHECK(names == std::vector<std::string>{"path", "collection", "pipeline"});
    CHECK(d->info.scope == auth::scope::read);
    CHECK_FALSE(d->info.hints.read_only);
    CHECK_FALSE(d->info.hints.idempotent);
    CHECK_FALSE(d->info.hints.destructive);
    return;
  }
  FAIL("aggregate is not in the catalogue");
}

TEST_CASE("an aggregate result over the reply limit is cut at a document and the note's $skip reads on") {
  aggregate_bench b;
  mcp::call_context small;
  small.max_result_bytes = 40;  // one line ({"_id":1,"item":"pen"} and its newline: 23 bytes)
  const std::string pipeline = R"([{"$project":{"item":1}}])";
  auto first = b.run(R"({"collection":"orders","pipeline":)" + pipeline + "}", small);
  REQUIRE_FALSE(first.is_error);
  REQUIRE(first.texts.size() == 2);
  CHECK(first.texts[0] == "{\"_id\":1,\"item\":\"pen\"}\n");
  CHECK(first.texts[1] ==
        "Result cut at the 40 bytes reply limit after 1 documents. More documents follow: to continue, call "
        "`aggregate` again with the same path, collection and pipeline with {\"$skip\": 1} appended to the pipeline.");
  // Following the note until no note comes back reads every document exactly once.
  std::string all = first.texts[0];
  std::uint64_t skip = 1;
  for (int guard = 0; guard < 10; ++guard) {
    auto next = b.run(R"({"collection":"orders","pipeline":[{"$project":{"item":1}},{"$skip":)" +
                          std::to_string(skip) + "}]}",
                      small);
    REQUIRE_FALSE(next.is_error);
    all += next.texts[0];
    if (next.texts.size() == 1) break;
    skip += 1;
  }
  CHECK(all == "{\"_id\":1,\"item\":\"pen\"}\n{\"_id\":2,\"item\":\"ink\"}\n{\"_id\":3,\"item\":\"pen\"}\n"
               "{\"_id\":4,\"item\":\"pad\"}\n");
}

TEST_CASE("a first document larger than the reply limit is returned alone, so paging advances") {
  aggregate_bench b;
  mcp::call_context tiny;
  tiny.max_result_bytes = 5;
  auto r = b.run(R"({"collection":"orders","pipeline":[{"$match":{"qty":{"$gt":4}}}]})", tiny);
  REQUIRE(r.texts.size() == 2);
  CHECK(r.texts[0] == "{\"_id\":1,\"item\":\"pen\",\"qty\":5,\"price\":2.5}\n");
  CHECK(r.texts[1].find("{\"$skip\": 1}") != std::string::npos);
}

TEST_CASE("$out and $merge are refused at every scope, naming the write tools, and nothing is written") {
  aggregate_bench b;
  for (auto scope : {auth::scope::read, auth::scope::read_write, auth::scope::dangerous}) {
    mcp::call_context ctx;
    ctx.scope = scope;
    CHECK(b.error(R"({"collection":"orders","pipeline":[{"$match":{}},{"$out":"copy"}]})", ctx) ==
          "Error: stage 2: `$out` is not supported: `aggregate` is a read tool and never writes documents; "
          "write the results with `insert_many`, `bulk_write` or `update_many` instead");
    CHECK(b.error(R"({"collection":"orders","pipeline":[{"$facet":{"a":[{"$merge":{"into":"copy"}}]}}]})", ctx)
              .find("`$merge` is not supported: `aggregate` is a read tool") != std::string::npos);
  }
  CHECK(b.call("list_collections", "{}").texts.at(0) == R"(["orders"])");
}

TEST_CASE("an unknown stage is refused naming the nearest known one") {
  aggregate_bench b;
  CHECK(b.error(R"({"collection":"orders","pipeline":[{"$grup":{"_id":"$item"}}]})") ==
        "Error: stage 1: unknown stage `$grup` (did you mean `$group`?)");
  CHECK(b.error(R"({"collection":"orders","pipeline":[{"$match":{}},{"$sortt":{"a":1}}]})") ==
        "Error: stage 2: unknown stage `$sortt` (did you mean `$sort`?)");
}

TEST_CASE("server-side JavaScript in a pipeline is refused") {
  aggregate_bench b;
  CHECK(b.error(R"({"collection":"orders","pipeline":[{"$group":{"_id":null,"x":{"$accumulator":{}}}}]})")
            .find("JavaScript") != std::string::npos);
}

TEST_CASE("aggregate refuses a pipeline of the wrong type and a missing one, by argument name") {
  aggregate_bench b;
  CHECK(b.error(R"({"collection":"orders","pipeline":{"$match":{}}})").find("argument `pipeline`") !=
        std::string::npos);
  CHECK(b.error(R"({"collection":"orders","pipeline":["$match"]})").find("argument `pipeline`") !=
        std::string::npos);
  CHECK(b.error(R"({"collection":"orders"})") == "Error: missing argument `pipeline`");
  CHECK(b.error(R"({"collection":7,"pipeline":[]})").find("argument `collection`") != std::string::npos);
  CHECK(b.error(R"({"collection":"orders","pipeline":[{"$match":{},"$limit":1}]})") ==
        "Error: stage 1: each stage must be a document with exactly one field, the stage name");
}

TEST_CASE("a stage's run-time error fails the call with the stage's message") {
  aggregate_bench b;
  CHECK(b.error(R"({"collection":"orders","pipeline":[{"$project":{"x":{"$divide":["$qty",0]}}}]})")
            .find("divide by zero") != std::string::npos);
}

TEST_CASE("a cancelled call stops the pipeline with an error, and progress reports documents read") {
  aggregate_bench b;
  std::string many = R"({"collection":"big","documents":[)";
  for (int i = 0; i < 3000; ++i) many += (i ? "," : "") + std::string("{\"_id\":") + std::to_string(i) + "}";
  REQUIRE_FALSE(b.call("insert_many", many + "]}").is_error);

  std::atomic<bool> cancelled{true};
  mcp::call_context stop;
  stop.cancelled = &cancelled;
  CHECK(b.error(R"({"collection":"big","pipeline":[{"$count":"n"}]})", stop).find("cancelled") != std::string::npos);

  std::vector<double> reported;
  mcp::call_context watched;
  watched.progress = [&](double done, double, const std::string&) { reported.push_back(done); };
  auto r = b.run(R"({"collection":"big","pipeline":[{"$count":"n"}]})", watched);
  REQUIRE_FALSE(r.is_error);
  CHECK(r.texts.at(0) == "{\"n\":3000}\n");
  CHECK(reported == std::vector<double>{1000, 2000, 3000});
}

TEST_CASE("aggregate over a collection that does not exist returns nothing and names the nearest one") {
  aggregate_bench b;
  auto r = b.run(R"({"collection":"order","pipeline":[{"$count":"n"}]})");
  REQUIRE_FALSE(r.is_error);
  CHECK(r.texts.at(0).empty());
  CHECK(r.texts.back() == "Note: collection `order` does not exist; did you mean `orders`?");
}

TEST_CASE("aggregate sees the stored numeric types exactly: an int64 is a long, an int32 an int") {
  aggregate_bench b;
  REQUIRE_FALSE(b.call("insert", R"({"collection":"n","document":{"_id":1,"l":{"$numberLong":"7"},"i":7,"d":7.0}})")
                    .is_error);
  auto r = b.run(R"({"collection":"n","pipeline":[{"$project":{"_id":0,"l":{"$type":"$l"},"i":{"$type":"$i"},
      "d":{"$type":"$d"},"sum":{"$type":{"$add":["$l","$i"]}}}}]})");
  REQUIRE_FALSE(r.is_error);
  CHECK(r.texts.at(0) == "{\"l\":\"long\",\"i\":\"int\",\"d\":\"double\",\"sum\":\"long\"}\n");
}
