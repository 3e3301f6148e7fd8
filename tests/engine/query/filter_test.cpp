// Filters: equality, comparisons and type brackets, logical operators, _id point lookups,
// compile errors. Expected results follow MongoDB's documented behaviour.
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

TEST_CASE("an empty filter matches every document") {
  const filter all = compile("{}");
  CHECK(all.matches_everything());
  CHECK(all.matches(doc(R"({"a": 1})")));
  CHECK(all.matches(doc("{}")));
  CHECK(all.id_equality() == nullptr);

  const filter defaulted;
  CHECK(defaulted.matches_everything());
  CHECK(defaulted.matches(doc(R"({"x": [1, 2]})")));

  CHECK(compile(R"({"$comment": "only a comment"})").matches_everything());
  CHECK_FALSE(compile(R"({"a": 1})").matches_everything());
}

TEST_CASE("implicit equality matches the field value and nothing of another type") {
  CHECK(matches(R"({"a": 1})", R"({"a": 1})"));
  CHECK_FALSE(matches(R"({"a": 1})", R"({"a": 2})"));
  CHECK_FALSE(matches(R"({"a": 1})", R"({"a": "1"})"));
  CHECK_FALSE(matches(R"({"a": 1})", R"({"a": true})"));
  CHECK_FALSE(matches(R"({"a": 1})", R"({"b": 1})"));
  CHECK(matches(R"({"a": "x", "b": true})", R"({"b": true, "a": "x"})"));
  CHECK_FALSE(matches(R"({"a": "x", "b": true})", R"({"a": "x", "b": false})"));
}

TEST_CASE("numbers of every kind compare by value") {
  CHECK(matches(R"({"a": 1})", R"({"a": 1.0})"));
  CHECK(matches(R"({"a": 1})", R"({"a": {"$numberLong": "1"}})"));
  CHECK(matches(R"({"a": 1})", R"({"a": {"$numberDecimal": "1.0"}})"));
  CHECK(matches(R"({"a": {"$numberLong": "5"}})", R"({"a": 5.0})"));
  CHECK(matches(R"({"a": {"$gt": 1}})", R"({"a": 1.5})"));
  CHECK(matches(R"({"a": {"$lt": 2}})", R"({"a": {"$numberLong": "1"}})"));
  CHECK(matches(R"({"a": 0})", R"({"a": -0.0})"));
  CHECK_FALSE(matches(R"({"a": {"$gt": 1}})", R"({"a": 1.0})"));
  CHECK(matches(R"({"a": {"$gte": 1}})", R"({"a": 1.0})"));
}

TEST_CASE("range operators never match values of another type bracket") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 5}, {"_id": 2, "a": "5"}, {"_id": 3, "a": true}, {"_id": 4, "a": null},
    {"_id": 5}, {"_id": 6, "a": {"$date": "2024-01-01T00:00:00Z"}}, {"_id": 7, "a": [1, "z"]},
    {"_id": 8, "a": {"b": 1}}, {"_id": 9, "a": -3.5}])");
  CHECK(matching(R"({"a": {"$gt": 0}})", docs) == ids({"1", "7"}));
  CHECK(matching(R"({"a": {"$lt": 0}})", docs) == ids({"9"}));
  CHECK(matching(R"({"a": {"$gt": ""}})", docs) == ids({"2", "7"}));
  CHECK(matching(R"({"a": {"$lte": "5"}})", docs) == ids({"2"}));
  CHECK(matching(R"({"a": {"$gte": false}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a": {"$gt": {"$date": "2000-01-01T00:00:00Z"}}})", docs) == ids({"6"}));
  CHECK(matching(R"({"a": {"$gte": {}}})", docs) == ids({"8"}));
}

TEST_CASE("an operator document is an implicit and of its operators") {
  const auto docs = corpus(R"([
    {"_id": 1, "age": 20}, {"_id": 2, "age": 21}, {"_id": 3, "age": 40},
    {"_id": 4, "age": 65}, {"_id": 5, "age": "30"}, {"_id": 6}])");
  CHECK(matching(R"({"age": {"$gte": 21, "$lt": 65}})", docs) == ids({"2", "3"}));
  CHECK(matching(R"({"age": {"$gt": 20, "$ne": 40}})", docs) == ids({"2", "4"}));
  CHECK(matching(R"({"age": {"$eq": 40}})", docs) == ids({"3"}));
}

