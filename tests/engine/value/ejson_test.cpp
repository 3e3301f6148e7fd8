#include "engine/value/ejson.hpp"

#include <bson/bson.h>
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/json.hpp"

using namespace omgdb::engine;
namespace bj = boost::json;

namespace {

bj::value parse(std::string_view text) {
  auto r = omgdb::json::parse_strict(text);
  REQUIRE_MESSAGE(r.ok(), text);
  return *r;
}

value read(std::string_view text) {
  auto r = from_json(parse(text));
  REQUIRE_MESSAGE(r.ok(), text, ": ", (r.ok() ? "" : r.error().message));
  return *r;
}

std::string read_error(std::string_view text) {
  auto r = from_json(parse(text));
  REQUIRE_MESSAGE(!r.ok(), text, " was accepted");
  return r.error().message;
}

value dec(const char* text) {
  bson_decimal128_t d;
  REQUIRE(bson_decimal128_from_string(text, &d));
  return value(decimal128{d.high, d.low});
}

object_id oid_from_hex(std::string_view hex) {
  object_id o;
  for (std::size_t k = 0; k < 12; ++k) o.bytes[k] = static_cast<std::uint8_t>(std::stoi(std::string(hex.substr(2 * k, 2)), nullptr, 16));
  return o;
}

// The example document of the Extended JSON specification (without Code and CodeWScope,
// which omgdb does not store), and its canonical and relaxed forms from the spec.
document spec_example() {
  return document{
      {"_id", oid_from_hex("57e193d7a9cc81b4027498b5")},
      {"String", "string"},
      {"Int32", 42},
      {"Int64", std::int64_t{42}},
      {"Double", 42.42},
      {"Decimal", dec("1234.5")},
      {"Binary", binary{4, std::string("\xc8\xed\xab\xc3\xf7\x38\x4c\xa3\xb6\x8d\xab\x92\xa9\x14\x78\xa3", 16)}},
      {"BinaryUserDefined", binary{0x80, "123"}},
      {"Subdocument", document{{"foo", "bar"}}},
      {"Array", array{1, 2, 3, 4, 5}},
      {"Timestamp", timestamp{42, 1}},
      {"RegularExpression", regex{"foo*", "ix"}},
      {"DatetimeEpoch", date_time{0}},
      {"DatetimePositive", date_time{253402300799999}},
      {"DatetimeNegative", date_time{-62135596800000}},
      {"True", true},
      {"False", false},
      {"Minkey", min_key{}},
      {"Maxkey", max_key{}},
      {"Null", null_t{}},
  };
}

constexpr std::string_view spec_canonical =
    R"({"_id":{"$oid":"57e193d7a9cc81b4027498b5"},"String":"string","Int32":{"$numberInt":"42"},)"
    R"("Int64":{"$numberLong":"42"},"Double":{"$numberDouble":"42.42"},"Decimal":{"$numberDecimal":"1234.5"},)"
    R"("Binary":{"$binary":{"base64":"yO2rw/c4TKO2jauSqRR4ow==","subType":"04"}},)"
    R"("BinaryUserDefined":{"$binary":{"base64":"MTIz","subType":"80"}},"Subdocument":{"foo":"bar"},)"
    R"("Array":[{"$numberInt":"1"},{"$numberInt":"2"},{"$numberInt":"3"},{"$numberInt":"4"},{"$numberInt":"5"}],)"
    R"("Timestamp":{"$timestamp":{"t":42,"i":1}},"RegularExpression":{"$regularExpression":{"pattern":"foo*","options":"ix"}},)"
    R"("DatetimeEpoch":{"$date":{"$numberLong":"0"}},"DatetimePositive":{"$date":{"$numberLong":"253402300799999"}},)"
    R"("DatetimeNegative":{"$date":{"$numberLong":"-62135596800000"}},"True":true,"False":false,)"
    R"("Minkey":{"$minKey":1},"Maxkey":{"$maxKey":1},"Null":null})";

constexpr std::string_view spec_relaxed =
    R"({"_id":{"$oid":"57e193d7a9cc81b4027498b5"},"String":"string","Int32":42,"Int64":42,"Double":42.42,)"
    R"("Decimal":{"$numberDecimal":"1234.5"},)"
    R"("Binary":{"$binary":{"base64":"yO2rw/c4TKO2jauSqRR4ow==","subType":"04"}},)"
    R"("BinaryUserDefined":{"$binary":{"base64":"MTIz","subType":"80"}},"Subdocument":{"foo":"bar"},)"
    R"("Array":[1,2,3,4,5],)"
    R"("Timestamp":{"$timestamp":{"t":42,"i":1}},"RegularExpression":{"$regularExpression":{"pattern":"foo*","options":"ix"}},)"
    R"("DatetimeEpoch":{"$date":"1970-01-01T00:00:00.000Z"},"DatetimePositive":{"$date":"9999-12-31T23:59:59.999Z"},)"
    R"("DatetimeNegative":{"$date":{"$numberLong":"-62135596800000"}},"True":true,"False":false,)"
    R"("Minkey":{"$minKey":1},"Maxkey":{"$maxKey":1},"Null":null})";

// Same kinds all the way down and equal values (doubles by bits, NaN by NaN-ness).
bool identical(const value& a, const value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_double()) {
    return std::isnan(a.as_double()) ? std::isnan(b.as_double())
                                     : std::signbit(a.as_double()) == std::signbit(b.as_double()) &&
                                           a.as_double() == b.as_double();
  }
  if (a.is_document()) {
    const auto &x = a.as_document(), &y = b.as_document();
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (x[k].name != y[k].name || !identical(x[k].val, y[k].val)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    const auto &x = a.as_array(), &y = b.as_array();
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!identical(x[k], y[k])) return false;
    }
    return true;
  }
  if (a.is_decimal()) return std::get<decimal128>(a.raw()) == std::get<decimal128>(b.raw());
  return compare(a, b) == 0;
}

}  // namespace

