#include "engine/bson/bson_codec.hpp"

#include <bson/bson.h>
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace omgdb::engine;

namespace {

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t k = 0; k + 1 < hex.size(); k += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(k, 2)), nullptr, 16)));
  }
  return out;
}

std::string encoded(const document& d) {
  auto r = to_bson(d);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

document decoded(std::string_view bytes) {
  auto r = from_bson(bytes);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

value dec(const char* text) {
  bson_decimal128_t d;
  REQUIRE(bson_decimal128_from_string(text, &d));
  return value(decimal128{d.high, d.low});
}

// Same kinds all the way down and equal values (doubles by bits, NaN by NaN-ness).
bool identical(const value& a, const value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_double()) {
    const double x = a.as_double(), y = b.as_double();
    return std::isnan(x) ? std::isnan(y) : (x == y && std::signbit(x) == std::signbit(y));
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
  if (a.type() == kind::binary) return std::get<binary>(a.raw()) == std::get<binary>(b.raw());
  return compare(a, b) == 0;
}

document every_type() {
  object_id oid;
  for (std::size_t k = 0; k < 12; ++k) oid.bytes[k] = static_cast<std::uint8_t>(0xA0 + k);
  return document{
      {"_id", oid},
      {"null", null_t{}},
      {"t", true},
      {"f", false},
      {"i32", std::numeric_limits<std::int32_t>::min()},
      {"i64", std::numeric_limits<std::int64_t>::max()},
      {"dbl", 0.1},
      {"negzero", -0.0},
      {"nan", std::numeric_limits<double>::quiet_NaN()},
      {"inf", -std::numeric_limits<double>::infinity()},
      {"str", std::string("nul\0inside \xc3\xa9", 13)},
      {"empty", ""},
      {"doc", document{{"a", document{{"b", array{1, "x", document{}}}}}}},
      {"arr", array{array{}, array{1, 2}, value()}},
      {"bin0", binary{0, std::string("\0\xff", 2)}},
      {"bin2", binary{2, "old binary subtype"}},
      {"bin80", binary{0x80, ""}},
      {"date", date_time{-62135596800000}},
      {"ts", timestamp{4294967295u, 7}},
      {"re", regex{"^a.*b$", "imsx"}},
      {"dec", dec("-1.50E+10")},
      {"decnan", dec("NaN")},
      {"min", min_key{}},
      {"max", max_key{}},
      {"", "empty name"},
  };
}

}  // namespace

TEST_CASE("BSON corpus documents encode to their canonical bytes") {
  // bson-corpus int32.json, string.json, datetime.json ("positive ms").
  CHECK(encoded(document{{"a", 1}}) == from_hex("0C0000001061000100000000"));
  CHECK(encoded(document{{"a", "b"}}) == from_hex("0E00000002610002000000620000"));
  CHECK(encoded(document{{"a", date_time{1356351330500}}}) == from_hex("10000000096100C4D8D6CC3B01000000"));
  CHECK(encoded(document{}) == from_hex("0500000000"));
}

TEST_CASE("BSON corpus bytes decode to their values") {
  const document d = decoded(from_hex("10000000096100C43CE7B9BDFFFFFF00"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].name == "a");
  CHECK(identical(d[0].val, value(date_time{-284643869500})));
  const document s = decoded(from_hex("0E00000002610002000000620000"));
  CHECK(s[0].val.as_string() == "b");
}

TEST_CASE("every stored type round-trips through BSON exactly") {
  const document original = every_type();
  const document back = decoded(encoded(original));
  CHECK(identical(value(back), value(original)));
  CHECK(std::signbit(find_field(back, "negzero")->as_double()));
}

TEST_CASE("field names with a NUL byte cannot be stored") {
  auto r = to_bson(document{{std::string("a\0b", 3), 1}});
  REQUIRE(!r.ok());
  CHECK(r.error().message == "field name \"a\\x00b\" contains a NUL byte, which BSON cannot store");
  auto nested = to_bson(document{{"x", array{document{{std::string("\0", 1), 1}}}}});
  CHECK(!nested.ok());
}

TEST_CASE("regular expressions with a NUL byte or unknown options cannot be stored") {
  auto nul = to_bson(document{{"re", regex{std::string("a\0", 2), ""}}});
  REQUIRE(!nul.ok());
  CHECK(nul.error().message.find("contains a NUL byte") != std::string::npos);
  auto opts = to_bson(document{{"re", regex{"a", "iq"}}});
  REQUIRE(!opts.ok());
  CHECK(opts.error().message.find("allowed letters are i, l, m, s, u and x") != std::string::npos);
}

TEST_CASE("strings that are not valid UTF-8 cannot be stored") {
  auto r = to_bson(document{{"s", "\xff"}});
  REQUIRE(!r.ok());
  CHECK(r.error().message == "the string in field \"s\" is not valid UTF-8");
  auto name = to_bson(document{{"\xc3", 1}});
  REQUIRE(!name.ok());
  CHECK(name.error().message == "field name \"\\xc3\" is not valid UTF-8");
}

TEST_CASE("UTF-8 checks give libbson's answer for long ASCII, multi-byte and broken text alike") {
  // The codec skips libbson's check for all-ASCII text; every kind of text, at every offset
  // around the 8-byte steps of that fast path, must still get libbson's verdict.
  const std::string pieces[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\xc3", "\x80",
                                std::string(1, '\0'), "\xed\xa0\x80", "\x7f"};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 20, 'x');
    const std::size_t inserts = rng() % 3;
    for (std::size_t k = 0; k < inserts; ++k) s.insert(rng() % (s.size() + 1), pieces[rng() % std::size(pieces)]);
    CAPTURE(s);
    const bool value_ok = bson_utf8_validate(s.data(), s.size(), true);
    CHECK(to_bson(document{{"s", s}}).ok() == value_ok);
    const bool name_ok = bson_utf8_validate(s.data(), s.size(), false) && s.find('\0') == std::string::npos;
    CHECK(to_bson(document{{s, 1}}).ok() == name_ok);
    if (value_ok) {
      auto back = from_bson(*to_bson(document{{"s", s}}));
      REQUIRE(back.ok());
      CHECK((*back)[0].val.as_string() == s);
    }
  }
}