TEST_CASE("embedded document equality is exact and depends on field order") {
  CHECK(matches(R"({"a": {"b": 1, "c": 2}})", R"({"a": {"b": 1, "c": 2}})"));
  CHECK_FALSE(matches(R"({"a": {"b": 1, "c": 2}})", R"({"a": {"c": 2, "b": 1}})"));
  CHECK_FALSE(matches(R"({"a": {"b": 1}})", R"({"a": {"b": 1, "c": 2}})"));
  CHECK(matches(R"({"a": {"$eq": {"b": 1}}})", R"({"a": {"b": 1}})"));
  CHECK(matches(R"({"a.b": 1})", R"({"a": {"b": 1, "c": 2}})"));
}

TEST_CASE("a document whose first key is a plain field is a literal even with $ keys after it") {
  // MongoDB only reads an operator document when the first key starts with '$'.
  CHECK(matches(R"({"a": {"b": 2, "$gt": 1}})", R"({"a": {"b": 2, "$gt": 1}})"));
  CHECK_FALSE(matches(R"({"a": {"b": 2, "$gt": 1}})", R"({"a": 3})"));
}

TEST_CASE("a DBRef-shaped document is compared as a value") {
  CHECK(matches(R"({"r": {"$ref": "users", "$id": 5}})", R"({"r": {"$ref": "users", "$id": 5}})"));
  CHECK_FALSE(
      matches(R"({"r": {"$ref": "users", "$id": 5}})", R"({"r": {"$ref": "users", "$id": 6}})"));
}

TEST_CASE("DBRef fields can be matched inside $elemMatch") {
  const char* d = R"({"refs": [{"$ref": "users", "$id": 5}, {"$ref": "posts", "$id": 6}]})";
  CHECK(matches(R"({"refs": {"$elemMatch": {"$ref": "posts", "$id": 6}}})", d));
  CHECK_FALSE(matches(R"({"refs": {"$elemMatch": {"$ref": "posts", "$id": 5}}})", d));
  CHECK(matches(R"({"refs.$id": 5})", d));
}

TEST_CASE("$and, $or and $nor combine filters at the top level and nested") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 1, "b": 2}, {"_id": 3, "a": 2, "b": 1},
    {"_id": 4, "a": 2, "b": 2}, {"_id": 5}])");
  CHECK(matching(R"({"$and": [{"a": 1}, {"b": 2}]})", docs) == ids({"2"}));
  CHECK(matching(R"({"$or": [{"a": 1}, {"b": 1}]})", docs) == ids({"1", "2", "3"}));
  CHECK(matching(R"({"$nor": [{"a": 1}, {"b": 1}]})", docs) == ids({"4", "5"}));
  CHECK(matching(R"({"a": 2, "$or": [{"b": 1}, {"b": 3}]})", docs) == ids({"3"}));
  CHECK(matching(R"({"$or": [{"$and": [{"a": 1}, {"b": 1}]}, {"$nor": [{"a": 1}, {"a": 2}]}]})",
                 docs) == ids({"1", "5"}));
  CHECK(matching(R"({"$and": [{"$or": [{"a": 1}, {"a": 2}]}, {"$or": [{"b": 2}]}]})", docs) ==
        ids({"2", "4"}));
  CHECK(matching(R"({"$or": [{}]})", docs) == ids({"1", "2", "3", "4", "5"}));
}

