// Issue 29 item 7: a search's timeoutMs and the call's flag bound FTS5's ranking (a progress
// handler inside sqlite3_step), and one long ranking does not make every other search of the
// index wait for the index's mutex.
#include <atomic>
#include <chrono>
#include <future>
#include <algorithm>
#include <random>

#include "common/call_budget.hpp"
#include "engine/search/index.hpp"
#include "engine/search/search.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::test;
namespace es = omgdb::engine::search;
using std::chrono::steady_clock;

namespace {

constexpr int k_docs = 30000;

// Documents of random words over a small alphabet, so that 64 prefix terms match nearly all.
std::shared_ptr<store> big_index(const temp_dir& d) {
  REQUIRE(store::create(d.sub("s")).ok());
  auto s = store::open(d.sub("s"));
  REQUIRE(s.ok());
  std::mt19937 rng(7);
  std::vector<document> batch;
  for (int i = 0; i < k_docs; ++i) {
    std::string body;
    for (int w = 0; w < 40; ++w) {
      body += static_cast<char>('a' + rng() % 26);
      body += static_cast<char>('a' + rng() % 26);
      body += static_cast<char>('a' + rng() % 26);
      body += ' ';
    }
    batch.push_back(document{{"_id", value(std::int64_t{i})}, {"body", value(body)}});
    if (batch.size() == 5000) {
      REQUIRE((*s)->insert_many("pages", std::move(batch)).ok());
      batch.clear();
    }
  }
  auto def = es::manager::of(**s)->define(doc(R"({"collection":"pages","name":"t","fields":["body"]})"));
  REQUIRE_MESSAGE(def.ok(), (def.ok() ? "" : def.error().message));
  REQUIRE(es::manager::of(**s)->rebuild("pages", "t", es::k_default_writer_memory).ok());
  return *s;
}

std::string broad_query() {
  std::string q;
  for (int i = 0; i < 64; ++i) {
    q += static_cast<char>('a' + i % 26);
    if (i >= 26) q += static_cast<char>('a' + (i * 7) % 26);
    q += "* ";
  }
  return q;
}

es::search_request request(std::string q, std::uint64_t timeout_ms) {
  es::search_request r;
  r.collection = "pages";
  r.index = "t";
  r.query = std::move(q);
  r.limit = 10;
  r.timeout_ms = timeout_ms;
  return r;
}

double ms_since(steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("timeoutMs stops FTS5's ranking of 64 prefix terms inside the step, with a precise error") {
  temp_dir d;
  auto s = big_index(d);
  auto m = es::manager::of(*s);
  // How long the whole ranking takes here.
  auto t0 = steady_clock::now();
  auto full = m->run(request(broad_query(), 60000), nullptr);
  const double full_ms = ms_since(t0);
  REQUIRE_MESSAGE(full.ok(), (full.ok() ? "" : full.error().message));
  MESSAGE("the whole ranking took " << full_ms << " ms");
  REQUIRE(full_ms > 150);  // long enough for the bound to show

  t0 = steady_clock::now();
  auto cut = m->run(request(broad_query(), 20), nullptr);
  const double cut_ms = ms_since(t0);
  REQUIRE(!cut.ok());
  CAPTURE(cut.error().message);
  CHECK(cut.error().kind == failure_kind::limit_exceeded);
  CHECK(cut.error().message.find("timeoutMs (20) ran out while FTS5 was ranking") != std::string::npos);
  MESSAGE("timeoutMs 20 answered in " << cut_ms << " ms");
  CHECK(cut_ms < 20 + 100);
}

TEST_CASE("a cancelled call stops FTS5's ranking") {
  temp_dir d;
  auto s = big_index(d);
  std::atomic<bool> stop{false};
  call_budget budget(k_default_call_memory_bytes, &stop);
  scan_control control;
  control.budget = &budget;
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    stop = true;
  });
  const auto t0 = steady_clock::now();
  auto r = es::manager::of(*s)->run(request(broad_query(), 60000), nullptr, control);
  const double ms = ms_since(t0);
  setter.join();
  REQUIRE(!r.ok());
  CHECK(r.error().kind == failure_kind::cancelled);
  CHECK(ms < 30 + 100);
}

TEST_CASE("a long ranking does not make another search of the same index wait") {
  temp_dir d;
  auto s = big_index(d);
  auto m = es::manager::of(*s);
  REQUIRE(m->run(request("abc", 5000), nullptr).ok());  // the generation is open
  auto slow = std::async(std::launch::async, [&] { return m->run(request(broad_query(), 60000), nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto t0 = steady_clock::now();
  auto quick = m->run(request("zzq", 5000), nullptr);
  const double quick_ms = ms_since(t0);
  const bool slow_still_running = slow.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready;
  REQUIRE(quick.ok());
  CHECK(slow.get().ok());
  if (slow_still_running) CHECK(quick_ms < 100);
  MESSAGE("a narrow search answered in " << quick_ms << " ms during a broad one");
}

TEST_CASE("a search that must catch up while another ranks answers from its boundary, in time") {
  temp_dir d;
  auto s = big_index(d);
  auto m = es::manager::of(*s);
  REQUIRE(m->run(request("abc", 5000), nullptr).ok());
  auto slow = std::async(std::launch::async, [&] { return m->run(request(broad_query(), 3000), nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(s->insert("pages", document{{"_id", value(std::int64_t{-1})}, {"body", value("zzq fresh")}}).ok());
  const auto t0 = steady_clock::now();
  auto quick = m->run(request("zzq", 600), nullptr);
  const double quick_ms = ms_since(t0);
  const bool slow_still_running = slow.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready;
  REQUIRE_MESSAGE(quick.ok(), (quick.ok() ? "" : quick.error().message));
  CHECK(quick_ms < 600 + 100);
  (void)slow.get();
  MESSAGE("caught up: " << quick->caught_up << ", " << quick_ms << " ms, the broad one still ranking: " << slow_still_running);
  // Once nothing reads the file, the next search catches up.
  auto later = m->run(request("zzq", 5000), nullptr);
  REQUIRE(later.ok());
  CHECK(later->caught_up);
  CHECK(std::any_of(later->hits.begin(), later->hits.end(), [](const es::hit& h) { return to_json(h.id) == "-1"; }));
}
