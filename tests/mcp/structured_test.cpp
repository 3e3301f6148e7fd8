#include <doctest/doctest.h>

#include "common/json.hpp"
#include "mcp/modern.hpp"
#include "mcp/structured.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

bj::object result_of(const std::string& envelope) {
  auto v = json::parse_strict(envelope);
  REQUIRE(v.ok());
  return v->as_object().at("result").as_object();
}

mcp::tool_result texts(std::vector<std::string> t) {
  mcp::tool_result r;
  r.texts = std::move(t);
  return r;
}

}  // namespace

TEST_CASE("structured results start with revision 2025-06-18") {
  CHECK_FALSE(mcp::has_structured_results("2024-11-05"));
  CHECK_FALSE(mcp::has_structured_results("2025-03-26"));
  CHECK(mcp::has_structured_results("2025-06-18"));
  CHECK(mcp::has_structured_results("2025-11-25"));
  CHECK(mcp::has_structured_results("2026-07-28"));
  CHECK_FALSE(mcp::has_structured_results(""));
}

TEST_CASE("the legacy envelope without structure is byte for byte the one clients always had") {
  auto r = texts({"{\"a\":1}", "Note: x"});
  std::string out = mcp::call_result_envelope(bj::value(7), r, mcp::result_shape::json_object, {});
  CHECK(out == R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"a\":1}"},)"
               R"({"type":"text","text":"Note: x"}],"isError":false}})");
}

TEST_CASE("an object result carries the object as structuredContent beside its text") {
  auto res = result_of(mcp::call_result_envelope(bj::value("x"), texts({"{\"count\":3}", "Note: prose"}),
                                                 mcp::result_shape::json_object, {true, false}));
  CHECK(res.at("structuredContent") == bj::value(bj::object{{"count", 3}}));
  CHECK(res.at("content").as_array().size() == 2);
  CHECK_FALSE(res.contains("resultType"));
}

TEST_CASE("NDJSON becomes a documents list, with the members of a later JSON-object block") {
  auto r = texts({"{\"_id\":1}\n{\"_id\":2}\n", "{\"returned\":2,\"exhausted\":true}", "Note: more"});
  auto s = mcp::structured_content(r, mcp::result_shape::ndjson);
  REQUIRE(s);
  const auto& o = s->as_object();
  CHECK(o.at("documents").as_array().size() == 2);
  CHECK(o.at("returned") == bj::value(2));
  CHECK(o.at("exhausted") == bj::value(true));
  CHECK(o.size() == 3);
}

TEST_CASE("an empty NDJSON page is an empty documents list") {
  auto s = mcp::structured_content(texts({""}), mcp::result_shape::ndjson);
  REQUIRE(s);
  CHECK(s->as_object().at("documents").as_array().empty());
}

TEST_CASE("a document or null, and a list, are wrapped in an object as 2025-06-18 requires") {
  CHECK(*mcp::structured_content(texts({"null"}), mcp::result_shape::json_value) ==
        bj::value(bj::object{{"document", nullptr}}));
  CHECK(*mcp::structured_content(texts({"[\"a\",\"b\"]"}), mcp::result_shape::json_array) ==
        bj::value(bj::object{{"items", bj::array{"a", "b"}}}));
  for (auto shape : {mcp::result_shape::json_object, mcp::result_shape::json_array, mcp::result_shape::json_value,
                     mcp::result_shape::ndjson}) {
    auto schema = mcp::output_schema(shape);
    REQUIRE(schema);
    CHECK(schema->at("type") == bj::value("object"));
  }
  CHECK_FALSE(mcp::output_schema(mcp::result_shape::text));
}

TEST_CASE("errors, prose and text that is not its shape get no structuredContent") {
  auto failed = mcp::tool_result::failure("bad");
  CHECK_FALSE(mcp::structured_content(failed, mcp::result_shape::json_object));
  CHECK_FALSE(mcp::structured_content(texts({"# Manual"}), mcp::result_shape::text));
  CHECK_FALSE(mcp::structured_content(texts({"[1]"}), mcp::result_shape::json_object));
  CHECK_FALSE(mcp::structured_content(texts({"{\"a\":1}\nnot json\n"}), mcp::result_shape::ndjson));
  auto res = result_of(mcp::call_result_envelope(bj::value(1), failed, mcp::result_shape::json_object, {true, true}));
  CHECK_FALSE(res.contains("structuredContent"));
  CHECK(res.at("isError") == bj::value(true));
  CHECK(res.at("resultType") == bj::value("complete"));
}

