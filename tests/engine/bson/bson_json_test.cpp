#include "engine/bson/bson_json.hpp"

#include <bson/bson.h>
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"

using namespace omgdb::engine;

namespace {

std::string encoded(const document& d) {
  auto r = to_bson(d);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

// The general path: decode, then write the value tree.
std::string via_values(std::string_view bytes) {
  auto d = from_bson(bytes);
  REQUIRE(d.ok());
  return to_json(*d);
}

// Generated values over every stored type; the common ones (the writer's own) most often.
class generator {
 public:
  explicit generator(unsigned seed) : rnd_(seed) {}

  value any(int depth) {
    switch (pick(depth < 4 ? 16 : 13)) {
      case 0: return value();
      case 1: return pick(2) == 1;
      case 2: return static_cast<std::int32_t>(rnd_());
      case 3: return static_cast<std::int64_t>((std::uint64_t{rnd_()} << 32) | rnd_());
      case 4: return number();
      case 5: return text();
      case 6: return date_time{static_cast<std::int64_t>((std::uint64_t{rnd_()} << 32) | std::uint32_t(rnd_())) >> pick(40)};
      case 7: {
        object_id o;
        for (auto& b : o.bytes) b = static_cast<std::uint8_t>(rnd_());
        return o;
      }
      case 8: return text();
      case 9: return static_cast<std::int32_t>(pick(100)) - 50;
      case 10: {  // the rarer types, which the writer leaves to the general path
        switch (pick(6)) {
          case 0: return binary{static_cast<std::uint8_t>(pick(3)), text()};
          case 1: return regex{"^a", "i"};
          case 2: return timestamp{std::uint32_t(rnd_()), std::uint32_t(rnd_())};
          case 3: return min_key{};
          case 4: return max_key{};
          default: {
            bson_decimal128_t d;
            bson_decimal128_from_string("-1.50E+10", &d);
            return decimal128{d.high, d.low};
          }
        }
      }
      case 11: return date_time{static_cast<std::int64_t>(pick(3)) * 253402300799999 - 1};  // the ISO range's edges
      case 12: return -0.0;
      case 13:
      case 14: return doc(depth + 1);
      default: {
        array a;
        for (int k = pick(4); k > 0; --k) a.push_back(any(depth + 1));
        return a;
      }
    }
  }

  document doc(int depth) {
    document d;
    for (int k = pick(6); k > 0; --k) d.push_back(field{name(), any(depth)});
    return d;
  }

 private:
  int pick(int n) { return static_cast<int>(rnd_() % static_cast<unsigned>(n)); }

  double number() {
    switch (pick(6)) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return pick(2) ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      case 2: return 1e300 * (pick(2) ? 1 : -1);
      case 3: return static_cast<double>(pick(1000));
      default: return std::uniform_real_distribution<double>(-1e6, 1e6)(rnd_);
    }
  }

  std::string text() {
    static const char* pieces[] = {"a", "plain", " ", "\"", "\\", "\n", "\x01", "\x1f", "\x7f",
                                   "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "/", "<>", ""};
    std::string s;
    for (int k = pick(6); k > 0; --k) s += pieces[pick(15)];
    if (pick(20) == 0) s.push_back('\0');
    return s;
  }

  std::string name() {
    static const char* names[] = {"_id", "a", "b.c", "$x", "", "na\xc3\xafve", "k\"q", "tab\t"};
    return std::string(names[pick(8)]) + std::to_string(pick(3));
  }

  std::mt19937 rnd_;
};

}  // namespace

TEST_CASE("stored bytes written straight to JSON give exactly the text of the decoded document") {
  std::size_t direct = 0;
  for (unsigned seed = 1; seed <= 4000; ++seed) {
    generator gen(seed);
    const std::string bytes = encoded(gen.doc(1));
    std::string out = "prefix:";
    if (append_bson_json(out, bytes)) {
      ++direct;
      REQUIRE_MESSAGE(out == "prefix:" + via_values(bytes), "seed " << seed);
    } else {
      REQUIRE_MESSAGE(out == "prefix:", "seed " << seed << ": a refusal must leave the output as it was");
    }
  }
  // Most generated documents hold only the common types: the direct path must serve them.
  CHECK(direct > 1000);
}

TEST_CASE("a document of the common types is written directly, one of a rarer type is left to the decoder") {
  object_id oid;
  for (std::size_t k = 0; k < 12; ++k) oid.bytes[k] = static_cast<std::uint8_t>(k * 17);
  const document common{{"_id", oid}, {"n", 1}, {"big", std::int64_t{1} << 40}, {"x", 0.5}, {"neg", -0.0},
                        {"s", "caf\xc3\xa9 \"q\"\n"}, {"t", true}, {"z", value()},
                        {"d", date_time{86400000}}, {"old", date_time{-1}},
                        {"sub", document{{"arr", array{1, "two", array{}, document{}}}}}};
  std::string out;
  REQUIRE(append_bson_json(out, encoded(common)));
  CHECK(out == to_json(common));
  CHECK(out ==
        R"({"_id":{"$oid":"00112233445566778899aabb"},"n":1,"big":1099511627776,"x":0.5,"neg":-0.0,)"
        R"("s":"café \"q\"\n","t":true,"z":null,"d":{"$date":"1970-01-02T00:00:00.000Z"},)"
        R"("old":{"$date":{"$numberLong":"-1"}},"sub":{"arr":[1,"two",[],{}]}})");

  for (const value& rare : {value(binary{0, "x"}), value(timestamp{1, 2}), value(min_key{}),
                            value(std::numeric_limits<double>::quiet_NaN())}) {
    std::string o;
    CHECK_FALSE(append_bson_json(o, encoded(document{{"_id", 1}, {"r", rare}})));
    CHECK(o.empty());
  }
}

TEST_CASE("corrupt stored bytes are never written directly") {
  const std::string good = encoded(document{{"_id", 1}, {"s", "text"}, {"d", document{{"a", 2}}}});
  std::string out;
  CHECK_FALSE(append_bson_json(out, good.substr(0, good.size() - 1)));  // truncated
  std::string bad_length = good;
  bad_length[0] = static_cast<char>(bad_length[0] + 1);
  CHECK_FALSE(append_bson_json(out, bad_length));
  std::string bad_utf8 = good;
  bad_utf8[bad_utf8.find("text")] = static_cast<char>(0xff);
  CHECK_FALSE(append_bson_json(out, bad_utf8));
  CHECK_FALSE(append_bson_json(out, ""));
  CHECK(out.empty());
}
