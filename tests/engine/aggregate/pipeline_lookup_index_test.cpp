// $lookup's two ways to read the foreign side: through an index on the foreign field (one
// planned scan per input document) or, without one, a hash table built from one read of the
// foreign collection. Both must give MongoDB's equality answers; the store's counters show
// which way was taken. Also: documents reach the pipeline with their stored types.
#include "engine/store/store.hpp"
#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;

namespace {

std::string run_lines(const store_provider& p, std::string_view coll, std::string_view pipeline) {
  auto r = run_pipeline(p, coll, aggregate_test::json_value(pipeline).as_array());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  std::string out;
  for (const document& d : *r) out += to_json(d) + "\n";
  return out;
}

// The manual's tricky equality cases: arrays on both sides, null and missing, numbers equal
// by value across types, a dotted foreign path through an array of documents.
void load_join_data(store& s) {
  REQUIRE(s.insert_many("local", test::docs({R"({"_id": 1, "k": "a"})", R"({"_id": 2, "k": ["b", "c"]})",
                                            R"({"_id": 3})", R"({"_id": 4, "k": 2})", R"({"_id": 6, "k": "z"})"}))
              .ok());
  REQUIRE(s.insert_many("foreign", test::docs({R"({"_id": 10, "f": "a", "g": {"h": "c"}})",
                                              R"({"_id": 11, "f": ["c", "x"]})", R"({"_id": 12, "f": null})",
                                              R"({"_id": 13})", R"({"_id": 14, "f": 2.0})",
                                              R"({"_id": 15, "f": {"$numberLong": "2"}})",
                                              R"({"_id": 16, "g": [{"h": "b"}, {"h": "a"}]})"}))
              .ok());
}

constexpr std::string_view join_f = R"([{"$lookup": {"from": "foreign", "localField": "k", "foreignField": "f",
    "as": "j"}}, {"$project": {"j": "$j._id"}}])";
constexpr std::string_view join_gh = R"([{"$lookup": {"from": "foreign", "localField": "k", "foreignField": "g.h",
    "as": "j"}}, {"$project": {"j": "$j._id"}}])";

// Hand-derived from MongoDB's equality-match rules: a local array matches any of its
// elements; a missing local field matches null and missing foreign fields; a foreign array
// matches by element; 2, 2.0 and long 2 are equal.
const std::string expected_f = aggregate_test::lines({R"({"_id":1,"j":[10]})", R"({"_id":2,"j":[11]})",
                                                      R"({"_id":3,"j":[12,13,16]})", R"({"_id":4,"j":[14,15]})",
                                                      R"({"_id":6,"j":[]})"});
const std::string expected_gh = aggregate_test::lines({R"({"_id":1,"j":[16]})", R"({"_id":2,"j":[10,16]})",
                                                       R"({"_id":3,"j":[11,12,13,14,15]})", R"({"_id":4,"j":[]})",
                                                       R"({"_id":6,"j":[]})"});

}  // namespace

TEST_CASE("lookup without a foreign index reads the foreign collection once and matches by equality") {
  test::fresh_store s;
  load_join_data(*s.db);
  store_provider::stats stats;
  store_provider p(*s.db, &stats);
  CHECK(run_lines(p, "local", join_f) == expected_f);
  CHECK(stats.scans.load() == 2);  // the local collection and the foreign one, once
  CHECK(stats.index_scans.load() == 0);
  CHECK(run_lines(p, "local", join_gh) == expected_gh);
}

TEST_CASE("lookup with an index on the foreign field opens it once and seeks it per input document, same answers") {
  test::fresh_store s;
  load_join_data(*s.db);
  REQUIRE(s.db->create_index("foreign", store::index_spec{"", {{"f", false}}, false, std::nullopt}).ok());
  REQUIRE(s.db->create_index("foreign", store::index_spec{"", {{"g.h", false}}, false, std::nullopt}).ok());
  store_provider::stats stats;
  store_provider p(*s.db, &stats);
  CHECK(run_lines(p, "local", join_f) == expected_f);
  // One scan of `local`, the index opened once, and one planned scan for _id 3: its missing
  // `k` looks up null, which also matches missing fields and has no index point
  // (docs/indexes.md), so that document's matches are read by a scan of `foreign`.
  CHECK(stats.scans.load() == 1 + 1 + 1);
  CHECK(stats.index_scans.load() == 1);
  CHECK(run_lines(p, "local", join_gh) == expected_gh);
}

