// filter::matches(doc, details): the array element the positional `$` operator refers to.
// Expected values follow MongoDB's documentation of the positional `$` projection and update
// operators (reference/operator/projection/positional, reference/operator/update/positional):
// "the first element that matches the query condition on the array".
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

struct outcome {
  bool matched = false;
  filter::match_details details;
};

outcome detailed(std::string_view filter_json, std::string_view doc_json) {
  outcome o;
  o.matched = compile(filter_json).matches(doc(doc_json), o.details);
  return o;
}

// The index recorded, or -1 when none was.
long long index_of(std::string_view filter_json, std::string_view doc_json) {
  const outcome o = detailed(filter_json, doc_json);
  REQUIRE_MESSAGE(o.matched, filter_json, " should match ", doc_json);
  return o.details.array_index ? static_cast<long long>(*o.details.array_index) : -1;
}

}  // namespace

TEST_CASE("a condition on an array of scalars records the first element that satisfies it") {
  // The projection docs' students example: {semester: 1, grades: {$gte: 85}}.
  CHECK(index_of(R"({"semester": 1, "grades": {"$gte": 85}})",
                 R"({"_id": 1, "semester": 1, "grades": [70, 87, 90]})") == 1);
  CHECK(index_of(R"({"semester": 1, "grades": {"$gte": 85}})",
                 R"({"_id": 2, "semester": 1, "grades": [90, 88, 92]})") == 0);
  CHECK(index_of(R"({"grades": {"$gte": 85}})", R"({"grades": [80, 90]})") == 1);
  CHECK(index_of(R"({"grades": 85})", R"({"grades": [79, 85, 80]})") == 1);
  CHECK(index_of(R"({"grades": {"$in": [80, 100]}})", R"({"grades": [85, 100, 90]})") == 1);
  const outcome o = detailed(R"({"grades": {"$gte": 85}})", R"({"grades": [80, 90]})");
  CHECK(o.details.array_path == "grades");
}

TEST_CASE("a dotted condition records the element of the array of documents it went through") {
  // The projection docs: {"grades.mean": {$gt: 70}} with {"grades.$": 1}.
  const char* student = R"({"_id": 7, "grades": [{"grade": 80, "mean": 65, "std": 8},
                                                  {"grade": 85, "mean": 75, "std": 5},
                                                  {"grade": 90, "mean": 85, "std": 3}]})";
  CHECK(index_of(R"({"grades.mean": {"$gt": 70}})", student) == 1);
  CHECK(detailed(R"({"grades.mean": {"$gt": 70}})", student).details.array_path == "grades");
  // Only the first array on the path counts: a, not the inner b.
  const char* nested = R"({"a": [{"b": [{"c": 0}]}, {"b": [{"c": 5}, {"c": 1}]}]})";
  CHECK(index_of(R"({"a.b.c": 1})", nested) == 1);
  CHECK(detailed(R"({"a.b.c": 1})", nested).details.array_path == "a");
  // An array at the end of a dotted path through documents.
  CHECK(index_of(R"({"a.b": 2})", R"({"a": {"b": [1, 2]}})") == 1);
  CHECK(detailed(R"({"a.b": 2})", R"({"a": {"b": [1, 2]}})").details.array_path == "a.b");
}

TEST_CASE("$elemMatch records the element that meets all of its conditions") {
  // The update docs: {_id: 5, grades: {$elemMatch: {grade: {$lte: 90}, mean: {$gt: 80}}}}.
  const char* student = R"({"_id": 5, "grades": [{"grade": 80, "mean": 75, "std": 8},
                                                  {"grade": 85, "mean": 90, "std": 5},
                                                  {"grade": 90, "mean": 85, "std": 3}]})";
  CHECK(index_of(R"({"_id": 5, "grades": {"$elemMatch": {"grade": {"$lte": 90}, "mean": {"$gt": 80}}}})",
                 student) == 1);
  CHECK(index_of(R"({"s": {"$elemMatch": {"$gt": 3, "$lt": 7}}})", R"({"s": [1, 10, 5]})") == 2);
  // Under an outer array the outer element wins, as for any other condition.
  CHECK(index_of(R"({"a.b": {"$elemMatch": {"$gt": 5}}})",
                 R"({"a": [{"b": [1]}, {"b": [3, 7]}]})") == 1);
}

TEST_CASE("with several conditions the last one that records an element wins") {
  // Each condition walks the array on its own; the implicit AND keeps the last record.
  const char* doc_json = R"({"grades": [{"grade": 80, "mean": 75}, {"grade": 95, "mean": 90}]})";
  CHECK(index_of(R"({"grades.grade": {"$lte": 90}, "grades.mean": {"$gt": 80}})", doc_json) == 1);
  CHECK(index_of(R"({"grades.mean": {"$gt": 80}, "grades.grade": {"$lte": 90}})", doc_json) == 0);
  CHECK(index_of(R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": [1], "b": [0, 2]})") == 1);
  CHECK(detailed(R"({"a": 1, "b": 2})", R"({"a": [1], "b": [0, 2]})").details.array_path == "b");
  // A condition that records nothing leaves an earlier record in place.
  CHECK(index_of(R"({"a": 1, "x": 5})", R"({"a": [0, 1], "x": 5})") == 1);
  // $gt and $lt on one path are two conditions: the last ($lt) decides.
  CHECK(index_of(R"({"s": {"$gt": 3, "$lt": 7}})", R"({"s": [1, 10]})") == 0);
}

TEST_CASE("$or, $nor, negations and whole-array equality record no element") {
  CHECK(index_of(R"({"$or": [{"a": 2}, {"b": 1}]})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"$nor": [{"a": 5}]})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"a": {"$ne": 5}})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"a": {"$nin": [5]}})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"a": [1, 2]})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"a": {"$size": 2}})", R"({"a": [1, 2]})") == -1);
  CHECK(index_of(R"({"x": 1})", R"({"x": 1, "a": [1]})") == -1);
  CHECK(index_of(R"({})", R"({"a": [1]})") == -1);
}

TEST_CASE("a numeric path component reaches an element without recording it") {
  CHECK(index_of(R"({"a.1": 5})", R"({"a": [4, 5]})") == -1);
  // An expansion after the index still records.
  CHECK(index_of(R"({"a.0.b": 2})", R"({"a": [{"b": [1, 2]}]})") == 1);
}

TEST_CASE("null and missing branches record the element where the path ended") {
  CHECK(index_of(R"({"a": null})", R"({"a": [1, null]})") == 1);
  CHECK(index_of(R"({"a.b": null})", R"({"a": [{"b": 1}, {"c": 1}]})") == 1);
  CHECK(index_of(R"({"a": {"$exists": true}})", R"({"a": [7, 8]})") == 0);
}

TEST_CASE("details are reset by each call and agree with the plain matcher") {
  const filter f = compile(R"({"a": {"$gt": 1}})");
  filter::match_details d;
  REQUIRE(f.matches(doc(R"({"a": [0, 5]})"), d));
  CHECK(d.array_index == 1u);
  REQUIRE(f.matches(doc(R"({"a": 5})"), d));
  CHECK_FALSE(d.array_index.has_value());
  CHECK(d.array_path.empty());
  CHECK_FALSE(f.matches(doc(R"({"a": [0, 1]})"), d));
  for (const char* text : {R"({"a": [0, 5]})", R"({"a": 5})", R"({"a": [0]})", R"({"b": 1})"}) {
    filter::match_details dd;
    CHECK(f.matches(doc(text)) == f.matches(doc(text), dd));
  }
}
