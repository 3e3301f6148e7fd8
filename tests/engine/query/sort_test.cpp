// Sort specifications. Expected orders come from MongoDB's jstests/core/query/sort/
// sort_dotted_paths.js, sort_dotted_paths_numeric.js and sort_array.js (documents holding
// `undefined`, which omgdb cannot store, are left out).
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

sort_spec spec(std::string_view json) {
  auto s = sort_spec::compile(doc(json));
  REQUIRE_MESSAGE(s.ok(), json);
  return std::move(*s);
}

std::string sort_error(std::string_view json) {
  auto s = sort_spec::compile(doc(json));
  REQUIRE_MESSAGE(!s.ok(), "expected an error for ", json);
  return s.error().message;
}

}  // namespace

TEST_CASE("a sort specification takes 1 or -1 per dotted path") {
  const sort_spec s = spec(R"({"a.b": 1, "c": -1, "d": 1.0, "e": {"$numberLong": "-1"}})");
  REQUIRE(s.keys().size() == 4);
  CHECK(s.keys()[0].path == "a.b");
  CHECK_FALSE(s.keys()[0].descending);
  CHECK(s.keys()[1].descending);
  CHECK_FALSE(s.keys()[2].descending);
  CHECK(s.keys()[3].descending);
  CHECK(spec("{}").empty());
  CHECK(sort_spec().empty());
}

TEST_CASE("a sort specification rejects bad directions and paths") {
  CHECK(sort_error(R"({"a": 2})") == "sort direction for `a` must be 1 or -1");
  CHECK(sort_error(R"({"a": "asc"})") == "sort direction for `a` must be 1 or -1");
  CHECK(sort_error(R"({"a": 0.5})") == "sort direction for `a` must be 1 or -1");
  CHECK(sort_error(R"({"a": {"$meta": "textScore"}})") == "sort direction for `a` must be 1 or -1");
  CHECK(sort_error(R"({"": 1})") == "sort path must not be empty");
  CHECK(sort_error(R"({"a..b": 1})") == "sort path `a..b` has an empty component");
  CHECK(sort_error(R"({"a.": 1})") == "sort path `a.` has an empty component");
  CHECK(sort_error(R"({".a": 1})") == "sort path `.a` has an empty component");
  CHECK(sort_error(R"({"$a": 1})") == "sort path `$a` must not start with '$'");
}

TEST_CASE("the default sort orders by _id ascending") {
  const auto docs = corpus(R"([{"_id": 3}, {"_id": 1}, {"_id": "x"}, {"_id": 2.5}])");
  CHECK(sorted("{}", docs) == order({"1", "2.5", "3", "x"}));
  const sort_spec none;
  CHECK(none.compare(doc(R"({"_id": 2})"), doc(R"({"_id": 1})")) > 0);
  CHECK(none.compare(doc(R"({"_id": 1, "a": 1})"), doc(R"({"_id": 1, "a": 2})")) == 0);
}

TEST_CASE("equal sort values fall back to _id ascending") {
  const auto docs = corpus(R"([{"_id": 3, "a": 1}, {"_id": 1, "a": 1}, {"_id": 2, "a": 0}])");
  CHECK(sorted(R"({"a": 1})", docs) == order({"2", "1", "3"}));
  CHECK(sorted(R"({"a": -1})", docs) == order({"1", "3", "2"}));
}

TEST_CASE("values of different types sort in BSON order and missing sorts as null") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": "s"}, {"_id": 2, "a": 10}, {"_id": 3, "a": null}, {"_id": 4},
    {"_id": 5, "a": {"x": 1}}, {"_id": 6, "a": true}, {"_id": 7, "a": {"$minKey": 1}},
    {"_id": 8, "a": {"$date": "2020-01-01T00:00:00Z"}}, {"_id": 9, "a": 2.5}])");
  CHECK(sorted(R"({"a": 1})", docs) == order({"7", "3", "4", "9", "2", "1", "5", "6", "8"}));
  CHECK(sorted(R"({"a": -1})", docs) == order({"8", "6", "5", "1", "2", "9", "3", "4", "7"}));
}

TEST_CASE("an ascending sort uses an array's smallest element and a descending its largest") {
  auto docs = corpus(R"([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [8, 4, -1]}])");
  CHECK(sorted(R"({"a": 1})", docs) == order({"1", "0"}));
  docs = corpus(R"([{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [0, 4, -1]}])");
  CHECK(sorted(R"({"a": -1})", docs) == order({"1", "0"}));
  docs = corpus(R"([
    {"_id": 0, "a": 1, "d": [{"e": {"f": 1, "g": [6, 5, 4]}}, {"e": {"g": [3, 2, 1]}}]},
    {"_id": 1, "a": 2, "d": [{"e": {"f": 2, "g": [5, 4, 3]}}, {"e": {"g": [2, 1, 0]}}]}])");
  CHECK(sorted(R"({"d.e.g": 1})", docs) == order({"1", "0"}));
}

