// Validation rules in the store: define_collection, every write path refusing a document that
// breaks the rules (leaving the store byte-for-byte as before), and validate.
#include <fstream>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

const char* k_rules = R"({"required":["name"],"properties":{"age":{"bsonType":"int","minimum":0}}})";

void define(store& s, std::string_view spec = k_rules) {
  auto r = s.define_collection("people", doc(spec));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
}

// A store with rules and two valid documents.
struct ruled_store : fresh_store {
  ruled_store() {
    define(*db);
    REQUIRE(db->insert_many("people", docs({R"({"_id":1,"name":"ana","age":30})", R"({"_id":2,"name":"bo","age":5})"})).ok());
  }
};

// Runs `write`, which must fail with `message`, and checks nothing changed (data and op-log).
template <class Write>
void refused(store& s, Write&& write, const std::string& message) {
  const std::string before = dump_text(s);
  const std::size_t log_before = oplog_size(s);
  auto r = write();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == message);
  CHECK(dump_text(s) == before);
  CHECK(oplog_size(s) == log_before);
}

store::update_request update(std::string_view filter, std::string_view u) {
  store::update_request r;
  r.filter = doc(filter);
  r.update = doc(u);
  return r;
}

const std::string k_age_msg = "breaks the validation rules of `people`: field `age` must be at least 0 (minimum), got -1";

}  // namespace

TEST_CASE("define_collection catalogs a missing collection and reports removal of rules") {
  fresh_store s;
  auto r = s->define_collection("people", doc(k_rules));
  REQUIRE(r.ok());
  CHECK(r->created);
  CHECK_FALSE(r->removed);
  CHECK(s->has_collection("people"));
  auto spec = s->collection_rules("people");
  REQUIRE(spec.ok());
  REQUIRE(spec->has_value());
  CHECK(to_json(**spec) == to_json(doc(k_rules)));
  auto removed = s->define_collection("people", doc("{}"));
  REQUIRE(removed.ok());
  CHECK(removed->removed);
  CHECK_FALSE(s->collection_rules("people")->has_value());
  CHECK(s->insert("people", doc(R"({"age":-5})")).ok());
}

TEST_CASE("defining rules is op-logged, and the same rules twice write nothing") {
  fresh_store s;
  define(*s);
  auto log = s->oplog();
  REQUIRE(log.ok());
  REQUIRE(log->size() == 2);
  CHECK(to_json(*find_field(log->back(), "op")) == "\"define_collection\"");
  define(*s);
  CHECK(oplog_size(*s) == 2);
}

TEST_CASE("a bad spec and a malformed spec.unique are refused and write nothing") {
  fresh_store s;
  const std::string before = dump_text(*s);
  auto u = s->define_collection("people", doc(R"({"unique":"email"})"));
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().message.starts_with("spec.unique must be a non-empty array of field names"));
  CHECK_FALSE(s->define_collection("people", doc(R"({"properties":{"a":{"type":"int"}}})")).ok());
  CHECK_FALSE(s->has_collection("people"));
  CHECK(dump_text(*s) == before);
}

TEST_CASE("insert and insert_many refuse a violating document with its _id, field and rule") {
  ruled_store s;
  refused(*s, [&] { return s->insert("people", doc(R"({"_id":7,"name":"x","age":-1})")); },
          "document _id 7 " + k_age_msg);
  refused(*s, [&] { return s->insert("people", doc(R"({"_id":8})")); },
          "document _id 8 breaks the validation rules of `people`: field `name` is missing (required)");
  refused(*s, [&] {
    return s->insert_many("people", docs({R"({"_id":9,"name":"ok"})", R"({"_id":10,"name":"x","age":-1})"}));
  }, "document 1: document _id 10 " + k_age_msg);
}

TEST_CASE("replace refuses a violating replacement, but an unchanged document is not checked") {
  ruled_store s;
  refused(*s, [&] { return s->replace("people", val("1"), doc(R"({"name":"ana","age":-1})")); },
          "document _id 1 " + k_age_msg);
  // Rules tightened after the fact: rewriting the same bytes is a no-op, not a violation.
  define(*s, R"({"required":["name","email"]})");
  auto same = s->replace("people", val("1"), doc(R"({"name":"ana","age":30})"));
  REQUIRE(same.ok());
  CHECK(same->modified == 0);
}