TEST_CASE("the specification's example document writes as its canonical Extended JSON") {
  CHECK(to_json(spec_example(), ejson_mode::canonical) == spec_canonical);
}

TEST_CASE("the specification's example document writes as its relaxed Extended JSON") {
  CHECK(to_json(spec_example()) == spec_relaxed);
  CHECK(to_json(value(spec_example())) == spec_relaxed);
}

TEST_CASE("canonical Extended JSON of the example reads back with every type intact") {
  auto d = document_from_json(parse(spec_canonical));
  REQUIRE(d.ok());
  CHECK(identical(value(*d), value(spec_example())));
}

TEST_CASE("relaxed Extended JSON of the example reads back equal, with small integers as int32") {
  auto d = document_from_json(parse(spec_relaxed));
  REQUIRE(d.ok());
  CHECK(compare(*d, spec_example()) == 0);
  CHECK(find_field(*d, "Int64")->type() == kind::int32);
  CHECK(find_field(*d, "DatetimePositive")->type() == kind::date_time);
}

TEST_CASE("relaxed doubles always read back as doubles") {
  CHECK(to_json(value(1.0)) == "1.0");
  CHECK(to_json(value(0.5)) == "0.5");
  CHECK(to_json(value(-0.0)) == "-0.0");
  CHECK(to_json(value(1e300)) == "1e+300");
  CHECK(to_json(value(-2.5e-7)) == "-2.5e-07");
  CHECK(to_json(value(std::numeric_limits<double>::infinity())) == R"({"$numberDouble":"Infinity"})");
  CHECK(to_json(value(-std::numeric_limits<double>::infinity())) == R"({"$numberDouble":"-Infinity"})");
  CHECK(to_json(value(std::numeric_limits<double>::quiet_NaN())) == R"({"$numberDouble":"NaN"})");
  for (double d : {1.0, -0.0, 1e300, 0.1, 123456789012.0, 5e-324}) {
    const value back = read(to_json(value(d)));
    CHECK(back.is_double());
    CHECK(identical(back, value(d)));
  }
}

