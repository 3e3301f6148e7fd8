// The bounds on persisted cursors (issue 16, item 5): open cursors per store and per session,
// and the stored size of one cursor's state. Each refusal stores nothing and names the limit.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

constexpr std::int64_t k_t0 = 1'800'000'000'000;

store::cursor_request req(std::string owner = {}, std::int64_t now = k_t0) {
  store::cursor_request r;
  r.batch_size = 1;
  r.now_millis = now;
  r.owner = std::move(owner);
  return r;
}

void seed(store& s, int n) {
  std::vector<document> all;
  for (int i = 1; i <= n; ++i) all.push_back(doc("{\"_id\":" + std::to_string(i) + "}"));
  REQUIRE(s.insert_many("c", std::move(all)).ok());
}

}  // namespace

TEST_CASE("a session cannot keep more than 64 cursors open in one store; another session still can") {
  fresh_store s;
  seed(*s, 3);
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < store::k_cursor_max_per_owner; ++i) {
    auto b = s->cursor_open("c", req("mcp-1-1"));
    REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
    tokens.push_back(b->token);
  }
  auto refused = s->cursor_open("c", req("mcp-1-1"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == failure_kind::limit_exceeded);
  CHECK(refused.error().message.starts_with("this session already has 64 open cursors in this store, the most one "
                                            "session may keep (64): close cursors you no longer need with cursor_close"));
  CHECK(s->cursor_open("c", req("mcp-1-2")).ok());
  // Closing one makes room again.
  REQUIRE(s->cursor_close(tokens.front(), k_t0).ok());
  CHECK(s->cursor_open("c", req("mcp-1-1")).ok());
  // Expired cursors do not count.
  CHECK(s->cursor_open("c", req("mcp-1-1", k_t0 + store::k_cursor_idle_millis + 1)).ok());
}

TEST_CASE("a store keeps at most 1000 open cursors whoever opened them") {
  fresh_store s;
  seed(*s, 3);
  for (std::size_t i = 0; i < store::k_cursor_max_per_store; ++i) {
    auto b = s->cursor_open("c", req("mcp-9-" + std::to_string(i / 50)));
    REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
  }
  auto refused = s->cursor_open("c", req());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == failure_kind::limit_exceeded);
  CHECK(refused.error().message.starts_with("this store already has 1000 open cursors, the most one store keeps (1000)"));
}

TEST_CASE("a cursor whose filter would store more than 64 KiB is refused before it runs or is stored") {
  fresh_store s;
  seed(*s, 3);
  std::string in = "[";
  for (int i = 0; i < 8000; ++i) in += (i ? "," : "") + std::to_string(1000000 + i);
  auto big = req("mcp-1-1");
  big.filter = doc(R"({"_id":{"$in":)" + in + "]}}");
  auto refused = s->cursor_open("c", big);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == failure_kind::limit_exceeded);
  const std::string& m = refused.error().message;
  CHECK(m.starts_with("the cursor's filter, sort and projection take "));
  CHECK(m.find("bytes; a cursor may store at most 65536") != std::string::npos);
  // Nothing was stored: the session's quota is untouched.
  for (std::size_t i = 0; i < store::k_cursor_max_per_owner; ++i) REQUIRE(s->cursor_open("c", req("mcp-1-1")).ok());
}
