// $binarySize $bsonSize $tsSecond $tsIncrement $toUUID $toHashedIndexKey $rand and $meta.
// Golden values: the manual's pages, BSON's byte layout (bsonspec.org) and, for
// $toHashedIndexKey, mongod's own hasher tests (src/mongo/db/hasher_test.cpp: the hash64 of
// {check: <value>}'s element, which is what $toHashedIndexKey returns for <value>) and the
// manual's "string to hash" example.
#include "tests/engine/query/expr_ops_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::expr_test;

namespace {

std::string hashed(std::string_view value_json) {
  return canon(R"({"$toHashedIndexKey": {"$literal": )" + std::string(value_json) + "}}");
}
std::string nl(std::string_view n) { return R"({"$numberLong":")" + std::string(n) + R"("})"; }

}  // namespace

TEST_CASE("binarySize counts the bytes of a string or binary value") {
  CHECK(canon(R"({"$binarySize": "abc"})") == R"({"$numberInt":"3"})");
  CHECK(canon(R"({"$binarySize": "é"})") == R"({"$numberInt":"2"})");  // UTF-8 bytes, not code points
  CHECK(canon(R"({"$binarySize": ""})") == R"({"$numberInt":"0"})");
  CHECK(canon(R"({"$binarySize": {"$binary": {"base64": "AAECAwQG", "subType": "00"}}})") == R"({"$numberInt":"6"})");
  CHECK(ev(R"({"$binarySize": "$nope"})") == "null");
  CHECK(ev(R"({"$binarySize": null})") == "null");
  CHECK(err(R"({"$binarySize": 1})") == "$binarySize requires a string or BinData argument, found: int");
}

TEST_CASE("bsonSize is the exact BSON size of the document") {
  // {} is 5 bytes; {"a": 1} adds type, "a\0" and an int32: 5 + 1 + 2 + 4 = 12.
  CHECK(canon(R"({"$bsonSize": {"$literal": {}}})") == R"({"$numberInt":"5"})");
  CHECK(canon(R"({"$bsonSize": "$$ROOT"})", R"({"a": 1})") == R"({"$numberInt":"12"})");
  // "x": "hello" → 1 + 2 + (4 + 6) = 13, plus 5: 18.
  CHECK(canon(R"({"$bsonSize": "$$ROOT"})", R"({"x": "hello"})") == R"({"$numberInt":"18"})");
  // A nested document and an array: {"d": {"b": true}, "l": [1.5]}
  // d: 1 + 2 + (5 + 1 + 2 + 1) = 12; l: 1 + 2 + (5 + 1 + 2 + 8) = 19; total 5 + 12 + 19 = 36.
  CHECK(canon(R"({"$bsonSize": "$$ROOT"})", R"({"d": {"b": true}, "l": [1.5]})") == R"({"$numberInt":"36"})");
  CHECK(ev(R"({"$bsonSize": "$nope"})") == "null");
  CHECK(err(R"({"$bsonSize": {"$literal": [1]}})") == "$bsonSize requires a document input, found: array");
  CHECK(err(R"({"$bsonSize": [1]})") == "$bsonSize requires a document input, found: int");  // [1] lists the argument
  CHECK(err(R"({"$bsonSize": "abc"})") == "$bsonSize requires a document input, found: string");
}

TEST_CASE("tsSecond and tsIncrement read a timestamp's parts as longs") {
  // The manual's example: Timestamp(1622731060, 10).
  const std::string ts = R"({"$timestamp": {"t": 1622731060, "i": 10}})";
  CHECK(canon(R"({"$tsSecond": )" + ts + "}") == nl("1622731060"));
  CHECK(canon(R"({"$tsIncrement": )" + ts + "}") == nl("10"));
  CHECK(ev(R"({"$tsSecond": null})") == "null");
  CHECK(ev(R"({"$tsIncrement": "$nope"})") == "null");
  CHECK(err(R"({"$tsSecond": 1})") == "$tsSecond requires a timestamp argument, found: int");
  CHECK(err(R"({"$tsIncrement": {"$date": "2021-01-01T00:00:00Z"}})") ==
        "$tsIncrement requires a timestamp argument, found: date");
}

TEST_CASE("toUUID turns the canonical string form into binary subtype 4") {
  // The manual's products example.
  CHECK(canon(R"({"$toUUID": "0e3b9063-8abd-4eb3-9f9f-f4c59fd30a60"})") ==
        R"({"$binary":{"base64":"DjuQY4q9TrOfn/TFn9MKYA==","subType":"04"}})");
  CHECK(canon(R"({"$toUUID": "0E3B9063-8ABD-4EB3-9F9F-F4C59FD30A60"})") ==
        R"({"$binary":{"base64":"DjuQY4q9TrOfn/TFn9MKYA==","subType":"04"}})");
  CHECK(ev(R"({"$toUUID": null})") == "null");
  CHECK(ev(R"({"$toUUID": "$nope"})") == "null");
  CHECK(err(R"({"$toUUID": 5})") == "Unsupported conversion from int to binData in $convert with no onError value");
  CHECK(err(R"({"$toUUID": "0e3b9063-8abd-4eb3-9f9f-f4c59fd30a6"})").find("Invalid UUID string") != std::string::npos);
  CHECK(err(R"({"$toUUID": "0e3b9063x8abd-4eb3-9f9f-f4c59fd30a60"})").find("Invalid UUID string") != std::string::npos);
  CHECK(err(R"({"$toUUID": "0e3b9063-8abd-4eb3-9f9f-f4c59fd30a6g"})").find("Invalid UUID string") != std::string::npos);
}

