// insert, insert_many, replace, remove, create_collection, drop_collection and the op-log.
#include <thread>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

std::uint64_t count_of(store& s, std::string_view collection) {
  auto n = s.count(collection, {});
  REQUIRE(n.ok());
  return *n;
}

template <class T>
std::string error_of(const omgdb::result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

}  // namespace

TEST_CASE("insert assigns an ObjectId placed first") {
  fresh_store s;
  auto id = s->insert("users", doc(R"({"name":"ana","age":30})"));
  REQUIRE(id.ok());
  CHECK(id->type() == kind::object_id);
  auto got = s->get("users", *id);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  const document& d = **got;
  REQUIRE(d.size() == 3);
  CHECK(d[0].name == "_id");
  CHECK(equal(d[0].val, *id));
  CHECK(d[1].name == "name");
  CHECK(d[2].name == "age");

  auto second = s->insert("users", doc(R"({"name":"bo"})"));
  REQUIRE(second.ok());
  CHECK_FALSE(equal(*id, *second));
}

TEST_CASE("insert moves a given _id to the front") {
  fresh_store s;
  auto id = s->insert("users", doc(R"({"name":"ana","_id":"a1"})"));
  REQUIRE(id.ok());
  CHECK(to_json(*id) == R"("a1")");
  CHECK(find_all(*s, "users") == "{\"_id\":\"a1\",\"name\":\"ana\"}\n");
}

TEST_CASE("a duplicate _id writes nothing") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":5,"name":"ana"})")).ok());
  std::string dump_before = dump_text(*s);
  std::size_t log_before = oplog_size(*s);

  auto dup = s->insert("users", doc(R"({"_id":5,"name":"other"})"));
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "duplicate _id 5 in collection `users`");
  CHECK(count_of(*s, "users") == 1);
  CHECK(dump_text(*s) == dump_before);
  CHECK(oplog_size(*s) == log_before);
}

TEST_CASE("1, 1.0 and NumberLong(1) are the same _id") {
  fresh_store s;
  REQUIRE(s->insert("n", doc(R"({"_id":1})")).ok());
  auto as_double = s->insert("n", doc(R"({"_id":1.0})"));
  REQUIRE_FALSE(as_double.ok());
  CHECK(as_double.error().message == "duplicate _id 1.0 in collection `n`");
  CHECK_FALSE(s->insert("n", doc(R"({"_id":{"$numberLong":"1"}})")).ok());

  auto got = s->get("n", val("1.0"));
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((**got)[0].val.is_int32());  // the stored type is kept
  CHECK(count_of(*s, "n") == 1);
}

TEST_CASE("insert refuses bad _id values and field names") {
  fresh_store s;
  CHECK(error_of(s->insert("c", doc(R"({"_id":[1,2]})"))) == "_id cannot be an array");
  CHECK(error_of(s->insert("c", doc(R"({"_id":{"$regularExpression":{"pattern":"a","options":""}}})"))) ==
        "_id cannot be a regular expression");
  CHECK(error_of(s->insert("c", doc(R"({"$set":1})"))) ==
        "invalid field name `$set`: field names must not start with '$'");
  CHECK(error_of(s->insert("c", doc(R"({"a.b":1})"))) ==
        "invalid field name `a.b`: field names must not contain '.'");
  CHECK(error_of(s->insert("c", doc(R"({"a":{"b":[{"$x":1}]}})"))) ==
        "invalid field name `a.b.0.$x`: field names must not start with '$'");
  CHECK(error_of(s->insert("c", doc(R"({"_id":{"$inc":1}})"))) ==
        "invalid field name `_id.$inc`: field names must not start with '$'");
  // Nothing was written, not even the collection.
  CHECK_FALSE(s->has_collection("c"));
  CHECK(oplog_size(*s) == 0);
}

