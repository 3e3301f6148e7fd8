// The array operators: $push (with $each $position $sort $slice), $addToSet, $pop, $pull,
// $pullAll. Expected values are the examples of MongoDB's operator reference pages.
#include "tests/engine/update/update_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("$push appends one value, creating the array when missing") {
  CHECK(applied(R"({"$push":{"a":1}})", R"({})") == R"({"a":[1]})");
  CHECK(applied(R"({"$push":{"a":[1,2]}})", R"({"a":[]})") == R"({"a":[[1,2]]})");
  CHECK(applied(R"({"$push":{"a":{"$each":[1,2]}}})", R"({"a":[0]})") == R"({"a":[0,1,2]})");
  CHECK(applied(R"({"$push":{"a.b":{"x":1}}})", R"({"a":{}})") == R"({"a":{"b":[{"x":1}]}})");
}

TEST_CASE("$push to a non-array is an error") {
  CHECK(update_error(R"({"$push":{"a":1}})", R"({"a":1})") ==
        "the field `a` must be an array but is of type int ($push)");
}

TEST_CASE("$push $position inserts at an index, negative from the end") {
  CHECK(applied(R"({"$push":{"scores":{"$each":[50,60,70],"$position":0}}})", R"({"scores":[100]})") ==
        R"({"scores":[50,60,70,100]})");
  CHECK(applied(R"({"$push":{"scores":{"$each":[20,30],"$position":2}}})", R"({"scores":[50,60,70,100]})") ==
        R"({"scores":[50,60,20,30,70,100]})");
  CHECK(applied(R"({"$push":{"scores":{"$each":[90,80],"$position":-2}}})",
                R"({"scores":[50,60,20,30,70,100]})") == R"({"scores":[50,60,20,30,90,80,70,100]})");
  CHECK(applied(R"({"$push":{"a":{"$each":[9],"$position":10}}})", R"({"a":[1]})") == R"({"a":[1,9]})");
}

TEST_CASE("$push $slice keeps the first or last elements") {
  CHECK(applied(R"({"$push":{"scores":{"$each":[80,78,86],"$slice":-5}}})", R"({"scores":[40,50,60]})") ==
        R"({"scores":[50,60,80,78,86]})");
  CHECK(applied(R"({"$push":{"scores":{"$each":[100,20],"$slice":3}}})", R"({"scores":[89,90]})") ==
        R"({"scores":[89,90,100]})");
  CHECK(applied(R"({"$push":{"scores":{"$each":[],"$slice":-3}}})", R"({"scores":[89,70,100,20]})") ==
        R"({"scores":[70,100,20]})");
  CHECK(applied(R"({"$push":{"a":{"$each":[1],"$slice":0}}})", R"({"a":[5]})") == R"({"a":[]})");
}

TEST_CASE("$push $sort orders whole values or documents by fields, then $slice applies") {
  CHECK(applied(R"({"$push":{"tests":{"$each":[40,60],"$sort":1}}})", R"({"tests":[89,70,89,50]})") ==
        R"({"tests":[40,50,60,70,89,89]})");
  CHECK(applied(R"({"$push":{"tests":{"$each":[],"$sort":-1}}})", R"({"tests":[89,70,100,20]})") ==
        R"({"tests":[100,89,70,20]})");
  CHECK(applied(R"({"$push":{"quizzes":{"$each":[{"id":3,"score":8},{"id":4,"score":7},{"id":5,"score":6}],)"
                R"("$sort":{"score":1}}}})",
                R"({"quizzes":[{"id":1,"score":6},{"id":2,"score":9}]})") ==
        R"({"quizzes":[{"id":1,"score":6},{"id":5,"score":6},{"id":4,"score":7},{"id":3,"score":8},)"
        R"({"id":2,"score":9}]})");
  // Modifier order in the update does not matter: position, then sort, then slice.
  CHECK(applied(R"({"$push":{"quizzes":{"$slice":3,"$sort":{"score":-1},)"
                R"("$each":[{"wk":5,"score":8},{"wk":6,"score":7},{"wk":7,"score":6}]}}})",
                R"({"quizzes":[{"wk":1,"score":10},{"wk":2,"score":8},{"wk":3,"score":5},{"wk":4,"score":6}]})") ==
        R"({"quizzes":[{"wk":1,"score":10},{"wk":2,"score":8},{"wk":5,"score":8}]})");
}

TEST_CASE("$push modifiers are validated") {
  CHECK(update_error(R"({"$push":{"a":{"$each":[1],"$foo":1}}})") ==
        "`$push` at `a`: unrecognized clause in `$push`: `$foo`");
  CHECK(update_error(R"({"$push":{"a":{"$each":1}}})") != "");
  CHECK(update_error(R"({"$push":{"a":{"$each":[1],"$slice":1.5}}})") != "");
  CHECK(update_error(R"({"$push":{"a":{"$each":[1],"$sort":2}}})") != "");
  CHECK(update_error(R"({"$push":{"a":{"$each":[1],"$sort":{}}}})") != "");
}

