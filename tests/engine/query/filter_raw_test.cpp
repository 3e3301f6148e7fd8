// The matcher over stored BSON bytes (filter::matches_bson, engine/query/filter_raw.cpp) against
// the decoded matcher (filter::matches): generated documents (nested documents, arrays of
// arrays, numeric field names, every number kind with -0, NaN, infinities and values near
// 2^53, null, strings, dates, ObjectIds, MinKey/MaxKey, duplicate field names) and
// generated filters (comparisons, $in/$nin with regexes, $exists, $type, $not, $and/$or/$nor,
// $size, $elemMatch, $regex, $mod, $all) on dotted paths with numeric components. Seeded and
// reproducible; a disagreement prints the seed, the filter and the document.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/engine/doc_generator.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::query_test;

namespace {

class generator : public doc_generator<generator> {
 public:
  static constexpr int k_scalar_percent = 60;  // how often `any` stops at a leaf
  using doc_generator::doc_generator;

  std::string name() {
    static const char* names[] = {"a", "b", "c", "0", "1", "x"};
    return names[pick(6)];
  }

  std::string dotted() {
    std::string out = name();
    const std::size_t more = pick(3);
    for (std::size_t i = 0; i < more; ++i) out += "." + name();
    return out;
  }

  value scalar() {
    static const document extras = doc(R"({"d1": {"$numberDecimal": "1.0"}, "dn": {"$numberDecimal": "NaN"},
        "dm": {"$numberDecimal": "-0"}, "t": {"$date": "2020-01-01T00:00:00Z"},
        "o": {"$oid": "5f1d7f3e9b1e8b3a4c2d1e0f"}, "lo": {"$minKey": 1}, "hi": {"$maxKey": 1},
        "re": {"$regularExpression": {"pattern": "^a", "options": "i"}},
        "bin": {"$binary": {"base64": "AQI=", "subType": "00"}},
        "ts": {"$timestamp": {"t": 5, "i": 1}}})");
    switch (pick(16)) {
      case 0: return value();
      case 1: return value(chance(50));
      case 2: return value(static_cast<std::int32_t>(pick(5)) - 2);
      case 3: return value(static_cast<std::int64_t>(pick(5)) - 2);
      case 4: {
        static const double doubles[] = {0.0, -0.0, 1.0, 1.5, -2.0, 2.5,
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(), 9007199254740992.0};
        return value(doubles[pick(10)]);
      }
      case 5: return value(std::int64_t{9007199254740993});
      case 6:
      case 7: {
        static const char* strings[] = {"", "a", "ab", "b", "A", "\xc3\xa9"};
        return value(std::string(strings[pick(6)]));
      }
      default: return extras[pick(extras.size())].val;
    }
  }

  // An operator condition on one path, or a value for implicit equality.
  value condition(int depth) {
    auto op = [](std::string name, value arg) { return value(document{field{std::move(name), std::move(arg)}}); };
    switch (pick(15)) {
      case 0: return any(1);
      case 1: return op("$eq", any(1));
      case 2: return op("$ne", scalar());
      case 3: return op("$gt", scalar());
      case 4: return op("$gte", scalar());
      case 5: return op("$lt", scalar());
      case 6: return op("$lte", scalar());
      case 7:
      case 8: {
        array values;
        const std::size_t n = 1 + pick(3);
        for (std::size_t i = 0; i < n; ++i) values.push_back(chance(80) ? scalar() : any(1));
        return op(chance(70) ? "$in" : "$nin", value(std::move(values)));
      }
      case 9: return op("$exists", value(chance(50)));
      case 10: {
        static const char* aliases[] = {"number", "string", "null", "array", "object", "double", "int", "long",
                                        "bool", "minKey", "decimal", "date"};
        return op("$type", chance(70) ? value(std::string(aliases[pick(12)]))
                                      : value(static_cast<std::int32_t>(1 + pick(18))));
      }
      case 11: return depth > 0 ? op("$not", op("$gt", scalar())) : op("$lte", scalar());
      case 12: return op("$size", value(static_cast<std::int32_t>(pick(3))));
      case 13: {
        if (chance(50)) return op("$elemMatch", op("$gte", scalar()));
        return op("$elemMatch", value(document{field{name(), scalar()}}));
      }
      default: {
        switch (pick(3)) {
          case 0: return op("$regex", value(std::string(chance(50) ? "^a" : "b")));
          case 1: return op("$mod", value(array{value(std::int32_t{2}), value(std::int32_t{0})}));
          default: return op("$all", value(array{scalar()}));
        }
      }
    }
  }

