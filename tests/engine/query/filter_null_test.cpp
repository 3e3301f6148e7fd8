// Null and missing, after MongoDB 8.0's jstests/core/query/null_query_semantics.js
// (the requires_fcv_80 version). omgdb has no `undefined` type, so the documents holding
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

std::vector<std::string> dotted_equal_to_null() {
  return ids({"a_empty_subobject", "a_null", "a_number", "a_subobject_b_null", "no_a",
              "a_object_array_b_mix_null_missing", "a_object_array_some_b_nulls",
              "a_object_array_some_b_missing"});
}

std::vector<std::string> dotted_not_equal_to_null() {
  return ids({"a_subobject_b_not_null", "a_double_array", "a_empty_array",
              "a_object_array_no_b_nulls", "a_value_array_all_nulls", "a_value_array_no_nulls",
              "a_value_array_with_null"});
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

TEST_CASE("a dotted null filter matches arrays holding an object without the field (8.0 rules)") {
  // MongoDB 8.0: arrays of scalars and empty arrays do not match {"a.b": null}; 9.0 changed
  // that. omgdb follows 8.0 (docs/query-language.md).
  const auto docs = corpus(kAll);
  CHECK(matching(R"({"a.b": {"$eq": null}})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": null})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": {"$ne": null}})", docs) == dotted_not_equal_to_null());
  CHECK(matching(R"({"a.b": {"$in": [null, 75]}})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"$or": [{"a.b": null}, {"a.b": 75}]})", docs) == dotted_equal_to_null());
  CHECK(matching(R"({"a.b": {"$nin": [null, 75]}})", docs) == dotted_not_equal_to_null());
}

TEST_CASE("a dotted $nin with null and a regex also excludes arrays of matching strings") {
  const auto docs = corpus(kAll);
  CHECK(matching(
            R"({"a.b": {"$nin": [null,
                {"$regularExpression": {"pattern": "^str.*", "options": ""}}]}})",
            docs) == ids({"a_subobject_b_not_null", "a_double_array", "a_empty_array",
                          "a_value_array_all_nulls", "a_value_array_no_nulls",
                          "a_value_array_with_null"}));
}