TEST_CASE("$in matches any listed value and $nin is its exact complement") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1}, {"_id": 2, "a": "x"}, {"_id": 3, "a": [5, 7]}, {"_id": 4, "a": [1, 2]},
    {"_id": 5}, {"_id": 6, "a": null}, {"_id": 7, "a": [[1, 2]]}])");
  CHECK(matching(R"({"a": {"$in": [1, "x"]}})", docs) == ids({"1", "2", "4"}));
  CHECK(matching(R"({"a": {"$nin": [1, "x"]}})", docs) == ids({"3", "5", "6", "7"}));
  CHECK(matching(R"({"a": {"$in": [7, 9]}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a": {"$in": []}})", docs).empty());
  CHECK(matching(R"({"a": {"$nin": []}})", docs).size() == docs.size());
  CHECK(matching(R"({"a": {"$in": [[1, 2]]}})", docs) == ids({"4", "7"}));
  CHECK(matching(R"({"a": {"$in": [1.0, {"$numberLong": "2"}]}})", docs) == ids({"1", "4"}));
}

TEST_CASE("$ne is the exact complement of $eq") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": [1, 2]}, {"_id": 4, "a": [2, 3]},
    {"_id": 5}, {"_id": 6, "a": "1"}])");
  CHECK(matching(R"({"a": {"$ne": 1}})", docs) == ids({"2", "4", "5", "6"}));
  CHECK(matching(R"({"a": 1})", docs) == ids({"1", "3"}));
}

TEST_CASE("$exists tests presence and matches null values") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": null}, {"_id": 2, "a": 0}, {"_id": 3}, {"_id": 4, "a": []},
    {"_id": 5, "a": {"b": null}}])");
  CHECK(matching(R"({"a": {"$exists": true}})", docs) == ids({"1", "2", "4", "5"}));
  CHECK(matching(R"({"a": {"$exists": false}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a": {"$exists": 1}})", docs) == ids({"1", "2", "4", "5"}));
  CHECK(matching(R"({"a": {"$exists": 0}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a.b": {"$exists": true}})", docs) == ids({"5"}));
}

TEST_CASE("NaN equals NaN but is neither below nor above any number") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": {"$numberDouble": "NaN"}}, {"_id": 2, "a": 0},
    {"_id": 3, "a": {"$numberDouble": "-Infinity"}}])");
  const char* nan = R"({"$numberDouble": "NaN"})";
  CHECK(matching(std::string(R"({"a": )") + nan + "}", docs) == ids({"1"}));
  CHECK(matching(std::string(R"({"a": {"$gte": )") + nan + "}}", docs) == ids({"1"}));
  CHECK(matching(std::string(R"({"a": {"$lte": )") + nan + "}}", docs) == ids({"1"}));
  CHECK(matching(std::string(R"({"a": {"$gt": )") + nan + "}}", docs).empty());
  CHECK(matching(std::string(R"({"a": {"$lt": )") + nan + "}}", docs).empty());
  CHECK(matching(R"({"a": {"$lt": 1}})", docs) == ids({"2", "3"}));
  CHECK(matching(R"({"a": {"$gt": -1}})", docs) == ids({"2"}));
}

TEST_CASE("MinKey and MaxKey bounds compare across every type") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1}, {"_id": 2, "a": "x"}, {"_id": 3, "a": null}, {"_id": 4},
    {"_id": 5, "a": {"$maxKey": 1}}, {"_id": 6, "a": {"$minKey": 1}}])");
  CHECK(matching(R"({"a": {"$lt": {"$maxKey": 1}}})", docs) == ids({"1", "2", "3", "4", "6"}));
  CHECK(matching(R"({"a": {"$gt": {"$minKey": 1}}})", docs) == ids({"1", "2", "3", "4", "5"}));
  CHECK(matching(R"({"a": {"$maxKey": 1}})", docs) == ids({"5"}));
}

