// Property: an index never changes a result. Generated documents (mixed types, missing
// fields, nulls, arrays, nested paths) and generated queries, seeded; every query runs on
// the same data without indexes, with every candidate index, and after they are dropped,
// and the answers of find / count / distinct must be byte-identical. Filter-driven writes
// run on an indexed and an unindexed twin and must leave identical dumps.
#include <random>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

class generator {
 public:
  explicit generator(std::uint64_t seed) : rng_(seed) {}
  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }

  std::string scalar() {
    switch (pick(10)) {
      // Types the direct BSON-to-text writer leaves to the decoding path.
      case 8: return "{\"$numberDecimal\":\"" + std::to_string(pick(20)) + ".25\"}";
      case 9: return pick(2) ? R"({"$binary":{"base64":"AQI=","subType":"00"}})" : R"({"$numberDouble":"NaN"})";
      case 0: return "null";
      case 1: return std::to_string(pick(20));
      case 2: return std::to_string(pick(20)) + ".5";
      case 3: return "{\"$numberLong\":\"" + std::to_string(pick(20)) + "\"}";
      case 4: return "\"" + word() + "\"";
      case 5: return pick(2) ? "true" : "false";
      case 6: return "{\"$date\":\"2024-01-0" + std::to_string(1 + pick(9)) + "T00:00:00Z\"}";
      default: return std::to_string(pick(6));
    }
  }
  std::string word() {
    static const char* words[] = {"ab", "abc", "abd", "b", "ba", "", "a\\u0000b", "zz", "Ab"};
    return words[pick(9)];
  }
  std::string any_value() {
    if (pick(5) == 0) {
      std::string a = "[";
      const int n = pick(4);
      for (int i = 0; i < n; ++i) a += (i ? "," : "") + scalar();
      return a + "]";
    }
    return scalar();
  }
  std::string document(int id) {
    std::string d = "{\"_id\":" + std::to_string(id);
    if (pick(6) != 0) d += ",\"a\":" + any_value();
    if (pick(6) != 0) d += ",\"b\":\"" + word() + "\"";
    if (pick(8) != 0) d += ",\"c\":" + std::to_string(pick(30));
    if (pick(3) == 0) d += ",\"tags\":[" + scalar() + "," + scalar() + "]";
    if (pick(3) == 0) d += ",\"n\":" + (pick(3) ? "{\"x\":" + scalar() + "}" : "[{\"x\":" + scalar() + "},{\"y\":1}]");
    return d + "}";
  }
  std::string condition() {
    switch (pick(9)) {
      case 0: return scalar();
      case 1: return "{\"$in\":[" + scalar() + "," + scalar() + "]}";
      case 2: return "{\"$gt\":" + scalar() + "}";
      case 3: return "{\"$lte\":" + scalar() + "}";
      case 4: return "{\"$gte\":" + scalar() + ",\"$lt\":" + scalar() + "}";
      case 5: return "{\"$regex\":\"^a" + std::string(pick(2) ? "b" : "") + "\"}";
      case 6: return "{\"$ne\":" + scalar() + "}";
      case 7: return "{\"$exists\":" + std::string(pick(2) ? "true" : "false") + "}";
      default: return "{\"$eq\":" + scalar() + "}";
    }
  }
  std::string filter() {
    static const char* paths[] = {"a", "b", "c", "tags", "n.x"};
    const int p1 = pick(5);
    const int p2 = (p1 + 1 + pick(4)) % 5;
    switch (pick(4)) {
      case 0: return "{\"" + std::string(paths[p1]) + "\":" + condition() + "}";
      case 1:  // two conditions on one path, through $and
        return "{\"$and\":[{\"" + std::string(paths[p1]) + "\":" + condition() + "},{\"" + paths[p1] + "\":" +
               condition() + "}]}";
      default:
        return "{\"" + std::string(paths[p1]) + "\":" + condition() + ",\"" + paths[p2] + "\":" + condition() + "}";
    }
  }
  std::string sort() {
    static const char* sorts[] = {"{}",          "{\"c\":1}",          "{\"a\":-1}",         "{\"b\":1,\"c\":-1}",
                                  "{\"tags\":1}", "{\"b\":-1}",         "{\"b\":1}",          "{\"c\":-1}",
                                  "{\"c\":1,\"b\":1}", "{\"c\":1,\"_id\":1}", "{\"b\":1,\"c\":1}"};
    return sorts[pick(11)];
  }

 private:
  std::mt19937_64 rng_;
};

std::vector<store::index_spec> candidate_indexes() {
  std::vector<store::index_spec> out;
  auto add = [&](std::initializer_list<std::pair<const char*, bool>> f, bool unique = false,
                 std::string partial = {}) {
    store::index_spec s;
    for (const auto& [p, d] : f) s.fields.push_back({p, d});
    s.unique = unique;
    if (!partial.empty()) s.partial_filter = doc(partial);
    out.push_back(std::move(s));
  };
  add({{"a", false}});
  add({{"b", true}});
  add({{"c", false}});
  add({{"c", false}, {"b", false}});
  add({{"b", false}, {"c", true}});
  add({{"tags", false}});
  add({{"n.x", false}});
  add({{"c", true}}, false, R"({"c":{"$gt":10}})");
  return out;
}

