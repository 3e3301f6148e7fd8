// Arrays and dotted paths in filters: implicit traversal, one array level per component,
// numeric components (after MongoDB's jstests/core/query/match_numeric_components.js and
// jstests/multi.js), $elemMatch, $all and $size.
#include <doctest/doctest.h>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

TEST_CASE("equality matches an array that contains the value") {
  CHECK(matches(R"({"a": 1})", R"({"a": [1, 2]})"));
  CHECK(matches(R"({"a": 2})", R"({"a": [1, 2]})"));
  CHECK_FALSE(matches(R"({"a": 3})", R"({"a": [1, 2]})"));
  CHECK(matches(R"({"a": {"$gt": 1}})", R"({"a": [0, 5]})"));
  CHECK_FALSE(matches(R"({"a": {"$gt": 5}})", R"({"a": [0, 5]})"));
}

TEST_CASE("an array value matches the exact array or an array containing it") {
  CHECK(matches(R"({"a": [1, 2]})", R"({"a": [1, 2]})"));
  CHECK(matches(R"({"a": [1, 2]})", R"({"a": [[1, 2], 3]})"));
  CHECK_FALSE(matches(R"({"a": [1, 2]})", R"({"a": [2, 1]})"));
  CHECK_FALSE(matches(R"({"a": [1, 2]})", R"({"a": [1, 2, 3]})"));
  CHECK_FALSE(matches(R"({"a": [1, 2]})", R"({"a": 1})"));
  // jstests/multi.js: one level of nesting is searched, not more.
  const char* nested = R"({"a": [[[1]]]})";
  CHECK_FALSE(matches(R"({"a": 1})", nested));
  CHECK_FALSE(matches(R"({"a": [1]})", nested));
  CHECK(matches(R"({"a": [[1]]})", nested));
  CHECK(matches(R"({"a": [[[1]]]})", nested));
}

TEST_CASE("a $ne filter excludes arrays that contain the value") {
  CHECK_FALSE(matches(R"({"a": {"$ne": 1}})", R"({"a": [1, 2]})"));
  CHECK(matches(R"({"a": {"$ne": 3}})", R"({"a": [1, 2]})"));
  CHECK_FALSE(matches(R"({"a.b": {"$ne": 1}})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  CHECK_FALSE(matches(R"({"a": {"$nin": [2, 9]}})", R"({"a": [1, 2]})"));
}

TEST_CASE("a dotted path traverses one array level per component") {
  CHECK(matches(R"({"a.b": 1})", R"({"a": [{"b": 1}, {"c": 2}]})"));
  CHECK_FALSE(matches(R"({"a.b": 1})", R"({"a": [[{"b": 1}]]})"));
  CHECK_FALSE(matches(R"({"a.b": 1})", R"({"a": [[1, 2], 3]})"));
  CHECK(matches(R"({"a.b": 2})", R"({"a": {"b": [1, 2]}})"));
  CHECK(matches(R"({"a.b": 2})", R"({"a": [{"b": [1, 2]}]})"));
  CHECK(matches(R"({"a.b": [1, 2]})", R"({"a": [{"b": [1, 2]}]})"));
  CHECK(matches(R"({"a.b.c": 3})", R"({"a": [{"b": [{"c": 3}]}]})"));
  CHECK_FALSE(matches(R"({"a.b": 1})", R"({"a": 1})"));
}

TEST_CASE("different conditions on an array may be met by different elements") {
  CHECK(matches(R"({"s": {"$gt": 3, "$lt": 7}})", R"({"s": [1, 10]})"));
  CHECK_FALSE(matches(R"({"s": {"$elemMatch": {"$gt": 3, "$lt": 7}}})", R"({"s": [1, 10]})"));
  CHECK(matches(R"({"s": {"$elemMatch": {"$gt": 3, "$lt": 7}}})", R"({"s": [1, 5, 10]})"));
  CHECK(matches(R"({"a.b": 1, "a.c": 2})", R"({"a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}]})"));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"b": 1, "c": 2}}})",
                      R"({"a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}]})"));
  CHECK(matches(R"({"a": {"$elemMatch": {"b": 1, "c": 2}}})", R"({"a": [{"b": 1, "c": 2}]})"));
  CHECK_FALSE(matches(R"({"s": {"$not": {"$gt": 3, "$lt": 7}}})", R"({"s": [1, 10]})"));
}

