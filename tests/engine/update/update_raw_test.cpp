// Updates over stored bytes (engine/update/update_raw.cpp) against the decoding path they stand in
// for: to_bson(update_spec::apply(from_bson(stored))). Generated documents (nested documents,
// arrays, repeated field names, every common type, regexes) and generated updates ($set,
// $unset, $inc, $mul, $min, $max, $rename, $currentDate, $push, $addToSet, $pop, $pull, $bit,
// dotted paths, `$[]` and `$[id]` with array filters). Wherever the byte path answers, its
// answer must be the decoding path's bytes exactly; stored bytes the encoder would not write
// as they are must make it decline. Seeded and reproducible.
#include <doctest/doctest.h>

#include <bson/bson.h>

#include <random>
#include <string>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/update/update_raw.hpp"
#include "tests/engine/doc_generator.hpp"
#include "tests/engine/query/query_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::detail;
using namespace omgdb::engine::query_test;

namespace {

class generator : public doc_generator<generator> {
 public:
  static constexpr int k_scalar_percent = 55;  // how often `any` stops at a leaf
  using doc_generator::doc_generator;

  std::string name() {
    static const char* names[] = {"a", "b", "c", "n", "0", "age"};
    return names[pick(6)];
  }

  std::string dotted() {
    std::string out = name();
    const std::size_t more = pick(3);
    for (std::size_t i = 0; i < more; ++i) out += "." + (chance(20) ? std::string("0") : name());
    return out;
  }

  value scalar() {
    static const document extras = doc(R"({"d1": {"$numberDecimal": "1.0"}, "t": {"$date": "2020-01-01T00:00:00Z"},
        "o": {"$oid": "5f1d7f3e9b1e8b3a4c2d1e0f"}, "lo": {"$minKey": 1}, "hi": {"$maxKey": 1},
        "re": {"$regularExpression": {"pattern": "^a", "options": "i"}},
        "bin": {"$binary": {"base64": "AQI=", "subType": "00"}}, "ts": {"$timestamp": {"t": 5, "i": 1}}})");
    switch (pick(12)) {
      case 0: return value();
      case 1: return value(chance(50));
      case 2: return value(static_cast<std::int32_t>(pick(5)) - 2);
      case 3: return value(chance(10) ? std::int32_t{2147483647} : static_cast<std::int32_t>(pick(100)));
      case 4: return value(static_cast<std::int64_t>(pick(5)) - 2);
      case 5: return value(chance(10) ? std::int64_t{9223372036854775807} : std::int64_t{7});
      case 6: return value(chance(50) ? 1.5 : -0.0);
      case 7:
      case 8: {
        static const char* strings[] = {"", "a", "ab", "x.y", "\xc3\xa9"};
        return value(std::string(strings[pick(5)]));
      }
      default: return extras[pick(extras.size())].val;
    }
  }

  document stored() {
    document d{field{"_id", value(static_cast<std::int64_t>(pick(1000)))}};
    for (auto& f : object(3)) d.push_back(std::move(f));
    return d;
  }

  // One update and its array filters.
  std::pair<document, array> update() {
    document ops;
    array filters;
    const std::size_t n = 1 + pick(3);
    for (std::size_t i = 0; i < n; ++i) {
      static const char* names[] = {"$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename",
                                    "$currentDate", "$push", "$addToSet", "$pop", "$pull", "$bit", "$setOnInsert"};
      const std::string op = names[pick(14)];
      std::string path = dotted();
      if (chance(10)) {
        path = name() + ".$[]";
      } else if (chance(8) && filters.empty()) {
        path = name() + ".$[e]";
        filters.push_back(value(document{field{"e", value(document{field{"$gte", value(std::int32_t{0})}})}}));
      }
      value arg;
      if (op == "$inc" || op == "$mul") {
        arg = chance(80) ? value(static_cast<std::int32_t>(pick(3))) : value(chance(50) ? 2.5 : 0.0);
      } else if (op == "$rename") {
        arg = value(dotted());
      } else if (op == "$currentDate") {
        arg = value(true);
      } else if (op == "$pop") {
        arg = value(std::int32_t{chance(50) ? 1 : -1});
      } else if (op == "$bit") {
        arg = value(document{field{"or", value(std::int32_t{5})}});
      } else if (op == "$unset") {
        arg = value(std::string());
      } else {
        arg = any(1);
      }
      value* target = nullptr;
      for (auto& f : ops) {
        if (f.name == op) target = &f.val;
      }
      if (target == nullptr) {
        ops.push_back(field{op, value(document{})});
        target = &ops.back().val;
      }
      target->as_document().push_back(field{path, std::move(arg)});
    }
    return {std::move(ops), std::move(filters)};
  }
};

}  // namespace

