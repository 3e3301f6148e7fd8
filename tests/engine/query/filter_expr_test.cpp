// $expr in filters: aggregation semantics inside a query (reference/operator/query/expr/).
#include <doctest/doctest.h>

#include "engine/query/expr.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

TEST_CASE("$expr compares two fields of the same document") {
  // The $expr page: monthlyBudget, spent over budget.
  const auto budget = corpus(R"([
    {"_id": "1", "category": "food", "budget": 400, "spent": 450},
    {"_id": "2", "category": "drinks", "budget": 100, "spent": 150},
    {"_id": "3", "category": "clothes", "budget": 100, "spent": 50},
    {"_id": "4", "category": "misc", "budget": 500, "spent": 300},
    {"_id": "5", "category": "travel", "budget": 200, "spent": 650}])");
  CHECK(matching(R"({"$expr": {"$gt": ["$spent", "$budget"]}})", budget) == ids({"1", "2", "5"}));
  CHECK(matching(R"({"$expr": {"$lt": [{"$subtract": ["$budget", "$spent"]}, 0]}})", budget) ==
        ids({"1", "2", "5"}));
}

TEST_CASE("$expr with $cond picks a computed price") {
  // After the $expr page's supplies example: half price from 100 on, else a quarter.
  const auto supplies = corpus(R"([
    {"_id": "1", "item": "binder", "qty": 100, "price": 12.0},
    {"_id": "2", "item": "notebook", "qty": 200, "price": 8.0},
    {"_id": "3", "item": "pencil", "qty": 50, "price": 6.0},
    {"_id": "4", "item": "eraser", "qty": 150, "price": 3.0},
    {"_id": "5", "item": "legal pad", "qty": 42, "price": 24.0}])");
  const char* f = R"({"$expr": {"$lt": [{"$cond": {"if": {"$gte": ["$qty", 100]},
                                                  "then": {"$divide": ["$price", 2]},
                                                  "else": {"$divide": ["$price", 4]}}}, 5]}})";
  CHECK(matching(f, supplies) == ids({"2", "3", "4"}));
}

TEST_CASE("$expr does not bracket types and treats missing apart from null") {
  const auto docs = corpus(R"([{"_id": "null", "a": null}, {"_id": "missing"}, {"_id": "one", "a": 1},
                               {"_id": "str", "a": "x"}, {"_id": "arr", "a": [1, 2]}])");
  // A query comparison brackets; the expression does not: null and missing are below 5.
  CHECK(matching(R"({"a": {"$lt": 5}})", docs) == ids({"one", "arr"}));
  CHECK(matching(R"({"$expr": {"$lt": ["$a", 5]}})", docs) == ids({"null", "missing", "one"}));
  CHECK(matching(R"({"$expr": {"$gt": ["$a", 5]}})", docs) == ids({"str", "arr"}));
  CHECK(matching(R"({"$expr": {"$eq": ["$a", null]}})", docs) == ids({"null"}));
  CHECK(matching(R"({"a": null})", docs) == ids({"null", "missing"}));
  // An array is one value in an expression, not its elements.
  CHECK(matching(R"({"$expr": {"$eq": ["$a", 1]}})", docs) == ids({"one"}));
}

TEST_CASE("$expr combines with other conditions and logical operators") {
  const auto docs = corpus(R"([{"_id": "a", "x": 1, "y": 2}, {"_id": "b", "x": 3, "y": 2},
                               {"_id": "c", "x": 5, "y": 9}])");
  CHECK(matching(R"({"y": 2, "$expr": {"$gt": ["$x", "$y"]}})", docs) == ids({"b"}));
  CHECK(matching(R"({"$or": [{"$expr": {"$gt": ["$x", "$y"]}}, {"x": 1}]})", docs) == ids({"a", "b"}));
  CHECK(matching(R"({"$nor": [{"$expr": {"$lt": ["$x", "$y"]}}]})", docs) == ids({"b"}));
  CHECK(matching(R"({"$expr": "$x"})", corpus(R"([{"_id": "0", "x": 0}, {"_id": "1", "x": 1}])")) ==
        ids({"1"}));
  CHECK(matching(R"({"$expr": {"$eq": [{"$mod": ["$x", 2]}, 1]}})", docs) == ids({"a", "b", "c"}));
}

TEST_CASE("$expr errors: compile errors name $expr, run-time errors are thrown") {
  CHECK(compile_error(R"({"$expr": {"$foo": 1}})") == "`$expr`: unknown expression operator `$foo`");
  CHECK(compile_error(R"({"a": {"$elemMatch": {"$expr": {"$eq": [1, 1]}}}})") ==
        "`$expr` can only be used at the top level of a filter, not inside `$elemMatch`");
  const filter f = compile(R"({"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}})");
  CHECK(f.matches(doc(R"({"a": 4, "b": 2})")));
  CHECK_THROWS_WITH_AS(f.matches(doc(R"({"a": 4, "b": 0})")), "can't $divide by zero", expression_error);
  filter::match_details d;
  CHECK_THROWS_AS(f.matches(doc(R"({"a": 4, "b": 0})"), d), expression_error);
}