TEST_CASE("canonical output wraps every number") {
  CHECK(to_json(value(5), ejson_mode::canonical) == R"({"$numberInt":"5"})");
  CHECK(to_json(value(std::int64_t{5}), ejson_mode::canonical) == R"({"$numberLong":"5"})");
  CHECK(to_json(value(1.0), ejson_mode::canonical) == R"({"$numberDouble":"1.0"})");
  CHECK(to_json(value(-0.0), ejson_mode::canonical) == R"({"$numberDouble":"-0.0"})");
  CHECK(to_json(value(1e300), ejson_mode::canonical) == R"({"$numberDouble":"1e+300"})");
  CHECK(to_json(value(-std::numeric_limits<double>::infinity()), ejson_mode::canonical) ==
        R"({"$numberDouble":"-Infinity"})");
  CHECK(to_json(value(date_time{1356351330500}), ejson_mode::canonical) == R"({"$date":{"$numberLong":"1356351330500"}})");
}

TEST_CASE("relaxed dates are ISO strings from 1970 to 9999 only") {
  CHECK(to_json(value(date_time{1356351330500})) == R"({"$date":"2012-12-24T12:15:30.500Z"})");
  CHECK(to_json(value(date_time{-1})) == R"({"$date":{"$numberLong":"-1"}})");
  CHECK(to_json(value(date_time{253402300800000})) == R"({"$date":{"$numberLong":"253402300800000"}})");
}

TEST_CASE("strings are written with only the escapes JSON requires") {
  CHECK(to_json(value(std::string("a\"b\\c\n\x01\0\xc3\xa9", 10))) == "\"a\\\"b\\\\c\\n\\u0001\\u0000\xc3\xa9\"");
  CHECK(to_json(document{{"k\"", "v"}}) == R"({"k\"":"v"})");
}

TEST_CASE("JSON integers become int32 when they fit and int64 otherwise") {
  CHECK(read("2147483647").type() == kind::int32);
  CHECK(read("-2147483648").type() == kind::int32);
  CHECK(read("2147483648").type() == kind::int64);
  CHECK(read("-2147483649").type() == kind::int64);
  CHECK(read("9223372036854775807").as_int64() == std::numeric_limits<std::int64_t>::max());
  CHECK(read("1.0").type() == kind::double_);
  CHECK(read("1e2").type() == kind::double_);
}

TEST_CASE("integers beyond int64 and non-finite numbers are refused") {
  auto big = from_json(bj::value(std::uint64_t{18446744073709551615ULL}));
  REQUIRE(!big.ok());
  CHECK(big.error().message == "integer 18446744073709551615 is outside the 64-bit signed range");
  auto infinite = from_json(bj::value(std::numeric_limits<double>::infinity()));
  REQUIRE(!infinite.ok());
  CHECK(infinite.error().message.find("$numberDouble") != std::string::npos);
}

TEST_CASE("field order is preserved and unknown dollar keys stay ordinary fields") {
  const value v = read(R"({"z":1,"a":{"$gt":5,"$lt":"x"},"m":[{"$unknown":1}]})");
  const auto& d = v.as_document();
  REQUIRE(d.size() == 3);
  CHECK(d[0].name == "z");
  CHECK(d[1].name == "a");
  CHECK(d[2].name == "m");
  CHECK(d[1].val.as_document()[0].name == "$gt");
  CHECK(d[2].val.as_array()[0].as_document()[0].name == "$unknown");
}