  document filter_doc(int depth) {
    document f;
    const std::size_t n = 1 + pick(2);
    for (std::size_t i = 0; i < n; ++i) {
      if (depth > 0 && chance(15)) {
        static const char* logical[] = {"$and", "$or", "$nor"};
        array subs;
        const std::size_t k = 1 + pick(2);
        for (std::size_t j = 0; j < k; ++j) subs.push_back(value(filter_doc(depth - 1)));
        f.push_back(field{logical[pick(3)], value(std::move(subs))});
      } else {
        f.push_back(field{dotted(), condition(depth)});
      }
    }
    return f;
  }
};

}  // namespace

TEST_CASE("the matcher over stored bytes agrees with the decoded matcher on generated filters and documents") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    CAPTURE(seed);
    generator g(seed);
    std::vector<document> docs;
    std::vector<std::string> bytes;
    for (int i = 0; i < 60; ++i) {
      document d = g.object(3);
      auto b = to_bson(d);
      REQUIRE(b.ok());
      docs.push_back(std::move(d));
      bytes.push_back(std::move(*b));
    }
    std::size_t compared = 0, matched = 0;
    for (int i = 0; i < 1500; ++i) {
      const document spec = g.filter_doc(2);
      auto f = filter::compile(spec);
      if (!f.ok()) continue;  // e.g. $type with an unknown number
      for (std::size_t k = 0; k < docs.size(); ++k) {
        const bool decoded = f->matches(docs[k]);
        const std::optional<bool> raw = f->matches_bson(bytes[k]);
        // Stored documents of the value model never need the fallback.
        REQUIRE_MESSAGE(raw.has_value(), "no raw answer: filter ", to_json(spec), " document ", to_json(docs[k]));
        if (*raw != decoded) {
          FAIL("seed ", seed, ": filter ", to_json(spec), " on ", to_json(docs[k]), ": decoded ", decoded,
               ", raw ", *raw);
        }
        ++compared;
        matched += decoded ? 1 : 0;
      }
    }
    // The generator must produce both outcomes in quantity, or the comparison says little.
    CHECK(compared > 50000);
    CHECK(matched > compared / 20);
    CHECK(matched < compared - compared / 20);
  }
}

TEST_CASE("the matcher over stored bytes hands malformed bytes and $expr back to the decoder") {
  const filter f = compile(R"({"a": 1})");
  CHECK_FALSE(f.matches_bson("not bson at all").has_value());
  std::string good = *to_bson(doc(R"({"b": 2, "a": 1})"));
  CHECK(f.matches_bson(good) == std::optional<bool>(true));
  std::string truncated = good.substr(0, good.size() - 3);
  CHECK_FALSE(f.matches_bson(truncated).has_value());
  // A field's length pointing past the end: the walk stops, it does not read out of bounds.
  std::string bad_len = *to_bson(doc(R"({"s": "xyz", "a": 1})"));
  bad_len[7] = '\x7f';  // the string's int32 length (after the 4-byte header, type byte, "s\0")
  CHECK_FALSE(f.matches_bson(bad_len).has_value());
  const filter e = compile(R"({"$expr": {"$eq": ["$a", 1]}})");
  CHECK_FALSE(e.matches_bson(good).has_value());
  const filter all = compile("{}");
  CHECK(all.matches_bson(good) == std::optional<bool>(true));
}

TEST_CASE("the matcher over stored bytes follows dotted paths through arrays and sub-documents") {
  const filter f = compile(R"({"a": {"$gt": 0}})");
  std::string bytes = *to_bson(doc(R"({"a": 5, "b": [1, {"c": "d"}]})"));
  CHECK(f.matches_bson(bytes) == std::optional<bool>(true));
  const filter g = compile(R"({"b.c": "d"})");
  CHECK(g.matches_bson(bytes) == std::optional<bool>(true));
  const filter h = compile(R"({"b.1.c": {"$in": ["e", "d"]}})");
  CHECK(h.matches_bson(bytes) == std::optional<bool>(true));
}