TEST_CASE("$elemMatch only looks at arrays and does not search nested arrays") {
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"$eq": 1}}})", R"({"a": 1})"));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"$eq": 1}}})", R"({"a": [[1]]})"));
  CHECK(matches(R"({"a": {"$elemMatch": {"$eq": [1]}}})", R"({"a": [[1]]})"));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"b": 1}}})", R"({"a": {"b": 1}})"));
  CHECK(matches(R"({"a": {"$elemMatch": {}}})", R"({"a": [1, {"x": 1}]})"));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {}}})", R"({"a": [1, 2]})"));
  CHECK(matches(R"({"a.b": {"$elemMatch": {"$gte": 2}}})", R"({"a": [{"b": [1]}, {"b": [2]}]})"));
}

TEST_CASE("$elemMatch takes a sub-filter when it starts with a logical operator") {
  const char* d = R"({"a": [{"b": 1, "c": 5}, {"b": 2, "c": 1}]})";
  CHECK(matches(R"({"a": {"$elemMatch": {"$or": [{"b": 2}, {"c": 9}]}}})", d));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"$and": [{"b": 2}, {"c": 5}]}}})", d));
  CHECK(matches(R"({"a": {"$elemMatch": {"b": {"$gt": 1}, "c": {"$lt": 2}}}})", d));
  CHECK_FALSE(matches(R"({"a": {"$elemMatch": {"$not": {"$size": 1}}}})", R"({"a": [[1]]})"));
  CHECK(matches(R"({"a": {"$elemMatch": {"$elemMatch": {"$eq": 2}}}})", R"({"a": [[1, 2]]})"));
}

TEST_CASE("$all requires every value and accepts whole arrays and $elemMatch") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": [1, 2, 3]}, {"_id": 2, "a": [1]}, {"_id": 3, "a": 2},
    {"_id": 4, "a": [[1, 2], 3]}, {"_id": 5, "a": [1, 2]}, {"_id": 6}])");
  CHECK(matching(R"({"a": {"$all": [1, 2]}})", docs) == ids({"1", "5"}));
  CHECK(matching(R"({"a": {"$all": [2]}})", docs) == ids({"1", "3", "5"}));
  CHECK(matching(R"({"a": {"$all": [[1, 2]]}})", docs) == ids({"4", "5"}));
  CHECK(matching(R"({"a": {"$all": []}})", docs).empty());
  CHECK(matching(R"({"a": {"$all": [{"$elemMatch": {"$gt": 2}}, {"$elemMatch": {"$lt": 2}}]}})",
                 docs) == ids({"1"}));
  CHECK(matching(R"({"a": {"$all": [{"$regularExpression": {"pattern": "x", "options": ""}}]}})",
                 docs)
            .empty());
}

TEST_CASE("$all rejects operators and mixed $elemMatch lists") {
  CHECK(compile_error(R"({"a": {"$all": 1}})") == "`$all` needs an array at `a`");
  CHECK(compile_error(R"({"a": {"$all": [{"$gt": 1}]}})") ==
        "`$all` cannot contain operators (other than `$elemMatch`) at `a`");
  CHECK(compile_error(R"({"a": {"$all": [{"$elemMatch": {"$gt": 1}}, 5]}})") ==
        "`$all` cannot mix `$elemMatch` with other values at `a`");
  CHECK(compile_error(R"({"a": {"$elemMatch": 5}})") == "`$elemMatch` needs a document at `a`");
}

TEST_CASE("$size matches arrays of exactly that length") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": [1, 2]}, {"_id": 2, "a": [[1, 2]]}, {"_id": 3, "a": 2}, {"_id": 4},
    {"_id": 5, "a": []}, {"_id": 6, "a": [{"b": [1, 2]}, {"b": [3]}]}])");
  CHECK(matching(R"({"a": {"$size": 2}})", docs) == ids({"1", "6"}));
  CHECK(matching(R"({"a": {"$size": 1}})", docs) == ids({"2"}));
  CHECK(matching(R"({"a": {"$size": 0}})", docs) == ids({"5"}));
  CHECK(matching(R"({"a": {"$size": 2.0}})", docs) == ids({"1", "6"}));
  CHECK(matching(R"({"a.b": {"$size": 1}})", docs) == ids({"6"}));
  CHECK(matching(R"({"a": {"$not": {"$size": 2}}})", docs) == ids({"2", "3", "4", "5"}));
  CHECK(compile_error(R"({"a": {"$size": -1}})") == "`$size` may not be negative at `a`");
  CHECK(compile_error(R"({"a": {"$size": 1.5}})") == "`$size` must be a whole number at `a`");
  CHECK(compile_error(R"({"a": {"$size": "2"}})") == "`$size` needs a number at `a`");
}

