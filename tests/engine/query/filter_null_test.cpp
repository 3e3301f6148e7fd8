// Null and missing, after MongoDB 8.0's jstests/core/query/null_query_semantics.js
// (the requires_fcv_80 version), moved to MongoDB 9.0 where 9.0 changed it: a dotted path
// that does not resolve to a non-null value evaluates as null when a field on the path holds
// an empty array, an array of scalars or an array containing a nested array (the 9.0
// compatibility notes, "Null Comparisons on Dotted Paths That Traverse Arrays"). Only the
// dotted-path expectations for exactly those documents (a_double_array, a_empty_array and
// the a_value_array_* ones) changed. omgdb has no `undefined` type, so the documents holding
// undefined are left out and "a_object_array_b_mix_null_missing" drops its {b: undefined}.
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

const char* const kScalars = R"([
  {"_id": "a_empty_subobject", "a": {}},
  {"_id": "a_null", "a": null},
  {"_id": "a_number", "a": 4},
  {"_id": "a_subobject_b_not_null", "a": {"b": "hi"}},
  {"_id": "a_subobject_b_null", "a": {"b": null}},
  {"_id": "no_a"}
])";

const char* const kAll = R"([
  {"_id": "a_empty_subobject", "a": {}},
  {"_id": "a_null", "a": null},
  {"_id": "a_number", "a": 4},
  {"_id": "a_subobject_b_not_null", "a": {"b": "hi"}},
  {"_id": "a_subobject_b_null", "a": {"b": null}},
  {"_id": "no_a"},
  {"_id": "a_double_array", "a": [[]]},
  {"_id": "a_empty_array", "a": []},
  {"_id": "a_object_array_b_mix_null_missing", "a": [{"b": null}, {"b": null}, {}]},
  {"_id": "a_object_array_no_b_nulls", "a": [{"b": 1}, {"b": 3}, {"b": "string"}]},
  {"_id": "a_object_array_some_b_nulls", "a": [{"b": null}, {"b": 3}, {"b": null}]},
  {"_id": "a_object_array_some_b_missing", "a": [{"b": 3}, {}]},
  {"_id": "a_value_array_all_nulls", "a": [null, null]},
  {"_id": "a_value_array_no_nulls", "a": [1, "string", 4]},
  {"_id": "a_value_array_with_null", "a": [1, "string", null, 4]}
])";

std::vector<std::string> equal_to_null() {
  return ids({"a_null", "no_a", "a_value_array_all_nulls", "a_value_array_with_null"});
}

std::vector<std::string> not_equal_to_null() {
  return ids({"a_double_array", "a_empty_array", "a_empty_subobject", "a_number",
              "a_object_array_b_mix_null_missing", "a_object_array_no_b_nulls",
              "a_object_array_some_b_nulls", "a_object_array_some_b_missing",
              "a_subobject_b_not_null", "a_subobject_b_null", "a_value_array_no_nulls"});
}

// MongoDB 9.0: the arrays of scalars, the empty array and the array of an array leave
// "a.b" unresolved, so it is null there (8.0 put those five in dotted_not_equal_to_null).
std::vector<std::string> dotted_equal_to_null() {
  return ids({"a_empty_subobject", "a_null", "a_number", "a_subobject_b_null", "no_a",
              "a_object_array_b_mix_null_missing", "a_object_array_some_b_nulls",
              "a_object_array_some_b_missing", "a_double_array", "a_empty_array",
              "a_value_array_all_nulls", "a_value_array_no_nulls", "a_value_array_with_null"});
}

std::vector<std::string> dotted_not_equal_to_null() {
  return ids({"a_subobject_b_not_null", "a_object_array_no_b_nulls"});
}

}  // namespace

