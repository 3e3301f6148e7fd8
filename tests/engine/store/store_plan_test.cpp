// plan_update, apply and rollback: plans write no documents, apply exactly once and refuse
// stale plans, rollback restores before images; every refusal leaves the store as it was.
#include "tests/engine/store/store_plan_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

template <class T>
std::string error_of(const omgdb::result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

store::plan_request plan_of(std::string_view filter, std::string_view update) {
  store::plan_request p;
  p.filter = doc(filter);
  p.update = doc(update);
  return p;
}

// users: _id 1..4 with ages 30, 17, 40, 12.
void seed(fresh_store& s) {
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"name":"ana","age":30})", R"({"_id":2,"name":"bo","age":17})",
                                        R"({"_id":3,"name":"cy","age":40})", R"({"_id":4,"name":"di","age":12})"}))
              .ok());
}

std::string plan_token(fresh_store& s, std::string_view filter, std::string_view update) {
  auto p = s->plan_update("users", plan_of(filter, update));
  REQUIRE_MESSAGE(p.ok(), error_of(p));
  return p->token;
}

bool verify_clean(store& s) {
  auto r = s.verify();
  REQUIRE(r.ok());
  return r->ok;
}

}  // namespace

TEST_CASE("plan_update writes no documents and returns the matches with a sample") {
  fresh_store s;
  seed(s);
  const std::string dump_before = dump_text(*s);
  const std::size_t log_before = oplog_size(*s);
  auto p = s->plan_update("users", plan_of(R"({"age":{"$gte":18}})", R"({"$set":{"adult":true}})"));
  REQUIRE_MESSAGE(p.ok(), error_of(p));
  CHECK(p->token.size() == 32);
  CHECK(p->token.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(p->matched == 2);
  CHECK(p->would_modify == 2);
  REQUIRE(p->sample.size() == 2);
  CHECK(to_json(p->sample[0].before) == R"({"_id":1,"name":"ana","age":30})");
  CHECK(to_json(p->sample[0].after) == R"({"_id":1,"name":"ana","age":30,"adult":true})");
  CHECK(to_json(p->sample[1].before) == R"({"_id":3,"name":"cy","age":40})");
  CHECK(dump_text(*s) == dump_before);
  CHECK(oplog_size(*s) == log_before);
  CHECK(verify_clean(*s));
}

TEST_CASE("plan_update keeps its sample short and counts documents the update leaves alone") {
  fresh_store s;
  seed(s);
  auto p = s->plan_update("users", plan_of("{}", R"({"$max":{"age":18}})"));
  REQUIRE(p.ok());
  CHECK(p->matched == 4);
  CHECK(p->would_modify == 2);
  CHECK(p->sample.size() == store::plan_result::k_sample_size);
  CHECK(to_json(p->sample[0].after) == to_json(p->sample[0].before));
}

TEST_CASE("plan_update refuses an unknown collection, a bad filter and a bad update, writing nothing") {
  fresh_store s;
  seed(s);
  const auto before = stored_state(s);
  CHECK(error_of(s->plan_update("user", plan_of("{}", R"({"$set":{"a":1}})"))) ==
        "collection `user` does not exist; did you mean `users`?");
  CHECK(error_of(s->plan_update("users", plan_of(R"({"age":{"$bad":1}})", R"({"$set":{"a":1}})")))
            .rfind("filter: ", 0) == 0);
  CHECK(error_of(s->plan_update("users", plan_of("{}", R"({"$sett":{"a":1}})"))) ==
        "unknown update operator `$sett`");
  CHECK(error_of(s->plan_update("users", plan_of("{}", R"({"$inc":{"name":1}})"))).find("(document with _id 1)") !=
        std::string::npos);
  CHECK(stored_state(s) == before);
}

TEST_CASE("apply writes the planned change once, with op-log records carrying the change id") {
  fresh_store s;
  seed(s);
  const std::string token = plan_token(s, R"({"age":{"$lt":18}})", R"({"$set":{"minor":true},"$inc":{"age":1}})");
  const std::size_t log_before = oplog_size(*s);
  auto a = s->apply(token);
  REQUIRE_MESSAGE(a.ok(), error_of(a));
  CHECK(a->change_id.size() == 32);
  CHECK(a->change_id != token);
  CHECK(a->matched == 2);
  CHECK(a->modified == 2);
  CHECK(find_all(*s, "users", {.filter = doc(R"({"minor":true})")}) ==
        "{\"_id\":2,\"name\":\"bo\",\"age\":18,\"minor\":true}\n{\"_id\":4,\"name\":\"di\",\"age\":13,\"minor\":true}\n");
  auto log = s->oplog(log_before);
  REQUIRE(log.ok());
  REQUIRE(log->size() == 2);
  for (const auto& rec : *log) {
    CHECK(to_json(*find_field(rec, "op")) == R"("update")");
    CHECK(to_json(*find_field(rec, "change")) == "\"" + a->change_id + "\"");
    CHECK(find_field(rec, "before") != nullptr);
    CHECK(find_field(rec, "after") != nullptr);
  }
  CHECK(verify_clean(*s));

  auto again = s->apply(token);
  CHECK(error_of(again) == "plan `" + token + "` was already applied as change `" + a->change_id +
                               "`; a plan applies exactly once");
}

TEST_CASE("apply of an unknown token is a clear error and writes nothing") {
  fresh_store s;
  seed(s);
  const auto before = stored_state(s);
  CHECK(error_of(s->apply("0123456789abcdef0123456789abcdef")) ==
        "unknown plan token `0123456789abcdef0123456789abcdef`: plan_update returns the token to apply");
  CHECK(stored_state(s) == before);
}

TEST_CASE("apply refuses a plan whose documents changed, naming them, and writes nothing") {
  fresh_store s;
  seed(s);
  const std::string token = plan_token(s, R"({"age":{"$gte":18}})", R"({"$inc":{"age":1}})");
  REQUIRE(s->replace("users", val("3"), doc(R"({"name":"cy","age":41})")).ok());  // changed
  REQUIRE(s->remove("users", val("1")).ok());                                       // deleted
  REQUIRE(s->insert("users", doc(R"({"_id":9,"name":"new","age":50})")).ok());      // newly matching
  const auto before = stored_state(s);
  auto a = s->apply(token);
  CHECK(error_of(a) == "plan `" + token +
                           "` is stale, nothing was applied: changed since the plan: _id 3; deleted since the "
                           "plan: _id 1; newly matching the filter: _id 9. Call plan_update again and review "
                           "the new sample");
  CHECK(stored_state(s) == before);
}

TEST_CASE("a document that stops matching counts as changed") {
  fresh_store s;
  seed(s);
  const std::string token = plan_token(s, R"({"age":{"$gte":18}})", R"({"$inc":{"age":1}})");
  REQUIRE(s->replace("users", val("1"), doc(R"({"name":"ana","age":5})")).ok());
  const auto before = stored_state(s);
  CHECK(error_of(s->apply(token)).find("changed since the plan: _id 1.") != std::string::npos);
  CHECK(stored_state(s) == before);
}

TEST_CASE("plan tokens and change ids survive closing and reopening the store") {
  fresh_store s;
  seed(s);
  const std::string token = plan_token(s, R"({"_id":2})", R"({"$set":{"name":"BO"}})");
  s.reopen();
  auto a = s->apply(token);
  REQUIRE_MESSAGE(a.ok(), error_of(a));
  CHECK(a->modified == 1);
  s.reopen();
  auto r = s->rollback(a->change_id);
  REQUIRE_MESSAGE(r.ok(), error_of(r));
  CHECK(r->restored == 1);
  CHECK(find_all(*s, "users", {.filter = doc(R"({"_id":2})")}) == "{\"_id\":2,\"name\":\"bo\",\"age\":17}\n");
  s.reopen();
  CHECK(error_of(s->apply(token)).find("was already applied") != std::string::npos);
}

TEST_CASE("rollback restores every before image in one batch, once") {
  fresh_store s;
  seed(s);
  const std::string dump_before = dump_text(*s);
  const std::string token = plan_token(s, "{}", R"({"$unset":{"age":""},"$set":{"tags":["x"]}})");
  auto a = s->apply(token);
  REQUIRE(a.ok());
  CHECK(a->modified == 4);
  CHECK(dump_text(*s) != dump_before);
  const std::size_t log_before = oplog_size(*s);
  auto r = s->rollback(a->change_id);
  REQUIRE_MESSAGE(r.ok(), error_of(r));
  CHECK(r->change_id == a->change_id);
  CHECK(r->restored == 4);
  CHECK(dump_text(*s) == dump_before);
  auto log = s->oplog(log_before);
  REQUIRE(log.ok());
  REQUIRE(log->size() == 4);
  for (const auto& rec : *log) {
    CHECK(to_json(*find_field(rec, "undo")) == "true");
    CHECK(to_json(*find_field(rec, "change")) == "\"" + a->change_id + "\"");
    CHECK(to_json(*find_field(rec, "batch")) == to_json(*find_field(log->front(), "batch")));
  }
  CHECK(verify_clean(*s));

  const auto state = stored_state(s);
  CHECK(error_of(s->rollback(a->change_id)) ==
        "change `" + a->change_id + "` was already rolled back; a change is rolled back at most once");
  CHECK(stored_state(s) == state);
}

TEST_CASE("rollback refuses when documents changed after the apply, naming them, and writes nothing") {
  fresh_store s;
  seed(s);
  auto a = s->apply(plan_token(s, "{}", R"({"$inc":{"age":1}})"));
  REQUIRE(a.ok());
  REQUIRE(s->replace("users", val("2"), doc(R"({"name":"bo","age":99})")).ok());
  REQUIRE(s->remove("users", val("4")).ok());
  const auto before = stored_state(s);
  CHECK(error_of(s->rollback(a->change_id)) ==
        "change `" + a->change_id +
            "` cannot be rolled back, nothing was written: changed after the apply: _id 2; deleted after the "
            "apply: _id 4");
  CHECK(stored_state(s) == before);
  CHECK(error_of(s->rollback("nope")) == "unknown change id `nope`: apply returns the change id to roll back");
  CHECK(stored_state(s) == before);
}

TEST_CASE("plans keep positional updates and arrayFilters, and an empty plan applies to nothing") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"grades":[80,95,70]})", R"({"_id":2,"grades":[60]})"})).ok());
  store::plan_request p = plan_of(R"({"grades":{"$gte":90}})", R"({"$set":{"grades.$":100}})");
  auto positional = s->plan_update("users", p);
  REQUIRE_MESSAGE(positional.ok(), error_of(positional));
  CHECK(to_json(positional->sample[0].after) == R"({"_id":1,"grades":[80,100,70]})");
  p = plan_of("{}", R"({"$inc":{"grades.$[low]":5}})");
  p.array_filters.push_back(value(doc(R"({"low":{"$lt":75}})")));
  auto filtered = s->plan_update("users", p);
  REQUIRE_MESSAGE(filtered.ok(), error_of(filtered));
  auto applied = s->apply(filtered->token);
  REQUIRE_MESSAGE(applied.ok(), error_of(applied));
  CHECK(find_all(*s, "users") == "{\"_id\":1,\"grades\":[80,95,75]}\n{\"_id\":2,\"grades\":[65]}\n");

  auto none = s->plan_update("users", plan_of(R"({"_id":404})", R"({"$set":{"a":1}})"));
  REQUIRE(none.ok());
  CHECK(none->matched == 0);
  auto empty = s->apply(none->token);
  REQUIRE_MESSAGE(empty.ok(), error_of(empty));
  CHECK(empty->modified == 0);
  auto undo = s->rollback(empty->change_id);
  REQUIRE(undo.ok());
  CHECK(undo->restored == 0);
  CHECK(verify_clean(*s));
}