TEST_CASE("an update over stored bytes gives the decoding path's bytes wherever it answers") {
  std::size_t answered = 0, changed = 0, cases = 0;
  for (std::uint64_t seed = 1; seed <= 4000; ++seed) {
    generator g(seed);
    auto [ops, filters] = g.update();
    auto spec = update_spec::compile(ops, filters);
    if (!spec) continue;  // conflicting or malformed paths: compile refuses them for both paths
    auto raw = raw_updater::make(*spec);
    if (!raw) continue;
    for (int k = 0; k < 5; ++k) {
      const document original = g.stored();
      auto stored = to_bson(original);
      REQUIRE(stored.ok());
      ++cases;
      update_apply_options options;
      options.now_millis = 1700000000000;
      raw_updater::prepared p;
      std::string out;
      const bool sound = raw->prepare(*stored, p);
      const auto done = sound ? raw->finish(p, options, out) : raw_updater::outcome::decode;
      if (done == raw_updater::outcome::decode) continue;
      ++answered;
      auto slow = spec->apply(*from_bson(*stored), options);
      INFO("seed ", seed, " update ", to_json(value(ops)), " document ", to_json(value(original)));
      REQUIRE(slow.ok());
      REQUIRE((done == raw_updater::outcome::changed) == slow->changed);
      if (done == raw_updater::outcome::changed) {
        ++changed;
        auto expected = to_bson(slow->doc);
        REQUIRE(expected.ok());
        CHECK(out == *expected);
      }
    }
  }
  // The byte path must actually be exercised: most generated cases are answered by it.
  CHECK(answered > cases / 2);
  CHECK(changed > answered / 3);
}

TEST_CASE("the byte path declines updates that need the whole document") {
  auto spec_of = [](std::string_view text) {
    auto s = update_spec::compile(doc(text));
    REQUIRE(s.ok());
    return std::move(*s);
  };
  auto positional = spec_of(R"({"$set": {"a.$": 1}})");
  CHECK_FALSE(raw_updater::make(positional).has_value());
  auto id = spec_of(R"({"$set": {"_id": 1}})");
  CHECK_FALSE(raw_updater::make(id).has_value());
  auto id_path = spec_of(R"({"$set": {"_id.x": 1}})");
  CHECK_FALSE(raw_updater::make(id_path).has_value());
  auto fine = spec_of(R"({"$inc": {"age": 1}, "$rename": {"a": "b.c"}})");
  auto roots = fine.root_fields();
  REQUIRE(roots.has_value());
  CHECK(*roots == std::vector<std::string>{"age", "b", "a"});
}

namespace {

std::string bytes_of(bson_t* b) {
  std::string out(reinterpret_cast<const char*>(bson_get_data(b)), b->len);
  bson_destroy(b);
  return out;
}

}  // namespace

