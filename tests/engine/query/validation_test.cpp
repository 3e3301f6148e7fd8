// Validation rules on their own (engine/query/validation.hpp): compiling the documented JSON Schema
// subset, refusing what it does not cover, and the messages of each rule.
#include "engine/query/validation.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;
using validation::rules;

namespace {

rules compile_ok(std::string_view spec) {
  auto r = rules::compile(doc(spec));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

std::string compile_error(std::string_view spec) {
  auto r = rules::compile(doc(spec));
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

// Every violation message of `d`, joined by " | ".
std::string problems(const rules& r, std::string_view d) {
  std::string out;
  auto found = r.check(doc(d), 100);
  REQUIRE(found.ok());
  for (const auto& v : *found) out += (out.empty() ? "" : " | ") + v.message;
  return out;
}

const char* k_people = R"({
  "required": ["name", "age"],
  "properties": {
    "name": {"bsonType": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]"},
    "age": {"bsonType": ["int", "long"], "minimum": 0, "maximum": 150},
    "status": {"enum": ["active", "gone"]},
    "score": {"bsonType": "number"},
    "address": {"bsonType": "object", "required": ["city"],
                "properties": {"zip": {"bsonType": "string", "pattern": "^[0-9]{5}$"}}}
  }
})";

}  // namespace

TEST_CASE("a document that follows every rule has no violations") {
  auto r = compile_ok(k_people);
  CHECK(problems(r, R"({"name":"ana","age":30,"status":"gone","score":1.5,"address":{"city":"x","zip":"12345"}})") == "");
  CHECK_FALSE(r.first_violation(doc(R"({"name":"ana","age":30})")).value().has_value());
}

TEST_CASE("a missing required field is reported with its name and the rule") {
  auto r = compile_ok(k_people);
  auto first = r.first_violation(doc(R"({"name":"ana"})"));
  REQUIRE(first.ok());
  auto& v = *first;
  REQUIRE(v.has_value());
  CHECK(v->field == "age");
  CHECK(v->rule == "required");
  CHECK(v->message == "field `age` is missing (required)");
  CHECK(problems(r, R"({"name":"ana","age":null})") == "field `age` must be of bsonType int or long, got null");
}

TEST_CASE("each rule names the field, the rule and the offending value") {
  auto r = compile_ok(k_people);
  CHECK(problems(r, R"({"name":"a","age":30})") ==
        "field `name` must be at least 2 characters long (minLength), got 1");
  CHECK(problems(r, R"({"name":"abcdef","age":30})") ==
        "field `name` must be at most 5 characters long (maxLength), got 6");
  CHECK(problems(r, R"({"name":"Ana","age":30})") ==
        "field `name` must match the pattern \"^[a-z]\" (pattern), got \"Ana\"");
  CHECK(problems(r, R"({"name":"ana","age":-1})") == "field `age` must be at least 0 (minimum), got -1");
  CHECK(problems(r, R"({"name":"ana","age":151})") == "field `age` must be at most 150 (maximum), got 151");
  CHECK(problems(r, R"({"name":"ana","age":"x"})") == "field `age` must be of bsonType int or long, got string");
  CHECK(problems(r, R"({"name":"ana","age":1,"status":"new"})") ==
        "field `status` must be one of [\"active\",\"gone\"] (enum), got \"new\"");
  CHECK(problems(r, R"({"name":"ana","age":1,"score":"high"})") ==
        "field `score` must be of bsonType number, got string");
}

TEST_CASE("nested properties and required apply inside embedded documents with dotted paths") {
  auto r = compile_ok(k_people);
  CHECK(problems(r, R"({"name":"ana","age":1,"address":{"zip":"1"}})") ==
        "field `address.city` is missing (required) | field `address.zip` must match the pattern "
        "\"^[0-9]{5}$\" (pattern), got \"1\"");
  CHECK(problems(r, R"({"name":"ana","age":1,"address":"Main St"})") ==
        "field `address` must be of bsonType object, got string");
}

TEST_CASE("all violations of a document are listed, up to the maximum asked for") {
  auto r = compile_ok(k_people);
  CHECK(r.check(doc(R"({"status":"x"})"), 100)->size() == 3);
  CHECK(r.check(doc(R"({"status":"x"})"), 2)->size() == 2);
}

