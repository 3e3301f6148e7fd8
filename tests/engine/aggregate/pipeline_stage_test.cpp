// The document-at-a-time stages and $sort: $match, $project, $addFields / $set, $unset,
// $sort, $limit, $skip, $unwind, $count, $replaceRoot / $replaceWith, $redact, $sample.
// Expected values follow the examples of MongoDB's manual pages for each stage.
#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

TEST_CASE("match filters with the query language and $expr with aggregation semantics") {
  fixture f;
  f.with("c", R"([{"_id": 1, "a": 5, "b": 3}, {"_id": 2, "a": 1, "b": 3}, {"_id": 3, "b": 0}])");
  CHECK(f.run(R"([{"$match": {"a": {"$gt": 2}}}])") == lines({R"({"_id":1,"a":5,"b":3})"}));
  CHECK(f.run(R"([{"$project": {"b": 1}}, {"$match": {"$expr": {"$lt": ["$a", "$b"]}}}])") ==
        lines({R"({"_id":1,"b":3})", R"({"_id":2,"b":3})", R"({"_id":3,"b":0})"}));
  CHECK(f.error(R"([{"$match": {"$where": "this.a > 1"}}])") ==
        "stage 1 (`$match`): `$where` is not supported: omgdb runs no JavaScript");
}

TEST_CASE("project includes fields, computes new ones and keeps _id unless excluded") {
  fixture f;
  f.with("c", R"([{"_id": 1, "title": "abc123", "isbn": "0001122223334",
                  "author": {"last": "zzz", "first": "aaa"}, "copies": 5}])");
  CHECK(f.run(R"([{"$project": {"title": 1, "author": 1}}])") ==
        lines({R"({"_id":1,"title":"abc123","author":{"last":"zzz","first":"aaa"}})"}));
  CHECK(f.run(R"([{"$project": {"_id": 0, "author.last": 1, "lastName": "$author.last",
                   "isbn": {"prefix": {"$substr": ["$isbn", 0, 3]}}}}])") ==
        lines({R"({"author":{"last":"zzz"},"lastName":"zzz","isbn":{"prefix":"000"}})"}));
  CHECK(f.run(R"([{"$project": {"author": 0, "isbn": false}}])") == lines({R"({"_id":1,"title":"abc123","copies":5})"}));
  CHECK(f.run(R"([{"$project": {"title": 1, "copies": {"$cond": {"if": {"$eq": ["", "$author.first"]}, "then": "$$REMOVE", "else": "$copies"}}}}])") ==
        lines({R"({"_id":1,"title":"abc123","copies":5})"}));
  CHECK(f.error(R"([{"$project": {"title": 1, "copies": 0}}])") ==
        "stage 1 (`$project`): cannot mix exclusion with inclusion or computed fields (except `_id: 0`)");
  CHECK(f.error(R"([{"$project": {}}])") == "stage 1 (`$project`): the specification must be a non-empty document");
}

TEST_CASE("addFields and set add, replace and nest fields; $$REMOVE removes") {
  fixture f;
  f.with("c", R"([{"_id": 1, "homework": [10, 5, 10], "quiz": [10, 8], "extra": 2, "specs": {"doors": 4}}])");
  CHECK(f.run(R"([{"$addFields": {"totalHomework": {"$sum": "$homework"}, "totalQuiz": {"$sum": "$quiz"}}},
                  {"$set": {"total": {"$add": ["$totalHomework", "$totalQuiz", "$extra"]}, "extra": "$$REMOVE",
                            "specs.fuel": "unleaded", "homework": 0}}])") ==
        lines({R"({"_id":1,"homework":0,"quiz":[10,8],"specs":{"doors":4,"fuel":"unleaded"},"totalHomework":25,"totalQuiz":18,"total":45})"}));
}

TEST_CASE("unset removes top-level and embedded fields") {
  fixture f;
  f.with("c", R"([{"_id": 1, "title": "A", "isbn": "1", "author": {"last": "L", "first": "F"}}])");
  CHECK(f.run(R"([{"$unset": ["isbn", "author.first"]}])") == lines({R"({"_id":1,"title":"A","author":{"last":"L"}})"}));
  CHECK(f.run(R"([{"$unset": "title"}])") == lines({R"({"_id":1,"isbn":"1","author":{"last":"L","first":"F"}})"}));
}