TEST_CASE("toHashedIndexKey gives mongod's hashed index values for numbers") {
  CHECK(hashed("42") == nl("-944302157085130861"));
  // Every number hashes as the int64 it truncates to; NaN as 0.
  CHECK(hashed("0") == nl("4854801880128277513"));
  CHECK(hashed("0.456") == nl("4854801880128277513"));
  CHECK(hashed(R"({"$numberLong": "0"})") == nl("4854801880128277513"));
  CHECK(hashed(R"({"$numberDouble": "NaN"})") == nl("4854801880128277513"));
  CHECK(hashed("1.987") == nl("5902408780260971510"));
  CHECK(hashed("-1.789") == nl("1140205862565771219"));
  CHECK(hashed("-2147483648") == nl("6165898260261354870"));
  CHECK(hashed("2147483647.0") == nl("1143184177162245883"));
  CHECK(hashed("1.7976931348623157e308") == nl("921523596458303250"));
  CHECK(hashed(R"({"$numberLong": "9223372036854775807"})") == nl("921523596458303250"));
  CHECK(hashed("-1.7976931348623157e308") == nl("4532067210535695462"));
  CHECK(hashed(R"({"$numberDecimal": "42.4"})") == nl("-944302157085130861"));
}

TEST_CASE("toHashedIndexKey gives mongod's hashed index values for other types") {
  CHECK(hashed(R"({"$minKey": 1})") == nl("7961148599568647290"));
  CHECK(hashed(R"({"$maxKey": 1})") == nl("5504842513779440750"));
  CHECK(hashed(R"("abc")") == nl("8478485326885698097"));
  CHECK(hashed(R"("")") == nl("2049396243249673340"));
  CHECK(hashed(R"({"a": "abc", "b": {"$numberLong": "123"}})") == nl("4771603801758380216"));
  CHECK(hashed("{}") == nl("7980500913326740417"));
  CHECK(hashed(R"(["bar", "baz", "qux"])") == nl("-2938911267422831539"));
  CHECK(hashed("[]") == nl("8849948234993459283"));
  CHECK(hashed(R"({"$binary": {"base64": "AAECAwQG", "subType": "00"}})") == nl("7252465090394235301"));
  CHECK(hashed(R"({"$binary": {"base64": "AAECAwQG", "subType": "80"}})") == nl("5736670452907618262"));
  CHECK(hashed(R"({"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}})") == nl("6084661258071355978"));
  CHECK(hashed(R"({"$oid": "010203040506070809101112"})") == nl("-5588663249627035708"));
  CHECK(hashed(R"({"$oid": "000000000000000000000000"})") == nl("-4293118519463489418"));
  CHECK(hashed("true") == nl("6405873908747105701"));
  CHECK(hashed("false") == nl("6289544573401934092"));
  CHECK(hashed(R"({"$date": {"$numberLong": "6153737367135073092"}})") == nl("4476222765095560467"));  // 0x5566778811223344
  CHECK(hashed(R"({"$date": {"$numberLong": "0"}})") == nl("-1178696894582842035"));
  CHECK(hashed(R"({"$regularExpression": {"pattern": "mongodb", "options": ""}})") == nl("-7275792090268217043"));
  CHECK(hashed(R"({"$regularExpression": {"pattern": ".*", "options": "i"}})") == nl("7095855029187981886"));
  // The manual's example.
  CHECK(canon(R"({"$toHashedIndexKey": "$val"})", R"({"val": "string to hash"})") == nl("763543691661428748"));
}

TEST_CASE("toHashedIndexKey hashes null and missing alike") {
  CHECK(canon(R"({"$toHashedIndexKey": "$nope"})") == canon(R"({"$toHashedIndexKey": null})"));
  CHECK(canon(R"({"$toHashedIndexKey": null})") != hashed("0"));
}

TEST_CASE("rand gives doubles in [0, 1) and takes no arguments") {
  double lo = 1, hi = 0, sum = 0;
  for (int i = 0; i < 10000; ++i) {
    auto v = try_eval(R"({"$rand": {}})", "{}");
    REQUIRE(v.ok());
    REQUIRE((*v)->is_double());
    const double d = (*v)->as_double();
    REQUIRE(d >= 0);
    REQUIRE(d < 1);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
    sum += d;
  }
  // Uniform: the mean of 10,000 draws is 0.5 ± 0.0029 (one standard deviation); ±0.02 is 7σ.
  CHECK(sum / 10000 == doctest::Approx(0.5).epsilon(0.04));
  CHECK(lo < 0.01);
  CHECK(hi > 0.99);
  CHECK(err(R"({"$rand": {"seed": 1}})") == "$rand does not currently accept arguments");
  CHECK(err(R"({"$rand": 1})") == "$rand does not currently accept arguments");
}

TEST_CASE("meta is refused with a pointer to the search tool") {
  for (const char* m : {"textScore", "searchScore", "vectorSearchScore", "indexKey", "recordId"}) {
    const std::string e = err(std::string(R"({"$meta": ")") + m + "\"}");
    CHECK(e.find(std::string("{$meta: \"") + m + "\"}") != std::string::npos);
    CHECK(e.find("`search` tool") != std::string::npos);
  }
  CHECK(err(R"({"$meta": "bogus"})") == "Unsupported argument to $meta: bogus");
  CHECK(err(R"({"$meta": 1})") == "$meta only supports string arguments");
}