TEST_CASE("documents over 16 MiB are refused") {
  const std::string big(16 * 1024 * 1024, 'x');
  auto r = to_bson(document{{"big", big}});
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("16 MiB") != std::string::npos);
  auto split = to_bson(document{{"a", big.substr(0, 9 * 1024 * 1024)}, {"b", big.substr(0, 9 * 1024 * 1024)}});
  REQUIRE(!split.ok());
  CHECK(split.error().message.find("16 MiB") != std::string::npos);
  CHECK(to_bson(document{{"a", big.substr(0, 15 * 1024 * 1024)}}).ok());
}

TEST_CASE("nesting deeper than 200 levels is refused when encoding") {
  value v = 1;
  for (int k = 0; k < 199; ++k) v = document{{"a", std::move(v)}};
  CHECK(to_bson(document{{"a", v}}).ok());
  CHECK(to_bson(document{{"a", array{v}}}).error().message == "document nesting exceeds 200 levels");
}

TEST_CASE("BSON nested deeper than 200 levels is an error when decoding, not a crash") {
  // 300 nested documents {"a":{"a":…{}}} built by hand.
  std::string bytes = from_hex("0500000000");
  for (int k = 0; k < 300; ++k) {
    std::string outer;
    const std::uint32_t len = static_cast<std::uint32_t>(4 + 1 + 2 + bytes.size() + 1);
    for (int s = 0; s < 32; s += 8) outer.push_back(static_cast<char>((len >> s) & 0xFF));
    outer += '\x03';
    outer += std::string("a\0", 2);
    outer += bytes;
    outer += '\0';
    bytes = outer;
  }
  CHECK(!from_bson(bytes).ok());
}

TEST_CASE("corrupt bytes are an error") {
  CHECK(!from_bson("").ok());
  CHECK(!from_bson(from_hex("05000000")).ok());
  CHECK(!from_bson(from_hex("0600000000")).ok());      // length header says 6, buffer has 5
  CHECK(!from_bson(from_hex("0500000001")).ok());      // no terminating NUL
  CHECK(!from_bson(from_hex("0C0000000961001234567800")).ok());  // bson-corpus: datetime field truncated
  CHECK(!from_bson(from_hex("0E00000002610002000000FF0000")).ok());  // string is not UTF-8
  CHECK(!from_bson(from_hex("0E000000026100FF000000620000")).ok());  // string length beyond the buffer
  CHECK(!from_bson(from_hex("0D000000036100060000000000")).ok());  // embedded document overruns its parent
  CHECK(!from_bson(from_hex("0800000020610000")).ok());  // unknown type 0x20
  auto r = from_bson(from_hex("05000000"));
  CHECK(r.error().message.find("corrupt") != std::string::npos);
}

TEST_CASE("mutated and truncated BSON never crashes the decoder") {
  const std::string good = encoded(every_type());
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::size_t> pos(0, good.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int decoded_ok = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string bad = good;
    for (int flips = 1 + n % 3; flips > 0; --flips) bad[pos(rng)] = static_cast<char>(byte(rng));
    decoded_ok += from_bson(bad).ok() ? 1 : 0;
    value id;
    (void)bson_get_field(bad, "_id", id);
  }
  for (std::size_t len = 0; len < good.size(); ++len) CHECK(!from_bson(good.substr(0, len)).ok());
  CHECK(decoded_ok < 3000);  // most mutations are caught; none may crash
}

TEST_CASE("deprecated BSON types read as their nearest value") {
  // {"a": Symbol("b")} and {"a": undefined}
  const document sym = decoded(from_hex("0E0000000E610002000000620000"));
  CHECK(identical(sym[0].val, value("b")));
  const document undef = decoded(from_hex("080000000661" "0000"));
  CHECK(undef[0].val.is_null());
  // {"a": Code("b")}
  const document code = decoded(from_hex("0E0000000D610002000000620000"));
  CHECK(identical(code[0].val, value("b")));
}

TEST_CASE("bson_get_field reads one top-level field") {
  const std::string bytes = encoded(every_type());
  value out;
  REQUIRE(bson_get_field(bytes, "_id", out));
  CHECK(identical(out, *find_field(every_type(), "_id")));
  REQUIRE(bson_get_field(bytes, "doc", out));
  CHECK(identical(out, *find_field(every_type(), "doc")));
  REQUIRE(bson_get_field(bytes, "", out));
  CHECK(out.as_string() == "empty name");
  CHECK(!bson_get_field(bytes, "a", out));      // only nested, not top-level
  CHECK(!bson_get_field(bytes, "_i", out));     // a prefix of a name is not the name
  CHECK(!bson_get_field(bytes, std::string("_id\0", 4), out));
  CHECK(!bson_get_field("", "_id", out));
  CHECK(!bson_get_field(bytes.substr(0, bytes.size() - 1), "_id", out));
}
