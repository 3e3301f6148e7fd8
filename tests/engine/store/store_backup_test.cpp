// backup and restore: a backup taken while a writer runs is the store as of the seq it
// names; restore makes a new store and never overwrites one silently.
#include <unistd.h>

#include <atomic>
#include <thread>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

template <class T>
std::string error_of(const omgdb::result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

std::uint64_t seq_of(const document& record) {
  for (const auto& f : record) {
    if (f.name == "seq") return static_cast<std::uint64_t>(f.val.as_int64());
  }
  return 0;
}

const value* member(const document& d, std::string_view name) {
  for (const auto& f : d) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}

// A store holding what the source's op-log records up to `seq` say: its dump is the source's
// dump as of that seq.
std::string dump_as_of(const store& source, std::uint64_t seq) {
  fresh_store expected;
  auto log = source.oplog();
  REQUIRE(log.ok());
  for (const auto& rec : *log) {
    if (seq_of(rec) > seq) break;
    const std::string op = member(rec, "op")->as_string();
    const std::string coll = member(rec, "collection")->as_string();
    if (op == "create_collection") {
      REQUIRE(expected->create_collection(coll).ok());
    } else if (op == "insert") {
      REQUIRE(expected->insert(coll, member(rec, "after")->as_document()).ok());
    } else if (op == "update") {
      REQUIRE(expected->replace(coll, *member(rec, "_id"), member(rec, "after")->as_document()).ok());
    } else {
      FAIL("unexpected op " << op);
    }
  }
  return dump_text(*expected);
}

}  // namespace

TEST_CASE("a backup taken while a writer runs restores to the source's dump at the seq it prints") {
  fresh_store s;
  REQUIRE(s->insert("counters", doc(R"({"_id":"c","n":0})")).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      REQUIRE(s->insert("items", doc(R"({"_id":)" + std::to_string(i) + R"(,"pad":"xxxxxxxxxxxxxxxx"})")).ok());
      store::update_request u;
      u.filter = doc(R"({"_id":"c"})");
      u.update = doc(R"({"$inc":{"n":1}})");
      REQUIRE(s->update_one("counters", u).ok());
      writes.fetch_add(1);
    }
  });
  while (writes.load() < 50) std::this_thread::yield();
  const std::string backups = s.dir.sub("backups");
  auto b = s->backup(backups);
  const int at_backup = writes.load();
  while (writes.load() < at_backup + 50) std::this_thread::yield();
  stop = true;
  writer.join();
  REQUIRE_MESSAGE(b.ok(), error_of(b));
  CHECK(b->seq > 0);
  auto log = s->oplog();
  REQUIRE(log.ok());
  CHECK(b->seq < seq_of(log->back()));

  const std::string copy = s.dir.sub("restored.omgdb");
  auto r = store::restore(backups, copy, false);
  REQUIRE_MESSAGE(r.ok(), error_of(r));
  CHECK(r->seq == b->seq);
  auto restored = store::open(copy);
  REQUIRE(restored.ok());
  CHECK(dump_text(**restored) == dump_as_of(*s, b->seq));
  auto v = (*restored)->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("restore refuses an existing store unless forced, and then moves it aside instead of deleting it") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"name":"ana"})")).ok());
  const std::string backups = s.dir.sub("backups");
  REQUIRE(s->backup(backups).ok());
  const std::string other = s.dir.sub("other.omgdb");
  REQUIRE(store::create(other).ok());
  auto refused = store::restore(backups, other, false);
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("already exists") != std::string::npos);
  CHECK(refused.error().message.find("--force") != std::string::npos);

  auto forced = store::restore(backups, other, true);
  REQUIRE_MESSAGE(forced.ok(), error_of(forced));
  CHECK(fs::exists(fs::path(forced->moved_aside) / "CURRENT"));
  auto opened = store::open(other);
  REQUIRE(opened.ok());
  CHECK(dump_text(**opened) == dump_text(*s));

  auto held = store::restore(backups, s.path, true);  // `s` holds its lock
  REQUIRE(!held.ok());
  CHECK(held.error().message.find("in use") != std::string::npos);
}

TEST_CASE("a second backup of an unchanged store copies far less than the first and --keep purges old ones") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 5000; ++i) {
    many.push_back(doc(R"({"_id":)" + std::to_string(i) + R"(,"text":"some words that fill a table file up"})"));
  }
  REQUIRE(s->insert_many("notes", std::move(many)).ok());
  REQUIRE(s->flush().ok());
  const std::string backups = s.dir.sub("backups");
  auto first = s->backup(backups);
  REQUIRE_MESSAGE(first.ok(), error_of(first));
  auto second = s->backup(backups);
  REQUIRE_MESSAGE(second.ok(), error_of(second));
  CHECK(second->backup_id == first->backup_id + 1);
  CHECK(second->new_bytes * 4 < first->new_bytes);
  auto third = s->backup(backups, 2);
  REQUIRE(third.ok());
  CHECK(third->kept == 2);
  auto restored = store::restore(backups, s.dir.sub("r.omgdb"), false, first->backup_id);
  REQUIRE(!restored.ok());
  CHECK(restored.error().message.find("no backup " + std::to_string(first->backup_id)) != std::string::npos);
}

TEST_CASE("store_lock_holder names the process that holds a store, and nobody for a closed one") {
  fresh_store s;
  auto holder = store_lock_holder(s.path);
  REQUIRE(holder.has_value());
  CHECK(*holder == static_cast<long>(::getpid()));
  s.db.reset();
  CHECK(!store_lock_holder(s.path).has_value());
}