TEST_CASE("an empty array sorts before null, a nested array as a whole") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1}, {"_id": 3, "a": null}, {"_id": 4, "a": {}}, {"_id": 5, "a": []},
    {"_id": 6, "a": [1]}, {"_id": 7, "a": [[1]]}, {"_id": 8}])");
  CHECK(sorted(R"({"a": 1, "_id": 1})", docs) == order({"5", "3", "8", "1", "6", "4", "7"}));
  CHECK(sorted(R"({"a": -1, "_id": 1})", docs) == order({"7", "4", "1", "6", "3", "8", "5"}));
  CHECK(sorted(R"({"a.0": 1, "_id": 1})", docs) == order({"1", "3", "4", "5", "8", "6", "7"}));
  CHECK(sorted(R"({"a.0": -1, "_id": 1})", docs) == order({"7", "6", "1", "3", "4", "5", "8"}));
}

TEST_CASE("a path through an array of scalars sorts as null") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": [1, 2]}, {"_id": 2, "a": [{"b": 5}, 1]}, {"_id": 3, "a": [{"b": 0}]},
    {"_id": 4, "a": [{"b": []}]}, {"_id": 5, "a": [[{"b": -1}]]}])");
  CHECK(sorted(R"({"a.b": 1})", docs) == order({"4", "1", "2", "5", "3"}));
  CHECK(sorted(R"({"a.b": -1})", docs) == order({"2", "3", "1", "5", "4"}));
}

TEST_CASE("compound sorts over different array fields") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 1, "b": [2]}, {"_id": 2, "a": 2, "b": []}, {"_id": 3, "a": [], "b": 4},
    {"_id": 4, "a": [1], "b": 4}, {"_id": 5, "a": [2, 3], "b": 2}, {"_id": 6, "a": 2, "b": [3, 5]},
    {"_id": 7, "a": 1, "b": [1, 3]}, {"_id": 8, "a": [1, 2], "b": 3},
    {"_id": 9, "a": 2, "b": 3}])");
  CHECK(sorted(R"({"a": 1, "b": 1, "_id": 1})", docs) ==
        order({"3", "7", "1", "8", "4", "2", "5", "6", "9"}));
  CHECK(sorted(R"({"a": 1, "b": -1, "_id": 1})", docs) ==
        order({"3", "4", "7", "8", "1", "6", "9", "5", "2"}));
  CHECK(sorted(R"({"a": -1, "b": 1, "_id": 1})", docs) ==
        order({"5", "2", "6", "8", "9", "7", "1", "4", "3"}));
  CHECK(sorted(R"({"a": -1, "b": -1, "_id": 1})", docs) ==
        order({"5", "6", "8", "9", "2", "4", "7", "1", "3"}));
}

TEST_CASE("a dotted sort path goes through arrays of documents") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": {"b": 2}}, {"_id": 2, "a": {"b": []}}, {"_id": 3, "a": {"b": [2, 3]}},
    {"_id": 4, "a": {"c": 1}}, {"_id": 5, "a": []}, {"_id": 6, "a": [{"b": [5]}]},
    {"_id": 7, "a": [{"b": [4, 5]}, {"b": 7}]}, {"_id": 8, "a": [{"b": [1, 3]}, {"b": [2, 5]}]},
    {"_id": 9, "a": [{"b": []}, {"b": [1, 3]}]}])");
  CHECK(sorted(R"({"a.b": 1, "_id": 1})", docs) ==
        order({"2", "9", "4", "5", "8", "1", "3", "7", "6"}));
  CHECK(sorted(R"({"a.b": 1, "_id": -1})", docs) ==
        order({"9", "2", "5", "4", "8", "3", "1", "7", "6"}));
  CHECK(sorted(R"({"a.b": -1, "_id": 1})", docs) ==
        order({"7", "6", "8", "3", "9", "1", "4", "5", "2"}));
  CHECK(sorted(R"({"a.b": -1, "_id": -1})", docs) ==
        order({"7", "8", "6", "9", "3", "1", "5", "4", "2"}));
}

