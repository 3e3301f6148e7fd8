// Every tool result is bounded by the reply limit (tools/result_bound.cpp, docs/limits.md
// "Replies"): tools that do not page are cut after they ran, with a note in text and a
// "truncated" member for structuredContent; paging tools give their continuation as a member.
#include <doctest/doctest.h>

#include <string>

#include <boost/json/serialize.hpp>

#include "mcp/structured.hpp"
#include "tests/tools/tool_bench.hpp"
#include "tools/result_bound.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

std::size_t total_bytes(const mcp::tool_result& r) {
  std::size_t n = 0;
  for (const auto& t : r.texts) n += t.size();
  return n;
}

mcp::tool_result with_limit(test::tool_bench& b, std::size_t limit, const std::string& tool, const std::string& args) {
  mcp::call_context ctx;
  ctx.scope = auth::scope::read_write;
  ctx.max_result_bytes = limit;
  return b.call_in(ctx, tool, args);
}

}  // namespace

TEST_CASE("the default reply limit is 24 KiB, under 10,000 tokens at 2.62 bytes a token") {
  mcp::call_context ctx;
  CHECK(ctx.max_result_bytes == 24 * 1024);
  CHECK(ctx.max_result_bytes / 2.62 < 10000);
}

TEST_CASE("get of a document larger than the reply limit is cut with a note and a truncated member") {
  test::tool_bench b("omgdb-result-bound-");
  const std::string big(200 * 1024, 'x');
  REQUIRE_FALSE(b.call("insert", R"({"collection":"c","document":{"_id":1,"body":")" + big + R"("}})").is_error);
  auto r = with_limit(b, 4096, "get", R"({"collection":"c","id":1})");
  REQUIRE_FALSE(r.is_error);
  CHECK(total_bytes(r) < 4096 + tools::k_note_room);
  CHECK(r.texts.front().size() <= 4096);
  CHECK(r.texts.back().find("Result cut at the 4 KiB reply limit") != std::string::npos);
  CHECK(r.texts.back().find("`find`") != std::string::npos);  // how to read it in parts
  REQUIRE(r.structured_extra.contains("truncated"));
  const auto& t = r.structured_extra.at("truncated").as_object();
  CHECK(t.at("limitBytes") == bj::value(4096));
  CHECK(t.at("totalBytes").to_number<std::int64_t>() > 200 * 1024);
  auto s = mcp::structured_content(r, mcp::result_shape::json_value);
  REQUIRE(s);  // still conforms to get's output schema
  CHECK(s->as_object().at("document").is_null());
}

TEST_CASE("a result within the reply limit is left exactly as the tool made it") {
  test::tool_bench b("omgdb-result-bound-");
  REQUIRE_FALSE(b.call("insert", R"({"collection":"c","document":{"_id":1,"a":"b"}})").is_error);
  auto r = with_limit(b, 4096, "get", R"({"collection":"c","id":1})");
  REQUIRE(r.texts.size() == 1);
  CHECK(r.texts.front() == R"({"_id":1,"a":"b"})");
  CHECK(r.structured_extra.empty());
}

TEST_CASE("describe of many collections is cut at the reply limit") {
  test::tool_bench b("omgdb-result-bound-");
  for (int i = 0; i < 60; ++i) {
    const std::string name = "collection_with_a_long_name_" + std::to_string(i);
    REQUIRE_FALSE(b.call("insert", R"({"collection":")" + name + R"(","document":{"_id":1,"field_a":1,"field_b":"x"}})").is_error);
  }
  auto full = with_limit(b, 1 << 20, "describe", "{}");
  REQUIRE_FALSE(full.is_error);
  REQUIRE(total_bytes(full) > 2048 + tools::k_note_room);
  auto r = with_limit(b, 2048, "describe", "{}");
  REQUIRE_FALSE(r.is_error);
  CHECK(r.texts.front().size() <= 2048);
  CHECK(r.texts.front() == full.texts.front().substr(0, r.texts.front().size()));
  CHECK(r.structured_extra.contains("truncated"));
}

TEST_CASE("a cut never splits a UTF-8 character") {
  mcp::tool_result r = mcp::tool_result::text("a");
  for (int i = 0; i < 20000; ++i) r.texts[0] += "\xC3\xA9";  // é, two bytes each
  tools::bound_result(r, 1026, "describe", mcp::result_shape::text);  // byte 1026 is mid-character
  CHECK(r.texts.front().size() == 1025);
}

TEST_CASE("an NDJSON result is cut after its last whole line") {
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += R"({"_id":)" + std::to_string(i) + R"(,"pad":"0123456789"})" + "\n";
  mcp::tool_result r = mcp::tool_result::text(lines);
  tools::bound_result(r, 1000, "search", mcp::result_shape::ndjson);
  CHECK(r.texts.front().size() <= 1000);
  CHECK(r.texts.front().back() == '\n');
  auto s = mcp::structured_content(r, mcp::result_shape::ndjson);
  REQUIRE(s);
  CHECK(!s->as_object().at("documents").as_array().empty());
  CHECK(r.texts.back().find("whole documents") != std::string::npos);
}

TEST_CASE("find's continuation is a member of structuredContent: the next call's arguments") {
  test::tool_bench b("omgdb-result-bound-");
  std::string docs;
  for (int i = 0; i < 200; ++i) docs += std::string(i ? "," : "") + R"({"_id":)" + std::to_string(i) + R"(,"pad":"0123456789abcdef"})";
  REQUIRE_FALSE(b.call("insert_many", R"({"collection":"c","documents":[)" + docs + "]}").is_error);
  auto r = with_limit(b, 1024, "find", R"({"collection":"c","sort":{"_id":1}})");
  REQUIRE_FALSE(r.is_error);
  REQUIRE(r.structured_extra.contains("continuation"));
  const auto& c = r.structured_extra.at("continuation").as_object();
  REQUIRE(c.contains("afterId"));
  // The continuation reads on exactly where the page stopped.
  const std::int64_t last = c.at("afterId").to_number<std::int64_t>();
  std::string args = R"({"collection":"c","sort":{"_id":1},"afterId":)" + std::to_string(last);
  if (c.contains("afterSortKey")) args += R"(,"afterSortKey":)" + bj::serialize(c.at("afterSortKey"));
  auto next = with_limit(b, 1024, "find", args + "}");
  REQUIRE_FALSE(next.is_error);
  CHECK(next.texts.front().rfind(R"({"_id":)" + std::to_string(last + 1) + ",", 0) == 0);
}

TEST_CASE("aggregate's continuation names the $skip stage to append") {
  test::tool_bench b("omgdb-result-bound-");
  std::string docs;
  for (int i = 0; i < 200; ++i) docs += std::string(i ? "," : "") + R"({"_id":)" + std::to_string(i) + R"(,"pad":"0123456789abcdef"})";
  REQUIRE_FALSE(b.call("insert_many", R"({"collection":"c","documents":[)" + docs + "]}").is_error);
  auto r = with_limit(b, 1024, "aggregate", R"({"collection":"c","pipeline":[{"$sort":{"_id":1}}]})");
  REQUIRE(r.structured_extra.contains("continuation"));
  const auto& skip = r.structured_extra.at("continuation").as_object().at("appendStage").as_object().at("$skip");
  CHECK(skip.to_number<std::int64_t>() > 0);
  CHECK(skip.to_number<std::int64_t>() < 200);
}