TEST_CASE("an indexed lookup reads only the matching foreign documents") {
  test::fresh_store s;
  std::vector<document> foreign, local;
  for (std::int32_t i = 0; i < 2000; ++i) foreign.push_back(document{{"_id", value(i)}, {"sku", value(i % 1000)}});
  for (std::int32_t i = 0; i < 10; ++i) local.push_back(document{{"_id", value(i)}, {"sku", value(i * 7)}});
  REQUIRE(s.db->insert_many("foreign", std::move(foreign)).ok());
  REQUIRE(s.db->insert_many("local", std::move(local)).ok());
  REQUIRE(s.db->create_index("foreign", store::index_spec{"", {{"sku", false}}, false, std::nullopt}).ok());
  store_provider::stats stats;
  store_provider p(*s.db, &stats);
  const std::string out = run_lines(p, "local", R"([{"$lookup": {"from": "foreign", "localField": "sku",
      "foreignField": "sku", "as": "j"}}, {"$project": {"n": {"$size": "$j"}}}, {"$group": {"_id": "$n", "c": {"$sum": 1}}}])");
  CHECK(out == "{\"_id\":2,\"c\":10}\n");
  CHECK(stats.index_scans.load() == 1);  // opened once, sought per document
  CHECK(stats.documents.load() == 10 + 10 * 2);  // the local documents and two foreign ones for each
}

TEST_CASE("lookup with a sub-pipeline and an equality uses the table and then runs the pipeline per document") {
  test::fresh_store s;
  load_join_data(*s.db);
  store_provider p(*s.db);
  CHECK(run_lines(p, "local", R"([{"$match": {"_id": {"$in": [3, 4]}}},
      {"$lookup": {"from": "foreign", "localField": "k", "foreignField": "f", "let": {"me": "$_id"},
       "pipeline": [{"$match": {"_id": {"$gt": 12}}}, {"$project": {"_id": 1, "me": "$$me"}}], "as": "j"}}])") ==
        aggregate_test::lines({R"({"_id":3,"j":[{"_id":13,"me":3},{"_id":16,"me":3}]})",
                               R"({"_id":4,"k":2,"j":[{"_id":14,"me":4},{"_id":15,"me":4}]})"}));
}

TEST_CASE("documents from a store keep their stored numeric types in the pipeline") {
  test::fresh_store s;
  REQUIRE(s.db->insert("c", test::doc(R"({"_id": 1, "l": {"$numberLong": "7"}, "i": 7, "d": 7.5,
      "big": {"$numberLong": "9000000000"}})")).ok());
  store_provider p(*s.db);
  CHECK(run_lines(p, "c", R"([{"$project": {"_id": 0, "l": {"$type": "$l"}, "i": {"$type": "$i"},
      "d": {"$type": "$d"}, "big": {"$type": "$big"}, "sum": {"$type": {"$sum": ["$i", "$i"]}}}}])") ==
        "{\"l\":\"long\",\"i\":\"int\",\"d\":\"double\",\"big\":\"long\",\"sum\":\"int\"}\n");
  // $group's _id keeps the long too (canonical form shows the type).
  auto r = run_pipeline(p, "c", aggregate_test::json_value(R"([{"$group": {"_id": "$l"}}])").as_array());
  REQUIRE(r.ok());
  CHECK(to_json(r->front(), ejson_mode::canonical) == R"({"_id":{"$numberLong":"7"}})");
}