TEST_CASE("sort fields through the same array take their values from the same element") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": [{"b": 4, "c": 1}, {"b": 1, "c": 2}]},
    {"_id": 2, "a": [{"b": 2, "c": 1}, {"b": 4, "c": 2}]},
    {"_id": 3, "a": [{"b": 6, "c": 1}, {"b": 9, "c": 2}]},
    {"_id": 4, "a": [{"b": 4, "c": 1}, {"b": 5, "c": 3}]},
    {"_id": 5, "a": [{"b": 2, "c": 1}, {"b": 7, "c": 3}]},
    {"_id": 6, "a": [{"b": 5, "c": 1}, {"b": 3, "c": 3}]},
    {"_id": 7, "a": [{"b": 7, "c": 2}, {"b": 2, "c": 3}]},
    {"_id": 8, "a": [{"b": 3, "c": 2}, {"b": 8, "c": 3}]},
    {"_id": 9, "a": [{"b": 8, "c": 2}, {"b": 6, "c": 3}]}])");
  CHECK(sorted(R"({"a.c": 1, "a.b": 1, "_id": 1})", docs) ==
        order({"2", "5", "1", "4", "6", "3", "8", "7", "9"}));
  CHECK(sorted(R"({"a.c": 1, "a.b": -1, "_id": 1})", docs) ==
        order({"3", "6", "1", "4", "2", "5", "9", "7", "8"}));
  CHECK(sorted(R"({"a.c": -1, "a.b": 1, "_id": 1})", docs) ==
        order({"7", "6", "4", "9", "5", "8", "1", "2", "3"}));
  CHECK(sorted(R"({"a.c": -1, "a.b": -1, "_id": 1})", docs) ==
        order({"8", "5", "9", "4", "6", "7", "3", "2", "1"}));
  CHECK(sorted(R"({"a.c": 1, "a": 1, "_id": 1})", docs) ==
        order({"2", "5", "1", "4", "6", "3", "8", "7", "9"}));
  CHECK(sorted(R"({"a.c": 1, "a": -1, "_id": 1})", docs) ==
        order({"3", "6", "1", "4", "2", "5", "9", "7", "8"}));
  CHECK(sorted(R"({"a.c": -1, "a": 1, "_id": 1})", docs) ==
        order({"7", "6", "4", "9", "5", "8", "1", "2", "3"}));
  CHECK(sorted(R"({"a.c": -1, "a": -1, "_id": 1})", docs) ==
        order({"8", "5", "9", "4", "6", "7", "3", "2", "1"}));
}

namespace {

const char* const kNestedPairs = R"([
  {"_id": 1, "a": [{"b": [4, 1], "c": 1}, {"b": [1, 5], "c": 2}]},
  {"_id": 2, "a": [{"b": 2, "c": [1, 3]}, {"b": 4, "c": [2, 4]}]},
  {"_id": 3, "a": [{"b": [6, 4], "c": 1}, {"b": [9, 7], "c": 2}]},
  {"_id": 4, "a": [{"b": 4, "c": [1, 2]}, {"b": 5, "c": [3, 2]}]},
  {"_id": 5, "a": [{"b": [2, 3], "c": 1}, {"b": [7, 6], "c": 3}]},
  {"_id": 6, "a": [{"b": 5, "c": []}, {"b": 3, "c": 3}]},
  {"_id": 7, "a": [{"b": [], "c": 2}, {"b": 2, "c": 3}]},
  {"_id": 8, "a": [{"b": 3, "c": [2]}, {"b": 8, "c": [3]}]},
  {"_id": 9, "a": [{"b": [8], "c": 2}, {"b": [6], "c": 3}]}
])";

}  // namespace

TEST_CASE("sort fields sharing an array prefix with nested arrays") {
  const auto docs = corpus(kNestedPairs);
  CHECK(sorted(R"({"a.c": 1, "a.b": 1, "_id": 1})", docs) ==
        order({"6", "1", "2", "5", "3", "4", "7", "8", "9"}));
  CHECK(sorted(R"({"a.c": 1, "a.b": -1, "_id": 1})", docs) ==
        order({"6", "3", "1", "4", "5", "2", "9", "8", "7"}));
  CHECK(sorted(R"({"a.c": -1, "a.b": 1, "_id": 1})", docs) ==
        order({"2", "7", "6", "4", "5", "9", "8", "1", "3"}));
  CHECK(sorted(R"({"a.c": -1, "a.b": -1, "_id": 1})", docs) ==
        order({"2", "8", "5", "9", "4", "6", "7", "3", "1"}));
  CHECK(sorted(R"({"a.b": 1, "a": 1, "_id": 1})", docs) ==
        order({"7", "1", "2", "5", "6", "8", "4", "3", "9"}));
  CHECK(sorted(R"({"a.b": 1, "a": -1, "_id": 1})", docs) ==
        order({"7", "1", "5", "2", "8", "6", "3", "4", "9"}));
  CHECK(sorted(R"({"a.b": -1, "a": 1, "_id": 1})", docs) ==
        order({"3", "8", "9", "5", "6", "4", "1", "2", "7"}));
  CHECK(sorted(R"({"a.b": -1, "a": -1, "_id": 1})", docs) ==
        order({"3", "9", "8", "5", "1", "4", "6", "2", "7"}));
}

