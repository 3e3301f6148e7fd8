// load: dump → load → dump gives the same bytes (every BSON type, `_id` types, indexes and
// validation rules), and load refuses what it cannot read back faithfully.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

template <class T>
std::string error_of(const omgdb::result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

// Feeds `text` to store::load line by line.
omgdb::result<store::load_result> load_text(store& s, const std::string& text) {
  std::size_t pos = 0;
  return s.load([&](std::string& line) -> omgdb::result<bool> {
    if (pos >= text.size()) return false;
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    line.assign(text, pos, nl - pos);
    pos = nl + 1;
    return true;
  });
}

}  // namespace

TEST_CASE("dump then load then dump is byte-identical for every BSON type, _id types, indexes and rules") {
  fresh_store s;
  REQUIRE(s->insert("all", doc(R"({"_id":{"$numberInt":"1"},
      "double":{"$numberDouble":"1.5"},"negzero":{"$numberDouble":"-0.0"},"inf":{"$numberDouble":"Infinity"},
      "string":"héllo","doc":{"b":2,"a":1},"array":[1,"two",{"three":3},[4]],
      "bin":{"$binary":{"base64":"AQID","subType":"00"}},"uuid":{"$binary":{"base64":"AAECAwQFBgcICQoLDA0ODw==","subType":"04"}},
      "oid":{"$oid":"65a1b2c3d4e5f60718293a4b"},"bool":true,"date":{"$date":{"$numberLong":"-1000"}},"null":null,
      "regex":{"$regularExpression":{"pattern":"^a.c$","options":"im"}},"int32":{"$numberInt":"-7"},
      "ts":{"$timestamp":{"t":1700000000,"i":3}},"int64":{"$numberLong":"9007199254740993"},
      "dec":{"$numberDecimal":"1.10"},"min":{"$minKey":1},"max":{"$maxKey":1}})"))
              .ok());
  for (const char* d : {R"({"_id":{"$numberLong":"2"},"v":1})", R"({"_id":{"$numberDouble":"2.5"},"v":2})",
                        R"({"_id":"three","v":3})", R"({"_id":{"$oid":"65a1b2c3d4e5f60718293a4c"},"v":4})",
                        R"({"_id":{"a":1,"b":[1,2]},"v":5})", R"({"_id":{"$date":{"$numberLong":"5"}},"v":6})"}) {
    REQUIRE(s->insert("ids", doc(d)).ok());
  }
  store::index_spec compound;
  compound.fields = {{"v", false}, {"name", true}};
  REQUIRE(s->create_index("ids", compound).ok());
  store::index_spec partial;
  partial.name = "big_v";
  partial.fields = {{"v", false}};
  partial.partial_filter = doc(R"({"v":{"$gt":3}})");
  REQUIRE(s->create_index("ids", partial).ok());
  REQUIRE(s->insert("people", doc(R"({"_id":1,"email":"a@x","age":30})")).ok());
  REQUIRE(s->insert("people", doc(R"({"_id":2,"email":"b@x","age":-1})")).ok());  // predates the rules
  REQUIRE(s->define_collection("people", doc(R"({"required":["email"],"properties":{"age":{"minimum":0}},"unique":["email"]})"))
              .ok());
  REQUIRE(s->create_collection("empty").ok());

  const std::string first = dump_text(*s);
  CHECK(first.find(R"("indexes":[)") != std::string::npos);
  CHECK(first.find(R"("rules":{)") != std::string::npos);
  CHECK(first.find(R"({"collection":"empty","count":0})") != std::string::npos);

  fresh_store t;
  auto loaded = load_text(*t, first);
  REQUIRE_MESSAGE(loaded.ok(), error_of(loaded));
  CHECK(loaded->collections == 4);
  CHECK(loaded->documents == 9);
  CHECK(dump_text(*t) == first);
  // The rules and the unique index work in the loaded store.
  CHECK(!t->insert("people", doc(R"({"_id":3,"age":5})")).ok());
  CHECK(!t->insert("people", doc(R"({"_id":3,"email":"a@x","age":5})")).ok());
  auto v = t->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("load refuses a store that already holds collections, and names the line of a bad one") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1})")).ok());
  auto refused = load_text(*s, "{\"collection\":\"x\",\"count\":0}\n");
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("empty store") != std::string::npos);

  fresh_store t;
  auto bad = load_text(*t, "{\"collection\":\"x\",\"count\":2}\n{\"_id\":{\"$numberInt\":\"1\"}}\nnot json\n");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("line 3") == 0);
  fresh_store u;
  auto short_dump = load_text(*u, "{\"collection\":\"x\",\"count\":2}\n{\"_id\":{\"$numberInt\":\"1\"}}\n");
  REQUIRE(!short_dump.ok());
  CHECK(short_dump.error().message.find("1 more document(s) expected") != std::string::npos);
}
