// update_one, update_many, delete_many, find_one_and_update on a real store: `_id` order,
// upserts from an explicit seed, bounds, op-log records, and failed writes that change nothing.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::update_request upd(std::string_view filter, std::string_view update) {
  store::update_request r;
  r.filter = doc(filter);
  r.update = doc(update);
  return r;
}

void seed_users(store& s) {
  REQUIRE(s.insert_many("users", docs({R"({"_id":3,"name":"cy","age":40})", R"({"_id":1,"name":"ana","age":30})",
                                       R"({"_id":2,"name":"bo","age":17})", R"({"_id":4,"name":"di","age":"n/a"})"}))
              .ok());
}

// Runs `write`, which must fail with `message`, and checks that the store is unchanged.
template <class Write>
void fails_without_writing(fresh_store& s, Write&& write, const std::string& message) {
  const std::string before = dump_text(*s);
  const std::size_t log_before = oplog_size(*s);
  auto r = write();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == message);
  CHECK(dump_text(*s) == before);
  CHECK(oplog_size(*s) == log_before);
  s.reopen();
  CHECK(dump_text(*s) == before);
}

}  // namespace

TEST_CASE("update_one changes the first match in _id order") {
  fresh_store s;
  seed_users(*s);
  auto r = s->update_one("users", upd(R"({"age":{"$gte":18}})", R"({"$set":{"adult":true}})"));
  REQUIRE(r.ok());
  CHECK(r->matched == 1);
  CHECK(r->modified == 1);
  CHECK_FALSE(r->upserted_id.has_value());
  CHECK(find_all(*s, "users", find_options{doc(R"({"adult":true})")}) ==
        "{\"_id\":1,\"name\":\"ana\",\"age\":30,\"adult\":true}\n");
}

TEST_CASE("an update that changes nothing matches but does not modify or log") {
  fresh_store s;
  seed_users(*s);
  const std::size_t log_before = oplog_size(*s);
  auto r = s->update_many("users", upd(R"({"_id":{"$lt":3}})", R"({"$set":{"name":"ana"}})"));
  REQUIRE(r.ok());
  CHECK(r->matched == 2);
  CHECK(r->modified == 1);
  CHECK(oplog_size(*s) == log_before + 1);
}

TEST_CASE("update_one without a match and without a seed does not upsert") {
  fresh_store s;
  seed_users(*s);
  const std::string before = dump_text(*s);
  auto r = s->update_one("users", upd(R"({"name":"zed"})", R"({"$set":{"age":1}})"));
  REQUIRE(r.ok());
  CHECK(r->matched == 0);
  CHECK(r->modified == 0);
  CHECK(dump_text(*s) == before);
  auto missing = s->update_one("nobody", upd("{}", R"({"$set":{"a":1}})"));
  REQUIRE(missing.ok());
  CHECK(missing->matched == 0);
  CHECK_FALSE(s->has_collection("nobody"));
}

TEST_CASE("update_one inserts the upsert seed with the update applied in inserting mode") {
  fresh_store s;
  auto r = upd(R"({"name":"zed"})", R"({"$set":{"age":5},"$setOnInsert":{"created":true}})");
  r.upsert_document = doc(R"({"name":"zed","_id":"z"})");
  auto out = s->update_one("people", r);
  REQUIRE(out.ok());
  CHECK(out->matched == 0);
  CHECK(out->modified == 0);
  REQUIRE(out->upserted_id.has_value());
  CHECK(to_json(*out->upserted_id) == "\"z\"");
  CHECK(find_all(*s, "people") == "{\"_id\":\"z\",\"name\":\"zed\",\"age\":5,\"created\":true}\n");
  // Now it matches: no upsert, and $setOnInsert does nothing.
  auto again = s->update_one("people", r);
  REQUIRE(again.ok());
  CHECK(again->matched == 1);
  CHECK(again->modified == 0);
  CHECK_FALSE(again->upserted_id.has_value());
}