TEST_CASE("invalid collection names are refused with the rule they break") {
  fresh_store s;
  auto message = [&](std::string_view name) { return error_of(s->insert(name, doc("{}"))); };
  CHECK(message("") == "invalid collection name: it must not be empty");
  CHECK(message(std::string(121, 'a')).find("at most 120 bytes") != std::string::npos);
  CHECK(message("a$b") == "invalid collection name `a$b`: it must not contain '$'");
  CHECK(message("system.users") ==
        "invalid collection name `system.users`: names starting with `system.` are reserved");
  CHECK(message(".a") == "invalid collection name `.a`: it must not start with '.'");
  CHECK(message("a.") == "invalid collection name `a.`: it must not end with '.'");
  CHECK(message(std::string("a\0b", 3)).find("NUL") != std::string::npos);
  CHECK(message("\xff") == "invalid collection name: it must be valid UTF-8");
  CHECK(s->insert(std::string(120, 'a'), doc("{}")).ok());
  CHECK(s->insert("a.b", doc("{}")).ok());
  CHECK(s->insert("üñí", doc("{}")).ok());
}

TEST_CASE("insert_many finds a stored duplicate below or at the last stored _id, and accepts new ones around it") {
  // The store is read for duplicates only up to the collection's last stored key.
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1})")).ok());
  REQUIRE(s->insert("users", doc(R"({"_id":4})")).ok());
  auto dup_below = s->insert_many("users", docs({R"({"_id":9})", R"({"_id":1.0})"}));
  REQUIRE_FALSE(dup_below.ok());
  CHECK(dup_below.error().message == "document 1: duplicate _id 1.0 in collection `users`");
  auto dup_last = s->insert_many("users", docs({R"({"_id":0})", R"({"_id":4})"}));
  REQUIRE_FALSE(dup_last.ok());
  CHECK(dup_last.error().message == "document 1: duplicate _id 4 in collection `users`");
  REQUIRE(s->insert_many("users", docs({R"({"_id":3})", R"({"_id":10})", R"({"_id":-1})"})).ok());
  CHECK(count_of(*s, "users") == 5);
  auto dup_new_last = s->insert_many("users", docs({R"({"_id":10.0})"}));
  REQUIRE_FALSE(dup_new_last.ok());
  CHECK(dup_new_last.error().message == "document 0: duplicate _id 10.0 in collection `users`");
}

TEST_CASE("insert_many with one bad document writes nothing") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1})")).ok());
  std::string dump_before = dump_text(*s);
  std::size_t log_before = oplog_size(*s);

  auto bad = s->insert_many("users", docs({R"({"_id":2})", R"({"_id":3})", R"({"a.b":1})"}));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "document 2: invalid field name `a.b`: field names must not contain '.'");

  auto dup_stored = s->insert_many("users", docs({R"({"_id":2})", R"({"_id":1})"}));
  REQUIRE_FALSE(dup_stored.ok());
  CHECK(dup_stored.error().message == "document 1: duplicate _id 1 in collection `users`");

  auto dup_batch = s->insert_many("users", docs({R"({"_id":7})", R"({"x":1})", R"({"_id":7.0})"}));
  REQUIRE_FALSE(dup_batch.ok());
  CHECK(dup_batch.error().message == "document 2: duplicate _id 7.0 in collection `users`");

  auto fresh = s->insert_many("other", docs({R"({"_id":1})", R"({"_id":1})"}));
  REQUIRE_FALSE(fresh.ok());
  CHECK_FALSE(s->has_collection("other"));

  CHECK(dump_text(*s) == dump_before);
  CHECK(oplog_size(*s) == log_before);
  CHECK(count_of(*s, "users") == 1);

  auto good = s->insert_many("users", docs({R"({"_id":2})", R"({"x":1})", R"({"_id":"z"})"}));
  REQUIRE(good.ok());
  REQUIRE(good->size() == 3);
  CHECK(to_json((*good)[0]) == "2");
  CHECK((*good)[1].type() == kind::object_id);
  CHECK(count_of(*s, "users") == 4);
}

TEST_CASE("insert_many stops and writes nothing when cancelled") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 600; ++i) many.push_back(document{field{"_id", value(i)}});
  std::atomic<bool> cancelled{false};
  std::uint64_t calls = 0;
  scan_control control;
  control.cancelled = &cancelled;
  control.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(total == 600);
    if (++calls == 2) cancelled = true;
  };
  auto r = s->insert_many("big", many, control);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "cancelled");
  CHECK_FALSE(s->has_collection("big"));

  auto ok = s->insert_many("big", many);
  REQUIRE(ok.ok());
  CHECK(count_of(*s, "big") == 600);
}