TEST_CASE("a null filter matches null and missing fields but not other values") {
  const auto docs = corpus(kScalars);
  CHECK(matching(R"({"a": {"$eq": null}})", docs) == ids({"a_null", "no_a"}));
  CHECK(matching(R"({"a": null})", docs) == ids({"a_null", "no_a"}));
  CHECK(matching(R"({"a": {"$ne": null}})", docs) ==
        ids({"a_empty_subobject", "a_number", "a_subobject_b_not_null", "a_subobject_b_null"}));
  CHECK(matching(R"({"a": {"$in": [null, 4]}})", docs) == ids({"a_null", "a_number", "no_a"}));
  CHECK(matching(R"({"$or": [{"a": null}, {"a": 4}]})", docs) ==
        ids({"a_null", "a_number", "no_a"}));
  CHECK(matching(R"({"a": {"$nin": [null, 4]}})", docs) ==
        ids({"a_empty_subobject", "a_subobject_b_not_null", "a_subobject_b_null"}));
  CHECK(matching(R"({"a": {"$exists": false}})", docs) == ids({"no_a"}));
}

TEST_CASE("a null filter on a dotted path matches scalars and objects missing the field") {
  const auto docs = corpus(kScalars);
  CHECK(matching(R"({"a.b": {"$eq": null}})", docs) ==
        ids({"a_empty_subobject", "a_null", "a_number", "a_subobject_b_null", "no_a"}));
  CHECK(matching(R"({"a.b": {"$ne": null}})", docs) == ids({"a_subobject_b_not_null"}));
  CHECK(matching(R"({"a.b": {"$exists": false}})", docs) ==
        ids({"no_a", "a_empty_subobject", "a_null", "a_number"}));
}

TEST_CASE("$elemMatch never matches a field that is not an array") {
  const auto docs = corpus(kScalars);
  for (const char* q : {R"({"a": {"$elemMatch": {"$eq": null}}})",
                        R"({"a": {"$elemMatch": {"$ne": null}}})",
                        R"({"a.b": {"$elemMatch": {"$eq": null}}})",
                        R"({"a.b": {"$elemMatch": {"$ne": null}}})",
                        R"({"a": {"$elemMatch": {"b": {"$eq": null}}}})",
                        R"({"a": {"$elemMatch": {"b": {"$ne": null}}}})"}) {
    CAPTURE(q);
    CHECK(matching(q, docs).empty());
  }
}

TEST_CASE("a null filter matches arrays that contain null but not empty arrays") {
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a": {"$eq": null}})", docs) == equal_to_null());
  CHECK(matching(R"({"a": {"$ne": null}})", docs) == not_equal_to_null());
  CHECK(matching(R"({"a": {"$not": {"$gte": null}}})", docs) == not_equal_to_null());
  CHECK(matching(R"({"a": {"$in": [null, 75]}})", docs) == equal_to_null());
  CHECK(matching(R"({"$or": [{"a": null}, {"a": 75}]})", docs) == equal_to_null());
  CHECK(matching(R"({"a": {"$nin": [null, 75]}})", docs) == not_equal_to_null());
}

TEST_CASE("$gte and $lte null behave like null equality and $gt and $lt null match nothing") {
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a": {"$gte": null}})", docs) == equal_to_null());
  CHECK(matching(R"({"a": {"$lte": null}})", docs) == equal_to_null());
  CHECK(matching(R"({"a": {"$gt": null}})", docs).empty());
  CHECK(matching(R"({"a": {"$lt": null}})", docs).empty());
}

TEST_CASE("$nin with null and an empty array excludes empty and nested empty arrays") {
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a": {"$nin": [null, []]}})", docs) ==
        ids({"a_empty_subobject", "a_number", "a_subobject_b_not_null", "a_subobject_b_null",
             "a_object_array_b_mix_null_missing", "a_object_array_no_b_nulls",
             "a_object_array_some_b_nulls", "a_object_array_some_b_missing",
             "a_value_array_no_nulls"}));
}

TEST_CASE("$nin with null and a regex excludes missing fields and matching strings") {
  const auto docs = corpus(kAll);
  CHECK(matching(
            R"({"a": {"$nin": [null,
                {"$regularExpression": {"pattern": "^str.*", "options": ""}}]}})",
            docs) == ids({"a_empty_subobject", "a_number", "a_subobject_b_not_null",
                          "a_subobject_b_null", "a_double_array", "a_empty_array",
                          "a_object_array_b_mix_null_missing", "a_object_array_no_b_nulls",
                          "a_object_array_some_b_nulls", "a_object_array_some_b_missing"}));
}

