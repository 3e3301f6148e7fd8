// Positional paths ($, $[], $[id] with arrayFilters), conflicts and update-document errors.
// Expected values are the examples of MongoDB's positional-operator reference pages.
#include "tests/engine/update/update_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("$ updates the element the query matched") {
  filter::match_details m;
  m.array_index = 1;
  update_case c{R"({"$set":{"grades.$":82}})"};
  c.options.positional = &m;
  auto r = c.on(R"({"_id":1,"grades":[85,80,80]})");
  REQUIRE(r.ok);
  CHECK(r.doc == R"({"_id":1,"grades":[85,82,80]})");

  update_case nested{R"({"$set":{"grades.$.std":6}})"};
  nested.options.positional = &m;
  auto n = nested.on(R"({"grades":[{"grade":80,"std":8},{"grade":85,"std":5}]})");
  REQUIRE(n.ok);
  CHECK(n.doc == R"({"grades":[{"grade":80,"std":8},{"grade":85,"std":6}]})");
}

TEST_CASE("$ without a match from the query is an error, and so is an upsert insert") {
  CHECK(update_error(R"({"$set":{"a.$":1}})", R"({"a":[1]})") ==
        "the positional operator did not find the match needed from the query ($set at `a.$`)");
  filter::match_details m;
  m.array_index = 0;
  update_case c{R"({"$set":{"a.$":1}})"};
  c.options.positional = &m;
  c.options.inserting = true;
  CHECK_FALSE(c.on(R"({"a":[1]})").ok);
  CHECK(update_error(R"({"$set":{"a.$.b.$":1}})") ==
        "too many positional (i.e. '$') elements found in path `a.$.b.$`");
  CHECK(update_error(R"({"$set":{"$":1}})") ==
        "cannot have a positional element in the first position in path `$`");
}

TEST_CASE("$[] updates every element") {
  CHECK(applied(R"({"$inc":{"grades.$[]":10}})", R"({"_id":1,"grades":[85,82,80]})") ==
        R"({"_id":1,"grades":[95,92,90]})");
  CHECK(applied(R"({"$inc":{"grades.$[].std":-2}})",
                R"({"grades":[{"grade":80,"std":8},{"grade":85,"std":5}]})") ==
        R"({"grades":[{"grade":80,"std":6},{"grade":85,"std":3}]})");
  CHECK(applied(R"({"$set":{"a.$[]":1}})", R"({"a":[]})") == R"({"a":[]})");
}

TEST_CASE("$[] needs an existing array") {
  CHECK(update_error(R"({"$set":{"a.$[]":1}})", R"({})") ==
        "the path `a` must exist in the document in order to apply array updates ($set at `a.$[]`)");
  CHECK(update_error(R"({"$set":{"a.$[]":1}})", R"({"a":5})") ==
        "cannot apply array updates to non-array element `a`: 5 ($set at `a.$[]`)");
}

TEST_CASE("$[id] updates the elements its array filter matches") {
  CHECK(applied(R"({"$set":{"grades.$[element]":100}})", R"({"_id":2,"grades":[98,100,102]})",
                R"([{"element":{"$gte":100}}])") == R"({"_id":2,"grades":[98,100,100]})");
  CHECK(applied(R"({"$set":{"grades.$[elem].mean":100}})",
                R"({"grades":[{"grade":80,"mean":75},{"grade":85,"mean":90},{"grade":85,"mean":85}]})",
                R"([{"elem.grade":{"$gte":85}}])") ==
        R"({"grades":[{"grade":80,"mean":75},{"grade":85,"mean":100},{"grade":85,"mean":100}]})");
  CHECK(applied(R"({"$set":{"a.$[x]":0}})", R"({"a":[1,2,3]})", R"([{"$or":[{"x":1},{"x":3}]}])") ==
        R"({"a":[0,2,0]})");
}