TEST_CASE("$addToSet adds values that are not already present") {
  CHECK(applied(R"({"$addToSet":{"letters":["c","d"]}})", R"({"letters":["a","b"]})") ==
        R"({"letters":["a","b",["c","d"]]})");
  CHECK(applied(R"({"$addToSet":{"tags":"accessories"}})", R"({"tags":["electronics","camera"]})") ==
        R"({"tags":["electronics","camera","accessories"]})");
  auto present = update_case{R"({"$addToSet":{"tags":"camera"}})"}.on(R"({"tags":["electronics","camera"]})");
  REQUIRE(present.ok);
  CHECK_FALSE(present.changed);
  CHECK(applied(R"({"$addToSet":{"tags":{"$each":["camera","electronics","accessories"]}}})",
                R"({"tags":["electronics","supplies"]})") ==
        R"({"tags":["electronics","supplies","camera","accessories"]})");
  CHECK(applied(R"({"$addToSet":{"a":{"$each":[1,1.0,2]}}})", R"({})") == R"({"a":[1,2]})");
  CHECK(applied(R"({"$addToSet":{"a":{"x":1,"y":2}}})", R"({"a":[{"y":2,"x":1}]})") ==
        R"({"a":[{"y":2,"x":1},{"x":1,"y":2}]})");  // field order matters
}

TEST_CASE("$addToSet to a non-array is an error") {
  CHECK(update_error(R"({"$addToSet":{"colors":"mauve"}})", R"({"colors":"blue, green, red"})") != "");
  CHECK(update_error(R"({"$addToSet":{"a":{"$each":[1],"$slice":1}}})") != "");
}

TEST_CASE("$pop removes the first or the last element") {
  CHECK(applied(R"({"$pop":{"scores":-1}})", R"({"scores":[8,9,10]})") == R"({"scores":[9,10]})");
  CHECK(applied(R"({"$pop":{"scores":1}})", R"({"scores":[9,10]})") == R"({"scores":[9]})");
  CHECK(applied(R"({"$pop":{"a":1}})", R"({"a":[]})") == R"({"a":[]})");
  CHECK(applied(R"({"$pop":{"a":1}})", R"({})") == R"({})");
  CHECK(update_error(R"({"$pop":{"a":2}})") == "`$pop` expects 1 or -1, found 2 at `a`");
  CHECK(update_error(R"({"$pop":{"a":1}})", R"({"a":5})") != "");
}

TEST_CASE("$pull removes values equal to a literal or matching a condition") {
  CHECK(applied(R"({"$pull":{"fruits":{"$in":["apples","oranges"]},"vegetables":"carrots"}})",
                R"({"fruits":["apples","pears","oranges","grapes","bananas"],)"
                R"("vegetables":["carrots","celery","squash","carrots"]})") ==
        R"({"fruits":["pears","grapes","bananas"],"vegetables":["celery","squash"]})");
  CHECK(applied(R"({"$pull":{"votes":{"$gte":6}}})", R"({"votes":[3,5,6,7,7,8]})") == R"({"votes":[3,5]})");
  CHECK(applied(R"({"$pull":{"a":[1,2]}})", R"({"a":[[1,2],[2,1],1]})") == R"({"a":[[2,1],1]})");
  CHECK(applied(R"({"$pull":{"a":1}})", R"({})") == R"({})");
  CHECK(update_error(R"({"$pull":{"a":1}})", R"({"a":1})") != "");
}

TEST_CASE("$pull with a document applies it as a query to document elements") {
  CHECK(applied(R"({"$pull":{"results":{"score":8,"item":"B"}}})",
                R"({"results":[{"item":"A","score":5},{"item":"B","score":8}]})") ==
        R"({"results":[{"item":"A","score":5}]})");
  CHECK(applied(R"({"$pull":{"results":{"answers":{"$elemMatch":{"q":2,"a":{"$gte":8}}}}}})",
                R"({"results":[{"item":"A","answers":[{"q":1,"a":4},{"q":2,"a":6}]},)"
                R"({"item":"B","answers":[{"q":1,"a":8},{"q":2,"a":9}]}]})") ==
        R"({"results":[{"item":"A","answers":[{"q":1,"a":4},{"q":2,"a":6}]}]})");
  // Scalars are not documents, so a field query never removes them.
  CHECK(applied(R"({"$pull":{"a":{"b":1}}})", R"({"a":[1,{"b":1},{"b":2}]})") == R"({"a":[1,{"b":2}]})");
}

TEST_CASE("$pullAll removes every value equal to one of the list") {
  CHECK(applied(R"({"$pullAll":{"scores":[0,5]}})", R"({"scores":[0,2,5,5,1,0]})") == R"({"scores":[2,1]})");
  CHECK(update_error(R"({"$pullAll":{"scores":5}})") == "`$pullAll` at `scores` needs an array, not 5");
}

TEST_CASE("a $push whose $slice trims the inserted elements away is not a no-op") {
  // MongoDB counts it in modifiedCount: elements were inserted, then removed by $slice.
  auto r = update_case{R"({"$push":{"t":{"$each":[3],"$slice":2}}})"}.on(R"({"t":[1,2]})");
  REQUIRE(r.ok);
  CHECK(r.doc == R"({"t":[1,2]})");
  CHECK(r.changed);
  // Without elements to insert, an unchanged result stays a no-op.
  auto none = update_case{R"({"$push":{"t":{"$each":[],"$slice":2}}})"}.on(R"({"t":[1,2]})");
  REQUIRE(none.ok);
  CHECK_FALSE(none.changed);
  auto same = update_case{R"({"$addToSet":{"t":1}})"}.on(R"({"t":[1,2]})");
  REQUIRE(same.ok);
  CHECK_FALSE(same.changed);
}

TEST_CASE("a $pull condition whose regex reaches the match limit fails the update") {
  const std::string e = update_error(R"({"$pull":{"t":{"$regex":"^(?:(a+)+x|a+b)$"}}})",
                                     R"({"t":["aaaaaaaaaaaaaaaaaaaaaaaaab","b"]})");
  CHECK(e.find("reached the regex match limit (100000 backtracking steps)") != std::string::npos);
}
