// Index definitions: create_index / list_indexes / drop_index, names, spec errors, multikey
// and parallel arrays, indexes that follow their collection (reopen, drop_collection), verify.
#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::index_spec spec(std::initializer_list<std::pair<const char*, int>> fields, std::string name = {}) {
  store::index_spec s;
  s.name = std::move(name);
  for (const auto& [path, dir] : fields) s.fields.push_back({path, dir < 0});
  return s;
}

std::vector<std::string> names(store& s, std::string_view coll) {
  auto l = s.list_indexes(coll);
  REQUIRE_MESSAGE(l.ok(), (l.ok() ? "" : l.error().message));
  std::vector<std::string> out;
  for (const auto& i : *l) out.push_back(i.spec.name);
  return out;
}

std::string error_of(const omgdb::result<store::create_index_result>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("create_index names indexes from their fields and list_indexes returns them in name order") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"b":1,"a":2})", R"({"_id":2,"b":3})"})).ok());
  auto r = s->create_index("c", spec({{"b", 1}, {"a", -1}}));
  REQUIRE(r.ok());
  CHECK(r->name == "b_1_a_-1");
  CHECK(r->created);
  CHECK(r->documents_indexed == 2);
  CHECK(r->keys == 2);
  REQUIRE(s->create_index("c", spec({{"a", 1}})).ok());
  CHECK(names(*s, "c") == std::vector<std::string>{"a_1", "b_1_a_-1"});
  auto l = s->list_indexes("c");
  CHECK((*l)[1].spec.fields[1].descending);
  CHECK_FALSE((*l)[1].spec.unique);
}

TEST_CASE("the same definition again is a no-op; a name reused for another definition is an error") {
  fresh_store s;
  REQUIRE(s->create_index("c", spec({{"a", 1}}, "by_a")).ok());
  auto again = s->create_index("c", spec({{"a", 1}}, "by_a"));
  REQUIRE(again.ok());
  CHECK_FALSE(again->created);
  auto unnamed = s->create_index("c", spec({{"a", 1}}));
  REQUIRE(unnamed.ok());
  CHECK_FALSE(unnamed->created);
  CHECK(unnamed->name == "by_a");
  CHECK(error_of(s->create_index("c", spec({{"a", -1}}, "by_a"))) ==
        "index name `by_a` of `c` is already used by a different definition (key {\"a\":1}); drop it first or "
        "choose another name");
  CHECK(error_of(s->create_index("c", spec({{"a", 1}}, "other"))) ==
        "the same index already exists in `c` as `by_a`; an index definition has one name");
  CHECK(names(*s, "c") == std::vector<std::string>{"by_a"});
}

TEST_CASE("bad index specs are refused with the reason and write nothing") {
  fresh_store s;
  REQUIRE(s->insert("c", doc(R"({"_id":1})")).ok());
  const auto before = stored_state(s);
  CHECK(error_of(s->create_index("c", store::index_spec{})) == "an index needs at least one field");
  CHECK(error_of(s->create_index("c", spec({{"a", 1}, {"a", -1}}))) == "index field `a` appears twice");
  CHECK(error_of(s->create_index("c", spec({{"a..b", 1}}))) == "index field `a..b` has an empty component");
  CHECK(error_of(s->create_index("c", spec({{"$a", 1}}))) == "index field `$a` must not start with '$'");
  CHECK(error_of(s->create_index("c", spec({{"_id", 1}}))) == "`_id` is always indexed (the `_id_` index); index other fields");
  auto partial = spec({{"a", 1}});
  partial.partial_filter = doc(R"({"a":{"$ne":1}})");
  CHECK(error_of(s->create_index("c", partial)).starts_with("partialFilter: operator `$ne` at `a` is not supported"));
  CHECK_FALSE(s->create_index("bad$name", spec({{"a", 1}})).ok());
  CHECK(stored_state(s) == before);
}

