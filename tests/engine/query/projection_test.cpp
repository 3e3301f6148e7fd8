// Find projections (engine/query/projection.hpp). Expected outputs follow MongoDB's tutorial
// "Project Fields to Return from Query" and the reference pages of the $slice, $elemMatch and
// positional $ projection operators.
#include <doctest/doctest.h>

#include "engine/query/projection.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

const char* k_journal = R"({"_id": 1, "item": "journal", "status": "A",
                            "size": {"h": 14, "w": 21, "uom": "cm"},
                            "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]})";

std::string project(std::string_view spec, std::string_view doc_json,
                    const filter::match_details* details = nullptr) {
  auto p = projection::compile(doc(spec));
  REQUIRE_MESSAGE(p.ok(), spec, " -> ", (p.ok() ? "" : p.error().message));
  auto out = p->apply(doc(doc_json), details);
  REQUIRE_MESSAGE(out.ok(), spec, " failed: ", (out.ok() ? "" : out.error().message));
  return to_json(*out);
}

// Filters with `filter_json`, then projects the match with its details.
std::string find_one(std::string_view filter_json, std::string_view spec, std::string_view doc_json) {
  filter::match_details d;
  REQUIRE(compile(filter_json).matches(doc(doc_json), d));
  return project(spec, doc_json, &d);
}

std::string spec_error(std::string_view spec) {
  auto p = projection::compile(doc(spec));
  REQUIRE_MESSAGE(!p.ok(), "expected an error for ", spec);
  return p.error().message;
}

}  // namespace

TEST_CASE("an inclusion returns the named fields and _id first") {
  CHECK(project(R"({"item": 1, "status": 1})", k_journal) == R"({"_id":1,"item":"journal","status":"A"})");
  CHECK(project(R"({"status": 1, "item": 1})", k_journal) == R"({"_id":1,"item":"journal","status":"A"})");
  CHECK(project(R"({"item": 1, "status": 1, "_id": 0})", k_journal) == R"({"item":"journal","status":"A"})");
  CHECK(project(R"({"item": true, "missing": 1})", k_journal) == R"({"_id":1,"item":"journal"})");
  CHECK(project(R"({"_id": 1})", k_journal) == R"({"_id":1})");
  CHECK(project(R"({"item": 1})", R"({"item": "x", "_id": 7})") == R"({"_id":7,"item":"x"})");
  CHECK(project("{}", k_journal) == to_json(doc(k_journal)));
}

TEST_CASE("an exclusion returns every other field") {
  CHECK(project(R"({"status": 0, "instock": 0})", k_journal) ==
        R"({"_id":1,"item":"journal","size":{"h":14,"w":21,"uom":"cm"}})");
  CHECK(project(R"({"_id": 0})", R"({"_id": 1, "a": 2})") == R"({"a":2})");
  CHECK(project(R"({"_id": 0, "a": false})", R"({"_id": 1, "a": 2, "b": 3})") == R"({"b":3})");
  CHECK(project(R"({"size.uom": 0})", R"({"_id": 1, "size": {"h": 14, "w": 21, "uom": "cm"}})") ==
        R"({"_id":1,"size":{"h":14,"w":21}})");
}

TEST_CASE("dotted paths project embedded documents and each document of an array") {
  CHECK(project(R"({"item": 1, "status": 1, "size.uom": 1})", k_journal) ==
        R"({"_id":1,"item":"journal","status":"A","size":{"uom":"cm"}})");
  CHECK(project(R"({"item": 1, "size": {"uom": 1}})", k_journal) ==
        R"({"_id":1,"item":"journal","size":{"uom":"cm"}})");
  CHECK(project(R"({"instock.qty": 1, "_id": 0})", k_journal) == R"({"instock":[{"qty":5},{"qty":15}]})");
  // Inclusion drops non-document elements and recurses into nested arrays; exclusion keeps them.
  const char* mixed = R"({"_id": 1, "a": [{"b": 1, "c": 2}, 3, {"c": 4}, [{"b": 5, "c": 6}]]})";
  CHECK(project(R"({"a.b": 1})", mixed) == R"({"_id":1,"a":[{"b":1},{},[{"b":5}]]})");
  CHECK(project(R"({"a.b": 0})", mixed) == R"({"_id":1,"a":[{"c":2},3,{"c":4},[{"c":6}]]})");
  CHECK(project(R"({"a.b": 1})", R"({"_id": 1, "a": 5})") == R"({"_id":1})");
  CHECK(project(R"({"a.b": 1})", R"({"_id": 1, "a": {"c": 1}})") == R"({"_id":1,"a":{}})");
  // Numeric components are field names, not array positions.
  CHECK(project(R"({"a.0": 1})", R"({"_id": 1, "a": [1, 2]})") == R"({"_id":1,"a":[]})");
  CHECK(project(R"({"a.0": 1})", R"({"_id": 1, "a": {"0": 5, "1": 6}})") == R"({"_id":1,"a":{"0":5}})");
}