TEST_CASE("a store scan pages through more documents than a page holds, in _id order, with an index too") {
  test::fresh_store s;
  std::vector<document> many;
  for (std::int32_t i = 0; i < 1300; ++i) many.push_back(document{{"_id", value(i)}, {"g", value(i % 2)}});
  REQUIRE(s.db->insert_many("c", std::move(many)).ok());
  auto count_and_sum = [&](std::string_view pipeline) { return run_lines(store_provider(*s.db), "c", pipeline); };
  const std::string pipeline = R"([{"$match": {"g": 1}}, {"$group": {"_id": null, "n": {"$sum": 1},
      "s": {"$sum": "$_id"}, "first": {"$first": "$_id"}, "last": {"$last": "$_id"}}}])";
  // Odd numbers below 1300: 650 of them, summing to 650², first 1, last 1299.
  const std::string expected = "{\"_id\":null,\"n\":650,\"s\":422500,\"first\":1,\"last\":1299}\n";
  CHECK(count_and_sum(pipeline) == expected);
  REQUIRE(s.db->create_index("c", store::index_spec{"", {{"g", false}}, false, std::nullopt}).ok());
  CHECK(count_and_sum(pipeline) == expected);
}

TEST_CASE("a lookup whose unindexed foreign side outgrows half the stage limit is refused naming the index to create") {
  aggregate_test::fixture f;
  std::string foreign = "[";
  for (int i = 0; i < 2000; ++i) foreign += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "key": )" + std::to_string(i) + "}";
  f.with("foreign", foreign + "]").with("c", R"([{"_id": 1, "ref": 5}])");
  f.options.max_stage_bytes = 64 * 1024;
  CHECK(f.error(R"([{"$lookup": {"from": "foreign", "localField": "ref", "foreignField": "key", "as": "j"}}])") ==
        "stage `$lookup` exceeded its memory limit: the foreign collection `foreign` holds more than 32768 bytes to "
        "join on `key`, which has no index; create an index on `key` of `foreign` (create_index) or narrow the "
        "foreign documents with a leading `$match` in the `$lookup`'s `pipeline`");
  // A leading $match in the pipeline narrows what the table holds, and the join works.
  CHECK(f.run(R"([{"$lookup": {"from": "foreign", "localField": "ref", "foreignField": "key",
      "pipeline": [{"$match": {"key": {"$lt": 10}}}], "as": "j"}}])") == "{\"_id\":1,\"ref\":5,\"j\":[{\"_id\":5,\"key\":5}]}\n");
}

TEST_CASE("lookup through a descending, compound or multikey index gives the hash table's answers, the sub-pipeline's leading match applied") {
  const std::string with_match = R"([{"$lookup": {"from": "foreign", "localField": "k", "foreignField": "f",
      "pipeline": [{"$match": {"_id": {"$ne": 14}}}], "as": "j"}}, {"$project": {"j": "$j._id"}}])";
  // expected_f without foreign _id 14 (the leading $match drops it).
  const std::string expected_match = aggregate_test::lines({R"({"_id":1,"j":[10]})", R"({"_id":2,"j":[11]})",
                                                            R"({"_id":3,"j":[12,13,16]})", R"({"_id":4,"j":[15]})",
                                                            R"({"_id":6,"j":[]})"});
  for (const auto& fields : std::vector<std::vector<store::index_field>>{
           {{"f", true}}, {{"f", false}, {"g.h", true}}, {{"f", true}, {"_id", false}}}) {
    test::fresh_store s;
    load_join_data(*s.db);  // foreign _id 11 holds an array at `f`: the index is multikey
    REQUIRE(s.db->create_index("foreign", store::index_spec{"", fields, false, std::nullopt}).ok());
    store_provider::stats stats;
    store_provider p(*s.db, &stats);
    CHECK(run_lines(p, "local", join_f) == expected_f);
    CHECK(stats.index_scans.load() == 1);
    CHECK(run_lines(p, "local", with_match) == expected_match);
  }
  // The hash table (no index) agrees on the same pipelines.
  test::fresh_store s;
  load_join_data(*s.db);
  store_provider p(*s.db);
  CHECK(run_lines(p, "local", with_match) == expected_match);
}
