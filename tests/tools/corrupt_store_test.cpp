// Corrupt bytes in a real store, read back through the tools: documents, index entries (keys
// and values) and op-log records are damaged behind the store's back (RocksDB opened
// directly), in many seeded ways — a flipped byte, cut short, junk appended, a lying length
// prefix, noise of the same size — and then every reading tool runs over the damaged copy.
// Each call must answer or fail with an error that says `corrupt`; a document or record whose
// bytes no longer decode must never be read as anything (skipped or half-read is a wrong
// answer); an index entry whose value was damaged gives `corrupt`, never a wrong result; an
// entry whose key was rewritten (moved) is named by verify; and verify names every damage.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "engine/bson/bson_codec.hpp"
#include "tests/engine/store/store_fixture.hpp"
#include "tests/tools/tool_bench.hpp"

namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace omgdb;

namespace {

constexpr int k_people = 12;

class corrupt_bench : public test::tool_bench {
 public:
  corrupt_bench() : test::tool_bench("omgdb-corrupt-tools-") {
    std::string docs;
    for (int i = 1; i <= k_people; ++i) {
      docs += (i > 1 ? "," : "") + std::string(R"({"_id":)") + std::to_string(i) + R"(,"name":"person )" +
              std::to_string(i) + R"(","age":)" + std::to_string(i % 4) + R"(,"tags":["t)" + std::to_string(i % 3) +
              R"(","all"],"home":{"city":"c)" + std::to_string(i % 2) + R"("}})";
    }
    ok("insert_many", R"({"collection":"people","documents":[)" + docs + "]}");
    ok("create_index", R"({"collection":"people","field":"age"})");
    ok("define_search_index", R"({"definition":{"collection":"people","name":"names","fields":["name","home.city"]}})");
    ok("search", R"({"collection":"people","index":"names","query":"person"})");  // builds the generation
    // Op-log records after the generation's boundary: the next search catches up through them.
    ok("update_many", R"({"collection":"people","filter":{"age":{"$gte":2}},"update":{"$set":{"seen":true}}})");
    auto plan = json::parse_strict(ok("plan_update", R"({"collection":"people","filter":{"age":1},"update":{"$inc":{"age":10}}})"));
    REQUIRE(plan.ok());
    auto applied = json::parse_strict(ok("apply", R"({"token":")" + std::string(plan->at("token").as_string()) + R"("})"));
    REQUIRE(applied.ok());
    change_id = std::string(applied->at("change_id").as_string());
    ok("delete", R"({"collection":"people","id":)" + std::to_string(k_people) + "}");
    restart();  // closed: the pristine store is copied for every damaged variant
  }

  std::string ok(const std::string& name, const std::string& args_json) {
    auto r = call(name, args_json);
    REQUIRE(!r.texts.empty());
    REQUIRE_MESSAGE(!r.is_error, name << ": " << r.texts.front());
    return r.texts.front();
  }

  // (is_error, text) of a call on the store at `where`.
  std::pair<bool, std::string> on(const std::string& where, const std::string& name, const std::string& args_json) {
    auto parsed = json::parse_strict(args_json);
    REQUIRE(parsed.ok());
    auto args = parsed->as_object();
    args["path"] = where;
    auto r = call(name, json::serialize(args));
    REQUIRE(!r.texts.empty());
    return {r.is_error, r.texts.front()};
  }

  std::string change_id;
};

std::string mutate(const std::string& original, std::mt19937& rng, int how) {
  std::string b = original;
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  switch (how) {
    case 0:  // one byte flipped
      if (!b.empty()) b[pick(b.size())] ^= static_cast<char>(1 + pick(255));
      break;
    case 1:  // cut short
      b.resize(pick(std::max<std::size_t>(b.size(), 1)));
      break;
    case 2:  // junk appended
      for (std::size_t i = 0, n = 1 + pick(16); i < n; ++i) b.push_back(static_cast<char>(pick(256)));
      break;
    case 3:  // a length prefix that lies (a document's total size, or an element's)
      if (b.size() >= 4) {
        const std::size_t at = pick(4) == 0 ? 0 : pick(b.size() - 3);
        const std::uint32_t len = static_cast<std::uint32_t>(pick(2) ? pick(1u << 31) : b.size() + pick(64) - 32);
        for (int k = 0; k < 4; ++k) b[at + k] = static_cast<char>((len >> (8 * k)) & 0xff);
      }
      break;
    default:  // noise of the same size
      for (char& c : b) c = static_cast<char>(pick(256));
  }
  return b;
}

