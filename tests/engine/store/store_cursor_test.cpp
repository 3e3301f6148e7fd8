// Persisted keyset cursors: batches, exhaustion, restart, expiry, close, and the rules of
// docs/cursors.md.
#include <mutex>
#include <set>
#include <thread>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

constexpr std::int64_t k_t0 = 1'800'000'000'000;  // an arbitrary injected clock

std::string ids_of(const std::string& ndjson) {
  std::string out;
  std::size_t start = 0;
  while (start < ndjson.size()) {
    auto end = ndjson.find('\n', start);
    REQUIRE(end != std::string::npos);
    auto d = doc(std::string_view(ndjson).substr(start, end - start));
    if (!out.empty()) out += ' ';
    out += to_json(*find_field(d, "_id"));
    start = end + 1;
  }
  return out;
}

store::cursor_request req(std::uint64_t batch, std::int64_t now = k_t0) {
  store::cursor_request r;
  r.batch_size = batch;
  r.now_millis = now;
  return r;
}

store::cursor_batch open_ok(store& s, std::string_view coll, const store::cursor_request& r) {
  auto b = s.cursor_open(coll, r);
  REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
  return std::move(*b);
}

store::cursor_batch next_ok(store& s, std::string_view token, const store::cursor_request& r) {
  auto b = s.cursor_next(token, r);
  REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
  return std::move(*b);
}

std::string next_error(store& s, std::string_view token, const store::cursor_request& r) {
  auto b = s.cursor_next(token, r);
  REQUIRE_FALSE(b.ok());
  return b.error().message;
}

void seed(store& s, int n) {
  std::vector<document> all;
  for (int i = 1; i <= n; ++i) {
    all.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"age\":" + std::to_string((i * 7) % 5) + "}"));
  }
  REQUIRE(s.insert_many("c", std::move(all)).ok());
}

}  // namespace

TEST_CASE("a cursor returns batches in _id order, then says it is exhausted and is removed") {
  fresh_store s;
  seed(*s, 5);
  auto first = open_ok(*s, "c", req(2));
  CHECK(ids_of(first.ndjson) == "1 2");
  CHECK(first.returned == 2);
  CHECK_FALSE(first.exhausted);
  CHECK(first.token.size() == 32);
  CHECK(ids_of(next_ok(*s, first.token, req(2)).ndjson) == "3 4");
  auto last = next_ok(*s, first.token, req(2));
  CHECK(ids_of(last.ndjson) == "5");
  CHECK(last.exhausted);
  CHECK(next_error(*s, first.token, req(2)).starts_with("no cursor `" + first.token + "` in this store"));
}

TEST_CASE("a batch that ends at the last match already says the cursor is exhausted") {
  fresh_store s;
  seed(*s, 4);
  auto first = open_ok(*s, "c", req(2));
  CHECK_FALSE(first.exhausted);
  auto second = next_ok(*s, first.token, req(2));
  CHECK(ids_of(second.ndjson) == "3 4");
  CHECK(second.exhausted);  // one match past the batch is looked for, so this is exact
  CHECK(next_error(*s, first.token, req(2)).starts_with("no cursor"));
}

TEST_CASE("a sorted, filtered, projected cursor equals one find with the same arguments") {
  fresh_store s;
  seed(*s, 23);
  find_options o;
  o.filter = doc(R"({"age":{"$gte":1}})");
  o.sort = doc(R"({"age":-1})");
  o.projection = doc(R"({"age":1})");
  const std::string whole = find_all(*s, "c", o);
  auto r = req(4);
  r.filter = o.filter;
  r.sort = o.sort;
  r.projection = o.projection;
  auto b = open_ok(*s, "c", r);
  std::string joined = b.ndjson;
  int calls = 1;
  while (!b.exhausted) {
    b = next_ok(*s, b.token, req(4));
    joined += b.ndjson;
    ++calls;
  }
  CHECK(joined == whole);
  CHECK(calls >= 5);
}