TEST_CASE("drop_index removes an index; unknown names and collections are errors with hints") {
  fresh_store s;
  REQUIRE(s->insert("c", doc(R"({"_id":1,"a":1})")).ok());
  REQUIRE(s->create_index("c", spec({{"a", 1}})).ok());
  auto miss = s->drop_index("c", "a1");
  REQUIRE_FALSE(miss.ok());
  CHECK(miss.error().message == "no index `a1` in `c`; did you mean `a_1`?");
  auto coll = s->drop_index("cc", "a_1");
  REQUIRE_FALSE(coll.ok());
  CHECK(coll.error().message == "collection `cc` does not exist; did you mean `c`?");
  REQUIRE(s->drop_index("c", "a_1").ok());
  CHECK(names(*s, "c").empty());
  CHECK_FALSE(s->drop_index("c", "a_1").ok());
}

TEST_CASE("indexes survive a reopen and disappear with their collection") {
  fresh_store s;
  REQUIRE(s->insert("c", doc(R"({"_id":1,"a":1})")).ok());
  REQUIRE(s->create_index("c", spec({{"a", 1}})).ok());
  s.reopen();
  CHECK(names(*s, "c") == std::vector<std::string>{"a_1"});
  REQUIRE(s->drop_collection("c").ok());
  REQUIRE(s->insert("c", doc(R"({"_id":1,"a":1})")).ok());
  CHECK(names(*s, "c").empty());
  // No entry of the dropped index is left behind in the idx family.
  auto state = stored_state(s);
  CHECK(state["idx"].empty());
}

TEST_CASE("an array makes an index multikey; arrays on two paths of a compound index are refused") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"a":[1,2],"b":1})", R"({"_id":2,"a":3,"b":[4,5]})"})).ok());
  auto one = s->create_index("c", spec({{"a", 1}}));
  REQUIRE(one.ok());
  CHECK(one->keys == 3);
  CHECK((*s->list_indexes("c"))[0].multikey);
  REQUIRE(s->create_index("c", spec({{"a", 1}, {"b", 1}})).ok());  // each document has one array
  const auto before = stored_state(s);
  auto bad = s->insert("c", doc(R"({"_id":3,"a":[1],"b":[2]})"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "document _id 3 cannot be indexed by `a_1_b_1`: it holds arrays at both `a` and `b`, and a compound "
        "index takes at most one array (parallel arrays)");
  CHECK(stored_state(s) == before);
  // Two paths under the same array are one array, not parallel ones.
  REQUIRE(s->insert("d", doc(R"({"_id":1,"a":[{"x":1,"y":2},{"x":3,"y":4}]})")).ok());
  auto same = s->create_index("d", spec({{"a.x", 1}, {"a.y", 1}}));
  REQUIRE_MESSAGE(same.ok(), (same.ok() ? "" : same.error().message));
  CHECK(same->keys == 4);
}

TEST_CASE("a partial index holds only the documents its filter matches") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"a":1,"live":true})", R"({"_id":2,"a":1})",
                                    R"({"_id":3,"a":2,"live":true})"}))
              .ok());
  auto p = spec({{"a", 1}});
  p.unique = true;
  p.partial_filter = doc(R"({"live":true})");
  auto r = s->create_index("c", p);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->documents_indexed == 2);
  CHECK(s->insert("c", doc(R"({"_id":4,"a":2})")).ok());               // not live: not indexed
  CHECK_FALSE(s->insert("c", doc(R"({"_id":5,"a":2,"live":true})")).ok());  // live duplicate
}

TEST_CASE("describe lists a collection's secondary indexes after `_id_`") {
  fresh_store s;
  REQUIRE(s->insert("c", doc(R"({"_id":1,"a":1})")).ok());
  auto u = spec({{"a", -1}});
  u.unique = true;
  REQUIRE(s->create_index("c", u).ok());
  auto md = s->describe();
  REQUIRE(md.ok());
  CHECK(md->find("Indexes: `_id_` (unique), `a_-1` `{\"a\":-1}` (unique)\n") != std::string::npos);
}

// verify checks index entries against the documents: a missing or stray entry, and entries
// of an index that has no definition, are named as mismatches.
namespace {


std::vector<std::string> mismatches(store& s) {
  auto r = s.verify();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->ok == r->mismatches.empty());
  return r->mismatches;
}

