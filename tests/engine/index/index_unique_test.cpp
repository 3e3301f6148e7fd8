// Unique indexes: a missing field counts as null, and a violation from any write path is an
// error naming the index and the value that leaves every column family exactly as it was.
#include <fstream>

#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::index_spec unique_on(std::string path) {
  store::index_spec s;
  s.fields.push_back({std::move(path), false});
  s.unique = true;
  return s;
}

// A store with users 1..3 (emails a, b, c) and a unique index on email.
void seed(fresh_store& s) {
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"email":"a"})", R"({"_id":2,"email":"b"})",
                                        R"({"_id":3,"email":"c","tags":["x"]})"}))
              .ok());
  auto c = s->create_index("users", unique_on("email"));
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
}

// The call failed with a message naming the index and the duplicate value.
template <class R>
void check_refused(const R& r, std::string_view value_json) {
  REQUIRE_FALSE(r.ok());
  const std::string& m = r.error().message;
  CHECK_MESSAGE(m.find("unique index `email_1`") != std::string::npos, m);
  CHECK_MESSAGE(m.find(std::string(value_json)) != std::string::npos, m);
}

store::update_request set_email(std::string_view filter, std::string_view email) {
  store::update_request r;
  r.filter = doc(filter);
  r.update = doc(std::string(R"({"$set":{"email":")") + std::string(email) + "\"}}");
  return r;
}

}  // namespace

TEST_CASE("a unique index refuses a duplicate from insert and insert_many and writes nothing") {
  fresh_store s;
  seed(s);
  const auto before = stored_state(s);
  check_refused(s->insert("users", doc(R"({"_id":9,"email":"b"})")), R"({"email":"b"})");
  check_refused(s->insert_many("users", docs({R"({"_id":9,"email":"z"})", R"({"_id":10,"email":"z"})"})),
                R"({"email":"z"})");
  check_refused(s->insert_many("users", docs({R"({"_id":9,"email":"y"})", R"({"_id":10,"email":"a"})"})),
                R"({"email":"a"})");
  CHECK(stored_state(s) == before);
  CHECK(s->insert("users", doc(R"({"_id":9,"email":"d"})")).ok());
}

TEST_CASE("a missing field counts as null: only one document may lack a unique field") {
  fresh_store s;
  seed(s);
  REQUIRE(s->insert("users", doc(R"({"_id":4})")).ok());
  check_refused(s->insert("users", doc(R"({"_id":5})")), R"({"email":null})");
  check_refused(s->insert("users", doc(R"({"_id":5,"email":null})")), R"({"email":null})");
}

TEST_CASE("replace, update_one, update_many and find_one_and_update refuse duplicates and write nothing") {
  fresh_store s;
  seed(s);
  const auto before = stored_state(s);
  check_refused(s->replace("users", val("1"), doc(R"({"email":"c"})")), R"({"email":"c"})");
  check_refused(s->update_one("users", set_email(R"({"_id":2})", "a")), R"({"email":"a"})");
  check_refused(s->update_many("users", set_email(R"({"_id":{"$gte":2}})", "q")), R"({"email":"q"})");
  check_refused(s->find_one_and_update("users", set_email(R"({"_id":3})", "b")), R"({"email":"b"})");
  CHECK(stored_state(s) == before);
}

TEST_CASE("a key freed earlier in the same call may be taken again: swap through a delete") {
  fresh_store s;
  seed(s);
  auto steps = store::parse_bulk(1, val(R"([{"op":"delete","collection":"users","id":1},
      {"op":"insert","collection":"users","document":{"_id":7,"email":"a"}}])")
                                        .as_array());
  REQUIRE(steps.ok());
  auto r = s->bulk_write(*steps, {});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(find_all(*s, "users", find_options{doc(R"({"email":"a"})")}) == "{\"_id\":7,\"email\":\"a\"}\n");
}

