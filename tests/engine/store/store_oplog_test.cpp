// The op-log records of engine/store/store_oplog.cpp as their readers see them: an update's after
// image written as a patch of its before image (`afterPatch`) reads back everywhere as the
// full `after` it stands for (store::oplog, verify, rollback next to such records), records
// in the earlier form (full `after`) read the same, a patch that does not fit is reported as
// corruption, and a failed update leaves every byte of the store as it was.
#include <doctest/doctest.h>

#include <bson/bson.h>

#include <string>

#include "engine/bson/bson_codec.hpp"
#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

void seed(fresh_store& s, int n) {
  std::vector<document> all;
  for (int i = 1; i <= n; ++i) {
    all.push_back(doc(R"({"_id":)" + std::to_string(i) + R"(,"name":"user )" + std::to_string(i) +
                      R"(","age":)" + std::to_string(i) + R"(,"tags":["a","b"],"address":{"zip":"1000"}})"));
  }
  REQUIRE(s->insert_many("users", std::move(all)).ok());
}

void inc_age(fresh_store& s) {
  store::update_request r;
  r.update = doc(R"({"$inc":{"age":1}})");
  auto u = s->update_many("users", r);
  REQUIRE_MESSAGE(u.ok(), (u.ok() ? "" : u.error().message));
}

bool has_key(std::string_view record, const char* key) {
  bson_iter_t it;
  return bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(record.data()), record.size()) &&
         bson_iter_find(&it, key);
}

std::string all_records(const store& s) {
  auto log = s.oplog();
  REQUIRE(log.ok());
  std::string out;
  for (const auto& rec : *log) out += to_json(value(rec)) + "\n";
  return out;
}

bool verify_clean(store& s) {
  auto r = s.verify();
  REQUIRE(r.ok());
  return r->ok;
}

}  // namespace

TEST_CASE("an update's after image is stored as a patch and read back as the whole document") {
  fresh_store s;
  seed(s, 20);
  const std::size_t before_update = oplog_size(*s);
  inc_age(s);
  auto log = s->oplog(before_update);
  REQUIRE(log.ok());
  REQUIRE(log->size() == 20);
  for (const auto& rec : *log) {
    const value* id = find_field(rec, "_id");
    REQUIRE(id != nullptr);
    const value* after = find_field(rec, "after");
    REQUIRE(after != nullptr);
    CHECK(find_field(rec, "afterPatch") == nullptr);
    auto live = s->find("users", {.filter = document{field{"_id", *id}}});
    REQUIRE(live.ok());
    CHECK(to_json(*after) + "\n" == live->ndjson);
    const int n = std::stoi(to_json(*id));
    CHECK(to_json(*find_field(after->as_document(), "age")) == std::to_string(n + 1));
    CHECK(to_json(*find_field(find_field(rec, "before")->as_document(), "age")) == std::to_string(n));
  }
  CHECK(verify_clean(*s));

  // On disk the update records hold the patch, and are much smaller than the inserts'.
  auto state = stored_state(s);
  std::size_t patched = 0;
  for (const auto& [key, bytes] : state["oplog"]) {
    if (has_key(bytes, "afterPatch")) {
      ++patched;
      CHECK_FALSE(has_key(bytes, "after"));
      CHECK(has_key(bytes, "before"));
    }
  }
  CHECK(patched == 20);
}

TEST_CASE("records holding the whole after image, as earlier stores have them, read the same") {
  fresh_store s;
  seed(s, 10);
  inc_age(s);
  const std::string shown = all_records(*s);
  auto log = s->oplog();
  REQUIRE(log.ok());
  s.db.reset();
  {
    // Every record rewritten in the earlier form: `after` in place of `afterPatch`.
    raw_store raw(s.path);
    std::uint64_t seq = 0;
    for (const auto& rec : *log) {
      ++seq;
      std::string key;
      for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>((seq >> (8 * i)) & 0xff));
      auto bytes = to_bson(rec);
      REQUIRE(bytes.ok());
      raw.put("oplog", key, *bytes);
    }
    for (const auto& [key, bytes] : raw.entries("oplog")) CHECK_FALSE(has_key(bytes, "afterPatch"));
  }
  s.reopen();
  CHECK(all_records(*s) == shown);
  CHECK(verify_clean(*s));
}

TEST_CASE("rollback and verify work on a store whose update records are patches") {
  fresh_store s;
  seed(s, 6);
  inc_age(s);
  inc_age(s);
  const std::string live = find_all(*s, "users");
  store::plan_request p;
  p.filter = doc(R"({"age":{"$gt":4}})");
  p.update = doc(R"({"$set":{"old":true},"$inc":{"age":10}})");
  auto plan = s->plan_update("users", p);
  REQUIRE(plan.ok());
  auto applied = s->apply(plan->token);
  REQUIRE(applied.ok());
  CHECK(applied->modified == 4);
  CHECK(verify_clean(*s));
  inc_age(s);  // more patched records after the change's own
  auto undo = s->rollback(applied->change_id);
  CHECK_FALSE(undo.ok());  // changed after the apply: refused, nothing written
  CHECK(verify_clean(*s));

  fresh_store t;
  seed(t, 6);
  inc_age(t);
  const std::string then = find_all(*t, "users");
  auto plan2 = t->plan_update("users", p);
  REQUIRE(plan2.ok());
  auto applied2 = t->apply(plan2->token);
  REQUIRE(applied2.ok());
  auto undo2 = t->rollback(applied2->change_id);
  REQUIRE_MESSAGE(undo2.ok(), (undo2.ok() ? "" : undo2.error().message));
  CHECK(undo2->restored == 3);
  CHECK(find_all(*t, "users") == then);
  CHECK(verify_clean(*t));
  CHECK(live != then);
}

TEST_CASE("a patch that does not fit its before image is reported as a corrupt record") {
  fresh_store s;
  seed(s, 3);
  inc_age(s);
  s.db.reset();
  {
    raw_store raw(s.path);
    auto entries = raw.entries("oplog");
    auto [key, bytes] = entries.back();
    const std::size_t at = bytes.find(std::string("afterPatch\0", 11));
    REQUIRE(at != std::string::npos);
    const std::size_t prefix = at + 11 + 4 + 1;  // the binary's length and subtype
    bytes[prefix + 1] = 0x7f;                    // prefix length far past the before image
    raw.put("oplog", key, bytes);
  }
  s.reopen();
  auto r = s->verify();
  REQUIRE(r.ok());
  CHECK_FALSE(r->ok);
  REQUIRE_FALSE(r->mismatches.empty());
  CHECK(r->mismatches.front().find("is corrupt") != std::string::npos);
  auto log = s->oplog();
  REQUIRE_FALSE(log.ok());
  CHECK(log.error().message.find("corrupt op-log record") != std::string::npos);
}

TEST_CASE("an update_many that fails on its last document leaves every byte of the store as it was") {
  fresh_store s;
  seed(s, 50);
  inc_age(s);  // patched records already in the op-log
  REQUIRE(s->insert("users", doc(R"({"_id":51,"age":"unknown"})")).ok());
  const auto state = stored_state(s);
  store::update_request r;
  r.update = doc(R"({"$inc":{"age":1}})");
  auto u = s->update_many("users", r);
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().message.find("(document with _id 51)") != std::string::npos);
  CHECK(stored_state(s) == state);
  CHECK(verify_clean(*s));
}