TEST_CASE("id_equality reports an _id pinned by equality at the top level") {
  auto pinned = [](const char* json) {
    const filter f = compile(json);
    return f.id_equality() != nullptr ? to_json(*f.id_equality()) : std::string("none");
  };
  CHECK(pinned(R"({"_id": 7})") == "7");
  CHECK(pinned(R"({"_id": {"$eq": "k"}})") == "\"k\"");
  CHECK(pinned(R"({"name": "x", "_id": 3})") == "3");
  CHECK(pinned(R"({"$and": [{"a": 1}, {"_id": {"$oid": "0123456789abcdef01234567"}}]})") ==
        R"({"$oid":"0123456789abcdef01234567"})");
  CHECK(pinned(R"({"_id": {"$eq": 4, "$exists": true}})") == "4");
  CHECK(pinned(R"({"_id": {"$gt": 1}})") == "none");
  CHECK(pinned(R"({"_id": {"$in": [1]}})") == "none");
  CHECK(pinned(R"({"$or": [{"_id": 1}]})") == "none");
  CHECK(pinned(R"({"_id": {"$ne": 1}})") == "none");
  CHECK(pinned(R"({"_id": {"$regularExpression": {"pattern": "^a", "options": ""}}})") == "none");
  CHECK(pinned(R"({"a._id": 1})") == "none");
}

TEST_CASE("id_equality stays valid after the filter is moved") {
  filter f = compile(R"({"_id": "abc", "n": {"$gt": 1}})");
  const value* before = f.id_equality();
  REQUIRE(before != nullptr);
  filter moved = std::move(f);
  CHECK(moved.id_equality() == before);
  CHECK(f.id_equality() == nullptr);  // NOLINT: checking the moved-from state on purpose
  filter assigned;
  assigned = std::move(moved);
  REQUIRE(assigned.id_equality() == before);
  CHECK(assigned.id_equality()->as_string() == "abc");
  CHECK(assigned.matches(doc(R"({"_id": "abc", "n": 2})")));
}

TEST_CASE("unknown operators are compile errors naming the operator and the path") {
  CHECK(compile_error(R"({"age": {"$foo": 1}})") == "unknown operator `$foo` at `age`");
  CHECK(compile_error(R"({"a.b": {"$gt": 1, "$bitsAllSet": 3}})") ==
        "unknown operator `$bitsAllSet` at `a.b`");
  CHECK(compile_error(R"({"$foo": 1})") == "unknown top-level operator `$foo`");
  CHECK(compile_error(R"({"$where": "this.a > 1"})") == "unknown top-level operator `$where`");
  CHECK(compile_error(R"({"$expr": {"$foo": ["$a", 1]}})") ==
        "`$expr`: unknown expression operator `$foo`");
  CHECK(compile_error(R"({"$or": [{"a": {"$near": [0, 0]}}]})") ==
        "unknown operator `$near` at `a`");
  CHECK(compile_error(R"({"a": {"$comment": "x"}})") == "unknown operator `$comment` at `a`");
}

TEST_CASE("an operator document cannot mix operators and plain fields") {
  CHECK(compile_error(R"({"a": {"$gt": 1, "b": 2}})") ==
        "unknown operator `b` at `a`: a document of operators cannot also hold plain fields");
}

TEST_CASE("logical operators need a non-empty array of objects") {
  CHECK(compile_error(R"({"$and": []})") == "`$and` needs a non-empty array of objects");
  CHECK(compile_error(R"({"$or": {"a": 1}})") == "`$or` needs a non-empty array of objects");
  CHECK(compile_error(R"({"$nor": [1]})") == "`$nor` needs a non-empty array of objects");
  CHECK(compile_error(R"({"$or": [{"a": 1}, []]})") == "`$or` needs a non-empty array of objects");
  CHECK(compile_error(R"({"$and": [{"$or": []}]})") == "`$or` needs a non-empty array of objects");
}

TEST_CASE("malformed comparison arguments are compile errors") {
  CHECK(compile_error(R"({"a": {"$in": 1}})") == "`$in` needs an array at `a`");
  CHECK(compile_error(R"({"a": {"$nin": {"x": 1}}})") == "`$nin` needs an array at `a`");
  CHECK(compile_error(R"({"a": {"$in": [{"$gt": 1}]}})") ==
        "`$in` cannot contain an operator document at `a`");
  const char* re = R"({"$regularExpression": {"pattern": "x", "options": ""}})";
  CHECK(compile_error(std::string(R"({"a": {"$gt": )") + re + "}}") ==
        "`$gt` cannot take a regex at `a`");
  CHECK(compile_error(std::string(R"({"a": {"$ne": )") + re + "}}") ==
        "`$ne` cannot take a regex at `a`");
}
