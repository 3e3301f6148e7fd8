// Issue 29, item 3 through the store: the same expressions in `$expr` of find, count and
// update_many are bounded by the call's budget (the thread's current one during a tool call),
// stop when the call is told to, and an update_many whose call was cancelled after its scan
// but before its one commit writes nothing.
#include <string>

#include "tests/engine/query/budget_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::budget_test;
using namespace omgdb::engine::test;

namespace {

struct expr_store : fresh_store {
  expr_store() {
    REQUIRE(db->insert_many("c", docs({R"({"_id":1,"n":1})", R"({"_id":2,"n":2})"})).ok());
  }
};

const char* const k_range_bomb = R"({"$expr":{"$gt":[{"$size":{"$range":[0,1000000000]}},0]}})";
const char* const k_union = R"({"$expr":{"$gt":[{"$size":{"$setUnion":[{"$range":[0,600000]},{"$range":[600000,0,-1]}]}},0]}})";

void check_range_refused(const failure& f) {
  CAPTURE(f.message);
  CHECK(f.kind == failure_kind::limit_exceeded);
  CHECK(f.message.find("$range") != std::string::npos);
}

}  // namespace

TEST_CASE("$expr in find, count and update_many refuses a billion-element $range as a bound, writing nothing") {
  expr_store s;
  installed_budget b(8 << 20);
  const std::string before = dump_text(*s);
  find_options o;
  o.filter = doc(k_range_bomb);
  auto f = s->find("c", o);
  REQUIRE_FALSE(f.ok());
  check_range_refused(f.error());
  auto n = s->count("c", doc(k_range_bomb));
  REQUIRE_FALSE(n.ok());
  check_range_refused(n.error());
  store::update_request u;
  u.filter = doc(k_range_bomb);
  u.update = doc(R"({"$set":{"hit":true}})");
  auto m = s->update_many("c", u);
  REQUIRE_FALSE(m.ok());
  check_range_refused(m.error());
  CHECK(dump_text(*s) == before);
}

TEST_CASE("count and update_many with a large $setUnion in $expr stop within 100 ms of the call's flag") {
  expr_store s;
  const std::string before = dump_text(*s);
  {
    installed_budget b(std::uint64_t{1} << 30);
    delayed_stop stop(b.stop, std::chrono::milliseconds(50));
    auto n = s->count("c", doc(k_union));
    const double late = stop.ms_since_set();
    REQUIRE_FALSE(n.ok());
    CHECK(n.error().kind == failure_kind::cancelled);
    CHECK(late < 100);
  }
  {
    installed_budget b(std::uint64_t{1} << 30);
    store::update_request u;
    u.filter = doc(k_union);
    u.update = doc(R"({"$set":{"hit":true}})");
    delayed_stop stop(b.stop, std::chrono::milliseconds(50));
    auto m = s->update_many("c", u);
    const double late = stop.ms_since_set();
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().kind == failure_kind::cancelled);
    CHECK(late < 100);
  }
  CHECK(dump_text(*s) == before);
}

TEST_CASE("an update_many whose call is cancelled after its scan, before its commit, writes nothing") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"n":1})"})).ok());
  const std::string before = dump_text(*s);
  std::atomic<bool> stop{false};
  scan_control control;
  control.cancelled = &stop;
  // The scan polls before its first (and only) document, which sets the flag: only the check
  // before the commit can see it.
  control.progress = [&](std::uint64_t, std::uint64_t) { stop.store(true); };
  store::update_request u;
  u.filter = doc("{}");
  u.update = doc(R"({"$set":{"hit":true}})");
  auto m = s->update_many("c", u, control);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().kind == failure_kind::cancelled);
  CHECK(dump_text(*s) == before);
  // The same call's budget flag counts too (a tool call's deadline sets it).
  installed_budget b(128 << 20);
  scan_control by_budget;
  by_budget.progress = [&](std::uint64_t, std::uint64_t) { b.stop.store(true); };
  auto m2 = s->update_many("c", u, by_budget);
  REQUIRE_FALSE(m2.ok());
  CHECK(m2.error().kind == failure_kind::cancelled);
  CHECK(dump_text(*s) == before);
}