TEST_CASE("numbers compare by value across types and strings count code points") {
  auto r = compile_ok(R"({"properties":{"n":{"minimum":1.5,"maximum":{"$numberLong":"10"}},
                                       "s":{"maxLength":2}}})");
  CHECK(problems(r, R"({"n":2})") == "");
  CHECK(problems(r, R"({"n":{"$numberLong":"10"}})") == "");
  CHECK(problems(r, R"({"n":1})") == "field `n` must be at least 1.5 (minimum), got 1");
  CHECK(problems(r, R"({"s":"éé"})") == "");  // 2 code points, 4 bytes
  // Numeric and string keywords ignore values of other types (as JSON Schema does).
  CHECK(problems(r, R"({"n":"text","s":5})") == "");
}

TEST_CASE("enum matches by value, so 1 matches 1.0") {
  auto r = compile_ok(R"({"properties":{"k":{"enum":[1,"a",null]}}})");
  CHECK(problems(r, R"({"k":1.0})") == "");
  CHECK(problems(r, R"({"k":null})") == "");
  CHECK(problems(r, R"({"k":2})") == "field `k` must be one of [1,\"a\",null] (enum), got 2");
}

TEST_CASE("a $jsonSchema wrapper is accepted and an empty spec has no rules") {
  auto r = compile_ok(R"({"$jsonSchema":{"required":["a"]}})");
  CHECK(problems(r, R"({"b":1})") == "field `a` is missing (required)");
  CHECK(problems(compile_ok("{}"), R"({"b":1})") == "");
}

TEST_CASE("spec.unique takes field names or arrays of them and checks no document by itself") {
  CHECK(problems(compile_ok(R"({"unique":["email",["a","b.c"]]})"), R"({"b":1})") == "");
  const std::string shape = "spec.unique must be a non-empty array of field names (or arrays of field names for a "
                            "compound unique index)";
  CHECK(compile_error(R"({"unique":"email"})") == shape);
  CHECK(compile_error(R"({"unique":[]})") == shape);
  CHECK(compile_error(R"({"unique":[["a",1]]})") == shape);
  CHECK(compile_error(R"({"unique":[""]})") == shape);
}

TEST_CASE("keywords outside the subset are refused, naming where they are") {
  CHECK(compile_error(R"({"properties":{"a":{"type":"string"}}})") ==
        "spec.properties.a.type: use `bsonType` (BSON type names such as \"int\", \"string\", \"object\")");
  CHECK(compile_error(R"({"properties":{"a":{"minimun":1}}})").starts_with(
      "spec.properties.a.minimun: unsupported keyword `minimun` (supported: bsonType, enum"));
  CHECK(compile_error(R"({"properties":{"a":{"items":{}}}})").starts_with(
      "spec.properties.a.items: unsupported keyword `items`"));
}

TEST_CASE("malformed keyword values are refused with the expected shape") {
  CHECK(compile_error(R"({"properties":{"a":{"bsonType":"integer"}}})").starts_with(
      "spec.properties.a.bsonType: unknown bsonType \"integer\" (known: double, string, object"));
  CHECK(compile_error(R"({"bsonType":"string"})") ==
        "spec.bsonType must be \"object\" at the root: the rules describe whole documents");
  CHECK(compile_error(R"({"properties":{"a":{"minimum":"1"}}})") == "spec.properties.a.minimum must be a number");
  CHECK(compile_error(R"({"properties":{"a":{"maxLength":-1}}})") ==
        "spec.properties.a.maxLength must be a non-negative integer");
  CHECK(compile_error(R"({"properties":{"a":{"enum":[]}}})") == "spec.properties.a.enum must be a non-empty array");
  CHECK(compile_error(R"({"required":"a"})") == "spec.required must be an array of field names");
  CHECK(compile_error(R"({"properties":{"a":5}})") == "spec.properties.a must be an object (a schema)");
  CHECK(compile_error(R"({"properties":{"a":{"pattern":"("}}})").starts_with("invalid regex `(` at `spec.properties.a.pattern`"));
}