TEST_CASE("a numeric sort path component picks the array element at that index") {
  const auto docs = corpus(kNestedPairs);
  CHECK(sorted(R"({"a.0.b": 1, "_id": 1})", docs) ==
        order({"7", "1", "2", "5", "8", "3", "4", "6", "9"}));
  CHECK(sorted(R"({"a.0.b": 1, "_id": -1})", docs) ==
        order({"7", "1", "5", "2", "8", "4", "3", "6", "9"}));
  CHECK(sorted(R"({"a.0.b": -1, "_id": 1})", docs) ==
        order({"9", "3", "6", "1", "4", "5", "8", "2", "7"}));
  CHECK(sorted(R"({"a.0.b": -1, "_id": -1})", docs) ==
        order({"9", "3", "6", "4", "1", "8", "5", "2", "7"}));
}

TEST_CASE("sort paths without a common prefix each use their own array") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": {"b": 1}, "c": [{"d": [4, 1]}, {"d": [1, 5]}]},
    {"_id": 2, "a": [{"b": [1, 3]}, {"b": [2, 4]}], "c": {"d": 2}},
    {"_id": 3, "a": {"b": 1}, "c": [{"d": [6, 4]}, {"d": [9, 7]}]},
    {"_id": 4, "a": [{"b": [2]}, {"b": [3, 2]}], "c": {"d": 4}},
    {"_id": 5, "a": {"b": 1}, "c": [{"d": [2, 3]}, {"d": [7, 6]}]},
    {"_id": 6, "a": [{"b": []}, {"b": 3}], "c": {"d": 4}},
    {"_id": 7, "a": {"b": 2}, "c": [{"d": []}, {"d": 2}]},
    {"_id": 8, "a": [{"b": [2]}, {"b": [3]}], "c": {"d": 3}},
    {"_id": 9, "a": {"b": 3}, "c": [{"d": [8]}, {"d": [6]}]}])");
  CHECK(sorted(R"({"a.b": 1, "c.d": 1, "_id": 1})", docs) ==
        order({"6", "1", "2", "5", "3", "7", "8", "4", "9"}));
  CHECK(sorted(R"({"a.b": 1, "c.d": -1, "_id": 1})", docs) ==
        order({"6", "3", "5", "1", "2", "4", "8", "7", "9"}));
  CHECK(sorted(R"({"a.b": -1, "c.d": 1, "_id": 1})", docs) ==
        order({"2", "8", "4", "6", "9", "7", "1", "5", "3"}));
  CHECK(sorted(R"({"a.b": -1, "c.d": -1, "_id": 1})", docs) ==
        order({"2", "9", "4", "6", "8", "7", "3", "5", "1"}));
}

TEST_CASE("a three-component sort path") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": {"b": {"c": 2}}}, {"_id": 2, "a": {"b": {"c": []}}},
    {"_id": 3, "a": [{"b": []}, {"b": {"c": []}}]}, {"_id": 4, "a": [{"b": {"c": 1}}]},
    {"_id": 5, "a": {"b": [{"c": 3}, {"d": 1}]}}, {"_id": 6, "a": {"b": [{"c": [5]}]}},
    {"_id": 7, "a": []}, {"_id": 8, "a": {"b": [{"c": [1, 3]}, {"c": [2, 5]}]}},
    {"_id": 9, "a": [{"b": [{"c": []}, {"c": [1, 3]}]}]}])");
  CHECK(sorted(R"({"a.b.c": 1, "_id": 1})", docs) ==
        order({"2", "3", "9", "5", "7", "4", "8", "1", "6"}));
  CHECK(sorted(R"({"a.b.c": 1, "_id": -1})", docs) ==
        order({"9", "3", "2", "7", "5", "8", "4", "1", "6"}));
  CHECK(sorted(R"({"a.b.c": -1, "_id": 1})", docs) ==
        order({"6", "8", "5", "9", "1", "4", "3", "7", "2"}));
  CHECK(sorted(R"({"a.b.c": -1, "_id": -1})", docs) ==
        order({"8", "6", "9", "5", "1", "4", "7", "3", "2"}));
}

