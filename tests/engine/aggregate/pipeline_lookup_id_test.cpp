// $lookup through `_id` (the documents' own keys, no index to create) and the `let` /
// `pipeline` form whose leading $match is an `$expr` equality with a `let` variable: both read
// only the matching foreign documents, whatever the foreign collection's size, and answer
// exactly as the unindexed way (a memory_provider: the hash table or a scan per document).
#include "engine/store/store.hpp"
#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;

namespace {

// Foreign documents _id 0..1999 (int), with a padding string so the collection outgrows a
// small stage limit, `key` = _id % 500 (four documents per key), `tags` an array at every
// 100th; plus a few odd `_id`s: a string, null, a double-valued id, a document.
std::vector<document> foreign_docs() {
  std::vector<document> out;
  for (std::int32_t i = 0; i < 2000; ++i) {
    document d{{"_id", value(i)}, {"key", value(i % 500)}, {"pad", value(std::string(64, 'x'))}};
    if (i % 100 == 0) d.push_back(field{"tags", value(array{value(i), value(i + 1)})});
    out.push_back(std::move(d));
  }
  out.push_back(test::doc(R"({"_id": "s1", "key": "s"})"));
  out.push_back(test::doc(R"({"_id": null, "key": null})"));
  out.push_back(test::doc(R"({"_id": 2500.5, "key": 7})"));
  out.push_back(test::doc(R"({"_id": {"a": 1}, "key": 8})"));
  return out;
}

// Local values covering the equality rules: a number of another type (5.0 matches 5), an
// array (each element), a missing field (null), null itself, a string, a document, an array
// inside an array, a value no foreign document has.
std::vector<document> local_docs() {
  return test::docs({R"({"_id": 1, "ref": 5.0})", R"({"_id": 2, "ref": [7, 8, "s1"]})", R"({"_id": 3})",
                     R"({"_id": 4, "ref": null})", R"({"_id": 5, "ref": "s1"})", R"({"_id": 6, "ref": {"a": 1}})",
                     R"({"_id": 7, "ref": [[9, 10], 2500.5]})", R"({"_id": 8, "ref": 123456})",
                     R"({"_id": 9, "ref": 100})"});
}

struct both_ways {
  test::fresh_store s;
  memory_provider memory;  // no equality_lookup: the unindexed way
  pipeline_options small;  // a stage limit far below the foreign collection's size

  both_ways() {
    REQUIRE(s.db->insert_many("foreign", foreign_docs()).ok());
    REQUIRE(s.db->insert_many("local", local_docs()).ok());
    memory.collections["foreign"] = foreign_docs();
    memory.collections["local"] = local_docs();
    small.max_stage_bytes = 64 * 1024;
  }

  static std::string text(const omgdb::result<std::vector<document>>& r) {
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    std::string out;
    for (const document& d : *r) out += to_json(d) + "\n";
    return out;
  }

  // The store's answer under the small limit, checked against the unindexed answer (no
  // limit); `stats` counts what the store read.
  std::string run(std::string_view pipeline, store_provider::stats& stats) {
    const array p = aggregate_test::json_value(pipeline).as_array();
    const std::string expected = text(run_pipeline(memory, "local", p));
    const std::string got = text(run_pipeline(store_provider(*s.db, &stats), "local", p, small));
    CHECK(got == expected);
    return got;
  }
};

}  // namespace

TEST_CASE("a lookup on _id reads the foreign documents by key, even when the foreign collection outgrows the stage limit") {
  both_ways w;
  store_provider::stats stats;
  const std::string out = w.run(R"([{"$lookup": {"from": "foreign", "localField": "ref", "foreignField": "_id",
      "as": "j"}}, {"$project": {"j": "$j._id"}}])", stats);
  CHECK(out == aggregate_test::lines({R"({"_id":1,"j":[5]})", R"({"_id":2,"j":[7,8,"s1"]})",
                                      R"({"_id":3,"j":[null]})", R"({"_id":4,"j":[null]})", R"({"_id":5,"j":["s1"]})",
                                      R"({"_id":6,"j":[{"a":1}]})", R"({"_id":7,"j":[2500.5]})", R"({"_id":8,"j":[]})",
                                      R"({"_id":9,"j":[100]})"}));
  CHECK(stats.index_scans.load() == 1);  // `_id` opened once, read by key per document
  CHECK(stats.scans.load() == 1 + 1);    // and the local collection: no scan of `foreign`
  CHECK(stats.documents.load() == 9 + 10);  // the local documents and the ten matches
}

