// Decimal128 through the store: the same answers with and without an index (the filter
// matcher and the index keys agree), `_id` uniqueness by value across number types, and the
// index order of decimals among other numbers.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

constexpr const char* k_docs[] = {
    R"({"_id":1,"a":{"$numberDecimal":"1.0"}})",
    R"({"_id":2,"a":1})",
    R"({"_id":3,"a":{"$numberLong":"1"}})",
    R"({"_id":4,"a":1.0})",
    R"({"_id":5,"a":{"$numberDecimal":"0.1"}})",
    R"({"_id":6,"a":0.1})",
    R"({"_id":7,"a":{"$numberDecimal":"1.000000000000000000000000000000001"}})",
    R"({"_id":8,"a":{"$numberDecimal":"NaN"}})",
    R"({"_id":9,"a":{"$numberDecimal":"-1E-6000"}})",
    R"({"_id":10,"a":{"$numberDecimal":"9007199254740993"}})",
    R"({"_id":11,"a":{"$numberLong":"9007199254740993"}})",
};

// The `_id`s `filter` finds, in `_id` order.
std::string ids(const store& s, std::string_view filter) {
  find_options o;
  o.filter = doc(filter);
  o.projection = doc(R"({"_id":1})");
  auto page = s.find("c", o);
  REQUIRE_MESSAGE(page.ok(), (page.ok() ? "" : page.error().message));
  std::string out;
  std::size_t start = 0;
  const std::string& nd = page->ndjson;
  while (start < nd.size()) {
    const std::size_t end = nd.find('\n', start);
    const std::string line = nd.substr(start, end - start);
    out += (out.empty() ? "" : ",") + line.substr(7, line.size() - 8);  // {"_id":N}
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("equality and ranges over decimals answer the same with and without an index") {
  const char* filters[] = {
      R"({"a":1})",
      R"({"a":{"$numberDecimal":"1.00"}})",
      R"({"a":{"$numberDecimal":"0.1"}})",
      R"({"a":0.1})",
      R"({"a":{"$gt":1}})",
      R"({"a":{"$gte":1,"$lt":{"$numberDecimal":"1.000000000000000000000000000000002"}}})",
      R"({"a":{"$lt":0}})",
      R"({"a":{"$lt":{"$numberDecimal":"0.1"}}})",
      R"({"a":{"$in":[{"$numberDecimal":"0.10"},2]}})",
      R"({"a":{"$numberDecimal":"NaN"}})",
      R"({"a":{"$numberLong":"9007199254740993"}})",
      R"({"a":{"$gt":{"$numberDecimal":"9007199254740992.5"}}})",
  };
  fresh_store plain;
  fresh_store indexed;
  std::vector<document> all;
  for (const char* d : k_docs) all.push_back(doc(d));
  REQUIRE(plain->insert_many("c", all).ok());
  REQUIRE(indexed->insert_many("c", all).ok());
  store::index_spec spec;
  spec.fields.push_back({"a", false});
  REQUIRE(indexed->create_index("c", spec).ok());
  std::vector<std::string> expected = {"1,2,3,4",  "1,2,3,4", "5",      "6", "7,10,11", "1,2,3,4,7", "9",
                                       "9",        "5",       "8",      "10,11", "10,11"};
  for (std::size_t i = 0; i < std::size(filters); ++i) {
    CAPTURE(filters[i]);
    CHECK(ids(*plain, filters[i]) == expected[i]);
    CHECK(ids(*indexed, filters[i]) == expected[i]);
  }
  auto e = indexed->explain("c", doc(R"({"a":{"$numberDecimal":"1.0"}})"), {});
  REQUIRE(e.ok());
  CHECK(to_json(*e).find("a_1") != std::string::npos);
}

TEST_CASE("an _id is unique by value across number types, decimals exactly") {
  fresh_store s;
  REQUIRE(s->insert("c", doc(R"({"_id":1})")).ok());
  CHECK_FALSE(s->insert("c", doc(R"({"_id":{"$numberDecimal":"1.00"}})")).ok());
  // Decimals that share a nearest double are distinct `_id`s.
  REQUIRE(s->insert("c", doc(R"({"_id":{"$numberDecimal":"0.1"}})")).ok());
  REQUIRE(s->insert("c", doc(R"({"_id":{"$numberDecimal":"0.1000000000000000000000000000000001"}})")).ok());
  REQUIRE(s->insert("c", doc(R"({"_id":0.1})")).ok());
  CHECK(ids(*s, "{}") == R"({"$numberDecimal":"0.1"},{"$numberDecimal":"0.1000000000000000000000000000000001"},0.1,1)");
}