TEST_CASE("stored bytes the encoder would write differently are left to the decoding path") {
  auto spec = update_spec::compile(doc(R"({"$inc": {"age": 1}})"));
  REQUIRE(spec.ok());
  auto raw = raw_updater::make(*spec);
  REQUIRE(raw.has_value());
  raw_updater::prepared p;

  bson_t b;
  // Canonical bytes: accepted.
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_int32(&b, "age", 3, 1);
  std::string good = bytes_of(&b);
  CHECK(raw->prepare(good, p));
  CHECK(raw_copyable_document(good));

  auto declined = [&](const std::string& bytes) {
    CHECK_FALSE(raw->prepare(bytes, p));
    CHECK_FALSE(raw_copyable_document(bytes));
  };
  // Array keys out of order ("1", "0"): decoding renumbers them.
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_t child;
  bson_append_array_begin(&b, "tags", 4, &child);
  bson_append_int32(&child, "1", 1, 5);
  bson_append_int32(&child, "0", 1, 6);
  bson_append_array_end(&b, &child);
  declined(bytes_of(&b));
  // A deprecated type (symbol): decoded as a string.
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_symbol(&b, "s", 1, "x", 1);
  declined(bytes_of(&b));
  // A regular expression (libbson may reorder its options on the way back).
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_regex(&b, "r", 1, "a", "i");
  declined(bytes_of(&b));
  // A field name the document rules refuse, nested.
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_document_begin(&b, "d", 1, &child);
  bson_append_int32(&child, "x.y", 3, 1);
  bson_append_document_end(&b, &child);
  declined(bytes_of(&b));
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_int32(&b, "$x", 2, 1);
  declined(bytes_of(&b));
  // An `_id` array.
  bson_init(&b);
  bson_append_array_begin(&b, "_id", 3, &child);
  bson_append_array_end(&b, &child);
  declined(bytes_of(&b));
  // Corrupt bytes: a truncated document, a bad length header.
  declined(good.substr(0, good.size() - 1));
  std::string bad = good;
  bad[0] = static_cast<char>(bad[0] + 1);
  declined(bad);
  // A bool byte other than 0 or 1.
  bson_init(&b);
  bson_append_int32(&b, "_id", 3, 1);
  bson_append_bool(&b, "t", 1, true);
  std::string odd = bytes_of(&b);
  odd[odd.size() - 2] = 2;
  declined(odd);
}

TEST_CASE("an update the decoding path fails on makes the byte path decline, so the error names the document") {
  auto spec = update_spec::compile(doc(R"({"$inc": {"age": 1}})"));
  REQUIRE(spec.ok());
  auto raw = raw_updater::make(*spec);
  REQUIRE(raw.has_value());
  auto stored = to_bson(doc(R"({"_id": 1, "age": "old"})"));
  REQUIRE(stored.ok());
  raw_updater::prepared p;
  REQUIRE(raw->prepare(*stored, p));
  std::string out;
  CHECK(raw->finish(p, {}, out) == raw_updater::outcome::decode);
}

TEST_CASE("bytes the byte path copies always decode, and encode back to the same bytes") {
  // Generated documents, then the same bytes with one to three bytes changed: whatever
  // raw_copyable_document accepts must be what from_bson accepts and to_bson writes back.
  std::size_t accepted = 0, mutated_accepted = 0;
  for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
    generator g(seed);
    auto stored = to_bson(g.stored());
    REQUIRE(stored.ok());
    for (int k = 0; k < 8; ++k) {
      std::string bytes = *stored;
      if (k > 0) {
        const std::size_t edits = 1 + g.pick(3);
        for (std::size_t e = 0; e < edits; ++e) bytes[g.pick(bytes.size())] = static_cast<char>(g.pick(256));
      }
      if (!raw_copyable_document(bytes)) continue;
      k == 0 ? ++accepted : ++mutated_accepted;
      auto back = from_bson(bytes);
      INFO("seed ", seed, " edit ", k);
      REQUIRE(back.ok());
      CHECK(check_document_rules(*back).ok());
      auto again = to_bson(*back);
      REQUIRE(again.ok());
      CHECK(*again == bytes);
    }
  }
  CHECK(accepted > 1500);       // documents without regexes are copyable
  CHECK(mutated_accepted > 100);  // and some edits (in values) keep them so
}

TEST_CASE("the byte path counts a $push trimmed away by its $slice as changed, with the same bytes") {
  auto spec = update_spec::compile(doc(R"({"$push":{"t":{"$each":[3],"$slice":2}}})"));
  REQUIRE(spec.ok());
  auto raw = raw_updater::make(*spec);
  REQUIRE(raw.has_value());
  auto stored = to_bson(doc(R"({"_id":1,"t":[1,2]})"));
  REQUIRE(stored.ok());
  raw_updater::prepared p;
  REQUIRE(raw->prepare(*stored, p));
  std::string out;
  CHECK(raw->finish(p, update_apply_options{}, out) == raw_updater::outcome::changed);
  CHECK(out == *stored);
}
