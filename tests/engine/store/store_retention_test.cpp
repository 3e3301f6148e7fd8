// op-log retention: trimming bounds the store on disk, verify stays a proof from the trim
// point, and what needs a trimmed record (rollback, reading the op-log there) is refused.
#include <chrono>
#include <thread>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

template <class T>
std::string error_of(const omgdb::result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

std::uint64_t dir_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

void seed(store& s, int n) {
  std::vector<document> many;
  for (int i = 0; i < n; ++i) {
    many.push_back(doc(R"({"_id":)" + std::to_string(i) +
                       R"(,"n":0,"name":"a document of a small collection, updated over and over"})"));
  }
  REQUIRE(s.insert_many("small", std::move(many)).ok());
}

void bump(store& s, int id) {
  store::update_request u;
  u.filter = doc(R"({"_id":)" + std::to_string(id) + "}");
  u.update = doc(R"({"$inc":{"n":1}})");
  auto r = s.update_one("small", u);
  REQUIRE_MESSAGE(r.ok(), error_of(r));
}

}  // namespace

TEST_CASE("retention keeps a store within 3x its compacted size over 20,000 updates, and verify stays clean") {
  fresh_store s;
  seed(*s, 1000);
  REQUIRE(s->set_retention({.max_bytes = 256 << 10, .max_age_seconds = 0}).ok());
  for (int i = 0; i < 20000; ++i) {
    bump(*s, (i * 7) % 1000);
    if (i % 4000 == 3999) REQUIRE(s->trim_oplog().ok());
  }
  auto t = s->trim_oplog();
  REQUIRE_MESSAGE(t.ok(), error_of(t));
  CHECK(s->oplog_trimmed_through() > 15000);  // 21,001 records, ~1,200 of them kept
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
  CHECK(v->verified_from == s->oplog_trimmed_through() + 1);
  CHECK(v->oplog_records > 0);
  CHECK(v->oplog_records < 5000);
  const std::string dumped = dump_text(*s);
  s.db.reset();
  const std::uint64_t kept = dir_bytes(s.path);

  // The same data, compacted, with no op-log at all.
  fresh_store ref;
  std::size_t pos = 0;
  REQUIRE(ref->load([&](std::string& line) -> omgdb::result<bool> {
                if (pos >= dumped.size()) return false;
                auto nl = dumped.find('\n', pos);
                line.assign(dumped, pos, nl - pos);
                pos = nl + 1;
                return true;
              })
              .ok());
  REQUIRE(ref->set_retention({.max_bytes = 1, .max_age_seconds = 0}).ok());
  REQUIRE(ref->trim_oplog().ok());
  REQUIRE(ref->compact().ok());
  ref.db.reset();
  const std::uint64_t compacted = dir_bytes(ref.path);
  MESSAGE("store with retention: " << kept << " bytes; compacted without op-log: " << compacted << " bytes");
  CHECK(kept <= 3 * compacted);
}

TEST_CASE("verify after a trim still finds a document changed behind the store's back") {
  fresh_store s;
  seed(*s, 50);
  REQUIRE(s->set_retention({.max_bytes = 4096, .max_age_seconds = 0}).ok());
  for (int i = 0; i < 500; ++i) bump(*s, i % 50);
  REQUIRE(s->trim_oplog().ok());
  REQUIRE(s->oplog_trimmed_through() > 0);
  auto clean = s->verify();
  REQUIRE(clean.ok());
  CHECK(clean->ok);
  s.db.reset();
  {
    raw_store raw(s.path);
    std::string key = {0, 0, 0, 1};
    key += encode_key(val("3"));
    auto forged = to_bson(doc(R"({"_id":3,"n":999,"name":"forged"})"));
    REQUIRE(forged.ok());
    raw.put("docs", key, *forged);
  }
  s.reopen();
  auto dirty = s->verify();
  REQUIRE(dirty.ok());
  CHECK(!dirty->ok);
  REQUIRE(!dirty->mismatches.empty());
  // The forged document is in no kept record: the digest at the trim point gives it away.
  CHECK_MESSAGE(dirty->mismatches.front().find("collection `small`") != std::string::npos, dirty->mismatches.front());
  CHECK(dirty->mismatches.front().find("checkpoint") != std::string::npos);
}

TEST_CASE("rollback of a change older than the op-log keeps is refused naming the retention, writing nothing") {
  fresh_store s;
  seed(*s, 20);
  store::plan_request p;
  p.filter = doc(R"({"_id":{"$lt":5}})");
  p.update = doc(R"({"$set":{"flag":true}})");
  auto plan = s->plan_update("small", p);
  REQUIRE(plan.ok());
  auto applied = s->apply(plan->token);
  REQUIRE(applied.ok());
  REQUIRE(s->set_retention({.max_bytes = 2048, .max_age_seconds = 0}).ok());
  for (int i = 0; i < 200; ++i) bump(*s, 10 + i % 10);
  REQUIRE(s->trim_oplog().ok());
  const std::string before = dump_text(*s);
  auto r = s->rollback(applied->change_id);
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("older than the op-log keeps") != std::string::npos);
  CHECK(r.error().message.find("retention keeps the newest 2 KiB of records") != std::string::npos);
  CHECK(r.error().message.find("nothing was rolled back") != std::string::npos);
  CHECK(dump_text(*s) == before);

  auto log = s->oplog(1);
  REQUIRE(!log.ok());
  CHECK(log.error().message.find("was trimmed") != std::string::npos);
  CHECK(s->oplog(s->oplog_trimmed_through()).ok());
}

TEST_CASE("a recent change can still be rolled back after a trim that keeps it") {
  fresh_store s;
  seed(*s, 20);
  REQUIRE(s->set_retention({.max_bytes = 64 << 10, .max_age_seconds = 0}).ok());
  for (int i = 0; i < 300; ++i) bump(*s, i % 20);
  store::plan_request p;
  p.filter = doc(R"({"_id":{"$lt":5}})");
  p.update = doc(R"({"$set":{"flag":true}})");
  auto plan = s->plan_update("small", p);
  REQUIRE(plan.ok());
  auto applied = s->apply(plan->token);
  REQUIRE(applied.ok());
  REQUIRE(s->trim_oplog().ok());
  CHECK(s->oplog_trimmed_through() > 0);
  auto r = s->rollback(applied->change_id);
  REQUIRE_MESSAGE(r.ok(), error_of(r));
  CHECK(r->restored == 5);
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("the background trimmer applies the retention after enough op-log was written") {
  fresh_store s;
  seed(*s, 100);
  REQUIRE(s->set_retention({.max_bytes = 8 << 10, .max_age_seconds = 0}).ok());
  s->auto_trim(16 << 10);
  for (int i = 0; i < 400; ++i) bump(*s, i % 100);
  for (int i = 0; i < 200 && s->oplog_trimmed_through() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  CHECK(s->oplog_trimmed_through() > 0);
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("a trim with nothing outside the retention trims nothing, and the default retention is 64 MiB or the live data") {
  fresh_store s;
  seed(*s, 10);
  auto r = s->retention_setting();
  REQUIRE(r.ok());
  CHECK(r->max_bytes == 0);
  auto t = s->trim_oplog();
  REQUIRE(t.ok());
  CHECK(t->records == 0);
  CHECK(t->limit_bytes == store::retention::k_retention_floor_bytes);
  CHECK(s->oplog_trimmed_through() == 0);
  CHECK(oplog_size(*s) == 11);
}