TEST_CASE("a first batch that holds every match is exhausted and stores no cursor") {
  fresh_store s;
  seed(*s, 3);
  auto b = open_ok(*s, "c", req(100));
  CHECK(b.returned == 3);
  CHECK(b.exhausted);
  CHECK(next_error(*s, b.token, req(1)).starts_with("no cursor"));
  auto none = open_ok(*s, "missing", req(10));
  CHECK(none.returned == 0);
  CHECK(none.exhausted);
}

TEST_CASE("a cursor survives closing and reopening the store") {
  fresh_store s;
  seed(*s, 6);
  auto b = open_ok(*s, "c", req(4));
  CHECK(ids_of(b.ndjson) == "1 2 3 4");
  s.reopen();
  auto rest = next_ok(*s, b.token, req(4));
  CHECK(ids_of(rest.ndjson) == "5 6");
  CHECK(rest.exhausted);
}

TEST_CASE("documents inserted or deleted between batches never make a cursor repeat one") {
  fresh_store s;
  seed(*s, 6);
  auto b = open_ok(*s, "c", req(3));
  CHECK(ids_of(b.ndjson) == "1 2 3");
  REQUIRE(s->insert("c", doc(R"({"_id":0})")).ok());    // before the position: not seen
  REQUIRE(s->insert("c", doc(R"({"_id":10})")).ok());   // after it: seen
  REQUIRE(s->remove("c", val("4")).ok());
  auto rest = next_ok(*s, b.token, req(10));
  CHECK(ids_of(rest.ndjson) == "5 6 10");
  CHECK(rest.exhausted);
}

TEST_CASE("a cursor idle longer than 10 minutes expires with an error naming the expiry") {
  fresh_store s;
  seed(*s, 6);
  auto b = open_ok(*s, "c", req(1));
  // Exactly 10 minutes idle is still alive, and each call restarts the idle time.
  auto t1 = k_t0 + store::k_cursor_idle_millis;
  CHECK(ids_of(next_ok(*s, b.token, req(1, t1)).ndjson) == "2");
  auto err = next_error(*s, b.token, req(1, t1 + store::k_cursor_idle_millis + 1));
  CHECK(err.starts_with("cursor `" + b.token + "` expired: it was last used at 2027-01-15T08:"));
  CHECK(err.find("cursors expire after 10 minutes without a call") != std::string::npos);
  // An expired cursor is removed: the next call no longer knows it.
  CHECK(next_error(*s, b.token, req(1, t1)).starts_with("no cursor"));
}

TEST_CASE("opening a cursor removes cursors that have expired") {
  fresh_store s;
  seed(*s, 6);
  auto old_one = open_ok(*s, "c", req(1));
  auto fresh_one = open_ok(*s, "c", req(1, k_t0 + 5 * 60 * 1000));
  open_ok(*s, "c", req(1, k_t0 + store::k_cursor_idle_millis + 1));
  CHECK(next_error(*s, old_one.token, req(1, k_t0)).starts_with("no cursor"));
  CHECK(ids_of(next_ok(*s, fresh_one.token, req(1, k_t0 + 6 * 60 * 1000)).ndjson) == "2");
}

TEST_CASE("cursor_close removes a cursor, and closing it again is an error") {
  fresh_store s;
  seed(*s, 6);
  auto b = open_ok(*s, "c", req(2));
  REQUIRE(s->cursor_close(b.token, k_t0).ok());
  CHECK(next_error(*s, b.token, req(2)).starts_with("no cursor"));
  auto again = s->cursor_close(b.token, k_t0);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.starts_with("no cursor `" + b.token + "` in this store: it was already closed"));
}

TEST_CASE("closing an expired cursor removes it and says it had expired") {
  fresh_store s;
  seed(*s, 6);
  auto b = open_ok(*s, "c", req(2));
  auto late = s->cursor_close(b.token, k_t0 + store::k_cursor_idle_millis + 1);
  REQUIRE_FALSE(late.ok());
  CHECK(late.error().message.starts_with("cursor `" + b.token + "` had already expired"));
  CHECK(next_error(*s, b.token, req(2)).starts_with("no cursor"));
}