TEST_CASE("a lookup on _id with a sub-pipeline applies its leading match to the documents read by key") {
  both_ways w;
  store_provider::stats stats;
  CHECK(w.run(R"([{"$match": {"_id": {"$in": [1, 2, 9]}}}, {"$lookup": {"from": "foreign", "localField": "ref",
      "foreignField": "_id", "pipeline": [{"$match": {"tags": {"$exists": false}}}, {"$project": {"key": 1}}],
      "as": "j"}}])", stats) ==
        aggregate_test::lines({R"({"_id":1,"ref":5.0,"j":[{"_id":5,"key":5}]})",
                               R"({"_id":2,"ref":[7,8,"s1"],"j":[{"_id":7,"key":7},{"_id":8,"key":8},{"_id":"s1","key":"s"}]})",
                               R"({"_id":9,"ref":100,"j":[]})"}));
  CHECK(stats.index_scans.load() == 1);  // the foreign reader, opened once
}

TEST_CASE("a let/pipeline lookup whose $expr equality is on _id reads by key instead of scanning per document") {
  both_ways w;
  store_provider::stats stats;
  // Either operand order, alone or inside $and with another condition, other stages after.
  for (std::string_view eq : {R"({"$eq": ["$_id", "$$r"]})", R"({"$eq": ["$$r", "$_id"]})",
                              R"({"$and": [{"$ne": ["$key", -1]}, {"$eq": ["$_id", "$$r"]}]})"}) {
    stats.documents = 0;
    const std::string pipeline = R"([{"$lookup": {"from": "foreign", "let": {"other": 1, "r": "$ref"},
        "pipeline": [{"$match": {"$expr": )" + std::string(eq) + R"(}}, {"$project": {"key": 1}}], "as": "j"}}])";
    // $eq of expressions compares whole values: an array `ref` matches no `_id`, a missing
    // `ref` ($$r is null) only the `_id` null.
    CHECK(w.run(pipeline, stats) ==
          aggregate_test::lines({R"({"_id":1,"ref":5.0,"j":[{"_id":5,"key":5}]})", R"({"_id":2,"ref":[7,8,"s1"],"j":[]})",
                                 R"({"_id":3,"j":[{"_id":null,"key":null}]})", R"({"_id":4,"ref":null,"j":[{"_id":null,"key":null}]})",
                                 R"({"_id":5,"ref":"s1","j":[{"_id":"s1","key":"s"}]})",
                                 R"({"_id":6,"ref":{"a":1},"j":[{"_id":{"a":1},"key":8}]})",
                                 R"({"_id":7,"ref":[[9,10],2500.5],"j":[]})", R"({"_id":8,"ref":123456,"j":[]})",
                                 R"({"_id":9,"ref":100,"j":[{"_id":100,"key":100}]})"}));
    CHECK(stats.documents.load() < 9 + 20);  // the local documents and about one foreign each
  }
}

TEST_CASE("a let/pipeline lookup whose $expr equality is on an indexed field reads through the index") {
  both_ways w;
  REQUIRE(w.s.db->create_index("foreign", store::index_spec{"", {{"key", false}}, false, std::nullopt}).ok());
  REQUIRE(w.s.db->create_index("foreign", store::index_spec{"", {{"tags", false}}, false, std::nullopt}).ok());
  store_provider::stats stats;
  const std::string out = w.run(R"([{"$match": {"_id": {"$in": [1, 5, 9]}}}, {"$lookup": {"from": "foreign",
      "let": {"r": "$ref"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$key", "$$r"]}}}, {"$project": {"_id": 1}}],
      "as": "j"}}])", stats);
  CHECK(out == aggregate_test::lines({R"({"_id":1,"ref":5.0,"j":[{"_id":5},{"_id":505},{"_id":1005},{"_id":1505}]})",
                                      R"({"_id":5,"ref":"s1","j":[]})",
                                      R"({"_id":9,"ref":100,"j":[{"_id":100},{"_id":600},{"_id":1100},{"_id":1600}]})"}));
  CHECK(stats.documents.load() == 3 + 8);
  // A multikey index: its entries for 100 include the array [100, 101], which `$eq` of
  // expressions does not match (the whole array is compared); the $match drops it.
  stats.documents = 0;
  CHECK(w.run(R"([{"$match": {"_id": 9}}, {"$lookup": {"from": "foreign", "let": {"r": "$ref"},
      "pipeline": [{"$match": {"$expr": {"$eq": ["$tags", "$$r"]}}}], "as": "j"}}])", stats) ==
        "{\"_id\":9,\"ref\":100,\"j\":[]}\n");
  CHECK(stats.documents.load() == 1 + 1);
}