TEST_CASE("an upsert seed without _id gets an ObjectId") {
  fresh_store s;
  auto r = upd(R"({"k":1})", R"({"$inc":{"n":1}})");
  r.upsert_document = doc(R"({"k":1})");
  auto out = s->update_one("c", r);
  REQUIRE(out.ok());
  REQUIRE(out->upserted_id.has_value());
  CHECK(out->upserted_id->type() == kind::object_id);
  auto n = s->count("c", doc(R"({"k":1,"n":1})"));
  REQUIRE(n.ok());
  CHECK(*n == 1);
}

TEST_CASE("update_many changes every match in one batch") {
  fresh_store s;
  seed_users(*s);
  const std::size_t log_before = oplog_size(*s);
  auto r = s->update_many("users", upd(R"({"age":{"$type":"number"}})", R"({"$inc":{"age":1}})"));
  REQUIRE(r.ok());
  CHECK(r->matched == 3);
  CHECK(r->modified == 3);
  auto log = s->oplog(log_before);
  REQUIRE(log.ok());
  REQUIRE(log->size() == 3);
  for (const auto& rec : *log) {
    CHECK(to_json(*find_field(rec, "op")) == "\"update\"");
    CHECK(find_field(rec, "before") != nullptr);
    CHECK(find_field(rec, "after") != nullptr);
    CHECK(equal(*find_field(rec, "batch"), *find_field((*log)[0], "batch")));
  }
  CHECK(to_json(*find_field((*log)[0], "_id")) == "1");  // `_id` order
  CHECK(find_all(*s, "users", find_options{doc(R"({"_id":2})")}) == "{\"_id\":2,\"name\":\"bo\",\"age\":18}\n");
}

TEST_CASE("a failed update_many leaves the store byte-for-byte as before") {
  fresh_store s;
  seed_users(*s);
  fails_without_writing(
      s, [&] { return s->update_many("users", upd("{}", R"({"$inc":{"age":1}})")); },
      "cannot apply $inc to a value of non-numeric type: `age` has type string (document with _id 4)");
  fails_without_writing(
      s, [&] { return s->update_many("users", upd("{}", R"({"$set":{"x":{"$bad":1}}})")); },
      "invalid field name `x.$bad`: field names must not start with '$' (document with _id 1)");
  fails_without_writing(
      s, [&] { return s->update_many("users", upd("{}", R"({"name":"replacement"})")); },
      "update document requires update operators; use `replace` to replace a document");
  fails_without_writing(
      s, [&] { return s->update_many("users", upd(R"({"$bogus":1})", R"({"$set":{"a":1}})")); },
      "filter: unknown top-level operator `$bogus`");
}

TEST_CASE("a failed update_one leaves the store byte-for-byte as before") {
  fresh_store s;
  seed_users(*s);
  fails_without_writing(
      s, [&] { return s->update_one("users", upd(R"({"_id":1})", R"({"$set":{"_id":9}})")); },
      "performing an update on the path `_id` would modify the immutable field `_id` (document with _id 1)");
  auto dup = upd(R"({"name":"nobody"})", R"({"$set":{"a":1}})");
  dup.upsert_document = doc(R"({"_id":2})");
  fails_without_writing(s, [&] { return s->update_one("users", dup); },
                        "upsertDocument: duplicate _id 2 in collection `users`");
  auto fresh = upd(R"({"name":"nobody"})", R"({"$push":{"a.$[]":1}})");
  fresh.upsert_document = doc(R"({"_id":9})");
  fails_without_writing(s, [&] { return s->update_one("brand_new", fresh); },
                        "upsertDocument: the path `a` must exist in the document in order to apply array "
                        "updates ($push at `a.$[]`)");
  CHECK_FALSE(s->has_collection("brand_new"));
}

