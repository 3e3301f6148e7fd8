// Filter operators beyond comparison: $not, $nor, $type, $regex, $mod, $comment.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

std::string re(const char* pattern, const char* options = "") {
  return std::string(R"({"$regularExpression": {"pattern": ")") + pattern +
         R"(", "options": ")" + options + "\"}}";
}

}  // namespace

TEST_CASE("$not matches missing fields and values of other types") {
  const auto docs = corpus(R"([
    {"_id": 1, "a": 2}, {"_id": 2, "a": 0}, {"_id": 3, "a": "x"}, {"_id": 4},
    {"_id": 5, "a": [0, 5]}, {"_id": 6, "a": null}])");
  CHECK(matching(R"({"a": {"$not": {"$gt": 1}}})", docs) == ids({"2", "3", "4", "6"}));
  CHECK(matching(R"({"a": {"$not": {"$gt": 1, "$lt": 3}}})", docs) == ids({"2", "3", "4", "6"}));
  CHECK(matching(R"({"a": {"$not": {"$type": "string"}}})", docs) ==
        ids({"1", "2", "4", "5", "6"}));
  CHECK(matching(R"({"a": {"$not": )" + re("^x") + "}}", docs) == ids({"1", "2", "4", "5", "6"}));
  CHECK(matching(R"({"a": {"$not": {"$not": {"$gt": 1}}}})", docs) == ids({"1", "5"}));
}

TEST_CASE("$not needs a regex or a non-empty document of operators") {
  CHECK(compile_error(R"({"a": {"$not": 1}})") ==
        "`$not` needs a regex or a document of operators at `a`");
  CHECK(compile_error(R"({"a": {"$not": {}}})") == "`$not` cannot be empty at `a`");
  CHECK(compile_error(R"({"a": {"$not": {"b": 1}}})") ==
        "unknown operator `b` at `a`: a document of operators cannot also hold plain fields");
}

TEST_CASE("$nor matches documents where every branch fails, including missing fields") {
  const auto docs = corpus(R"([
    {"_id": 1, "price": 1.99, "sale": true}, {"_id": 2, "price": 1.99}, {"_id": 3, "sale": true},
    {"_id": 4}, {"_id": 5, "price": 3, "sale": false}])");
  CHECK(matching(R"({"$nor": [{"price": 1.99}, {"sale": true}]})", docs) == ids({"4", "5"}));
  CHECK(matching(R"({"$nor": [{"price": {"$exists": true}}]})", docs) == ids({"3", "4"}));
}