TEST_CASE("bulk_write and import_jsonl refuse duplicates, also between their own documents") {
  fresh_store s;
  seed(s);
  const auto before = stored_state(s);
  auto steps = store::parse_bulk(1, val(R"([{"op":"insert","collection":"users","document":{"_id":8,"email":"n"}},
      {"op":"update_one","collection":"users","filter":{"_id":1},"update":{"$set":{"email":"n"}}}])")
                                        .as_array());
  REQUIRE(steps.ok());
  auto r = s->bulk_write(*steps, {});
  REQUIRE_FALSE(r.ok());
  CHECK_MESSAGE(r.error().message.find("unique index `email_1`") != std::string::npos, r.error().message);
  const std::string file = s.dir.sub("dup.jsonl");
  std::ofstream(file) << "{\"_id\":20,\"email\":\"m\"}\n{\"_id\":21,\"email\":\"m\"}\n";
  auto imp = s->import_jsonl("users", file, 10);
  REQUIRE_FALSE(imp.ok());
  CHECK_MESSAGE(imp.error().message.find("email_1") != std::string::npos, imp.error().message);
  CHECK(stored_state(s) == before);
}

TEST_CASE("apply and rollback refuse a change that would duplicate a unique key") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"email":"a"})", R"({"_id":2,"email":"b"})"})).ok());
  REQUIRE(s->create_index("users", unique_on("email")).ok());
  // apply: the plan sets email "b" on _id 1, which _id 2 holds.
  auto plan = s->plan_update("users", {doc(R"({"_id":1})"), doc(R"({"$set":{"email":"b"}})"), {}});
  REQUIRE(plan.ok());
  const auto before_apply = stored_state(s);
  check_refused(s->apply(plan->token), R"({"email":"b"})");
  CHECK(stored_state(s) == before_apply);
  // rollback: _id 1 moves a -> x, then another document takes "a"; restoring _id 1 would clash.
  auto plan2 = s->plan_update("users", {doc(R"({"_id":1})"), doc(R"({"$set":{"email":"x"}})"), {}});
  REQUIRE(plan2.ok());
  auto applied = s->apply(plan2->token);
  REQUIRE_MESSAGE(applied.ok(), (applied.ok() ? "" : applied.error().message));
  REQUIRE(s->insert("users", doc(R"({"_id":3,"email":"a"})")).ok());
  const auto before_rollback = stored_state(s);
  check_refused(s->rollback(applied->change_id), R"({"email":"a"})");
  CHECK(stored_state(s) == before_rollback);
}

TEST_CASE("building a unique index over duplicates fails naming the value, and leaves no index") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"email":"a"})", R"({"_id":2,"email":"a"})"})).ok());
  const auto before = stored_state(s);
  check_refused(s->create_index("users", unique_on("email")), R"({"email":"a"})");
  CHECK(stored_state(s) == before);
  CHECK(s->list_indexes("users")->empty());
}

TEST_CASE("define_collection spec.unique creates unique indexes and refuses existing duplicates") {
  fresh_store s;
  REQUIRE(s->insert_many("people", docs({R"({"_id":1,"email":"a","t":1,"l":"x"})",
                                         R"({"_id":2,"email":"b","t":1,"l":"y"})"}))
              .ok());
  auto d = s->define_collection("people", doc(R"({"required":["email"],"unique":["email",["t","l"]]})"));
  REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message));
  auto list = s->list_indexes("people");
  REQUIRE(list.ok());
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].spec.name == "email_1");
  CHECK((*list)[0].spec.unique);
  CHECK((*list)[1].spec.name == "t_1_l_1");
  CHECK(s->insert("people", doc(R"({"_id":3,"email":"a"})")).error().message.find("email_1") != std::string::npos);
  CHECK(s->insert("people", doc(R"({"_id":3,"email":"c","t":1,"l":"x"})")).error().message.find("t_1_l_1") !=
        std::string::npos);
  // Duplicates among existing documents: the rules and the index are both refused.
  REQUIRE(s->insert_many("dups", docs({R"({"_id":1,"k":1})", R"({"_id":2,"k":1})"})).ok());
  const auto before = stored_state(s);
  auto bad = s->define_collection("dups", doc(R"({"unique":["k"]})"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.starts_with("spec.unique: duplicate key {\"k\":1} in unique index `k_1`"));
  CHECK(stored_state(s) == before);
}