TEST_CASE("maxScannedDocuments and maxMutations bound update_many and write nothing when exceeded") {
  fresh_store s;
  seed_users(*s);
  auto r = upd(R"({"name":{"$exists":true}})", R"({"$set":{"seen":1}})");
  r.max_scanned_documents = 3;
  fails_without_writing(s, [&] { return s->update_many("users", r); },
                        "more than maxScannedDocuments (3) documents would be scanned; nothing was written");
  r.max_scanned_documents.reset();
  r.max_mutations = 3;
  fails_without_writing(s, [&] { return s->update_many("users", r); },
                        "more than maxMutations (3) documents would be modified; nothing was written");
  r.max_scanned_documents = 4;
  r.max_mutations = 4;
  auto ok = s->update_many("users", r);
  REQUIRE(ok.ok());
  CHECK(ok->modified == 4);
}

TEST_CASE("update_one uses its maxScannedDocuments bound while looking for the first match") {
  fresh_store s;
  seed_users(*s);
  auto r = upd(R"({"name":"di"})", R"({"$set":{"x":1}})");
  r.max_scanned_documents = 2;
  fails_without_writing(s, [&] { return s->update_one("users", r); },
                        "more than maxScannedDocuments (2) documents would be scanned; nothing was written");
  r.filter = doc(R"({"_id":4})");  // a point lookup scans one document
  auto ok = s->update_one("users", r);
  REQUIRE(ok.ok());
  CHECK(ok->modified == 1);
}

TEST_CASE("the positional $ updates the array element the filter matched") {
  fresh_store s;
  REQUIRE(s->insert("students", doc(R"({"_id":1,"grades":[85,80,80]})")).ok());
  REQUIRE(s->insert("students", doc(R"({"_id":2,"grades":[88,90,92]})")).ok());
  auto r = s->update_one("students", upd(R"({"_id":1,"grades":80})", R"({"$set":{"grades.$":82}})"));
  REQUIRE(r.ok());
  CHECK(r->modified == 1);
  auto got = s->get("students", val("1"));
  REQUIRE(got.ok());
  CHECK(to_json(**got) == R"({"_id":1,"grades":[85,82,80]})");
}

TEST_CASE("arrayFilters reach the update through the store") {
  fresh_store s;
  REQUIRE(s->insert("students", doc(R"({"_id":2,"grades":[98,100,102]})")).ok());
  auto r = upd("{}", R"({"$set":{"grades.$[element]":100}})");
  r.array_filters = val(R"([{"element":{"$gte":100}}])").as_array();
  REQUIRE(s->update_many("students", r).ok());
  CHECK(find_all(*s, "students") == "{\"_id\":2,\"grades\":[98,100,100]}\n");
}

TEST_CASE("delete_many deletes every match and keeps the counter exact") {
  fresh_store s;
  seed_users(*s);
  store::delete_request d;
  d.filter = doc(R"({"age":{"$lt":35}})");
  auto n = s->delete_many("users", d);
  REQUIRE(n.ok());
  CHECK(*n == 2);
  auto count = s->count("users", {});
  REQUIRE(count.ok());
  CHECK(*count == 2);
  auto cols = s->collections();
  REQUIRE(cols.ok());
  CHECK(cols->front().documents == 2);
  auto none = s->delete_many("nobody", d);
  REQUIRE(none.ok());
  CHECK(*none == 0);
}

TEST_CASE("delete_many bounds write nothing when exceeded") {
  fresh_store s;
  seed_users(*s);
  store::delete_request d;
  d.max_mutations = 1;
  fails_without_writing(s, [&] { return s->delete_many("users", d); },
                        "more than maxMutations (1) documents would be deleted; nothing was written");
  d.max_mutations.reset();
  d.max_scanned_documents = 2;
  fails_without_writing(s, [&] { return s->delete_many("users", d); },
                        "more than maxScannedDocuments (2) documents would be scanned; nothing was written");
}

