// bulk_write: parsing the program, one atomic transaction, later steps reading earlier writes,
// bounds, and a failing step that writes nothing.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

omgdb::result<std::vector<store::bulk_step>> parse(std::string_view ops, std::int64_t version = 1) {
  return store::parse_bulk(version, val(ops).as_array());
}

std::vector<store::bulk_step> program(std::string_view ops) {
  auto p = parse(ops);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  return std::move(*p);
}

std::string parse_error(std::string_view ops, std::int64_t version = 1) {
  auto p = parse(ops, version);
  return p.ok() ? "" : p.error().message;
}

}  // namespace

TEST_CASE("bulk_write programs are checked: version, ops, fields") {
  CHECK(parse_error("[]", 2) == "unsupported bulk_write version 2: this server understands version 1 "
                                "(see docs/bulk-write.md)");
  CHECK(parse_error(R"([{"op":"upsert","collection":"c"}])") ==
        "operations[0]: unknown op `upsert` (did you mean `insert`?)");
  CHECK(parse_error(R"([{"op":"update_one","collection":"c","filtr":{},"update":{}}])") ==
        "operations[0]: unknown field `filtr` for op `update_one` (did you mean `filter`?)");
  CHECK(parse_error(R"([{"op":"delete_many","collection":"c"}])") ==
        "operations[0]: missing `filter` for op `delete_many`");
  CHECK(parse_error(R"([{"op":"insert","document":{}}])") ==
        "operations[0]: missing `collection` (a non-empty string)");
  CHECK(parse_error(R"([5])") == "operations[0] must be an object");
  CHECK(parse_error(R"([{"op":"update_many","collection":"c","filter":{},"update":{},"upsertDocument":{}}])") != "");
  CHECK(parse_error(R"([{"op":"delete","collection":"c","id":[1]}])") != "");
  CHECK(program(R"([{"op":"insert","collection":"c","document":{"_id":1}}])").size() == 1);
}

TEST_CASE("later steps see earlier writes, and results come per step") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"n":1})")).ok());
  auto steps = program(R"([
    {"op":"insert","collection":"users","document":{"_id":2,"n":2}},
    {"op":"update_many","collection":"users","filter":{"n":{"$gte":1}},"update":{"$inc":{"n":10}}},
    {"op":"insert_many","collection":"logs","documents":[{"_id":"a"},{"_id":"b"}]},
    {"op":"delete","collection":"users","id":1},
    {"op":"insert","collection":"users","document":{"_id":1,"n":0}},
    {"op":"replace","collection":"users","id":2,"document":{"n":99}},
    {"op":"update_one","collection":"users","filter":{"_id":3},"update":{"$set":{"n":3}},"upsertDocument":{"_id":3}},
    {"op":"delete_many","collection":"logs","filter":{"_id":"a"}}
  ])");
  auto r = s->bulk_write(steps, {});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r->size() == 8);
  CHECK(to_json((*r)[0].inserted_ids.at(0)) == "2");
  CHECK((*r)[1].matched == 2);
  CHECK((*r)[1].modified == 2);
  CHECK((*r)[2].inserted_ids.size() == 2);
  CHECK((*r)[3].deleted == 1);
  CHECK((*r)[5].matched == 1);
  CHECK((*r)[5].modified == 1);
  REQUIRE((*r)[6].upserted_id.has_value());
  CHECK(to_json(*(*r)[6].upserted_id) == "3");
  CHECK((*r)[7].deleted == 1);
  CHECK(find_all(*s, "users") == "{\"_id\":1,\"n\":0}\n{\"_id\":2,\"n\":99}\n{\"_id\":3,\"n\":3}\n");
  CHECK(find_all(*s, "logs") == "{\"_id\":\"b\"}\n");
  auto cols = s->collections();
  REQUIRE(cols.ok());
  REQUIRE(cols->size() == 2);
  CHECK((*cols)[0].documents == 1);  // logs
  CHECK((*cols)[1].documents == 3);  // users
}