TEST_CASE("$slice keeps part of an array without deciding the kind of projection") {
  const char* post = R"({"_id": 1, "title": "t", "comments": [1, 2, 3, 4, 5]})";
  CHECK(project(R"({"comments": {"$slice": 2}})", post) == R"({"_id":1,"title":"t","comments":[1,2]})");
  CHECK(project(R"({"comments": {"$slice": -2}})", post) == R"({"_id":1,"title":"t","comments":[4,5]})");
  CHECK(project(R"({"comments": {"$slice": [1, 2]}})", post) == R"({"_id":1,"title":"t","comments":[2,3]})");
  CHECK(project(R"({"comments": {"$slice": [-2, 5]}})", post) == R"({"_id":1,"title":"t","comments":[4,5]})");
  CHECK(project(R"({"comments": {"$slice": [-9, 2]}})", post) == R"({"_id":1,"title":"t","comments":[1,2]})");
  CHECK(project(R"({"comments": {"$slice": [7, 2]}})", post) == R"({"_id":1,"title":"t","comments":[]})");
  CHECK(project(R"({"comments": {"$slice": 9}})", post) == R"({"_id":1,"title":"t","comments":[1,2,3,4,5]})");
  CHECK(project(R"({"title": {"$slice": 1}})", post) == to_json(doc(post)));
  CHECK(project(R"({"title": 0, "comments": {"$slice": 1}})", post) == R"({"_id":1,"comments":[1]})");
  // The $slice page (4.4+): in an inclusion, only the sliced field of the embedded document.
  const char* item = R"({"_id": 1, "item": "socks", "qty": 100,
                         "details": {"colors": ["blue", "red"], "sizes": ["S", "M", "L"]}})";
  CHECK(project(R"({"qty": 1, "details.colors": {"$slice": 1}})", item) ==
        R"({"_id":1,"qty":100,"details":{"colors":["blue"]}})");
  CHECK(project(R"({"details.colors": {"$slice": 1}})", item) ==
        R"({"_id":1,"item":"socks","qty":100,"details":{"colors":["blue"],"sizes":["S","M","L"]}})");
  CHECK(project(R"({"item": 1, "instock": {"$slice": -1}})", k_journal) ==
        R"({"_id":1,"item":"journal","instock":[{"warehouse":"C","qty":15}]})");
}

TEST_CASE("$elemMatch keeps the first matching element, after the other included fields") {
  // The $elemMatch projection page: schools and students.
  const char* school = R"({"_id": 1, "zipcode": "63109", "students": [
      {"name": "john", "school": 102, "age": 10}, {"name": "jess", "school": 102, "age": 11},
      {"name": "jeff", "school": 108, "age": 15}]})";
  CHECK(project(R"({"students": {"$elemMatch": {"school": 102}}})", school) ==
        R"({"_id":1,"students":[{"name":"john","school":102,"age":10}]})");
  CHECK(project(R"({"students": {"$elemMatch": {"school": 102, "age": {"$gt": 10}}}})", school) ==
        R"({"_id":1,"students":[{"name":"jess","school":102,"age":11}]})");
  CHECK(project(R"({"students": {"$elemMatch": {"school": 999}}})", school) == R"({"_id":1})");
  CHECK(project(R"({"students": {"$elemMatch": {"school": 102}}, "zipcode": 1})", school) ==
        R"({"_id":1,"zipcode":"63109","students":[{"name":"john","school":102,"age":10}]})");
  CHECK(project(R"({"s": {"$elemMatch": {"$gt": 3}}})", R"({"_id": 2, "s": [1, 5, 7]})") ==
        R"({"_id":2,"s":[5]})");
}

