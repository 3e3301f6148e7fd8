// store::distinct: MongoDB's distinct command (reference/method/db.collection.distinct), with
// a deterministic order (BSON order) and a cap.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

// The distinct page's inventory collection.
void seed_inventory(store& s) {
  REQUIRE(s.insert_many("inventory",
                        docs({R"({"_id": 1, "dept": "A", "item": {"sku": "111", "color": "red"}, "sizes": ["S", "M"]})",
                              R"({"_id": 2, "dept": "A", "item": {"sku": "111", "color": "blue"}, "sizes": ["M", "L"]})",
                              R"({"_id": 3, "dept": "B", "item": {"sku": "222", "color": "blue"}, "sizes": "S"})",
                              R"({"_id": 4, "dept": "A", "item": {"sku": "333", "color": "black"}, "sizes": ["S"]})"}))
              .ok());
}

std::string distinct_of(const store& s, std::string_view collection, std::string_view field,
                        std::string_view filter = "{}", std::uint64_t max_values = 1000,
                        bool truncated = false) {
  auto r = s.distinct(collection, field, doc(filter), max_values);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->truncated == truncated);
  return to_json(value(r->values));
}

std::string distinct_error(const store& s, std::string_view field, std::string_view filter = "{}",
                           std::uint64_t max_values = 1000) {
  auto r = s.distinct("inventory", field, doc(filter), max_values);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("distinct returns each value once, in BSON order") {
  fresh_store s;
  seed_inventory(*s);
  CHECK(distinct_of(*s, "inventory", "dept") == R"(["A","B"])");
  CHECK(distinct_of(*s, "inventory", "item.sku") == R"(["111","222","333"])");
  // Array values count element by element.
  CHECK(distinct_of(*s, "inventory", "sizes") == R"(["L","M","S"])");
  CHECK(distinct_of(*s, "inventory", "item.sku", R"({"dept": "A"})") == R"(["111","333"])");
  CHECK(distinct_of(*s, "inventory", "nothing") == "[]");
  CHECK(distinct_of(*s, "nobody", "dept") == "[]");
}

TEST_CASE("distinct flattens one array level, traverses arrays of documents and unifies numbers") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id": 1, "a": [1, [2, 3], [[4]]], "b": [{"c": 1}, {"c": [2, 1]}, {"d": 5}]})",
                                    R"({"_id": 2, "a": 1.0, "b": {"c": null}})",
                                    R"({"_id": 3, "a": {"$numberLong": "2"}, "b": []})",
                                    R"({"_id": 4, "a": [], "b": [[{"c": 9}]]})",
                                    R"({"_id": 5, "a": "x"})",
                                    R"({"_id": 6, "a": null})"}))
              .ok());
  // Of 1 and 1.0 the first in _id order is kept; [2, 3] is one value, missing adds nothing.
  CHECK(distinct_of(*s, "c", "a") == R"([null,1,2,"x",[2,3],[[4]]])");
  CHECK(distinct_of(*s, "c", "b.c") == R"([null,1,2])");
  CHECK(distinct_of(*s, "c", "a.1") == R"([[2,3]])");
}

TEST_CASE("distinct keeps the first maxValues values and says when it cut") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 50; ++i) {
    many.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"v\":" + std::to_string((i * 37) % 50) + "}"));
  }
  REQUIRE(s->insert_many("c", std::move(many)).ok());
  CHECK(distinct_of(*s, "c", "v", "{}", 3, true) == "[0,1,2]");
  CHECK(distinct_of(*s, "c", "v", R"({"v": {"$gte": 47}})", 3, false) == "[47,48,49]");
  CHECK(distinct_of(*s, "c", "v", R"({"v": {"$gte": 46}})", 3, true) == "[46,47,48]");
  CHECK(distinct_of(*s, "c", "v", R"({"v": {"$in": [7, 7.0]}})", 1, false) == "[7]");
}

TEST_CASE("distinct refuses bad paths, a zero cap and bad filters") {
  fresh_store s;
  seed_inventory(*s);
  CHECK(distinct_error(*s, "") == "distinct field must not be empty");
  CHECK(distinct_error(*s, "$dept") == "distinct field `$dept` must be a field path without '$' (write `a.b`, not `$a.b`)");
  CHECK(distinct_error(*s, "a..b") == "distinct field `a..b` has an empty component");
  CHECK(distinct_error(*s, "dept", "{}", 0) == "maxValues must be at least 1");
  CHECK(distinct_error(*s, "dept", R"({"a": {"$bogus": 1}})") == "unknown operator `$bogus` at `a`");
  CHECK(distinct_error(*s, "dept", R"({"$expr": {"$divide": [1, 0]}})") == "can't $divide by zero");
}