// The tools that read; every answer is either a result or an error saying `corrupt`.
struct reading {
  std::string name, args;
};
const std::vector<reading>& readers() {
  static const std::vector<reading> all = {
      {"get", R"({"collection":"people","id":3})"},
      {"find", R"({"collection":"people"})"},
      {"find", R"({"collection":"people","filter":{"age":2}})"},
      {"find", R"({"collection":"people","filter":{"tags":"t1"},"sort":{"name":-1}})"},
      {"count_documents", R"({"collection":"people","filter":{"age":3}})"},
      {"distinct", R"({"collection":"people","field":"age"})"},
      {"aggregate", R"({"collection":"people","pipeline":[{"$group":{"_id":"$home.city","n":{"$sum":1}}},{"$sort":{"_id":1}}]})"},
      {"search", R"({"collection":"people","index":"names","query":"person c1"})"},
      {"describe", R"({})"},
      {"dump", R"({})"},
      {"verify", R"({})"},
  };
  return all;
}

bool says_corrupt(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("corrupt") != std::string::npos;
}

std::string head(const std::string& s) { return s.substr(0, 300); }

// Copies the pristine store to `work`, puts `bytes` under `key` in `family` (deleting
// `erase` first when given), and returns the work copy's path.
void damage(const std::string& pristine, const std::string& work, const std::string& family, const std::string& key,
            const std::string& bytes, const std::string* erase = nullptr) {
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::copy(pristine, work, fs::copy_options::recursive);
  engine::test::raw_db raw(work);
  if (erase) raw.erase(family, *erase);
  raw.put(family, key, bytes);
}

}  // namespace

TEST_CASE("documents damaged on disk read back as a corrupt error through every tool, never as a crash or half a document") {
  corrupt_bench b;
  const std::string work = (b.dir() / "work.omgdb").string();
  std::vector<std::pair<std::string, std::string>> entries;
  {
    engine::test::raw_db raw(b.path());
    for (const auto& k : raw.keys("docs")) entries.emplace_back(k, raw.get("docs", k));
  }
  REQUIRE(entries.size() == k_people - 1);
  std::mt19937 rng(20261202);
  int undecodable = 0;
  for (int variant = 0; variant < 40; ++variant) {
    const auto& [key, original] = entries[variant % entries.size()];
    const std::string bytes = mutate(original, rng, variant % 5);
    if (bytes == original) continue;
    const bool decodes = engine::from_bson(bytes).ok();
    undecodable += !decodes;
    damage(b.path(), work, "docs", key, bytes);
    CAPTURE(variant);
    CAPTURE(decodes);
    for (const auto& r : readers()) {
      CAPTURE(r.name + " " + r.args);
      auto [failed, text] = b.on(work, r.name, r.args);
      if (failed) CHECK_MESSAGE(says_corrupt(text), head(text));
      // A scan of the whole collection meets the damaged document: undecodable, it is an error.
      if (!decodes && (r.name == "find" || r.name == "dump" || r.name == "aggregate") && r.args.find("filter") == std::string::npos) {
        CHECK_MESSAGE(failed, "read past an undecodable document: " << head(text));
      }
      if (!decodes && r.name == "verify") {
        CHECK_MESSAGE((failed || text.find("\"ok\":false") != std::string::npos), head(text));
      }
    }
    b.stores()->close_all();
  }
  CHECK(undecodable > 20);
}