namespace {

const char* const kNumeric = R"([
  {"_id": 0, "a": 42},
  {"_id": 1, "a": [42]},
  {"_id": 2, "a": {"0": 42}},
  {"_id": 3, "a": [[42]]},
  {"_id": 4, "a": [{"0": 42}]},
  {"_id": 5, "a": {"0": [42]}},
  {"_id": 6, "a": {"0": {"0": 42}}},
  {"_id": 7, "a": [[[42]]]},
  {"_id": 8, "a": [[{"0": 42}]]},
  {"_id": 9, "a": [{"0": [42]}]},
  {"_id": 10, "a": [{"0": {"0": 42}}]},
  {"_id": 11, "a": {"0": [[42]]}},
  {"_id": 12, "a": {"0": [{"0": 42}]}},
  {"_id": 13, "a": {"0": {"0": [42]}}},
  {"_id": 14, "a": {"0": {"0": {"0": 42}}}},
  {"_id": 15, "a": [[[[42]]]]},
  {"_id": 16, "a": [[[{"0": 42}]]]},
  {"_id": 17, "a": [[{"0": [42]}]]},
  {"_id": 18, "a": [[{"0": {"0": 42}}]]},
  {"_id": 19, "a": [{"0": [[42]]}]},
  {"_id": 20, "a": [{"0": [{"0": 42}]}]},
  {"_id": 21, "a": [{"0": {"0": [42]}}]},
  {"_id": 22, "a": [{"0": {"0": {"0": 42}}}]},
  {"_id": 23, "a": {"0": [[[42]]]}},
  {"_id": 24, "a": {"0": [[{"0": 42}]]}},
  {"_id": 25, "a": {"0": [{"0": [42]}]}},
  {"_id": 26, "a": {"0": [{"0": {"0": 42}}]}},
  {"_id": 27, "a": {"0": {"0": [[42]]}}},
  {"_id": 28, "a": {"0": {"0": [{"0": 42}]}}},
  {"_id": 29, "a": {"0": {"0": {"0": [42]}}}},
  {"_id": 30, "a": {"0": {"0": {"0": {"0": 42}}}}}
])";

std::vector<std::string> all_but(std::initializer_list<int> excluded) {
  std::vector<std::string> out;
  for (int i = 0; i <= 30; ++i) {
    if (std::find(excluded.begin(), excluded.end(), i) == excluded.end()) {
      out.push_back(std::to_string(i));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a numeric path component indexes arrays and also names fields") {
  const auto docs = corpus(kNumeric);
  const auto a0 = ids({"1", "2", "4", "5", "9"});
  CHECK(matching(R"({"a.0": 42})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$gt": 41}})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$in": [41, 42, 43]}})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$all": [42]}})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$type": "number"}})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$mod": [42, 0]}})", docs) == a0);
  CHECK(matching(R"({"$or": [{"a.0": 42}, {"notARealField": 123}]})", docs) == a0);
  CHECK(matching(R"({"_id": {"$lt": 15}, "a.0": {"$gt": 41}})", docs) == a0);
  CHECK(matching(R"({"a.0": {"$ne": 42}})", docs) == all_but({1, 2, 4, 5, 9}));
  CHECK(matching(R"({"a.0": {"$nin": [41, 42, 43]}})", docs) == all_but({1, 2, 4, 5, 9}));
}

TEST_CASE("two numeric path components reach nested arrays and documents") {
  const auto docs = corpus(kNumeric);
  CHECK(matching(R"({"a.0.0": 42})", docs) ==
        ids({"3", "4", "5", "6", "8", "9", "10", "12", "13", "17", "20", "21", "25"}));
}