TEST_CASE("a positional projection keeps the element the filter matched") {
  // The positional $ projection page: students with grades.
  CHECK(find_one(R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})",
                 R"({"_id": 1, "semester": 1, "grades": [70, 87, 90]})") == R"({"_id":1,"grades":[87]})");
  CHECK(find_one(R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})",
                 R"({"_id": 3, "semester": 1, "grades": [85, 100, 90]})") == R"({"_id":3,"grades":[85]})");
  CHECK(find_one(R"({"grades.mean": {"$gt": 70}})", R"({"grades.$": 1, "_id": 0})",
                 R"({"_id": 7, "grades": [{"grade": 80, "mean": 65}, {"grade": 85, "mean": 85}]})") ==
        R"({"grades":[{"grade":85,"mean":85}]})");
  CHECK(find_one(R"({"a.b": {"$elemMatch": {"$gt": 2}}})", R"({"a.b.$": 1, "x": 1})",
                 R"({"_id": 1, "x": 0, "a": {"b": [1, 3], "c": 2}})") == R"({"_id":1,"x":0,"a":{"b":[3]}})");
}

TEST_CASE("a positional projection fails when the filter matched no element of that array") {
  auto p = projection::compile(doc(R"({"grades.$": 1})"));
  REQUIRE(p.ok());
  CHECK(p->needs_match_details());
  const document d = doc(R"({"_id": 1, "semester": 1, "grades": [70, 87]})");
  filter::match_details none;
  REQUIRE(compile(R"({"semester": 1})").matches(d, none));
  auto r = p->apply(d, &none);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "positional projection `grades.$` needs the filter to match an element of the array `grades` "
        "(add a condition on `grades` to the filter)");
  filter::match_details other;
  REQUIRE(compile(R"({"tags": "x"})").matches(doc(R"({"tags": ["x"], "grades": [1]})"), other));
  auto r2 = p->apply(doc(R"({"tags": ["x"], "grades": [1]})"), &other);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message ==
        "positional projection `grades.$` needs the filter to match an element of the array `grades` "
        "(it matched an element of `tags`)");
}

TEST_CASE("bad projections are errors that name the path") {
  CHECK(spec_error(R"({"a": 1, "b": 0})") == "projection cannot mix inclusion (`a`) and exclusion (`b`), except for `_id`");
  CHECK(spec_error(R"({"a": 0, "s": {"$elemMatch": {"x": 1}}})") ==
        "projection cannot mix inclusion (`s`) and exclusion (`a`), except for `_id`");
  CHECK(spec_error(R"({"a": 1, "a.b": 1})") == "projection paths `a` and `a.b` collide");
  CHECK(spec_error(R"({"a.b": 1, "a": 1})") == "projection paths `a.b` and `a` collide");
  CHECK(spec_error(R"({"x": "$a"})") ==
        "projection expressions are not supported: `x` must be 1 or 0 (true or false), {$slice: …}, "
        "{$elemMatch: …}, or a positional `.$`");
  CHECK(spec_error(R"({"x": {"$add": [1, 2]}})").find("projection expressions are not supported: `x`") == 0);
  CHECK(spec_error(R"({"a.b": {"$elemMatch": {"c": 1}}})") ==
        "`$elemMatch` projection works on top-level fields only, not `a.b`");
  CHECK(spec_error(R"({"a": {"$slice": [1, 0]}})") == "`$slice` limit must be positive at `a`");
  CHECK(spec_error(R"({"a": {"$slice": 1.5}})") ==
        "`$slice` needs an integer or an array [skip, limit] of integers at `a`");
  CHECK(spec_error(R"({"a.$": 1, "b.$": 1})") == "a projection can have only one positional `.$` path");
  CHECK(spec_error(R"({"a.$": 0})") == "positional projection `a.$` must be 1 or true");
  CHECK(spec_error(R"({"a.$.b": 1})") ==
        "projection path `a.$.b` has a component starting with '$' (only a final `.$` is allowed)");
  CHECK(spec_error(R"({"a..b": 1})") == "projection path `a..b` has an empty component");
  CHECK(spec_error(R"({"a": {}})") == "projection `a` is an empty document");
}
