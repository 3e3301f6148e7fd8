// verify: replaying the op-log from empty matches the live data after every kind of write,
// and corruption made behind the store's back is named precisely.
#include <algorithm>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::verify_report verify_of(store& s) {
  auto r = s.verify();
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

std::string all_mismatches(const store::verify_report& r) {
  std::string out;
  for (const auto& m : r.mismatches) out += m + "\n";
  return out;
}

bool mentions(const store::verify_report& r, std::string_view text) {
  return std::any_of(r.mismatches.begin(), r.mismatches.end(),
                     [&](const std::string& m) { return m.find(text) != std::string::npos; });
}

// The docs key of `id` in the collection with catalog id `collection_id`.
std::string docs_key(std::uint32_t collection_id, std::string_view id_json) {
  std::string k;
  for (int shift = 24; shift >= 0; shift -= 8) k.push_back(static_cast<char>((collection_id >> shift) & 0xff));
  return k + encode_key(val(id_json));
}

std::string bson_of(std::string_view json_text) {
  auto b = to_bson(doc(json_text));
  REQUIRE(b.ok());
  return *b;
}

// A store with `users` (collection id 1) holding _id 1, 2, 3.
void seed_users(fresh_store& s) {
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"n":"a"})", R"({"_id":2,"n":"b"})", R"({"_id":3,"n":"c"})"})).ok());
}

}  // namespace

TEST_CASE("verify of a fresh store is clean and lists no caches") {
  fresh_store s;
  auto r = verify_of(*s);
  CHECK(r.ok);
  CHECK(r.collections.empty());
  CHECK(r.oplog_records == 0);
  CHECK(r.last_seq == 0);
  CHECK(r.mismatches.empty());
}

TEST_CASE("verify is clean after every kind of write") {
  fresh_store s;
  seed_users(s);
  REQUIRE(s->insert("users", doc(R"({"_id":4,"n":"d"})")).ok());
  REQUIRE(s->replace("users", val("2"), doc(R"({"n":"B"})")).ok());
  REQUIRE(s->remove("users", val("3")).ok());
  store::update_request u;
  u.filter = doc(R"({"_id":{"$gte":1}})");
  u.update = doc(R"({"$inc":{"v":1}})");
  REQUIRE(s->update_many("users", u).ok());
  REQUIRE(s->create_collection("empty").ok());
  REQUIRE(s->insert("gone", doc(R"({"_id":1})")).ok());
  REQUIRE(s->drop_collection("gone").ok());
  REQUIRE(s->insert("gone", doc(R"({"_id":1,"again":true})")).ok());
  store::delete_request d;
  d.filter = doc(R"({"n":"d"})");
  REQUIRE(s->delete_many("users", d).ok());
  auto steps = store::parse_bulk(1, val(R"([
    {"op":"insert","collection":"gone","document":{"_id":2}},
    {"op":"update_one","collection":"gone","filter":{"_id":2},"update":{"$set":{"x":1}}},
    {"op":"delete","collection":"gone","id":1}
  ])").as_array());
  REQUIRE_MESSAGE(steps.ok(), (steps.ok() ? "" : steps.error().message));
  REQUIRE(s->bulk_write(*steps, {}).ok());

  auto r = verify_of(*s);
  CHECK_MESSAGE(r.ok, all_mismatches(r));
  REQUIRE(r.collections.size() == 3);
  CHECK(r.collections[0].name == "empty");
  CHECK(r.collections[1].name == "gone");
  CHECK(r.collections[1].documents == 1);  // _id 1 deleted by the bulk program, _id 2 kept
  CHECK(r.collections[2].name == "users");
  CHECK(r.collections[2].documents == 2);
  CHECK(r.collections[2].oplog_documents == 2);
  CHECK(r.collections[2].hash_matches);
  CHECK(r.collections[2].counter_matches);
  CHECK(r.oplog_records == oplog_size(*s));
  CHECK(r.last_seq == r.oplog_records);
  CHECK(r.meta_last_seq == r.last_seq);

  s.reopen();
  CHECK(verify_of(*s).ok);
}