TEST_CASE("sort orders by several keys and sort followed by limit keeps the top k") {
  fixture f;
  f.with("c", R"([{"_id": 1, "a": 3}, {"_id": 2, "a": [1, 9]}, {"_id": 3}, {"_id": 4, "a": 2}, {"_id": 5, "a": "s"}])");
  CHECK(f.run(R"([{"$sort": {"a": 1}}, {"$project": {"_id": 1}}])") ==
        lines({R"({"_id":3})", R"({"_id":2})", R"({"_id":4})", R"({"_id":1})", R"({"_id":5})"}));
  CHECK(f.run(R"([{"$sort": {"a": -1}}, {"$limit": 2}, {"$project": {"_id": 1}}])") ==
        lines({R"({"_id":5})", R"({"_id":2})"}));
  CHECK(f.run(R"([{"$sort": {"a": 1}}, {"$skip": 3}, {"$limit": 1}, {"$project": {"_id": 1}}])") == lines({R"({"_id":1})"}));
  CHECK(f.error(R"([{"$limit": 0}])") == "stage 1 (`$limit`): the limit must be a positive integer");
}

// MongoDB's manual ($unwind, "preserveNullAndEmptyArrays"): a preserved empty array's field is
// dropped from the output ({_id: 2, item: "EFG"}), while null stays null.
TEST_CASE("unwind emits one document per element and treats a non-array as one element") {
  fixture f;
  f.with("c", R"([{"_id": 1, "sizes": ["S", "M"]}, {"_id": 2, "sizes": "L"}, {"_id": 3, "sizes": []},
                  {"_id": 4, "sizes": null}, {"_id": 5}])");
  CHECK(f.run(R"([{"$unwind": "$sizes"}])") ==
        lines({R"({"_id":1,"sizes":"S"})", R"({"_id":1,"sizes":"M"})", R"({"_id":2,"sizes":"L"})"}));
  CHECK(f.run(R"([{"$unwind": {"path": "$sizes", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}])") ==
        lines({R"({"_id":1,"sizes":"S","i":0})", R"({"_id":1,"sizes":"M","i":1})", R"({"_id":2,"sizes":"L","i":null})",
               R"({"_id":3,"i":null})", R"({"_id":4,"sizes":null,"i":null})", R"({"_id":5,"i":null})"}));
}

TEST_CASE("count emits one document, and none for an empty input") {
  fixture f;
  f.with("c", R"([{"_id": 1, "s": 80}, {"_id": 2, "s": 90}, {"_id": 3, "s": 60}])");
  CHECK(f.run(R"([{"$match": {"s": {"$gt": 70}}}, {"$count": "passing"}])") == lines({R"({"passing":2})"}));
  CHECK(f.run(R"([{"$match": {"s": {"$gt": 100}}}, {"$count": "passing"}])").empty());
}

TEST_CASE("replaceRoot and replaceWith promote a document and refuse a non-document") {
  fixture f;
  f.with("c", R"([{"_id": 1, "name": {"first": "John", "last": "Backus"}}, {"_id": 2, "name": 5}])");
  CHECK(f.run(R"([{"$limit": 1}, {"$replaceRoot": {"newRoot": "$name"}}])") == lines({R"({"first":"John","last":"Backus"})"}));
  CHECK(f.run(R"([{"$limit": 1}, {"$replaceWith": {"$mergeObjects": [{"id": "$_id"}, "$name"]}}])") ==
        lines({R"({"id":1,"first":"John","last":"Backus"})"}));
  CHECK(f.error(R"([{"$replaceWith": "$name"}])") ==
        "'newRoot' expression must evaluate to an object, but resulting value was of type int");
}

TEST_CASE("redact prunes the embedded documents its expression rejects") {
  fixture f;
  f.with("c", R"([{"_id": 1, "level": 1, "sub": {"level": 5, "x": 1}, "list": [{"level": 2}, {"level": 9}]}])");
  CHECK(f.run(R"([{"$redact": {"$cond": {"if": {"$lte": ["$level", 3]}, "then": "$$DESCEND", "else": "$$PRUNE"}}}])") ==
        lines({R"({"_id":1,"level":1,"list":[{"level":2}]})"}));
}

TEST_CASE("sample is deterministic for a seed and returns at most size documents") {
  fixture f;
  f.with("c", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 4}, {"_id": 5}, {"_id": 6}])");
  const std::string a = f.run(R"([{"$sample": {"size": 3}}])");
  CHECK(a == f.run(R"([{"$sample": {"size": 3}}])"));
  CHECK(std::count(a.begin(), a.end(), '\n') == 3);
  CHECK(f.run(R"([{"$sample": {"size": 10}}, {"$count": "n"}])") == lines({R"({"n":6})"}));
}
