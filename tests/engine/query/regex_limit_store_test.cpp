// A regex at the match limit in the store: reads and writes stop with the error, and a write
// changes nothing (delete_many under $not deletes no document it should have kept).
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

const char* const k_catastrophic = "aaaaaaaaaaaaaaaaaaaaaaaaab";

struct regex_store : fresh_store {
  regex_store() {
    REQUIRE(db->insert_many("c", docs({R"({"_id":1,"s":"aaaaaaaaaaaaaaaaaaaaaaaaab"})", R"({"_id":2,"s":"b"})",
                                       R"({"_id":3,"s":"aaaaaaaaaaaaaaaaaaaaaaaaab"})"}))
                .ok());
  }
};

const char* const k_not = R"({"s":{"$not":{"$regex":"^(?:(a+)+x|a+b)$"}}})";

void check_limit_error(const omgdb::failure& f) {
  CAPTURE(f.message);
  CHECK(f.message.find("regex `^(?:(a+)+x|a+b)$` at `s` reached the regex match limit (100000") != std::string::npos);
}

}  // namespace

TEST_CASE("delete_many with a $not regex at the match limit deletes nothing and reports the error") {
  regex_store s;
  const std::string before = dump_text(*s);
  store::delete_request del;
  del.filter = doc(k_not);
  auto r = s->delete_many("c", del);
  REQUIRE_FALSE(r.ok());
  check_limit_error(r.error());
  CHECK(dump_text(*s) == before);
}

TEST_CASE("find, count and update_many with a regex at the match limit fail with the error") {
  regex_store s;
  const std::string before = dump_text(*s);
  find_options o;
  o.filter = doc(R"({"s":{"$regex":"^(?:(a+)+x|a+b)$"}})");
  auto f = s->find("c", o);
  REQUIRE_FALSE(f.ok());
  check_limit_error(f.error());
  auto n = s->count("c", doc(k_not));
  REQUIRE_FALSE(n.ok());
  check_limit_error(n.error());
  store::update_request u;
  u.filter = doc(k_not);
  u.update = doc(R"({"$set":{"kept":true}})");
  auto m = s->update_many("c", u);
  REQUIRE_FALSE(m.ok());
  check_limit_error(m.error());
  CHECK(dump_text(*s) == before);
}

TEST_CASE("a write whose validation pattern reaches the match limit fails instead of refusing a valid document") {
  fresh_store s;
  REQUIRE(s->define_collection("p", doc(R"({"properties":{"s":{"pattern":"^(?:(a+)+x|a+b)$"}}})")).ok());
  auto r = s->insert("p", doc(std::string(R"({"_id":1,"s":")") + k_catastrophic + "\"}"));
  REQUIRE_FALSE(r.ok());
  CAPTURE(r.error().message);
  CHECK(r.error().message.find("could not be checked against the validation rules of `p`") != std::string::npos);
  CHECK(r.error().message.find("reached the regex match limit") != std::string::npos);
  CHECK(r.error().message.find("breaks the validation rules") == std::string::npos);
  CHECK(s->insert("p", doc(R"({"_id":2,"s":"aab"})")).ok());
}