TEST_CASE("index entries damaged on disk give corrupt or the right documents, and verify names every one") {
  corrupt_bench b;
  const std::string work = (b.dir() / "work.omgdb").string();
  std::vector<std::pair<std::string, std::string>> entries;
  std::string truth;
  {
    engine::test::raw_db raw(b.path());
    for (const auto& k : raw.keys("idx")) entries.emplace_back(k, raw.get("idx", k));
  }
  REQUIRE_FALSE(entries.empty());
  {
    auto [failed, text] = b.on(b.path(), "find", R"({"collection":"people","filter":{"age":2}})");
    REQUIRE_FALSE(failed);
    truth = text;
    b.stores()->close_all();
  }
  std::set<std::string> keys;
  for (const auto& e : entries) keys.insert(e.first);
  std::mt19937 rng(7);
  for (int variant = 0; variant < 40; ++variant) {
    const auto& [key, original] = entries[variant % entries.size()];
    const bool damage_key = variant % 2 == 0;
    CAPTURE(variant);
    CAPTURE(damage_key);
    if (damage_key) {
      const std::string bad = mutate(key, rng, (variant / 2) % 5);
      if (bad == key || keys.count(bad)) continue;
      damage(b.path(), work, "idx", bad, original, &key);
    } else {
      const std::string bad = mutate(original, rng, (variant / 2) % 5);
      if (bad == original) continue;
      damage(b.path(), work, "idx", key, bad);
    }
    for (const auto& r : readers()) {
      CAPTURE(r.name + " " + r.args);
      auto [failed, text] = b.on(work, r.name, r.args);
      if (failed) CHECK_MESSAGE(says_corrupt(text), head(text));
      // A damaged value no longer fits its key: the read says `corrupt`. A key rewritten into
      // another well-formed key moves the entry (docs/decisions.md): reads cannot tell, verify does.
      if (r.name == "find" && r.args.find("\"age\":2") != std::string::npos && !failed && !damage_key) {
        CHECK_MESSAGE(text == truth, "the age index answered wrongly: " << head(text));
      }
      if (r.name == "verify") CHECK_MESSAGE((failed || text.find("\"ok\":false") != std::string::npos), head(text));
    }
    b.stores()->close_all();
  }
}

TEST_CASE("op-log records damaged on disk give a corrupt error to the readers of the op-log, never a crash") {
  corrupt_bench b;
  const std::string work = (b.dir() / "work.omgdb").string();
  std::vector<std::pair<std::string, std::string>> entries;
  {
    engine::test::raw_db raw(b.path());
    for (const auto& k : raw.keys("oplog")) entries.emplace_back(k, raw.get("oplog", k));
  }
  REQUIRE(entries.size() >= 4);
  std::mt19937 rng(99);
  int undecodable = 0;
  for (int variant = 0; variant < 40; ++variant) {
    // The newest records most often: the search catch-up and the rollback read those.
    const auto& [key, original] = entries[entries.size() - 1 - (variant % std::min<std::size_t>(entries.size(), 8))];
    const std::string bytes = mutate(original, rng, variant % 5);
    if (bytes == original) continue;
    const bool decodes = engine::from_bson(bytes).ok();
    undecodable += !decodes;
    damage(b.path(), work, "oplog", key, bytes);
    const std::string why = decodes ? "" : engine::from_bson(bytes).error().message;
    CAPTURE(why);
    CAPTURE(variant);
    CAPTURE(decodes);
    for (const auto& r : readers()) {
      CAPTURE(r.name + " " + r.args);
      auto [failed, text] = b.on(work, r.name, r.args);
      if (failed) CHECK_MESSAGE(says_corrupt(text), head(text));
      if (!decodes && r.name == "verify") {
        CHECK_MESSAGE((failed || text.find("\"ok\":false") != std::string::npos), head(text));
      }
    }
    // The rollback reads its change's records: damaged, it refuses rather than restore a guess.
    auto [failed, text] = b.on(work, "rollback", R"({"change_id":")" + b.change_id + R"("})");
    if (failed) CHECK_MESSAGE(says_corrupt(text), head(text));
    b.stores()->close_all();
  }
  CHECK(undecodable > 15);
}
