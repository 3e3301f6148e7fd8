// verify checks index entries against the documents: a missing or stray entry, and entries
// of an index that has no definition, are named as mismatches.
#include "tests/engine/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

std::vector<std::string> mismatches(store& s) {
  auto r = s.verify();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->ok == r->mismatches.empty());
  return r->mismatches;
}

void seed(fresh_store& s) {
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"a":1})", R"({"_id":2,"a":[2,3]})", R"({"_id":3})"})).ok());
  store::index_spec spec;
  spec.fields.push_back({"a", false});
  REQUIRE(s->create_index("c", spec).ok());
}

}  // namespace

TEST_CASE("verify is clean after index builds, writes through indexes and drops") {
  fresh_store s;
  seed(s);
  REQUIRE(s->insert("c", doc(R"({"_id":4,"a":[4,4,5]})")).ok());
  REQUIRE(s->replace("c", val("2"), doc(R"({"a":9})")).ok());
  REQUIRE(s->remove("c", val("1")).ok());
  CHECK(mismatches(*s).empty());
  REQUIRE(s->drop_index("c", "a_1").ok());
  CHECK(mismatches(*s).empty());
}

TEST_CASE("verify names a missing entry, a stray entry and entries without a definition") {
  fresh_store s;
  seed(s);
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