void seed_for_verify(fresh_store& s) {
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"a":1})", R"({"_id":2,"a":[2,3]})", R"({"_id":3})"})).ok());
  store::index_spec spec;
  spec.fields.push_back({"a", false});
  REQUIRE(s->create_index("c", spec).ok());
}

}  // namespace

TEST_CASE("verify is clean after index builds, writes through indexes and drops") {
  fresh_store s;
  seed_for_verify(s);
  REQUIRE(s->insert("c", doc(R"({"_id":4,"a":[4,4,5]})")).ok());
  REQUIRE(s->replace("c", val("2"), doc(R"({"a":9})")).ok());
  REQUIRE(s->remove("c", val("1")).ok());
  CHECK(mismatches(*s).empty());
  REQUIRE(s->drop_index("c", "a_1").ok());
  CHECK(mismatches(*s).empty());
}

TEST_CASE("verify names a missing entry, a stray entry and entries without a definition") {
  fresh_store s;
  seed_for_verify(s);
  auto state = stored_state(s);
  REQUIRE(state["idx"].size() == 4);  // 1, 2, 3 and null for the missing field
  s.db.reset();
  {
    raw_store raw(s.path);
    raw.del("idx", state["idx"][0].first);
    std::string orphan = state["idx"][1].first;
    orphan[3] = static_cast<char>(orphan[3] + 7);  // an index id with no definition
    raw.put("idx", orphan, state["idx"][1].second);
  }
  s.reopen();
  auto m = mismatches(*s);
  REQUIRE(m.size() == 2);
  CHECK(m[0] == "collection `c`, index `a_1`: holds 3 entries, the documents give 4");
  CHECK(m[1] == "index entries: 1 entries of index id 8, which has no definition (a half-built or dropped index)");
}

TEST_CASE("an index build reports progress and a cancelled build writes nothing") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 1000; ++i) many.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"a\":" + std::to_string(i % 7) + "}"));
  REQUIRE(s->insert_many("c", std::move(many)).ok());
  const auto before = stored_state(s);
  std::atomic<bool> cancel{false};
  scan_control control;
  control.cancelled = &cancel;
  std::uint64_t last_done = 0, calls = 0;
  control.progress = [&](std::uint64_t done, std::uint64_t total) {
    ++calls;
    last_done = done;
    CHECK(total == 1000);
    if (done >= 512) cancel = true;
  };
  auto r = s->create_index("c", spec({{"a", 1}}), control);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("cancelled") != std::string::npos);
  CHECK(calls >= 2);
  CHECK(stored_state(s) == before);
  cancel = false;
  control.progress = [&](std::uint64_t done, std::uint64_t) { last_done = done; };
  REQUIRE(s->create_index("c", spec({{"a", 1}}), control).ok());
  CHECK(last_done == 1000);
}

TEST_CASE("a copy of a store directory open beside it plans from its own index definitions") {
  // The copy has the same RocksDB identity, and the same writes on both keep their sequence
  // numbers equal: what one store remembered of its indexes must never serve the other.
  fresh_store a;
  std::vector<document> people;
  for (int i = 0; i < 20; ++i) {
    people.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"x\":" + std::to_string(i % 5) + ",\"y\":" +
                         std::to_string(i % 3) + "}"));
  }
  REQUIRE(a->insert_many("p", std::move(people)).ok());
  a.db.reset();
  const std::string copy = a.dir.sub("copy.omgdb");
  fs::copy(a.path, copy, fs::copy_options::recursive);
  a.reopen();
  auto b = store::open(copy);
  REQUIRE(b.ok());
  REQUIRE(a->create_index("p", spec({{"x", 1}})).ok());
  REQUIRE((*b)->create_index("p", spec({{"y", 1}})).ok());
  find_options o;
  o.filter = doc(R"({"x":1})");
  auto in_a = a->find("p", o);  // plans with a's index on x
  REQUIRE(in_a.ok());
  auto in_b = (*b)->find("p", o);  // b has no index on x: a full scan
  REQUIRE(in_b.ok());
  CHECK(in_a->ndjson == in_b->ndjson);
  CHECK(in_b->returned == 4);
  auto n = (*b)->count("p", doc(R"({"x":1})"));
  REQUIRE(n.ok());
  CHECK(*n == 4);
}
