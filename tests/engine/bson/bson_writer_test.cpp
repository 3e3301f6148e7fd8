// The write paths' BSON writer (engine/bson/bson_writer.cpp) against to_bson: generated documents
// of every value kind (nested documents and arrays, repeated names, -0, NaN, extremes,
// multi-byte text, every binary subtype but 2, decimals, timestamps) give exactly to_bson's
// bytes; what it leaves to to_bson (regexes, old binary, bad names and text, nesting past
// the limit) it declines, and encode_document then gives to_bson's result or error.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_writer.hpp"
#include "engine/value/ejson.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::detail;

namespace {

class generator {
 public:
  explicit generator(std::uint64_t seed) : rng_(seed) {}
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  value scalar() {
    switch (pick(15)) {
      case 0: return value();
      case 1: return value(pick(2) == 0);
      case 2: return value(static_cast<std::int32_t>(rng_()));
      case 3: return value(static_cast<std::int64_t>(rng_()));
      case 4: {
        static const double d[] = {0.0, -0.0, 1.5, std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity(), -1e308, 5e-324};
        return value(d[pick(7)]);
      }
      case 5: {
        static const char* s[] = {"", "a", "héllo", "\xe2\x82\xac", "with\0nul"};
        const std::size_t i = pick(5);
        return value(i == 4 ? std::string("with\0nul", 8) : std::string(s[i]));
      }
      case 6: {
        object_id o;
        for (auto& b : o.bytes) b = static_cast<std::uint8_t>(rng_());
        return value(o);
      }
      case 7: return value(date_time{static_cast<std::int64_t>(rng_())});
      case 8: return value(timestamp{static_cast<std::uint32_t>(rng_()), static_cast<std::uint32_t>(rng_())});
      case 9: {
        binary b;
        static const std::uint8_t subtypes[] = {0, 1, 3, 4, 5, 6, 0x80};
        b.subtype = subtypes[pick(7)];
        b.bytes = std::string(pick(5), static_cast<char>(pick(256)));
        return value(std::move(b));
      }
      case 10: return value(decimal128{rng_(), rng_()});
      case 11: return value(min_key{});
      case 12: return value(max_key{});
      default: return value(static_cast<std::int32_t>(pick(10)));
    }
  }

  value any(int depth) {
    if (depth <= 0 || pick(100) < 55) return scalar();
    if (pick(2) == 0) {
      array a;
      const std::size_t n = pick(12);  // past 10: two-digit keys
      for (std::size_t i = 0; i < n; ++i) a.push_back(any(depth - 1));
      return value(std::move(a));
    }
    return value(object(depth - 1));
  }

  document object(int depth) {
    static const char* names[] = {"_id", "a", "b", "", "é", "x y", "0"};
    document d;
    const std::size_t n = pick(6);
    for (std::size_t i = 0; i < n; ++i) d.push_back(field{names[pick(7)], any(depth)});
    return d;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("the write paths' BSON writer gives to_bson's bytes for every value kind") {
  std::size_t written = 0;
  for (std::uint64_t seed = 1; seed <= 5000; ++seed) {
    generator g(seed);
    const document d = g.object(4);
    auto expected = to_bson(d);
    REQUIRE(expected.ok());
    std::string out;
    INFO("seed ", seed, " document ", to_json(value(d)));
    REQUIRE(write_bson(d, out));
    CHECK(out == *expected);
    ++written;
  }
  CHECK(written == 5000);
}

TEST_CASE("what the writer declines, encode_document hands to to_bson, result or error alike") {
  auto same = [](const document& d) {
    std::string out;
    CHECK_FALSE(write_bson(d, out));
    auto a = encode_document(d);
    auto b = to_bson(d);
    REQUIRE(a.ok() == b.ok());
    if (a.ok()) {
      CHECK(*a == *b);
    } else {
      CHECK(a.error().message == b.error().message);
    }
  };
  same(document{field{"r", value(regex{"^a", "mi"})}});
  binary old;
  old.subtype = 2;
  old.bytes = "xy";
  same(document{field{"b", value(old)}});
  same(document{field{std::string("a\0b", 3), value(1)}});
  same(document{field{"\xff", value(1)}});
  same(document{field{"s", value(std::string("\xc3"))}});
  value deep = value(std::int32_t{1});
  for (int i = 0; i < 205; ++i) deep = value(document{field{"d", std::move(deep)}});
  same(document{field{"d", deep}});
  same(document{field{"big", value(std::string(17 * 1024 * 1024, 'x'))}});
}
