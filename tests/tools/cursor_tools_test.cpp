// The cursor tools end to end through their tool handlers: cursor_open → cursor_next with the
// token read from the result, across a restart of the store, until exhausted; then close.
#include <doctest/doctest.h>

#include "common/json.hpp"
#include "tests/tools/tool_bench.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

struct cursor_bench : test::tool_bench {
  cursor_bench() : test::tool_bench("omgdb-cursor-tools-") {}
};

struct batch {
  std::string ndjson;
  bj::object meta;
};

batch read_batch(const mcp::tool_result& r) {
  REQUIRE_MESSAGE(!r.is_error, (r.texts.empty() ? "" : r.texts.front()));
  REQUIRE(r.texts.size() == 2);
  auto meta = json::parse_strict(r.texts[1]);
  REQUIRE(meta.ok());
  return {r.texts[0], meta->as_object()};
}

std::string token_of(const batch& b) { return std::string(b.meta.at("token").as_string()); }

}  // namespace

TEST_CASE("a cursor opened through the tools continues after a restart and is then exhausted") {
  cursor_bench bench;
  REQUIRE_FALSE(bench.call("insert_many", R"({"collection":"c","documents":[{"_id":1,"k":3},{"_id":2,"k":1},
      {"_id":3,"k":2},{"_id":4,"k":5},{"_id":5,"k":4}]})").is_error);
  auto first = read_batch(bench.call("cursor_open", R"({"collection":"c","sort":{"k":1},"batchSize":2})"));
  CHECK(first.ndjson == "{\"_id\":2,\"k\":1}\n{\"_id\":3,\"k\":2}\n");
  CHECK(first.meta.at("returned").as_int64() == 2);
  CHECK(first.meta.at("exhausted").as_bool() == false);
  const std::string token = token_of(first);
  CHECK(token.size() == 32);

  bench.restart();
  auto second = read_batch(bench.call("cursor_next", R"({"token":")" + token + R"("})"));
  CHECK(second.ndjson == "{\"_id\":1,\"k\":3}\n{\"_id\":5,\"k\":4}\n");
  CHECK(token_of(second) == token);
  auto third = read_batch(bench.call("cursor_next", R"({"token":")" + token + R"(","batchSize":5})"));
  CHECK(third.ndjson == "{\"_id\":4,\"k\":5}\n");
  CHECK(third.meta.at("exhausted").as_bool() == true);
  auto gone = bench.call("cursor_next", R"({"token":")" + token + R"("})");
  CHECK(gone.is_error);
  CHECK(gone.texts.front().starts_with("Error: no cursor `" + token + "` in this store"));
}

TEST_CASE("cursor_close through the tools removes the cursor") {
  cursor_bench bench;
  REQUIRE_FALSE(bench.call("insert_many", R"({"collection":"c","documents":[{"_id":1},{"_id":2}]})").is_error);
  const std::string token = token_of(read_batch(bench.call("cursor_open", R"({"collection":"c","batchSize":1})")));
  auto closed = bench.call("cursor_close", R"({"token":")" + token + R"("})");
  REQUIRE_FALSE(closed.is_error);
  CHECK(closed.texts.front() == "{\"token\":\"" + token + "\",\"closed\":true}");
  CHECK(bench.call("cursor_next", R"({"token":")" + token + R"("})").is_error);
  CHECK(bench.call("cursor_close", R"({"token":")" + token + R"("})").is_error);
}