TEST_CASE("replace keeps _id and refuses a different one") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"name":"ana","age":30})")).ok());

  auto r = s->replace("users", val("1.0"), doc(R"({"name":"ana b","_id":1})"));
  REQUIRE(r.ok());
  CHECK(r->matched == 1);
  CHECK(r->modified == 1);
  CHECK(find_all(*s, "users") == "{\"_id\":1,\"name\":\"ana b\"}\n");

  auto same = s->replace("users", val("1"), doc(R"({"name":"ana b"})"));
  REQUIRE(same.ok());
  CHECK(same->matched == 1);
  CHECK(same->modified == 0);

  auto other = s->replace("users", val("1"), doc(R"({"_id":2,"name":"x"})"));
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().message == "_id is immutable");

  auto bad = s->replace("users", val("1"), doc(R"({"$set":{"a":1}})"));
  REQUIRE_FALSE(bad.ok());

  auto missing = s->replace("users", val("9"), doc(R"({"a":1})"));
  REQUIRE(missing.ok());
  CHECK(missing->matched == 0);
  auto no_collection = s->replace("nobody", val("1"), doc(R"({"a":1})"));
  REQUIRE(no_collection.ok());
  CHECK(no_collection->matched == 0);
  CHECK(find_all(*s, "users") == "{\"_id\":1,\"name\":\"ana b\"}\n");
}

TEST_CASE("delete then get gives nullopt") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1})", R"({"_id":2})"})).ok());
  auto n = s->remove("users", val("1"));
  REQUIRE(n.ok());
  CHECK(*n == 1);
  auto got = s->get("users", val("1"));
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  CHECK(count_of(*s, "users") == 1);
  auto again = s->remove("users", val("1"));
  REQUIRE(again.ok());
  CHECK(*again == 0);
  auto unknown = s->remove("nobody", val("1"));
  REQUIRE(unknown.ok());
  CHECK(*unknown == 0);
  auto cols = s->collections();
  REQUIRE(cols.ok());
  REQUIRE(cols->size() == 1);
  CHECK((*cols)[0].documents == 1);
}

TEST_CASE("create_collection catalogs an empty collection once") {
  fresh_store s;
  auto first = s->create_collection("users");
  REQUIRE(first.ok());
  CHECK(*first);
  auto second = s->create_collection("users");
  REQUIRE(second.ok());
  CHECK_FALSE(*second);
  CHECK(s->has_collection("users"));
  CHECK(dump_text(*s) == "{\"collection\":\"users\",\"count\":0}\n");
  CHECK(oplog_size(*s) == 1);
}

TEST_CASE("drop_collection removes documents and the catalog entry") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1})", R"({"_id":2})", R"({"_id":3})"})).ok());
  REQUIRE(s->insert("orders", doc(R"({"_id":1})")).ok());
  auto dropped = s->drop_collection("users");
  REQUIRE(dropped.ok());
  CHECK(*dropped == 3);
  CHECK_FALSE(s->has_collection("users"));
  CHECK(dump_text(*s) ==
        "{\"collection\":\"orders\",\"count\":1}\n{\"_id\":{\"$numberInt\":\"1\"}}\n");
  auto got = s->get("users", val("1"));
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());

  // A collection created again under the same name starts empty.
  REQUIRE(s->insert("users", doc(R"({"_id":9})")).ok());
  CHECK(find_all(*s, "users") == "{\"_id\":9}\n");
  CHECK(count_of(*s, "users") == 1);

  s.db.reset();
  {
    raw_db raw(s.path);
    // The dropped collection's range was deleted: orders 1 and the new users 9 remain.
    CHECK(raw.keys("docs").size() == 2);
  }
}

TEST_CASE("dropping an unknown collection suggests a close name") {
  fresh_store s;
  REQUIRE(s->insert("users", doc("{}")).ok());
  CHECK(error_of(s->drop_collection("userz")) ==
        "collection `userz` does not exist; did you mean `users`?");
  CHECK(error_of(s->drop_collection("USERS")) ==
        "collection `USERS` does not exist; did you mean `users`?");
  CHECK(error_of(s->drop_collection("orders")) == "collection `orders` does not exist");
  CHECK(count_of(*s, "users") == 1);
}

