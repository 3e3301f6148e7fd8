// String and regex expression operators (reference/operator/aggregation/<name>/ examples).
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

TEST_CASE("concat joins strings and gives null for a null operand") {
  CHECK(ev(R"({"$concat": ["$item", " - ", "$description"]})", R"({"item": "ABC1", "description": "product 1"})") ==
        R"("ABC1 - product 1")");
  CHECK(ev(R"({"$concat": ["a", null]})") == "null");
  CHECK(err(R"({"$concat": ["a", 1]})") == "$concat only supports strings, not int");
}

TEST_CASE("substrCP counts code points and substrBytes counts bytes") {
  CHECK(ev(R"({"$substrCP": ["寿司sushi", 0, 3]})") == R"("寿司s")");
  CHECK(ev(R"({"$substrBytes": ["寿司sushi", 0, 3]})") == R"("寿")");
  CHECK(err(R"({"$substrBytes": ["寿司sushi", 1, 3]})") ==
        "$substrBytes: Invalid range, starting index is a UTF-8 continuation byte.");
  CHECK(ev(R"({"$strLenCP": "寿司"})") == "2");
  CHECK(ev(R"({"$strLenBytes": "寿司"})") == "6");
}

TEST_CASE("toLower, toUpper and strcasecmp map ASCII letters only") {
  CHECK(ev(R"({"$toUpper": "abcÉé"})") == R"("ABCÉé")");
  CHECK(ev(R"({"$toLower": null})") == R"("")");
  CHECK(ev(R"({"$strcasecmp": ["ABC", "abd"]})") == "-1");
  CHECK(ev(R"({"$strcasecmp": ["abc", "ABC"]})") == "0");
}

TEST_CASE("split, trim, indexOfCP and replace work on text") {
  CHECK(ev(R"({"$split": ["June-15-2013", "-"]})") == R"(["June","15","2013"])");
  CHECK(ev(R"({"$split": ["astronomical", "astro"]})") == R"(["","nomical"])");
  CHECK(ev(R"({"$trim": {"input": "  \n good  bye \t  "}})") == R"("good  bye")");
  CHECK(ev(R"({"$ltrim": {"input": "xxhixx", "chars": "x"}})") == R"("hixx")");
  CHECK(ev(R"({"$rtrim": {"input": "xxhixx", "chars": "x"}})") == R"("xxhi")");
  CHECK(ev(R"({"$indexOfCP": ["cafétéria", "é"]})") == "3");
  CHECK(ev(R"({"$indexOfCP": ["cafétéria", "é", 4]})") == "5");
  CHECK(ev(R"({"$indexOfCP": ["abc", "z"]})") == "-1");
  CHECK(ev(R"({"$replaceOne": {"input": "blue paint blue", "find": "blue", "replacement": "red"}})") == R"("red paint blue")");
  CHECK(ev(R"({"$replaceAll": {"input": "blue paint blue", "find": "blue", "replacement": "red"}})") == R"("red paint red")");
  CHECK(ev(R"({"$replaceAll": {"input": null, "find": "a", "replacement": "b"}})") == "null");
  CHECK(err(R"({"$trim": {"input": "a", "char": "x"}})") == "`$trim` does not take `char` (it takes `input` and `chars`)");
}

TEST_CASE("regexMatch, regexFind and regexFindAll report matches with code point indexes") {
  CHECK(ev(R"({"$regexMatch": {"input": "Cafe", "regex": "^caf", "options": "i"}})") == "true");
  CHECK(ev(R"({"$regexMatch": {"input": null, "regex": "a"}})") == "false");
  CHECK(ev(R"j({"$regexFind": {"input": "café au lait", "regex": "(a)(u)"}})j") ==
        R"({"match":"au","idx":5,"captures":["a","u"]})");
  CHECK(ev(R"({"$regexFind": {"input": "xyz", "regex": "a"}})") == "null");
  CHECK(ev(R"({"$regexFindAll": {"input": "a1b22", "regex": "[0-9]+"}})") ==
        R"([{"match":"1","idx":1,"captures":[]},{"match":"22","idx":3,"captures":[]}])");
  CHECK(err(R"({"$regexMatch": {"input": "a", "regex": "("}})").find("$regexMatch: invalid regular expression") == 0);
}

TEST_CASE("a regexMatch that reaches the match limit is an error naming the operator and the limit") {
  const std::string e =
      err(R"({"$regexMatch": {"input": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "regex": "^(?:(a+)+x|a+b)$"}})");
  CHECK(e.find("`$regexMatch` reached the regex match limit (100000 backtracking steps)") == 0);
}
