#include <doctest/doctest.h>

#include <boost/json/parse.hpp>

#include "common/json.hpp"

using omgdb::json::append_quoted;
using omgdb::json::parse;
using omgdb::json::parse_strict;
using omgdb::json::serialize;

TEST_CASE("integers beyond the int64 range are reported, not rounded") {
  auto r = parse(R"({"a":18446744073709551615})");
  REQUIRE(r.ok());
  CHECK(r->violation == "integer 18446744073709551615 is outside the 64-bit signed range");
  auto big = parse("[123456789012345678901234567890]");
  REQUIRE(big.ok());
  CHECK(big->violation == "integer 123456789012345678901234567890 is outside the 64-bit signed range");
  CHECK_FALSE(parse_strict("9223372036854775808").ok());
  CHECK(parse_strict("9223372036854775807").ok());
  CHECK(parse_strict("-9223372036854775808").ok());
}

TEST_CASE("numbers that overflow to infinity are reported") {
  auto r = parse("{\"x\":-1.5e999}");
  REQUIRE(r.ok());
  CHECK(r->violation == "number -1.5e999 is too large to represent (not finite)");
  CHECK(parse("1e308")->violation.empty());
}

TEST_CASE("duplicate keys are reported at any depth") {
  CHECK(parse(R"({"a":1,"b":{"c":1,"c":2}})")->violation == "duplicate key \"c\" in an object");
  CHECK(parse(R"({"a":{"x":1},"b":{"x":1}})")->violation.empty());
  CHECK(parse(R"([{"k":1},{"k":2}])")->violation.empty());
}

TEST_CASE("a violation still yields the value so that a request id can be read") {
  auto r = parse(R"({"id":7,"params":{"n":1e400}})");
  REQUIRE(r.ok());
  CHECK_FALSE(r->violation.empty());
  CHECK(r->value.as_object().at("id").as_int64() == 7);
}

TEST_CASE("syntax errors, invalid UTF-8, trailing data and deep nesting are errors") {
  CHECK_FALSE(parse("{").ok());
  CHECK_FALSE(parse("{} {}").ok());
  CHECK_FALSE(parse("\"\xff\"").ok());
  CHECK_FALSE(parse("[1,]").ok());
  std::string deep(200, '[');
  deep += std::string(200, ']');
  CHECK_FALSE(parse(deep).ok());
  std::string ok_depth(100, '[');
  ok_depth += std::string(100, ']');
  CHECK(parse(ok_depth).ok());
  CHECK(parse("{").error().message.rfind("invalid JSON at byte", 0) == 0);
}

TEST_CASE("doubles serialize so that they read back as doubles") {
  CHECK(serialize(boost::json::value(1.0)) == "1.0");
  CHECK(serialize(boost::json::value(0.1)) == "0.1");
  CHECK(serialize(boost::json::value(-0.0)) == "-0.0");
  CHECK(serialize(boost::json::value(1e300)) == "1e+300");
  CHECK(serialize(boost::json::value(std::int64_t{5})) == "5");
}

TEST_CASE("strings serialize with the escapes JSON requires and nothing else") {
  CHECK(serialize(boost::json::value("a\"b\\c\n\x01é")) == "\"a\\\"b\\\\c\\n\\u0001é\"");
  boost::json::object o{{"k", "v"}, {"n", nullptr}, {"t", true}};
  CHECK(serialize(o) == R"({"k":"v","n":null,"t":true})");
}

TEST_CASE("a quoted string reads back as the same string, after what the output held before") {
  std::string all;
  for (int c = 0; c < 128; ++c) all.push_back(static_cast<char>(c));
  all += "é€😀 \"\"\\";
  for (const std::string& s : {all, std::string(), std::string("plain text"), std::string(300, '"')}) {
    std::string out = "prefix:";
    append_quoted(out, s);
    REQUIRE(out.rfind("prefix:", 0) == 0);
    std::string quoted = out.substr(7);
    for (char c : quoted) CHECK(static_cast<unsigned char>(c) >= 0x20);
    auto back = boost::json::parse(quoted);
    REQUIRE(back.is_string());
    CHECK(std::string(back.get_string()) == s);
  }
  std::string out;
  append_quoted(out, "\b\f\r\t\x1f");
  CHECK(out == R"("\b\f\r\t\u001f")");
}

TEST_CASE("doubles are read correctly rounded, as std::from_chars reads them") {
  auto v = parse_strict("[5.043497672979824e-118, 0.1, 1.7976931348623157e308, 4.9e-324]");
  REQUIRE(v.ok());
  const auto& a = v->as_array();
  CHECK(a[0].as_double() == 5.043497672979824e-118);
  CHECK(a[1].as_double() == 0.1);
  CHECK(a[2].as_double() == 1.7976931348623157e308);
  CHECK(a[3].as_double() == 4.9e-324);
}

TEST_CASE("a parse knows nothing of the parses before it on the same thread") {
  auto dup = parse(R"({"a":1,"a":2})");
  REQUIRE(dup.ok());
  CHECK_FALSE(dup->violation.empty());
  CHECK_FALSE(parse(R"({"a":[1,{"b":)").ok());  // abandoned half-way, deep inside
  auto clean = parse(R"({"a":1,"b":{"a":2}})");
  REQUIRE(clean.ok());
  CHECK(clean->violation.empty());
  CHECK(serialize(clean->value) == R"({"a":1,"b":{"a":2}})");
  auto big = std::string(R"({"k":")") + std::string(100000, 'x') + R"("})";  // beyond the reused parser's size
  REQUIRE(parse(big).ok());
  auto after = parse(R"({"x":"y"})");
  REQUIRE(after.ok());
  CHECK(serialize(after->value) == R"({"x":"y"})");
}