// Every answer a query gets, as one string.
std::string answers(store& s, const std::string& filter, const std::string& sort) {
  std::string out;
  find_options o;
  o.filter = doc(filter);
  o.sort = doc(sort);
  auto page = s.find("p", o);
  out += page.ok() ? page->ndjson : "error: " + page.error().message;
  o.skip = 2;
  o.limit = 3;
  page = s.find("p", o);
  out += page.ok() ? page->ndjson : "error: " + page.error().message;
  // The same query projected, in pages of at most 80 bytes, and continued after the first
  // page's last `_id` (the keyset continuation needs the scan order: no sort).
  o.skip = 0;
  o.limit = std::nullopt;
  o.projection = doc(R"({"b":1,"n.x":1})");
  page = s.find("p", o);
  out += page.ok() ? page->ndjson : "error: " + page.error().message;
  o.projection = {};
  o.sort = {};
  o.max_bytes = 80;
  page = s.find("p", o);
  if (page.ok()) {
    out += page->ndjson + "truncated " + std::to_string(page->truncated) + " next " +
           std::to_string(page->next_skip) + " last " + to_json(page->last_id) + "\n";
    if (page->returned > 0) {
      o.after_id = page->last_id;
      o.max_bytes = 1 << 20;
      auto rest = s.find("p", o);
      out += rest.ok() ? rest->ndjson : "error: " + rest.error().message;
    }
  } else {
    out += "error: " + page.error().message;
  }
  auto n = s.count("p", doc(filter));
  out += "count " + (n.ok() ? std::to_string(*n) : n.error().message) + "\n";
  auto d = s.distinct("p", "c", doc(filter), 1000);
  out += "distinct " + (d.ok() ? to_json(value(d->values)) : d.error().message) + "\n";
  return out;
}

}  // namespace

TEST_CASE("find, count and distinct answer the same with and without every candidate index") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    generator g(seed);
    fresh_store s;
    std::vector<document> all;
    for (int i = 0; i < 400; ++i) all.push_back(doc(g.document(i)));
    REQUIRE(s->insert_many("p", std::move(all)).ok());
    std::vector<std::pair<std::string, std::string>> queries;
    for (int i = 0; i < 150; ++i) queries.emplace_back(g.filter(), g.sort());
    std::vector<std::string> plain;
    for (const auto& [f, so] : queries) plain.push_back(answers(*s, f, so));

    for (auto& sp : candidate_indexes()) {
      auto r = s->create_index("p", sp);
      REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    }
    int index_scans = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      CAPTURE(queries[i].first);
      CAPTURE(queries[i].second);
      CHECK(answers(*s, queries[i].first, queries[i].second) == plain[i]);
      auto e = s->explain("p", doc(queries[i].first), {});
      REQUIRE(e.ok());
      if (find_field(*e, "plan")->as_string() == "index scan") ++index_scans;
    }
    CHECK(index_scans > 30);  // the property is exercised, not vacuous
    auto listed = s->list_indexes("p");
    REQUIRE(listed.ok());
    CHECK(listed->size() == candidate_indexes().size());
    for (const auto& i : *listed) REQUIRE(s->drop_index("p", i.spec.name).ok());
    for (std::size_t i = 0; i < queries.size(); ++i) CHECK(answers(*s, queries[i].first, queries[i].second) == plain[i]);
  }
}

TEST_CASE("filter-driven writes leave the same documents on an indexed and an unindexed twin") {
  generator g(7);
  fresh_store plain, indexed;
  std::vector<document> all;
  for (int i = 0; i < 300; ++i) all.push_back(doc(g.document(i)));
  REQUIRE(plain->insert_many("p", all).ok());
  REQUIRE(indexed->insert_many("p", all).ok());
  for (auto& sp : candidate_indexes()) REQUIRE(indexed->create_index("p", sp).ok());
  for (int step = 0; step < 60; ++step) {
    const std::string f = g.filter();
    CAPTURE(f);
    if (step % 3 == 2) {
      store::delete_request d{doc(f), {}, {}};
      auto a = plain->delete_many("p", d);
      auto b = indexed->delete_many("p", d);
      CHECK(a.ok() == b.ok());
      if (a.ok() && b.ok()) CHECK(*a == *b);
    } else {
      store::update_request u;
      u.filter = doc(f);
      u.update = doc("{\"$set\":{\"c\":" + std::to_string(g.pick(30)) + ",\"b\":\"" + g.word() + "\"}}");
      auto a = step % 3 == 0 ? plain->update_many("p", u) : plain->update_one("p", u);
      auto b = step % 3 == 0 ? indexed->update_many("p", u) : indexed->update_one("p", u);
      CHECK(a.ok() == b.ok());
      if (a.ok() && b.ok()) CHECK(a->modified == b->modified);
    }
  }
  // The same documents (the headers differ: the indexed store's lists its indexes).
  auto documents_of = [](const std::string& dump) {
    std::string out;
    std::size_t pos = 0;
    while (pos < dump.size()) {
      const std::size_t nl = dump.find('\n', pos);
      const std::string line = dump.substr(pos, nl - pos);
      if (line.rfind("{\"collection\":", 0) != 0) out += line + "\n";
      pos = nl + 1;
    }
    return out;
  };
  CHECK(documents_of(dump_text(*plain)) == documents_of(dump_text(*indexed)));
  for (int i = 0; i < 60; ++i) {
    const std::string f = g.filter();
    CAPTURE(f);
    CHECK(answers(*plain, f, "{}") == answers(*indexed, f, "{}"));
  }
}