TEST_CASE("$elemMatch with null conditions tests each element") {
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a": {"$elemMatch": {"$eq": null}}})", docs) ==
        ids({"a_value_array_all_nulls", "a_value_array_with_null"}));
  CHECK(matching(R"({"a": {"$elemMatch": {"$ne": null}}})", docs) ==
        ids({"a_double_array", "a_object_array_b_mix_null_missing", "a_object_array_no_b_nulls",
             "a_object_array_some_b_nulls", "a_object_array_some_b_missing",
             "a_value_array_no_nulls", "a_value_array_with_null"}));
  // Elements that are arrays are searched as documents too: [] has no `b`.
  CHECK(matching(R"({"a": {"$elemMatch": {"b": {"$eq": null}}}})", docs) ==
        ids({"a_double_array", "a_object_array_b_mix_null_missing",
             "a_object_array_some_b_nulls", "a_object_array_some_b_missing"}));
  CHECK(matching(R"({"a": {"$elemMatch": {"b": {"$ne": null}}}})", docs) ==
        ids({"a_object_array_no_b_nulls", "a_object_array_some_b_nulls",
             "a_object_array_some_b_missing"}));
  CHECK(matching(R"({"a.b": {"$elemMatch": {"$eq": null}}})", docs).empty());
  CHECK(matching(R"({"a.b": {"$elemMatch": {"$ne": null}}})", docs).empty());
}

TEST_CASE("a dotted null filter matches arrays that do not resolve the path to a non-null value (9.0 rules)") {
  // MongoDB 9.0: arrays of scalars, empty arrays and arrays of arrays match {"a.b": null}
  // (8.0 did not match them), and {"a.b": {$ne: null}} the opposite. docs/query-language.md.
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a.b": {"$eq": null}})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": null})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": {"$ne": null}})", docs) == dotted_not_equal_to_null());
  CHECK(matching(R"({"a.b": {"$in": [null, 75]}})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"$or": [{"a.b": null}, {"a.b": 75}]})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": {"$nin": [null, 75]}})", docs) == dotted_not_equal_to_null());
}

TEST_CASE("a dotted $nin with null and a regex excludes every path that resolves to null") {
  // 9.0: the arrays of scalars, the empty array and the array of an array resolve "a.b" to
  // null, so $nin with null excludes them (8.0 kept them).
  const auto docs = corpus(kAll);
  CHECK(matching(
            R"({"a.b": {"$nin": [null,
                {"$regularExpression": {"pattern": "^str.*", "options": ""}}]}})",
            docs) == ids({"a_subobject_b_not_null"}));
}

TEST_CASE("a dotted path through an array that yields nothing evaluates as null (MongoDB 9.0)") {
  // The 9.0 compatibility page's example, and the consistency with $exists it restores.
  const auto docs = corpus(R"([{"_id": 1, "a": [1]}, {"_id": 2, "a": []}, {"_id": 3, "a": [{"b": 1}, 2]},
                               {"_id": 4, "a": [[{"b": 5}]]}, {"_id": 5, "a": [{"c": [7]}]}, {"_id": 6, "a": [3]}])");
  CHECK(matching(R"({"a.b": null})", docs) == ids({"1", "2", "4", "5", "6"}));
  CHECK(matching(R"({"a.b": {"$ne": null}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a.b": {"$exists": false}})", docs) == ids({"1", "2", "4", "5", "6"}));
  CHECK(matching(R"({"a.b": {"$in": [null]}})", docs) == ids({"1", "2", "4", "5", "6"}));
  CHECK(matching(R"({"a.c.d": null})", docs) == ids({"1", "2", "3", "4", "5", "6"}));
  // A numeric component past the end of an array of scalars leaves the path unresolved too
  // (3 and 5 match through their document elements, which have no field "1" / "0", as in 8.0).
  CHECK(matching(R"({"a.1": null})", docs) == ids({"1", "2", "3", "4", "5", "6"}));
  CHECK(matching(R"({"a.0": null})", docs) == ids({"2", "3", "5"}));
  // Conditions that never match null are unaffected.
  CHECK(matching(R"({"a.b": {"$exists": true}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a.b": {"$gt": 0}})", docs) == ids({"3"}));
  CHECK(matching(R"({"a.b": {"$type": "null"}})", docs).empty());
}