TEST_CASE("verify names a document changed behind the store's back") {
  fresh_store s;
  seed_users(s);
  s.db.reset();
  {
    raw_store raw(s.path);
    raw.put("docs", docs_key(1, "2"), bson_of(R"({"_id":2,"n":"tampered"})"));
  }
  s.reopen();
  auto r = verify_of(*s);
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(mentions(r, "collection `users`, _id 2: live document differs from its op-log image"),
                all_mismatches(r));
  CHECK(r.mismatches.size() == 1);
  REQUIRE(r.collections.size() == 1);
  CHECK_FALSE(r.collections[0].hash_matches);
  CHECK(r.collections[0].counter_matches);
}

TEST_CASE("verify names a document added and one deleted behind the store's back") {
  fresh_store s;
  seed_users(s);
  s.db.reset();
  {
    raw_store raw(s.path);
    raw.put("docs", docs_key(1, R"("x")"), bson_of(R"({"_id":"x"})"));
    raw.del("docs", docs_key(1, "3"));
  }
  s.reopen();
  auto r = verify_of(*s);
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(mentions(r, "collection `users`, _id \"x\": in the live data but not in the op-log"),
                all_mismatches(r));
  CHECK_MESSAGE(mentions(r, "collection `users`, _id 3: in the op-log (seq 4) but missing from the live data"),
                all_mismatches(r));
  CHECK(r.mismatches.size() == 2);
  CHECK(r.collections[0].documents == 3);
  CHECK(r.collections[0].oplog_documents == 3);
}

TEST_CASE("verify names a document counter that disagrees with the documents") {
  fresh_store s;
  seed_users(s);
  s.db.reset();
  {
    raw_store raw(s.path);
    std::string key = "count/";
    key += std::string("\0\0\0\1", 4);
    raw.put("meta", key, std::string("\0\0\0\0\0\0\0\7", 8));
  }
  s.reopen();
  auto r = verify_of(*s);
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(mentions(r, "collection `users`: document counter is 7 but 3 documents are stored"),
                all_mismatches(r));
  CHECK_FALSE(r.collections[0].counter_matches);
  CHECK(r.collections[0].hash_matches);
}

TEST_CASE("verify names missing op-log records and a stale newest seq") {
  fresh_store s;
  seed_users(s);
  s.db.reset();
  {
    raw_store raw(s.path);
    raw.del("oplog", std::string("\0\0\0\0\0\0\0\2", 8));
  }
  s.reopen();
  auto r = verify_of(*s);
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(mentions(r, "op-log seq 3 follows seq 1 (records are missing)"), all_mismatches(r));
  CHECK_MESSAGE(mentions(r, "collection `users`, _id 1: in the live data but not in the op-log"), all_mismatches(r));
}

TEST_CASE("verify lists at most its cap of mismatches and counts the rest") {
  fresh_store s;
  REQUIRE(s->create_collection("users").ok());
  s.db.reset();
  {
    raw_store raw(s.path);
    for (int i = 0; i < 130; ++i) {
      raw.put("docs", docs_key(1, std::to_string(i)), bson_of("{\"_id\":" + std::to_string(i) + "}"));
    }
  }
  s.reopen();
  auto r = verify_of(*s);
  CHECK_FALSE(r.ok);
  CHECK(r.mismatches.size() == store::verify_report::k_max_mismatches);
  CHECK(r.more_mismatches == 131 - store::verify_report::k_max_mismatches);  // + the counter
}

TEST_CASE("verify accepts validation rules in the op-log, and plans respect the rules") {
  fresh_store s;
  REQUIRE(s->define_collection("people", doc(R"({"properties":{"age":{"minimum":0}}})")).ok());
  REQUIRE(s->insert("people", doc(R"({"_id":1,"age":3})")).ok());
  auto r = verify_of(*s);
  CHECK_MESSAGE(r.ok, all_mismatches(r));

  store::plan_request p;
  p.filter = doc("{}");
  p.update = doc(R"({"$inc":{"age":-5}})");
  auto plan = s->plan_update("people", p);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message.find("breaks the validation rules of `people`") != std::string::npos);
}