TEST_CASE("malformed tokens and batch sizes are refused") {
  fresh_store s;
  seed(*s, 2);
  CHECK(next_error(*s, "xyz", req(1)) ==
        "`xyz` is not a cursor token: tokens are 32 lowercase hex digits, exactly as cursor_open returned them");
  auto zero = s->cursor_open("c", req(0));
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message == "batch size 0 is out of range: it must be 1 to 10000");
  CHECK_FALSE(s->cursor_open("c", req(10001)).ok());
  CHECK(s->cursor_open("c", req(10000)).ok());
  auto bad_sort = req(1);
  bad_sort.sort = doc(R"({"age":2})");
  CHECK_FALSE(s->cursor_open("c", bad_sort).ok());
}

TEST_CASE("two cursors on one collection are independent and tokens differ") {
  fresh_store s;
  seed(*s, 4);
  auto a = open_ok(*s, "c", req(1));
  auto b = open_ok(*s, "c", req(2));
  CHECK(a.token != b.token);
  CHECK(ids_of(next_ok(*s, a.token, req(1)).ndjson) == "2");
  CHECK(ids_of(next_ok(*s, b.token, req(1)).ndjson) == "3");
}

TEST_CASE("cursor state is not data: dump and the op-log do not change") {
  fresh_store s;
  seed(*s, 5);
  const std::string before = dump_text(*s);
  const std::size_t log_before = oplog_size(*s);
  auto b = open_ok(*s, "c", req(2));
  next_ok(*s, b.token, req(1));
  CHECK(dump_text(*s) == before);
  CHECK(oplog_size(*s) == log_before);
}

TEST_CASE("a batch may stop early at the byte limit and the cursor continues from there") {
  fresh_store s;
  seed(*s, 5);
  auto r = req(5);
  r.max_bytes = 30;  // each line is about 17 bytes: one or two per batch
  auto b = open_ok(*s, "c", r);
  std::string joined = b.ndjson;
  while (!b.exhausted) {
    b = next_ok(*s, b.token, r);
    joined += b.ndjson;
  }
  CHECK(ids_of(joined) == "1 2 3 4 5");
}

TEST_CASE("a projection without _id still continues from the right document") {
  fresh_store s;
  seed(*s, 5);
  auto r = req(2);
  r.projection = doc(R"({"_id":0,"age":1})");
  r.sort = doc(R"({"age":1})");
  find_options o;
  o.projection = r.projection;
  o.sort = r.sort;
  auto b = open_ok(*s, "c", r);
  std::string joined = b.ndjson;
  while (!b.exhausted) {
    b = next_ok(*s, b.token, req(2));
    joined += b.ndjson;
  }
  CHECK(joined == find_all(*s, "c", o));
  CHECK(joined == "{\"age\":0}\n{\"age\":1}\n{\"age\":2}\n{\"age\":3}\n{\"age\":4}\n");
}

TEST_CASE("concurrent cursor_next calls on one token never return the same document") {
  fresh_store s;
  seed(*s, 60);
  auto first = open_ok(*s, "c", req(1));
  std::mutex m;
  std::multiset<std::string> seen{ids_of(first.ndjson)};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (true) {
        auto b = s->cursor_next(first.token, req(1));
        if (!b.ok()) return;  // removed by another thread's exhausting call
        std::lock_guard lock(m);
        if (b->returned > 0) seen.insert(ids_of(b->ndjson));
        if (b->exhausted) return;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(seen.size() == 60);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 60);
}

TEST_CASE("cursor_next without a batch size uses the size the cursor was opened with") {
  fresh_store s;
  seed(*s, 7);
  auto b = open_ok(*s, "c", req(3));
  store::cursor_request same;
  same.now_millis = k_t0;
  CHECK(ids_of(next_ok(*s, b.token, same).ndjson) == "4 5 6");
  CHECK(ids_of(next_ok(*s, b.token, req(1)).ndjson) == "7");
  auto none = store::cursor_request{};
  auto opened = s->cursor_open("c", none);
  REQUIRE(opened.ok());
  CHECK(opened->returned == 7);  // default 100
}