TEST_CASE("type wrappers read as their BSON types") {
  CHECK(identical(read(R"({"$oid":"57E193D7A9CC81B4027498B5"})"), value(oid_from_hex("57e193d7a9cc81b4027498b5"))));
  CHECK(identical(read(R"({"$numberInt":"-42"})"), value(-42)));
  CHECK(identical(read(R"({"$numberLong":"42"})"), value(std::int64_t{42})));
  CHECK(identical(read(R"({"$numberDouble":"-0.0"})"), value(-0.0)));
  CHECK(std::isnan(read(R"({"$numberDouble":"NaN"})").as_double()));
  CHECK(read(R"({"$numberDouble":"-Infinity"})").as_double() == -std::numeric_limits<double>::infinity());
  CHECK(identical(read(R"({"$numberDecimal":"1.10"})"), dec("1.10")));
  CHECK(identical(read(R"({"$date":"2012-12-24T12:15:30.500Z"})"), value(date_time{1356351330500})));
  CHECK(identical(read(R"({"$date":{"$numberLong":"-284643869500"}})"), value(date_time{-284643869500})));
  CHECK(identical(read(R"({"$date":1356351330500})"), value(date_time{1356351330500})));
  CHECK(identical(read(R"({"$binary":{"subType":"4","base64":"yO2rw/c4TKO2jauSqRR4ow=="}})"),
                  value(std::get<binary>(find_field(spec_example(), "Binary")->raw()))));
  CHECK(identical(read(R"({"$uuid":"c8edabc3-f738-4ca3-b68d-ab92a91478a3"})"),
                  value(std::get<binary>(find_field(spec_example(), "Binary")->raw()))));
  CHECK(identical(read(R"({"$uuid":"C8EDABC3F7384CA3B68DAB92A91478A3"})"),
                  value(std::get<binary>(find_field(spec_example(), "Binary")->raw()))));
  CHECK(identical(read(R"({"$binary":{"base64":"","subType":"00"}})"), value(binary{0, ""})));
  CHECK(identical(read(R"({"$binary":{"base64":"YQ==","subType":"ff"}})"), value(binary{0xff, "a"})));
  CHECK(identical(read(R"({"$timestamp":{"i":2,"t":4294967295}})"), value(timestamp{4294967295u, 2})));
  CHECK(identical(read(R"({"$regularExpression":{"pattern":"^a.*","options":"xsmi"}})"), value(regex{"^a.*", "imsx"})));
  CHECK(read(R"({"$minKey":1})").type() == kind::min_key);
  CHECK(read(R"({"$maxKey":1})").type() == kind::max_key);
}

TEST_CASE("a malformed wrapper is an error naming the wrapper") {
  CHECK(read_error(R"({"$oid":"xyz"})") == R"(invalid $oid value "xyz": expected 24 hexadecimal digits)");
  CHECK(read_error(R"({"$oid":"57e193d7a9cc81b4027498bz"})").find("invalid $oid value") == 0);
  CHECK(read_error(R"({"$oid":12})").find("invalid $oid value 12") == 0);
  CHECK(read_error(R"({"$numberInt":"2147483648"})").find("invalid $numberInt") == 0);
  CHECK(read_error(R"({"$numberInt":"+1"})").find("invalid $numberInt") == 0);
  CHECK(read_error(R"({"$numberInt":42})").find("invalid $numberInt") == 0);
  CHECK(read_error(R"({"$numberLong":"1.5"})").find("invalid $numberLong") == 0);
  CHECK(read_error(R"({"$numberDouble":"1e400"})").find("invalid $numberDouble") == 0);
  CHECK(read_error(R"({"$numberDouble":"inf"})").find("invalid $numberDouble") == 0);
  CHECK(read_error(R"({"$numberDouble":"1.0x"})").find("invalid $numberDouble") == 0);
  CHECK(read_error(R"({"$numberDecimal":"one"})").find("invalid $numberDecimal") == 0);
  CHECK(read_error(R"({"$date":"yesterday"})").find("invalid $date value: \"yesterday\" is not") == 0);
  CHECK(read_error(R"({"$date":true})").find("invalid $date") == 0);
  CHECK(read_error(R"({"$binary":{"base64":"YQ=","subType":"00"}})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$binary":{"base64":"Y!==","subType":"00"}})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$binary":{"base64":"YQ==","subType":"100"}})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$binary":{"base64":"YQ==","subType":"0x"}})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$binary":{"base64":"YQ=="}})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$binary":"YQ=="})").find("invalid $binary") == 0);
  CHECK(read_error(R"({"$uuid":"c8edabc3f7384ca3b68dab92a91478a"})").find("invalid $uuid") == 0);
  CHECK(read_error(R"({"$uuid":"c8edabc3-f738-4ca3-b68dab92-a91478a3"})").find("invalid $uuid") == 0);
  CHECK(read_error(R"({"$timestamp":{"t":-1,"i":0}})").find("invalid $timestamp") == 0);
  CHECK(read_error(R"({"$timestamp":{"t":4294967296,"i":0}})").find("invalid $timestamp") == 0);
  CHECK(read_error(R"({"$timestamp":{"t":1,"i":0,"x":0}})").find("invalid $timestamp") == 0);
  CHECK(read_error(R"({"$regularExpression":{"pattern":"a","options":"q"}})").find("invalid $regularExpression") == 0);
  CHECK(read_error(R"({"$regularExpression":{"pattern":"a"}})").find("invalid $regularExpression") == 0);
  CHECK(read_error(R"({"$minKey":0})").find("invalid $minKey") == 0);
  CHECK(read_error(R"({"$maxKey":"1"})").find("invalid $maxKey") == 0);
}

