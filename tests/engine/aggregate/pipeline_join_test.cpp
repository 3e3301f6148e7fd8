// $lookup, $unionWith, $facet, and the refusals of the pipeline compiler.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

TEST_CASE("lookup joins by equality, an array localField matching any element") {
  fixture f;
  f.with("orders", R"([{"_id": 1, "item": "almonds", "price": 12}, {"_id": 2, "item": ["pecans", "cashews"]},
                       {"_id": 3}])")
      .with("inventory", R"([{"_id": 1, "sku": "almonds"}, {"_id": 2, "sku": "bread"}, {"_id": 3, "sku": "cashews"},
                             {"_id": 4, "sku": "pecans"}, {"_id": 5, "sku": null}, {"_id": 6}])");
  CHECK(f.run(R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}},
                  {"$project": {"ids": "$inv._id"}}])", "orders") ==
        lines({R"({"_id":1,"ids":[1]})", R"({"_id":2,"ids":[3,4]})", R"({"_id":3,"ids":[5,6]})"}));
}

TEST_CASE("lookup matches a foreign array field by its elements") {
  fixture f;
  f.with("classes", R"([{"_id": 1, "title": "Reading", "enrollmentlist": ["giraffe2", "pandabear"]},
                        {"_id": 2, "title": "Math", "enrollmentlist": ["pandabear"]}])")
      .with("members", R"([{"_id": 1, "name": "pandabear"}, {"_id": 2, "name": "giraffe2"}])");
  CHECK(f.run(R"([{"$lookup": {"from": "classes", "localField": "name", "foreignField": "enrollmentlist", "as": "c"}},
                  {"$project": {"titles": "$c.title"}}])", "members") ==
        lines({R"({"_id":1,"titles":["Reading","Math"]})", R"({"_id":2,"titles":["Reading"]})"}));
}

TEST_CASE("lookup with let and pipeline sees the outer variables in $expr") {
  fixture f;
  f.with("orders", R"([{"_id": 1, "item": "almonds", "qty": 5}, {"_id": 2, "item": "pecans", "qty": 100}])")
      .with("stock", R"([{"_id": 1, "sku": "almonds", "instock": 120}, {"_id": 2, "sku": "pecans", "instock": 70}])");
  CHECK(f.run(R"([{"$lookup": {"from": "stock", "let": {"item": "$item", "need": "$qty"},
                   "pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$sku", "$$item"]}, {"$gte": ["$instock", "$$need"]}]}}},
                                {"$project": {"_id": 0, "instock": 1}}],
                   "as": "ok"}}])", "orders") ==
        lines({R"({"_id":1,"item":"almonds","qty":5,"ok":[{"instock":120}]})",
               R"({"_id":2,"item":"pecans","qty":100,"ok":[]})"}));
}

TEST_CASE("unionWith appends another collection after the input, through its pipeline") {
  fixture f;
  f.with("a", R"([{"_id": 1, "x": 1}])").with("b", R"([{"_id": 2, "x": 2}, {"_id": 3, "x": 3}])");
  CHECK(f.run(R"([{"$unionWith": {"coll": "b", "pipeline": [{"$match": {"x": {"$gt": 2}}}]}}])", "a") ==
        lines({R"({"_id":1,"x":1})", R"({"_id":3,"x":3})"}));
  CHECK(f.run(R"([{"$unionWith": "b"}, {"$count": "n"}])", "a") == lines({R"({"n":3})"}));
}

TEST_CASE("facet runs each sub-pipeline over the same input into one document") {
  fixture f;
  f.with("c", R"([{"_id": 1, "p": 5}, {"_id": 2, "p": 15}, {"_id": 3, "p": 25}])");
  CHECK(f.run(R"([{"$facet": {"cheap": [{"$match": {"p": {"$lt": 10}}}, {"$project": {"_id": 1}}],
                              "count": [{"$count": "n"}]}}])") ==
        lines({R"({"cheap":[{"_id":1}],"count":[{"n":3}]})"}));
}

TEST_CASE("out and merge are refused naming the write tools, JavaScript is refused") {
  fixture f;
  f.with("c", R"([{"_id": 1}])");
  CHECK(f.error(R"([{"$match": {}}, {"$out": "x"}])") ==
        "stage 2: `$out` is not supported: `aggregate` is a read tool and never writes documents; write the "
        "results with `insert_many`, `bulk_write` or `update_many` instead");
  CHECK(f.error(R"([{"$merge": {"into": "x"}}])").find("`$merge` is not supported: `aggregate` is a read tool") == 9);
  CHECK(f.error(R"([{"$addFields": {"x": {"$function": {"body": "f", "args": [], "lang": "js"}}}}])") ==
        "stage 1 (`$addFields`): `x`: `$function` is not supported: omgdb runs no JavaScript");
}

TEST_CASE("an unknown stage is named with the nearest known one") {
  fixture f;
  CHECK(f.error(R"([{"$grup": {"_id": 1}}])") == "stage 1: unknown stage `$grup` (did you mean `$group`?)");
  CHECK(f.error(R"([{"$frobnicate": {}}])") == "stage 1: unknown stage `$frobnicate`");
  CHECK(f.error(R"([{"$match": {}, "$limit": 1}])") ==
        "stage 1: each stage must be a document with exactly one field, the stage name");
}

TEST_CASE("a set cancellation flag stops the pipeline") {
  fixture f;
  f.with("c", R"([{"_id": 1}, {"_id": 2}])");
  std::atomic<bool> cancelled{true};
  f.options.control.cancelled = &cancelled;
  CHECK(f.error(R"([{"$group": {"_id": "$_id"}}])") == "cancelled");
}