TEST_CASE("$type matches BSON type names, numbers and the number alias") {
  const auto docs = corpus(R"([
    {"_id": "int", "a": 1}, {"_id": "long", "a": {"$numberLong": "1"}},
    {"_id": "double", "a": 1.5}, {"_id": "decimal", "a": {"$numberDecimal": "1.5"}},
    {"_id": "string", "a": "s"}, {"_id": "object", "a": {"b": 1}}, {"_id": "array", "a": [true]},
    {"_id": "null", "a": null}, {"_id": "missing"}, {"_id": "bool", "a": false},
    {"_id": "date", "a": {"$date": "2020-01-01T00:00:00Z"}},
    {"_id": "oid", "a": {"$oid": "0123456789abcdef01234567"}},
    {"_id": "minkey", "a": {"$minKey": 1}}, {"_id": "maxkey", "a": {"$maxKey": 1}},
    {"_id": "ts", "a": {"$timestamp": {"t": 1, "i": 2}}},
    {"_id": "regex", "a": {"$regularExpression": {"pattern": "x", "options": ""}}},
    {"_id": "bin", "a": {"$binary": {"base64": "AAE=", "subType": "00"}}}])");
  CHECK(matching(R"({"a": {"$type": "int"}})", docs) == ids({"int"}));
  CHECK(matching(R"({"a": {"$type": 16}})", docs) == ids({"int"}));
  CHECK(matching(R"({"a": {"$type": "long"}})", docs) == ids({"long"}));
  CHECK(matching(R"({"a": {"$type": "double"}})", docs) == ids({"double"}));
  CHECK(matching(R"({"a": {"$type": 1.0}})", docs) == ids({"double"}));
  CHECK(matching(R"({"a": {"$type": "decimal"}})", docs) == ids({"decimal"}));
  CHECK(matching(R"({"a": {"$type": "number"}})", docs) ==
        ids({"int", "long", "double", "decimal"}));
  CHECK(matching(R"({"a": {"$type": ["string", "bool"]}})", docs) ==
        ids({"string", "bool", "array"}));
  CHECK(matching(R"({"a": {"$type": [2, "object"]}})", docs) == ids({"string", "object"}));
  CHECK(matching(R"({"a": {"$type": "array"}})", docs) == ids({"array"}));
  CHECK(matching(R"({"a": {"$type": "bool"}})", docs) == ids({"bool", "array"}));
  CHECK(matching(R"({"a": {"$type": "null"}})", docs) == ids({"null"}));
  CHECK(matching(R"({"a": {"$type": 10}})", docs) == ids({"null"}));
  CHECK(matching(R"({"a": {"$type": "date"}})", docs) == ids({"date"}));
  CHECK(matching(R"({"a": {"$type": "objectId"}})", docs) == ids({"oid"}));
  CHECK(matching(R"({"a": {"$type": "minKey"}})", docs) == ids({"minkey"}));
  CHECK(matching(R"({"a": {"$type": -1}})", docs) == ids({"minkey"}));
  CHECK(matching(R"({"a": {"$type": "maxKey"}})", docs) == ids({"maxkey"}));
  CHECK(matching(R"({"a": {"$type": 127}})", docs) == ids({"maxkey"}));
  CHECK(matching(R"({"a": {"$type": "timestamp"}})", docs) == ids({"ts"}));
  CHECK(matching(R"({"a": {"$type": "regex"}})", docs) == ids({"regex"}));
  CHECK(matching(R"({"a": {"$type": "binData"}})", docs) == ids({"bin"}));
  CHECK(matching(R"({"a": {"$type": "undefined"}})", docs).empty());
}

TEST_CASE("$type \"array\" matches arrays and nested arrays but not scalars") {
  CHECK(matches(R"({"a": {"$type": "array"}})", R"({"a": []})"));
  CHECK(matches(R"({"a": {"$type": "array"}})", R"({"a": [[1]]})"));
  CHECK_FALSE(matches(R"({"a": {"$type": "array"}})", R"({"a": 1})"));
  CHECK(matches(R"({"a": {"$type": "int"}})", R"({"a": ["x", 2]})"));
}

TEST_CASE("$type rejects unknown names and numbers") {
  CHECK(compile_error(R"({"a": {"$type": "str"}})") ==
        "`$type` has an unknown type name `str` at `a`");
  CHECK(compile_error(R"({"a": {"$type": 42}})") == "`$type` has an invalid type number 42 at `a`");
  CHECK(compile_error(R"({"a": {"$type": 2.5}})") ==
        "`$type` has an invalid type number 2.5 at `a`");
  CHECK(compile_error(R"({"a": {"$type": []}})") == "`$type` must name at least one type at `a`");
  CHECK(compile_error(R"({"a": {"$type": {"x": 1}}})") ==
        "`$type` needs a type name, a type number or an array of them at `a`");
}