TEST_CASE("a wrapper key alongside other keys is an error") {
  CHECK(read_error(R"({"$oid":"57e193d7a9cc81b4027498b5","x":1})").find("invalid $oid value: a $oid wrapper must be the only key") == 0);
  CHECK(read_error(R"({"a":{"b":1,"$date":0}})").find("invalid $date value") == 0);
}

TEST_CASE("wrapper errors deep inside a document surface from document_from_json") {
  auto r = document_from_json(parse(R"({"a":[1,{"b":{"$oid":"xyz"}}]})"));
  REQUIRE(!r.ok());
  CHECK(r.error().message == R"(invalid $oid value "xyz": expected 24 hexadecimal digits)");
}

TEST_CASE("document_from_json needs an object and never reads the top level as a wrapper") {
  auto r = document_from_json(parse("[1]"));
  REQUIRE(!r.ok());
  CHECK(r.error().message == "document must be an object");
  auto top = document_from_json(parse(R"({"$oid":"xyz"})"));
  REQUIRE(top.ok());
  CHECK(top->at(0).name == "$oid");
  CHECK(top->at(0).val.as_string() == "xyz");
}

TEST_CASE("nesting up to 100 levels is accepted and deeper is refused") {
  const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  CHECK(from_json(parse(nested(100))).ok());
  auto deep = from_json(parse(nested(101)));
  REQUIRE(!deep.ok());
  CHECK(deep.error().message == "document nesting exceeds 100 levels");

  std::string doc;
  for (int k = 0; k < 100; ++k) doc += R"({"a":)";
  doc += "1" + std::string(100, '}');
  CHECK(document_from_json(parse(doc)).ok());
  auto deeper = document_from_json(parse(R"({"a":)" + doc + "}"));
  REQUIRE(!deeper.ok());
  CHECK(deeper.error().message == "document nesting exceeds 100 levels");

  ejson_limits tight;
  tight.max_depth = 2;
  CHECK(from_json(parse("[[1]]"), tight).ok());
  CHECK(from_json(parse("[[[1]]]"), tight).error().message == "document nesting exceeds 2 levels");
}

TEST_CASE("to_boost_json has the relaxed meaning of the value") {
  const value v(spec_example());
  CHECK(omgdb::json::serialize(to_boost_json(v)) == spec_relaxed);
  const bj::value inf = to_boost_json(value(std::numeric_limits<double>::infinity()));
  CHECK(omgdb::json::serialize(inf) == R"({"$numberDouble":"Infinity"})");
  CHECK(to_boost_json(value(7)).is_int64());
  CHECK(to_boost_json(value(0.5)).is_double());
}

TEST_CASE("append_json appends to what is already in the buffer") {
  std::string out = "x=";
  append_json(out, value(array{1, "two", 3.0}));
  CHECK(out == R"(x=[1,"two",3.0])");
  append_json(out, document{{"a", std::int64_t{1}}}, ejson_mode::canonical);
  CHECK(out == R"(x=[1,"two",3.0]{"a":{"$numberLong":"1"}})");
}