TEST_CASE("$exists on a numeric path component sees array elements") {
  const auto docs = corpus(kNumeric);
  CHECK(matching(R"({"a.0": {"$exists": false}})", docs) == ids({"0"}));
  CHECK(matching(R"({"a.0": {"$exists": true}})", docs) == all_but({0}));
}

TEST_CASE("$elemMatch and $all over numeric path components") {
  const auto docs = corpus(kNumeric);
  CHECK(matching(R"({"a": {"$elemMatch": {"0.0": {"$eq": 42}}}})", docs) ==
        ids({"7", "8", "9", "10", "16", "17", "20", "21"}));
  CHECK(matching(R"({"a.0": {"$all": [{"$elemMatch": {"0": 42}}]}})", docs) ==
        ids({"7", "8", "11", "12", "15", "17", "19", "20", "23", "25"}));
}

TEST_CASE("regexes on a numeric path component match array elements and named fields") {
  const auto docs = corpus(R"([
    {"_id": 1, "b": "hello"}, {"_id": 2, "b": {"0": "hello"}},
    {"_id": 3, "b": ["hello", "abc", "abc"]}])");
  CHECK(matching(R"({"b.0": {"$regex": "hello"}})", docs) == ids({"2", "3"}));
  CHECK(matching(R"({"b.0": {"$all": [
                   {"$regularExpression": {"pattern": "^hello", "options": ""}}]}})",
                 docs) == ids({"2", "3"}));
  CHECK(matching(R"({"b.0": {"$not": {"$regularExpression": {"pattern": "^h", "options": ""}}}})",
                 docs) == ids({"1"}));
}

TEST_CASE("$elemMatch on a numeric path component tests the element at that index") {
  auto docs = corpus(R"([
    {"_id": 0, "f1": 5}, {"_id": 1, "f1": [3, 5]}, {"_id": 4, "f1": [3, 5, [7, 9]]},
    {"_id": 2, "f1": [[3, 5], [5, 7]]}, {"_id": 3, "f1": [[[0], [3, 5]], [[0], [5, 7]]]}])");
  CHECK(matching(R"({"f1.0": {"$elemMatch": {"$eq": 5}}})", docs) == ids({"2"}));
  CHECK(matching(R"({"f1.0": {"$elemMatch": {"$eq": [3, 5]}}})", docs) == ids({"3"}));
  CHECK(matching(R"({"f1.0.1": {"$elemMatch": {"$eq": 3}}})", docs) == ids({"3"}));

  docs = corpus(R"([{"_id": 1, "f1": [[42, 5], [77, 99]]},
                    {"_id": 2, "f1": {"0": [42, 5], "1": [77, 99]}}])");
  CHECK(matching(R"({"f1.0": {"$elemMatch": {"$eq": 5}}})", docs) == ids({"1", "2"}));
  CHECK(matches(R"({"a.0": {"$elemMatch": {"$in": ["b"]}}})", R"({"a": [["b"], ["c"]]})"));
  CHECK(matches(R"({"0": {"$elemMatch": {"$eq": 5}}})", R"({"0": [42, 5]})"));
  CHECK(matches(R"({"0.1": {"$elemMatch": {"$eq": 5}}})", R"({"0": {"0": [42], "1": [5]}})"));
}

TEST_CASE("a numeric component too large for an index is a field name") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": {"9223372036854776000": 42}},
    {"_id": 2, "a": {"9223372036854776000": [42]}},
    {"_id": 3, "a": {"9223372036854776000": [0, 42]}},
    {"_id": 4, "a": {"9223372036854776000": [{"9223372036854776000": 42}]}}])");
  CHECK(matching(R"({"a.9223372036854776000": 42})", docs) == ids({"1", "2", "3"}));
}

TEST_CASE("a numeric component with a leading zero never indexes an array") {
  CHECK_FALSE(matches(R"({"a.01": 7})", R"({"a": [6, 7]})"));
  CHECK(matches(R"({"a.1": 7})", R"({"a": [6, 7]})"));
  CHECK(matches(R"({"a.01": 7})", R"({"a": {"01": 7}})"));
  CHECK(matches(R"({"a.01": 7})", R"({"a": [{"01": 7}]})"));
}