TEST_CASE("nested $[id] paths apply each filter at its own level") {
  CHECK(applied(R"({"$inc":{"grades.$[t].questions.$[score]":2}})",
                R"({"grades":[{"type":"quiz","questions":[10,8,5]},{"type":"quiz","questions":[8,9,6]},)"
                R"({"type":"hw","questions":[5,4,3]},{"type":"exam","questions":[25,10,23,0]}]})",
                R"([{"t.type":"quiz"},{"score":{"$gte":8}}])") ==
        R"({"grades":[{"type":"quiz","questions":[12,10,5]},{"type":"quiz","questions":[10,11,6]},)"
        R"({"type":"hw","questions":[5,4,3]},{"type":"exam","questions":[25,10,23,0]}]})");
  CHECK(applied(R"({"$set":{"a.$[].b.$[x]":0}})", R"({"a":[{"b":[1,2]},{"b":[2,3]}]})", R"([{"x":2}])") ==
        R"({"a":[{"b":[1,0]},{"b":[0,3]}]})");
}

TEST_CASE("array filter identifiers are checked") {
  CHECK(update_error(R"({"$set":{"a.$[x]":1}})") == "no array filter found for identifier `x` in path `a.$[x]`");
  CHECK(update_error(R"({"$set":{"a":1}})", "{}", R"([{"x":1}])") ==
        "the array filter for identifier `x` was not used in the update");
  CHECK(update_error(R"({"$set":{"a.$[Bad]":1}})", "{}", R"([{"Bad":1}])") != "");
  CHECK(update_error(R"({"$set":{"a.$[1x]":1}})", "{}", R"([{"1x":1}])") != "");
  CHECK(update_error(R"({"$set":{"a.$[x]":1}})", "{}", R"([{"x":1},{"x":2}])") ==
        "found multiple array filters with the same identifier `x`");
  CHECK(update_error(R"({"$set":{"a.$[x]":1}})", "{}", R"([{"x":1,"y":2}])") ==
        "arrayFilters[0]: expected a single top-level field name, found `x` and `y`");
  CHECK(update_error(R"({"$set":{"a.$[x]":1}})", "{}", R"([{}])") != "");
  CHECK(update_error(R"({"$set":{"a.$[x]":1}})", "{}", R"([{"x":{"$bogus":1}}])") != "");
}

TEST_CASE("conflicting paths are an error") {
  CHECK(update_error(R"({"$set":{"a":1},"$inc":{"a":1}})") ==
        "updating the path `a` would create a conflict at `a`");
  CHECK(update_error(R"({"$set":{"a":1,"a.b":2}})") == "updating the path `a.b` would create a conflict at `a`");
  CHECK(update_error(R"({"$rename":{"a":"b"},"$set":{"b.c":1}})") != "");
  CHECK(update_error(R"({"$rename":{"a":"b"},"$unset":{"a":1}})") != "");
  // Positional paths conflict when they resolve to the same element.
  CHECK(update_error(R"({"$set":{"a.$[]":1,"a.$[i]":2}})", R"({"a":[5]})", R"([{"i":5}])") ==
        "update created a conflict at `a.0` ($set at `a.$[]` and $set at `a.$[i]`)");
  CHECK(applied(R"({"$set":{"a.$[]":1,"a.$[i]":2}})", R"({"a":[5]})", R"([{"i":6}])") == R"({"a":[1]})");
  CHECK(update_error(R"({"$set":{"a.$[].b":1,"a.0":2}})", R"({"a":[{"b":0}]})") != "");
}

TEST_CASE("an update without operators is refused with a pointer to replace") {
  const std::string msg = "update document requires update operators; use `replace` to replace a document";
  CHECK(update_error(R"({"a":1})") == msg);
  CHECK(update_error(R"({"$set":{"a":1},"b":2})") == msg);
  CHECK(update_error(R"({})") == msg);
}

TEST_CASE("malformed update documents name the operator and the path") {
  CHECK(update_error(R"({"$foo":{"a":1}})") == "unknown update operator `$foo`");
  CHECK(update_error(R"({"$set":1})") == "`$set` takes a document of fields, e.g. {\"$set\": {\"a\": …}}, not 1");
  CHECK(update_error(R"({"$set":{"a..b":1}})") == "the update path `a..b` contains an empty field name");
  CHECK(update_error(R"({"$set":{"":1}})") != "");
  CHECK(update_error(R"({"$set":{"a.$foo":1}})") != "");
}