TEST_CASE("$regex matches strings and arrays of strings with options") {
  const auto docs = corpus(R"([
    {"_id": 1, "s": "Apple pie"}, {"_id": 2, "s": "apple"}, {"_id": 3, "s": ["pear", "APPLE"]},
    {"_id": 4, "s": 5}, {"_id": 5}, {"_id": 6, "s": "line one\napple two"}])");
  CHECK(matching(R"({"s": {"$regex": "^apple"}})", docs) == ids({"2"}));
  CHECK(matching(R"({"s": {"$regex": "^apple", "$options": "i"}})", docs) == ids({"1", "2", "3"}));
  CHECK(matching(R"({"s": {"$regex": "^apple", "$options": "m"}})", docs) == ids({"2", "6"}));
  CHECK(matching(R"({"s": {"$regex": "one.apple", "$options": "s"}})", docs) == ids({"6"}));
  CHECK(matching(R"({"s": {"$regex": "a p p l e  # spaced", "$options": "x"}})", docs) ==
        ids({"2", "6"}));
  CHECK(matching(R"({"s": {"$options": "i", "$regex": "PIE$"}})", docs) == ids({"1"}));
  CHECK(matching(R"({"s": )" + re("^APP", "i") + "}", docs) == ids({"1", "2", "3"}));
  CHECK(matching(R"({"s": {"$regex": )" + re("pie$") + "}}", docs) == ids({"1"}));
  CHECK(matching(R"({"s": {"$regex": )" + re("^app", "i") + "}}", docs) == ids({"1", "2", "3"}));
  CHECK(matching(R"({"s": {"$regex": "5"}})", docs).empty());
}

TEST_CASE("$regex handles UTF-8 text") {
  CHECK(matches(R"({"s": {"$regex": "^.$"}})", R"({"s": "é"})"));
  CHECK(matches(R"({"s": {"$regex": "ÉCOLE", "$options": "i"}})", R"({"s": "école"})"));
}

TEST_CASE("one compiled regex filter can be matched from several threads at once") {
  const filter f = compile(R"({"s": {"$regex": "^item-[0-9]+$", "$options": "i"}})");
  const document yes = doc(R"({"s": "ITEM-42"})");
  const document no = doc(R"({"s": "item-x"})");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (!f.matches(yes) || f.matches(no)) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("regexes inside $in and $nin match strings") {
  const auto docs = corpus(R"([
    {"_id": 1, "s": "alpha"}, {"_id": 2, "s": "beta"}, {"_id": 3, "s": 7}, {"_id": 4}])");
  CHECK(matching(R"({"s": {"$in": [)" + re("^al") + ", 7]}}", docs) == ids({"1", "3"}));
  CHECK(matching(R"({"s": {"$nin": [)" + re("^al") + ", 7]}}", docs) == ids({"2", "4"}));
}

TEST_CASE("a regex matches a stored regex with the same pattern and options") {
  const std::string stored = R"({"s": )" + re("ab+", "i") + "}";
  CHECK(matches(R"({"s": )" + re("ab+", "i") + "}", stored));
  CHECK_FALSE(matches(R"({"s": )" + re("ab+") + "}", stored));
  CHECK(matches(R"({"s": {"$eq": )" + re("ab+", "i") + "}}", stored));
  CHECK(matches(R"({"s": {"$in": [)" + re("ab+", "i") + "]}}", stored));
}

TEST_CASE("regex errors name the pattern and the path") {
  CHECK(compile_error(R"({"s": {"$regex": "(x"}})") ==
        "invalid regex `(x` at `s`: missing closing parenthesis (at offset 2)");
  CHECK(compile_error(R"({"s": {"$regex": "a", "$options": "q"}})") ==
        "invalid regex option `q` at `s` (valid options: i, m, s, x)");
  CHECK(compile_error(R"({"s": {"$options": "i"}})") == "`$options` needs a `$regex` at `s`");
  CHECK(compile_error(R"({"s": {"$regex": 5}})") == "`$regex` needs a string or a regex at `s`");
  CHECK(compile_error(R"({"s": {"$regex": "a", "$options": 1}})") ==
        "`$options` needs a string at `s`");
  CHECK(compile_error(R"({"s": {"$regex": )" + re("a", "i") + R"(, "$options": "m"}})") ==
        "regex options set in both `$regex` and `$options` at `s`");
  CHECK(compile_error(R"({"s": {"$in": [)" + re("[z") + "]}}")
            .starts_with("invalid regex `[z` at `s`: "));
}

TEST_CASE("$mod matches numbers by remainder, truncating fractions") {
  const auto docs = corpus(R"([
    {"_id": 1, "n": 8}, {"_id": 2, "n": 8.9}, {"_id": 3, "n": -8}, {"_id": 4, "n": "8"},
    {"_id": 5, "n": 9}, {"_id": 6, "n": {"$numberLong": "12"}}, {"_id": 7, "n": -5},
    {"_id": 8, "n": {"$numberDouble": "NaN"}}, {"_id": 9, "n": [3, 4]}])");
  CHECK(matching(R"({"n": {"$mod": [4, 0]}})", docs) == ids({"1", "2", "3", "6", "9"}));
  CHECK(matching(R"({"n": {"$mod": [4, 1]}})", docs) == ids({"5"}));
  CHECK(matching(R"({"n": {"$mod": [4, -1]}})", docs) == ids({"7"}));
  CHECK(matching(R"({"n": {"$mod": [4.7, 1.9]}})", docs) == ids({"5"}));
  CHECK(matching(R"({"n": {"$mod": [-4, 0]}})", docs) == ids({"1", "2", "3", "6", "9"}));
}