TEST_CASE("tools/list entries gain outputSchema and _meta.requiredScope only for structured revisions") {
  mcp::tool t;
  t.name = "count";
  t.description = "Count.";
  t.required_scope = auth::scope::read_write;
  t.shape = mcp::result_shape::json_object;
  CHECK(mcp::describe_for(t, false) == mcp::describe(t));
  auto d = mcp::describe_for(t, true);
  CHECK(d.at("outputSchema") == bj::value(bj::object{{"type", "object"}}));
  CHECK(d.at("_meta").at("requiredScope") == bj::value("read-write"));
  t.shape = mcp::result_shape::text;
  CHECK_FALSE(mcp::describe_for(t, true).contains("outputSchema"));
}

TEST_CASE("a request is modern when its _meta declares a protocol version") {
  bj::object legacy{{"name", "get"}};
  CHECK_FALSE(mcp::declared_version(&legacy));
  CHECK_FALSE(mcp::declared_version(nullptr));
  bj::object modern{{"_meta", bj::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                         {"io.modelcontextprotocol/clientCapabilities", bj::object{}}}}};
  CHECK(mcp::declared_version(&modern) == std::optional<std::string_view>("2026-07-28"));
  CHECK(mcp::declares_capabilities(&modern));
  bj::object odd{{"_meta", bj::object{{"io.modelcontextprotocol/protocolVersion", 5}}}};
  CHECK(mcp::declared_version(&odd) == std::optional<std::string_view>(""));
  CHECK_FALSE(mcp::declares_capabilities(&odd));
  CHECK(mcp::modern_version_supported("2026-07-28"));
  CHECK_FALSE(mcp::modern_version_supported("2025-11-25"));
  auto err = mcp::unsupported_version_error("1900-01-01");
  CHECK(err.at("code") == bj::value(-32022));
  CHECK(err.at("data").at("requested") == bj::value("1900-01-01"));
  CHECK(err.at("data").at("supported").as_array().front() == bj::value("2026-07-28"));
}

TEST_CASE("a continuation given by the tool is a member of structuredContent in every shape") {
  auto r = texts({"{\"_id\":1}\n"});
  r.structured_extra["continuation"] = bj::object{{"afterId", 1}};
  auto s = mcp::structured_content(r, mcp::result_shape::ndjson);
  REQUIRE(s);
  CHECK(s->as_object().at("continuation").as_object().at("afterId") == bj::value(1));
  auto o = texts({"{\"ok\":true}"});
  o.structured_extra["continuation"] = bj::object{{"skip", 5}};
  auto so = mcp::structured_content(o, mcp::result_shape::json_object);
  REQUIRE(so);
  CHECK(so->as_object().at("ok") == bj::value(true));
  CHECK(so->as_object().at("continuation").as_object().at("skip") == bj::value(5));
}

TEST_CASE("a cut result that no longer parses still conforms to its output schema") {
  auto r = texts({"{\"_id\":1,\"big\":\"aaaa"});
  r.structured_extra["truncated"] = bj::object{{"shownBytes", 18}, {"totalBytes", 40000}};
  auto v = mcp::structured_content(r, mcp::result_shape::json_value);
  REQUIRE(v);
  CHECK(v->as_object().at("document").is_null());
  CHECK(v->as_object().at("truncated").as_object().at("totalBytes") == bj::value(40000));
  auto a = mcp::structured_content(r, mcp::result_shape::json_array);
  REQUIRE(a);
  CHECK(a->as_object().at("items").as_array().empty());
  auto plain = texts({"{\"_id\":1,\"big\":\"aaaa"});
  CHECK_FALSE(mcp::structured_content(plain, mcp::result_shape::json_value));  // not cut: no structure
}