TEST_CASE("op-log records are written with their change, one batch per call") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"a":1})")).ok());            // create + insert
  REQUIRE(s->insert_many("users", docs({R"({"_id":2})", R"({"_id":3})"})).ok());  // 2 inserts
  REQUIRE(s->replace("users", val("1"), doc(R"({"a":2})")).ok());         // replace
  REQUIRE(s->remove("users", val("2")).ok());                              // delete
  REQUIRE(s->remove("users", val("2")).ok());                              // nothing
  REQUIRE(s->drop_collection("users").ok());                               // one drop record

  auto log = s->oplog();
  REQUIRE(log.ok());
  std::vector<std::string> ops;
  std::vector<std::int64_t> batches;
  for (const auto& rec : *log) {
    ops.push_back(find_field(rec, "op")->as_string());
    batches.push_back(find_field(rec, "batch")->as_int64());
    CHECK(find_field(rec, "collection")->as_string() == "users");
    CHECK(find_field(rec, "ts") != nullptr);
  }
  CHECK(ops == std::vector<std::string>{"create_collection", "insert", "insert", "insert",
                                        "replace", "delete", "drop_collection"});
  CHECK(batches == std::vector<std::int64_t>{1, 1, 2, 2, 3, 4, 5});

  const document& insert = (*log)[1];
  CHECK(to_json(*find_field(insert, "_id")) == "1");
  CHECK(find_field(insert, "before") == nullptr);
  CHECK(to_json(*find_field(insert, "after")) == R"({"_id":1,"a":1})");
  const document& replace = (*log)[4];
  CHECK(to_json(*find_field(replace, "before")) == R"({"_id":1,"a":1})");
  CHECK(to_json(*find_field(replace, "after")) == R"({"_id":1,"a":2})");
  const document& del = (*log)[5];
  CHECK(to_json(*find_field(del, "before")) == R"({"_id":2})");
  CHECK(find_field(del, "after") == nullptr);
  const document& drop = (*log)[6];
  CHECK(find_field(drop, "count")->as_int64() == 2);
  CHECK(find_field(drop, "_id") == nullptr);

  auto tail = s->oplog(5, 1);
  REQUIRE(tail.ok());
  REQUIRE(tail->size() == 1);
  CHECK(find_field(tail->front(), "seq")->as_int64() == 6);
}

TEST_CASE("a document over 16 MiB is refused") {
  fresh_store s;
  document big{field{"blob", value(std::string(17u << 20, 'x'))}};
  auto r = s->insert("big", std::move(big));
  CHECK_FALSE(r.ok());
  CHECK_FALSE(s->has_collection("big"));
}

TEST_CASE("concurrent writers and readers share one store safely") {
  fresh_store s;
  constexpr int writers = 4, per_writer = 25;
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_writer; ++i) {
        auto r = s->insert("c", document{field{"_id", value(t * 1000 + i)}, field{"t", value(t)}});
        if (!r.ok()) ++errors;
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!done) {
        auto page = s->find("c", {});
        auto n = s->count("c", {});
        if (!page.ok() || !n.ok()) ++errors;
        // One snapshot per dump: the header's count matches the documents that follow.
        std::uint64_t header = 0, lines = 0;
        auto d = s->dump([&](std::string_view line) {
          if (auto at = line.find("\"count\":"); line.starts_with("{\"collection\"") && at != line.npos) {
            header = std::stoull(std::string(line.substr(at + 8)));
          } else {
            ++lines;
          }
          return true;
        });
        if (!d.ok() || header != lines) ++errors;
      }
    });
  }
  for (int t = 0; t < writers; ++t) threads[static_cast<std::size_t>(t)].join();
  done = true;
  for (std::size_t i = writers; i < threads.size(); ++i) threads[i].join();
  CHECK(errors == 0);
  CHECK(count_of(*s, "c") == writers * per_writer);
  CHECK(oplog_size(*s) == writers * per_writer + 1);
  auto log = s->oplog();
  REQUIRE(log.ok());
  for (std::size_t i = 0; i < log->size(); ++i) {
    CHECK(find_field((*log)[i], "seq")->as_int64() == static_cast<std::int64_t>(i + 1));
  }
}
