// The store-backed provider: a pipeline over a store's collections, read in pages, with a
// leading $match given to the store and $lookup reading another collection of the same store.
#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;

TEST_CASE("a pipeline over a store reads every page and joins another collection") {
  test::fresh_store s;
  std::vector<document> many;
  for (std::int32_t i = 0; i < 2500; ++i) {
    many.push_back(document{{"_id", value(i)}, {"g", value(i % 3)}, {"sku", value("s" + std::to_string(i % 5))}});
  }
  REQUIRE(s.db->insert_many("orders", std::move(many)).ok());
  REQUIRE(s.db->insert_many("inventory", test::docs({R"({"_id": "s1", "qty": 10})", R"({"_id": "s2", "qty": 20})"})).ok());
  store_provider provider(*s.db);
  auto r = run_pipeline(provider, "orders", aggregate_test::json_value(R"([
      {"$match": {"g": 1}},
      {"$lookup": {"from": "inventory", "localField": "sku", "foreignField": "_id", "as": "inv"}},
      {"$group": {"_id": null, "n": {"$sum": 1}, "qty": {"$sum": {"$sum": "$inv.qty"}}}}])").as_array());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  // 833 documents have g = 1; a fifth of them (ids ≡ 1 mod 5 or 2 mod 5 pick s1 / s2).
  std::int64_t n = 0, qty = 0;
  for (std::int32_t i = 0; i < 2500; ++i) {
    if (i % 3 != 1) continue;
    ++n;
    qty += i % 5 == 1 ? 10 : (i % 5 == 2 ? 20 : 0);
  }
  CHECK(to_json(r->front()) == R"({"_id":null,"n":)" + std::to_string(n) + R"(,"qty":)" + std::to_string(qty) + "}");
}

TEST_CASE("a pipeline over an unknown collection of a store yields nothing") {
  test::fresh_store s;
  store_provider provider(*s.db);
  auto r = run_pipeline(provider, "nope", aggregate_test::json_value(R"([{"$count": "n"}])").as_array());
  REQUIRE(r.ok());
  CHECK(r->empty());
}
