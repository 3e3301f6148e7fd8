// modifiedCount in the store follows MongoDB's no-op rule on both write paths: the byte path
// (no indexes, no rules) and the decoding path (an index on the collection).
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::update_request push_sliced() {
  store::update_request r;
  r.filter = doc(R"({"_id":1})");
  r.update = doc(R"({"$push":{"t":{"$each":[3],"$slice":2}}})");
  return r;
}

void check_one_modified(store& s) {
  REQUIRE(s.insert("c", doc(R"({"_id":1,"t":[1,2]})")).ok());
  auto one = s.update_one("c", push_sliced());
  REQUIRE(one.ok());
  CHECK(one->matched == 1);
  CHECK(one->modified == 1);
  auto many = s.update_many("c", push_sliced());
  REQUIRE(many.ok());
  CHECK(many->modified == 1);
  auto same = s.count("c", doc(R"({"_id":1,"t":[1,2]})"));
  REQUIRE(same.ok());
  CHECK(*same == 1);
}

}  // namespace

TEST_CASE("update counts a $push trimmed away by its $slice as modified on the byte path") {
  fresh_store s;
  check_one_modified(*s);
}

TEST_CASE("update counts a $push trimmed away by its $slice as modified on the decoding path") {
  fresh_store s;
  store::index_spec ix;
  ix.fields.push_back({"t", false});
  REQUIRE(s->create_index("c", ix).ok());
  check_one_modified(*s);
}
