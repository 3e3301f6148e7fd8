// The index and planner tools through their handlers: argument forms for the index key,
// result shapes, refusals, required `filter` (their place in the catalogue: catalog_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "common/json.hpp"
#include "mcp/tool.hpp"
#include "tests/tools/tool_bench.hpp"

using namespace omgdb;

namespace {

class bench : public test::tool_bench {
 public:
  bench() : test::tool_bench("omgdb-index-tools-") {}
  // (is_error, first text) of a call.
  std::pair<bool, std::string> run(const std::string& name, const std::string& args_json) {
    auto r = call(name, args_json);
    REQUIRE(!r.texts.empty());
    return {r.is_error, r.texts.front()};
  }
  std::string ok(const std::string& name, const std::string& args_json) {
    auto [failed, text] = run(name, args_json);
    REQUIRE_MESSAGE(!failed, text);
    return text;
  }
  std::string error(const std::string& name, const std::string& args_json) {
    auto [failed, text] = run(name, args_json);
    REQUIRE_MESSAGE(failed, text);
    return text;
  }
};

}  // namespace

TEST_CASE("create_index takes `field` or `fields` in every documented form and reports the build") {
  bench b;
  b.ok("insert_many", R"({"collection":"u","documents":[{"_id":1,"a":1,"b":"x"},{"_id":2,"a":2,"t":[1,2]}]})");
  CHECK(b.ok("create_index", R"({"collection":"u","field":"a"})") ==
        R"({"collection":"u","name":"a_1","created":true,"documentsIndexed":2,"keys":2})");
  CHECK(b.ok("create_index", R"({"collection":"u","field":{"b":-1}})") ==
        R"({"collection":"u","name":"b_-1","created":true,"documentsIndexed":2,"keys":2})");
  CHECK(b.ok("create_index", R"({"collection":"u","fields":["a",{"t":-1}]})") ==
        R"({"collection":"u","name":"a_1_t_-1","created":true,"documentsIndexed":2,"keys":3})");
  CHECK(b.ok("create_index", R"({"collection":"u","fields":{"b":1,"a":-1},"unique":true})") ==
        R"({"collection":"u","name":"b_1_a_-1","created":true,"documentsIndexed":2,"keys":2})");
  CHECK(b.ok("create_index", R"({"collection":"u","field":"a"})") ==
        R"({"collection":"u","name":"a_1","created":false,"documentsIndexed":0,"keys":0})");
  CHECK(b.ok("list_indexes", R"({"collection":"u"})") ==
        R"({"collection":"u","indexes":[{"name":"a_1","key":{"a":1},"unique":false,"multikey":false},)"
        R"({"name":"a_1_t_-1","key":{"a":1,"t":-1},"unique":false,"multikey":true},)"
        R"({"name":"b_-1","key":{"b":-1},"unique":false,"multikey":false},)"
        R"({"name":"b_1_a_-1","key":{"b":1,"a":-1},"unique":true,"multikey":false}]})");
}

TEST_CASE("bad index arguments are refused with the reason") {
  bench b;
  CHECK(b.error("create_index", R"({"collection":"u"})") ==
        "Error: pass exactly one of `field` (one field) and `fields` (a compound index)");
  CHECK(b.error("create_index", R"({"collection":"u","field":"a","fields":["b"]})") ==
        "Error: pass exactly one of `field` (one field) and `fields` (a compound index)");
  CHECK(b.error("create_index", R"({"collection":"u","field":{"a":2}})") ==
        "Error: index direction of `a` must be 1 (ascending) or -1 (descending)");
  CHECK(b.error("create_index", R"({"collection":"u","fields":[3]})") ==
        "Error: argument `fields`: a field is a path string or a one-key object {path: 1 | -1}");
}

TEST_CASE("create_named_index keeps a name to one definition; drop_index removes by name") {
  bench b;
  b.ok("create_named_index", R"({"collection":"u","name":"by_email","field":"email","unique":true,)"
                              R"("partialFilter":{"live":true}})");
  CHECK(b.ok("create_named_index", R"({"collection":"u","name":"by_email","field":"email","unique":true,)"
                                   R"("partialFilter":{"live":true}})")
            .find(R"("created":false)") != std::string::npos);
  CHECK(b.error("create_named_index", R"({"collection":"u","name":"by_email","field":"email"})") ==
        "Error: index name `by_email` of `u` is already used by a different definition (key {\"email\":1}, "
        "unique); drop it first or choose another name");
  CHECK(b.ok("list_indexes", R"({"collection":"u"})") ==
        R"({"collection":"u","indexes":[{"name":"by_email","key":{"email":1},"unique":true,"multikey":false,)"
        R"("partialFilter":{"live":true}}]})");
  CHECK(b.error("drop_index", R"({"collection":"u","name":"by_mail"})") ==
        "Error: no index `by_mail` in `u`; did you mean `by_email`?");
  CHECK(b.ok("drop_index", R"({"collection":"u","name":"by_email"})") == R"({"collection":"u","dropped":"by_email"})");
  CHECK(b.ok("list_indexes", R"({"collection":"u"})") == R"({"collection":"u","indexes":[]})");
  CHECK(b.error("list_indexes", R"({"collection":"U"})") == "Error: collection `U` does not exist; did you mean `u`?");
}

TEST_CASE("explain, suggest_indexes and diagnose require filter; explain and diagnose refuse unknown collections") {
  bench b;
  b.ok("insert_many", R"({"collection":"users","documents":[{"_id":1,"a":1},{"_id":2,"a":2},{"_id":3,"a":3}]})");
  auto tools = tools::document_tools(std::make_shared<engine::store_registry>());
  for (const char* name : {"explain", "suggest_indexes", "diagnose"}) {
    CAPTURE(name);
    auto t = std::find_if(tools.begin(), tools.end(), [&](const mcp::tool& x) { return x.name == name; });
    REQUIRE(t != tools.end());
    CHECK(t->required_scope == auth::scope::read);
    auto missing = mcp::check_arguments(*t, boost::json::object{{"path", "p"}, {"collection", "users"}});
    REQUIRE(missing.has_value());
    CHECK(*missing == "missing argument `filter`");
  }
  CHECK(b.error("explain", R"({"collection":"user","filter":{}})") ==
        "Error: collection `user` does not exist; did you mean `users`?");
  CHECK(b.error("diagnose", R"({"collection":"user","filter":{}})") ==
        "Error: collection `user` does not exist; did you mean `users`?");
  b.ok("create_index", R"({"collection":"users","field":"a"})");
  CHECK(b.ok("explain", R"({"collection":"users","filter":{"a":2}})")
            .starts_with(R"({"collection":"users","plan":"index scan","index":"a_1","key":{"a":1},)"
                         R"("bounds":{"a":["[2, 2]"]},"countFromIndex":true,"keysExamined":1,"docsExamined":1,)"));
  CHECK(b.ok("suggest_indexes", R"({"collection":"users","filter":{"a":2},"sort":{"b":1}})")
            .starts_with(R"({"collection":"users","suggestions":[{"key":{"a":1,"b":1},"exists":null,)"));
  CHECK(b.ok("diagnose", R"({"collection":"users","filter":{"a":{"$gt":1}}})")
            .starts_with(R"({"collection":"users","documents":3,"matched":2,)"));
}