TEST_CASE("find_one_and_update returns the before and after images") {
  fresh_store s;
  seed_users(*s);
  auto r = s->find_one_and_update("users", upd(R"({"age":{"$gt":20}})", R"({"$inc":{"age":1}})"));
  REQUIRE(r.ok());
  REQUIRE(r->before.has_value());
  REQUIRE(r->after.has_value());
  CHECK(to_json(*r->before) == R"({"_id":1,"name":"ana","age":30})");
  CHECK(to_json(*r->after) == R"({"_id":1,"name":"ana","age":31})");
  auto none = s->find_one_and_update("users", upd(R"({"name":"zed"})", R"({"$inc":{"age":1}})"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->before.has_value());
  CHECK_FALSE(none->after.has_value());
  fails_without_writing(
      s, [&] { return s->find_one_and_update("users", upd(R"({"_id":4})", R"({"$inc":{"age":1}})")); },
      "cannot apply $inc to a value of non-numeric type: `age` has type string (document with _id 4)");
}

TEST_CASE("updates survive reopening the store") {
  fresh_store s;
  seed_users(*s);
  REQUIRE(s->update_many("users", upd("{}", R"({"$unset":{"age":1}})")).ok());
  s.reopen();
  CHECK(find_all(*s, "users", find_options{doc(R"({"_id":1})")}) == "{\"_id\":1,\"name\":\"ana\"}\n");
}

TEST_CASE("update_many gives the same documents, counts and errors with and without an index") {
  // Without rules or indexes update_many works on the stored bytes (engine/update/update_raw.cpp);
  // an index (on a field no update touches) makes it decode every document. Same results.
  fresh_store s;
  const char* seed = R"([
    {"_id":1,"name":"ana","age":30,"tags":["a","b"],"address":{"city":"Porto","zip":"4000"},"n":{"$numberLong":"9223372036854775806"}},
    {"_id":2,"name":"bo","age":{"$numberInt":"2147483647"},"tags":[],"score":1.5},
    {"_id":3,"name":"cy","age":"n/a","address":{"city":"Faro"}},
    {"_id":4,"name":"di","age":12,"re":{"$regularExpression":{"pattern":"^x","options":"i"}},"tags":["c"]},
    {"_id":5,"name":"ed","age":{"$numberDecimal":"1.5"},"address":null,"old":true}])";
  std::vector<document> all;
  auto parsed = omgdb::json::parse_strict(seed);
  REQUIRE(parsed.ok());
  for (const auto& item : parsed->as_array()) {
    auto d = document_from_json(item);
    REQUIRE(d.ok());
    all.push_back(std::move(*d));
  }
  REQUIRE(s->insert_many("bare", all).ok());
  REQUIRE(s->insert_many("indexed", all).ok());
  store::index_spec spec;
  spec.fields.push_back({"name", false});
  REQUIRE(s->create_index("indexed", spec).ok());

  const char* updates[][2] = {
      {R"({})", R"({"$inc":{"age":1}})"},
      {R"({"_id":{"$ne":3}})", R"({"$inc":{"age":1}})"},
      {R"({"age":{"$type":"number"}})", R"({"$inc":{"age":1},"$set":{"address.city":"Braga"}})"},
      {R"({})", R"({"$unset":{"score":""},"$push":{"tags":"z"}})"},
      {R"({"tags":"z"})", R"({"$rename":{"old":"was_old","address":"addr"}})"},
      {R"({})", R"({"$set":{"tags.0":"first","n2":{"deep":[1,{"x":2}]}}})"},
      {R"({})", R"({"$inc":{"n":1}})"},
      {R"({"_id":1})", R"({"$inc":{"n":1}})"},
      {R"({})", R"({"$max":{"age":100},"$min":{"name":"b"}})"},
      {R"({})", R"({"$pull":{"tags":"z"},"$mul":{"score":2}})"},
      {R"({})", R"({"$set":{"name":"ana"}})"},
  };
  for (const auto& [filter, update] : updates) {
    INFO("filter ", filter, " update ", update);
    auto a = s->update_many("bare", upd(filter, update));
    auto b = s->update_many("indexed", upd(filter, update));
    REQUIRE(a.ok() == b.ok());
    if (a.ok()) {
      CHECK(a->matched == b->matched);
      CHECK(a->modified == b->modified);
    } else {
      CHECK(a.error().message == b.error().message);
    }
    CHECK(find_all(*s, "bare") == find_all(*s, "indexed"));
  }
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}
