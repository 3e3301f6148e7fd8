#include <doctest/doctest.h>

#include "common/json.hpp"
#include "mcp/did_you_mean.hpp"
#include "mcp/tool.hpp"

namespace bj = boost::json;
using namespace omgdb;

namespace {

mcp::tool find_like() {
  mcp::tool t;
  t.name = "find";
  t.description = "Find documents.";
  t.params = {{"path", mcp::param_type::string, true},
              {"collection", mcp::param_type::string, true},
              {"filter", mcp::param_type::object, false},
              {"limit", mcp::param_type::integer, false},
              {"afterId", mcp::param_type::any, false}};
  t.hints = {true, true, false};
  return t;
}

bj::object args(const char* text) { return json::parse_strict(text)->as_object(); }

}  // namespace

TEST_CASE("the input schema lists properties in order and exactly the required ones") {
  auto schema = mcp::input_schema(find_like());
  CHECK(json::serialize(schema) ==
        R"({"type":"object","properties":{"path":{"type":"string"},"collection":{"type":"string"},)"
        R"("filter":{"type":"object"},"limit":{"type":"integer"},"afterId":{}},)"
        R"("required":["path","collection"],"additionalProperties":false})");
}

TEST_CASE("a tools/list entry carries the annotations and the required scope") {
  auto entry = mcp::describe(find_like());
  CHECK(json::serialize(entry.at("annotations")) ==
        R"({"readOnlyHint":true,"idempotentHint":true,"destructiveHint":false,"requiredScope":"read"})");
  CHECK(entry.at("name") == "find");
  CHECK(entry.at("description") == "Find documents.");
}

TEST_CASE("arguments are checked for presence, then type, then unknown names") {
  auto t = find_like();
  CHECK(mcp::check_arguments(t, args("{}")) == "missing argument `path`");
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":1})")) ==
        "argument `collection` must be a string, not an integer");
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":"c","limit":2.0})")) == std::nullopt);
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":"c","limit":2.5})")) ==
        "argument `limit` must be an integer, not a number");
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":"c","afterId":[1]})")) == std::nullopt);
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":"c","limt":1})")) ==
        "unknown argument `limt` for tool `find` (did you mean `limit`?); it takes: path, collection, filter, "
        "limit, afterId");
  CHECK(mcp::check_arguments(t, args(R"({"path":"p","collection":"c","zzzzzz":1})")) ==
        "unknown argument `zzzzzz` for tool `find`; it takes: path, collection, filter, limit, afterId");
}

TEST_CASE("did-you-mean suggests only close names") {
  CHECK(mcp::edit_distance("kitten", "sitting") == 3);
  CHECK(mcp::closest("fitler", {"filter", "sort"}) == "filter");
  CHECK(mcp::closest("xyz", {"filter", "sort"}).empty());
  CHECK(mcp::closest("srt", {"filter", "sort"}) == "sort");
}