TEST_CASE("update_one, update_many, upserts and find_one_and_update refuse violating results") {
  ruled_store s;
  refused(*s, [&] { return s->update_one("people", update(R"({"_id":2})", R"({"$inc":{"age":-10}})")); },
          "document _id 2 " + k_age_msg.substr(0, k_age_msg.size() - 2) + "-5 (document with _id 2)");
  // update_many: the first document is fine, the second breaks the rule; nothing is written.
  refused(*s, [&] { return s->update_many("people", update("{}", R"({"$inc":{"age":-6}})")); },
          "document _id 2 " + k_age_msg.substr(0, k_age_msg.size() - 2) + "-1 (document with _id 2)");
  refused(*s, [&] { return s->update_one("people", update("{}", R"({"$unset":{"name":""}})")); },
          "document _id 1 breaks the validation rules of `people`: field `name` is missing (required) "
          "(document with _id 1)");
  auto upsert = update(R"({"_id":50})", R"({"$set":{"age":3}})");
  upsert.upsert_document = doc(R"({"_id":50})");
  refused(*s, [&] { return s->update_one("people", upsert); },
          "upsertDocument: document _id 50 breaks the validation rules of `people`: field `name` is missing (required)");
  refused(*s, [&] { return s->find_one_and_update("people", update(R"({"_id":1})", R"({"$set":{"age":-1}})")); },
          "document _id 1 " + k_age_msg + " (document with _id 1)");
}

TEST_CASE("bulk_write refuses the whole program when one step writes a violating document") {
  ruled_store s;
  auto program = doc(R"({"ops":[
    {"op":"insert","collection":"people","document":{"_id":20,"name":"ok"}},
    {"op":"update_one","collection":"people","filter":{"_id":20},"update":{"$set":{"age":-1}}}]})");
  auto steps = store::parse_bulk(1, program[0].val.as_array());
  REQUIRE_MESSAGE(steps.ok(), (steps.ok() ? "" : steps.error().message));
  refused(*s, [&] { return s->bulk_write(*steps, {}); },
          "operations[1] (update_one on `people`): document _id 20 " + k_age_msg + " (document with _id 20)");
}

TEST_CASE("import_jsonl refuses the batch holding a violating line") {
  ruled_store s;
  const std::string file = s.dir.sub("in.jsonl");
  std::ofstream(file) << "{\"_id\":30,\"name\":\"a\"}\n{\"_id\":31,\"name\":\"b\",\"age\":-1}\n";
  const std::string before = dump_text(*s);
  auto r = s->import_jsonl("people", file, 10);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("document _id 31 " + k_age_msg) != std::string::npos);
  CHECK(dump_text(*s) == before);
}

TEST_CASE("dropping a collection drops its rules, so a new one of that name has none") {
  ruled_store s;
  REQUIRE(s->drop_collection("people").ok());
  CHECK(s->insert("people", doc(R"({"age":-1})")).ok());
  CHECK_FALSE(s->collection_rules("people")->has_value());
}

TEST_CASE("validate lists existing documents breaking rules defined after they were written") {
  fresh_store s;
  REQUIRE(s->insert_many("people", docs({R"({"_id":1,"name":"ana","age":30})", R"({"_id":2,"age":-3})",
                                         R"({"_id":3,"name":"c"})", R"({"_id":4,"age":"old"})"})).ok());
  define(*s);
  auto r = s->validate("people", 100);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->checked == 4);
  CHECK(r->violating == 2);
  REQUIRE(r->documents.size() == 2);
  CHECK(to_json(r->documents[0].id) == "2");
  CHECK(r->documents[0].reasons == std::vector<std::string>{"field `name` is missing (required)",
                                                            "field `age` must be at least 0 (minimum), got -3"});
  CHECK(to_json(r->documents[1].id) == "4");
  auto one = s->validate("people", 1);
  REQUIRE(one.ok());
  CHECK(one->violating == 2);
  CHECK(one->documents.size() == 1);
}

TEST_CASE("validate refuses an unknown collection and one without rules") {
  fresh_store s;
  REQUIRE(s->insert("people", doc(R"({"a":1})")).ok());
  auto none = s->validate("people", 10);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "collection `people` has no validation rules: define them with define_collection");
  auto unknown = s->validate("peple", 10);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.starts_with("collection `peple` does not exist"));
}

TEST_CASE("rules survive closing and reopening the store") {
  ruled_store s;
  s.reopen();
  CHECK_FALSE(s->insert("people", doc(R"({"age":1})")).ok());
}