TEST_CASE("$mod truncates decimals exactly") {
  const auto docs = corpus(R"([
    {"_id": 1, "n": {"$numberDecimal": "9007199254740993"}}, {"_id": 2, "n": {"$numberDecimal": "-5.9"}},
    {"_id": 3, "n": {"$numberDecimal": "NaN"}}, {"_id": 4, "n": {"$numberDecimal": "1E+30"}},
    {"_id": 5, "n": {"$numberDecimal": "8.00"}}])");
  CHECK(matching(R"({"n": {"$mod": [2, 1]}})", docs) == ids({"1"}));
  CHECK(matching(R"({"n": {"$mod": [4, -1]}})", docs) == ids({"2"}));
  CHECK(matching(R"({"n": {"$mod": [4, 0]}})", docs) == ids({"5"}));
}

TEST_CASE("$mod needs a non-zero finite divisor and a remainder") {
  CHECK(compile_error(R"({"n": {"$mod": 4}})") ==
        "`$mod` needs an array [divisor, remainder] at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [4]}})") ==
        "`$mod` needs an array [divisor, remainder] at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [4, 0, 1]}})") ==
        "`$mod` needs an array [divisor, remainder] at `n`");
  CHECK(compile_error(R"({"n": {"$mod": ["4", 0]}})") ==
        "`$mod` needs a numeric divisor and remainder at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [0, 0]}})") == "`$mod` divisor cannot be 0 at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [0.5, 0]}})") == "`$mod` divisor cannot be 0 at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [{"$numberDouble": "NaN"}, 0]}})") ==
        "`$mod` divisor and remainder must be finite at `n`");
  CHECK(compile_error(R"({"n": {"$mod": [1e300, 0]}})") ==
        "`$mod` divisor and remainder must fit a 64-bit integer at `n`");
}

TEST_CASE("$comment is ignored wherever a top-level operator may appear") {
  CHECK(matches(R"({"a": 1, "$comment": "why"})", R"({"a": 1})"));
  CHECK_FALSE(matches(R"({"a": 1, "$comment": "why"})", R"({"a": 2})"));
  CHECK(matches(R"({"$and": [{"$comment": 5}, {"a": 1}]})", R"({"a": 1})"));
}

TEST_CASE("$exists takes any value by its truthiness, doubles and decimals included") {
  // A double argument once was read as a decimal and threw (the Decimal128 merge).
  const auto docs = corpus(R"([{"_id": 1, "price": 1.99}, {"_id": 2}])");
  CHECK(matching(R"({"price": {"$exists": 1.5}})", docs) == ids({"1"}));
  CHECK(matching(R"({"price": {"$exists": 0.0}})", docs) == ids({"2"}));
  CHECK(matching(R"({"price": {"$exists": {"$numberDouble": "NaN"}}})", docs) == ids({"1"}));
  CHECK(matching(R"({"price": {"$exists": {"$numberDecimal": "0"}}})", docs) == ids({"2"}));
  CHECK(matching(R"({"price": {"$exists": {"$numberDecimal": "2.5"}}})", docs) == ids({"1"}));
}