TEST_CASE("compound sorts on sibling array fields pick one element for both") {
  const auto docs = corpus(R"([
    {"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]},
    {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}])");
  CHECK(sorted(R"({"x.y": 1, "x.z": -1})", docs) == order({"0", "1"}));
  CHECK(sorted(R"({"x.y": -1, "x.z": 1})", docs) == order({"0", "1"}));
  const auto two = corpus(R"([
    {"_id": 2, "a": [{"b": 1, "c": 2}, {"b": 2, "c": 3}]},
    {"_id": 0, "a": [{"b": 2, "c": 0}, {"b": 1, "c": 4}]},
    {"_id": 1, "a": [{"b": 1, "c": 5}, {"b": 2, "c": 1}]}])");
  CHECK(sorted(R"({"a.c": 1})", two) == order({"0", "1", "2"}));
}

TEST_CASE("a compound sort over large arrays of equal values stays linear") {
  // Ties on the first field keep every element choice alive only for arrays a later field
  // goes through; independent arrays must not multiply.
  document d;
  array a(5000, value(1)), b(5000, value(2));
  d.push_back(field{"_id", value(1)});
  d.push_back(field{"a", value(std::move(a))});
  d.push_back(field{"b", value(std::move(b))});
  CHECK(to_json(value(spec(R"({"a": 1, "b": -1})").sort_key(d))) == "[1,2,1]");

  array shared;
  for (int i = 0; i < 2000; ++i) {
    shared.push_back(value(document{{"b", value(1)}, {"c", value(i % 7)}}));
  }
  document e{{"_id", value(2)}, {"a", value(std::move(shared))}};
  CHECK(to_json(value(spec(R"({"a.b": 1, "a.c": -1})").sort_key(e))) == "[1,6,2]");
}

TEST_CASE("sort keys hold the chosen value per field and then _id") {
  const sort_spec up = spec(R"({"a": 1})");
  const sort_spec down = spec(R"({"a": -1, "b.c": 1})");
  CHECK(to_json(value(up.sort_key(doc(R"({"_id": 5, "a": [3, 1, 2]})")))) == "[1,5]");
  CHECK(to_json(value(down.sort_key(doc(R"({"_id": 5, "a": [3, 1, 2]})")))) == "[3,null,5]");
  CHECK(to_json(value(up.sort_key(doc(R"({"a": "x"})")))) == R"(["x",null])");
  CHECK(to_json(value(up.sort_key(doc(R"({"_id": 1, "a": []})")))) == "[[],1]");
  CHECK(to_json(value(spec("{}").sort_key(doc(R"({"_id": "k", "a": 1})")))) == R"(["k"])");
}

TEST_CASE("compare_keys puts an empty array before null in both directions' natural order") {
  const sort_spec up = spec(R"({"a": 1})");
  const sort_spec down = spec(R"({"a": -1})");
  const array empty_key = up.sort_key(doc(R"({"_id": 1, "a": []})"));
  const array null_key = up.sort_key(doc(R"({"_id": 1, "a": null})"));
  const array min_key = up.sort_key(doc(R"({"_id": 1, "a": {"$minKey": 1}})"));
  CHECK(up.compare_keys(empty_key, null_key) < 0);
  CHECK(up.compare_keys(min_key, empty_key) < 0);
  CHECK(down.compare_keys(empty_key, null_key) > 0);
  CHECK(up.compare_keys(empty_key, empty_key) == 0);
  CHECK(up.compare_keys(up.sort_key(doc(R"({"_id": 1, "a": 2})")),
                        up.sort_key(doc(R"({"_id": 2, "a": 2})"))) < 0);
}

TEST_CASE("values_at_path returns every value reached and reports missing branches") {
  const document d = doc(R"({"a": [{"b": 1}, {"b": [2, 3]}, {"c": 1}, 5, [{"b": 9}]],
                             "x": {"y": null}, "n": [[1, 2], 3]})");
  auto at = [&](const char* path, bool& missing) {
    std::vector<const value*> out;
    missing = false;
    values_at_path(d, path, out, missing);
    std::string text;
    for (const value* v : out) text += to_json(*v) + " ";
    return text;
  };
  bool missing = false;
  CHECK(at("a.b", missing) == "1 2 3 ");
  CHECK(missing);
  CHECK(at("x.y", missing) == "null ");
  CHECK_FALSE(missing);
  CHECK(at("x.z", missing).empty());
  CHECK(missing);
  CHECK(at("n", missing) == "[1,2] 3 ");
  CHECK_FALSE(missing);
  CHECK(at("n.0", missing) == "[1,2] ");
  CHECK(at("a.1.b", missing) == "2 3 ");
  CHECK(at("q", missing).empty());
  CHECK(missing);
}