TEST_CASE("one bulk_write is one op-log batch") {
  fresh_store s;
  const std::size_t before = oplog_size(*s);
  auto r = s->bulk_write(program(R"([
    {"op":"insert","collection":"a","document":{"_id":1}},
    {"op":"update_one","collection":"a","filter":{"_id":1},"update":{"$set":{"x":1}}}
  ])"), {});
  REQUIRE(r.ok());
  auto log = s->oplog(0);
  REQUIRE(log.ok());
  REQUIRE(log->size() == before + 3);  // create_collection, insert, update
  for (const auto& rec : *log) CHECK(equal(*find_field(rec, "batch"), *find_field(log->back(), "batch")));
  CHECK(to_json(*find_field(log->back(), "op")) == "\"update\"");
}

TEST_CASE("an error in step k fails the whole program and writes nothing") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"n":"x"})")).ok());
  const std::string dump_before = dump_text(*s);
  const std::size_t log_before = oplog_size(*s);
  auto check_fails = [&](std::string_view ops, const std::string& message, store::bulk_options o = {}) {
    auto r = s->bulk_write(program(ops), o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == message);
    CHECK(dump_text(*s) == dump_before);
    CHECK(oplog_size(*s) == log_before);
  };
  check_fails(R"([{"op":"insert","collection":"users","document":{"_id":2}},
                  {"op":"insert","collection":"fresh","document":{"_id":1}},
                  {"op":"update_many","collection":"users","filter":{},"update":{"$inc":{"n":1}}}])",
              "operations[2] (update_many on `users`): cannot apply $inc to a value of non-numeric type: "
              "`n` has type string (document with _id 1)");
  check_fails(R"([{"op":"insert","collection":"users","document":{"_id":2}},
                  {"op":"insert","collection":"users","document":{"_id":2.0}}])",
              "operations[1] (insert on `users`): duplicate _id 2.0 in collection `users`");
  check_fails(R"([{"op":"insert_many","collection":"users","documents":[{"_id":5},{"$x":1}]}])",
              "operations[0] (insert_many on `users`): document 1: invalid field name `$x`: field names must "
              "not start with '$'");
  check_fails(R"([{"op":"replace","collection":"users","id":1,"document":{"_id":7}}])",
              "operations[0] (replace on `users`): _id is immutable");
  CHECK_FALSE(s->has_collection("fresh"));
}

TEST_CASE("bulk_write bounds: maxOperations, maxScannedDocumentsPerOperation, maxMutations") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1})", R"({"_id":2})", R"({"_id":3})"})).ok());
  const std::string dump_before = dump_text(*s);
  store::bulk_options o;
  o.max_operations = 1;
  auto too_many = s->bulk_write(program(R"([{"op":"delete","collection":"c","id":1},
                                            {"op":"delete","collection":"c","id":2}])"), o);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().message == "the program has 2 operations, more than maxOperations (1); nothing was written");

  o = {};
  o.max_scanned_documents_per_operation = 2;
  auto scanned = s->bulk_write(program(R"([{"op":"delete_many","collection":"c","filter":{"_id":{"$gt":0}}}])"), o);
  REQUIRE_FALSE(scanned.ok());
  CHECK(scanned.error().message == "operations[0] (delete_many on `c`): more than maxScannedDocumentsPerOperation "
                                   "(2) documents would be scanned; nothing was written");

  o = {};
  o.max_mutations = 2;
  auto mutations = s->bulk_write(program(R"([{"op":"delete","collection":"c","id":1},
                                             {"op":"insert","collection":"c","document":{"_id":9}},
                                             {"op":"delete","collection":"c","id":2}])"), o);
  REQUIRE_FALSE(mutations.ok());
  CHECK(mutations.error().message == "operations[2] (delete on `c`): more than maxMutations (2) documents would "
                                     "be written; nothing was written");
  CHECK(dump_text(*s) == dump_before);
  o.max_mutations = 3;
  CHECK(s->bulk_write(program(R"([{"op":"delete","collection":"c","id":1},
                                  {"op":"insert","collection":"c","document":{"_id":9}},
                                  {"op":"delete","collection":"c","id":2}])"), o).ok());
}

TEST_CASE("an empty program writes nothing and succeeds") {
  fresh_store s;
  const std::string dump_before = dump_text(*s);
  auto r = s->bulk_write({}, {});
  REQUIRE(r.ok());
  CHECK(r->empty());
  CHECK(dump_text(*s) == dump_before);
}
