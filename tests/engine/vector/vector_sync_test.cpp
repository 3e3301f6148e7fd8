// engine/vector: vsync's counts, what vstale lists after edits and model changes, batches
// that are whole after cancellation and after SIGKILL, and the refusal of ordinary writes.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/engine/vector/vector_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

std::vector<std::int64_t> stale_ids(test::vector_world& w, const std::string& field) {
  auto r = vector::stale(*w.db, "docs", field);
  REQUIRE(r.ok());
  std::vector<std::int64_t> out;
  for (const auto& id : r->ids) out.push_back(static_cast<std::int64_t>(id.number_as_double()));
  return out;
}

std::uint64_t count_of(store& s, const std::string& collection, const std::string& filter = "{}") {
  auto n = s.count(collection, test::doc(filter));
  REQUIRE(n.ok());
  return *n;
}

}  // namespace

TEST_CASE("vsync embeds what is missing, leaves fresh vectors alone and removes those of deleted documents") {
  test::vector_world w(50, 8);
  w.fill(30);
  REQUIRE(w.db->insert("docs", test::doc(R"({"_id": 100, "text": 5})")).ok());  // no text
  auto first = w.sync("text", "a", 8);
  CHECK(first.embedded == 30);
  CHECK(first.unchanged == 0);
  CHECK(first.no_text == 1);
  CHECK(first.batches == 4);
  CHECK(first.rebound);
  CHECK(count_of(*w.db, "docs.__vectors", R"({"_id.field": "text", "textHash": {"$exists": true}})") == 30);
  REQUIRE(w.db->remove("docs", value(std::int64_t{3})).ok());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 7})"), test::doc(R"({"$set": {"text": "w40"}})")}).ok());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 8})"), test::doc(R"({"$unset": {"text": 1}})")}).ok());
  auto second = w.sync("text");
  CHECK(second.embedded == 1);
  CHECK(second.unchanged == 27);
  CHECK(second.removed == 2);
  CHECK_FALSE(second.rebound);
  CHECK(count_of(*w.db, "docs.__vectors", R"({"textHash": {"$exists": true}})") == 28);
  auto third = w.sync("text");
  CHECK(third.embedded == 0);
  CHECK(third.removed == 0);
  auto v = w.db->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}

TEST_CASE("vsync with only the seed's parameters binds the configured default model, else asks which of several") {
  test::vector_world w(20, 8);  // installs models `a` and `b`
  w.fill(5);
  vector::sync_request r;
  r.collection = "docs";
  r.field = "text";
  // Two models, no default: ambiguous, and the error lists both.
  auto ambiguous = vector::sync(*w.db, *w.models, r);
  REQUIRE_FALSE(ambiguous.ok());
  CHECK(ambiguous.error().message.find("`a`") != std::string::npos);
  CHECK(ambiguous.error().message.find("`b`") != std::string::npos);
  CHECK(ambiguous.error().message.find("default_model") != std::string::npos);
  // With a default configured, the seed's call binds it.
  embed::model_registry with_default(w.dir.path() / "models", "b");
  auto bound = vector::sync(*w.db, with_default, r);
  REQUIRE_MESSAGE(bound.ok(), (bound ? "" : bound.error().message));
  CHECK(bound->bound.model == "b");
  CHECK(bound->embedded == 5);
  // Later calls without `model` keep the binding, whatever the default.
  embed::model_registry other_default(w.dir.path() / "models", "a");
  auto again = vector::sync(*w.db, other_default, r);
  REQUIRE(again.ok());
  CHECK(again->bound.model == "b");
  CHECK_FALSE(again->rebound);
}

TEST_CASE("editing a document's text makes exactly its vector stale, and vstale lists new documents as missing") {
  test::vector_world w(50, 8);
  w.fill(20);
  w.sync("text", "a");
  CHECK(stale_ids(w, "text").empty());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 5})"), test::doc(R"({"$set": {"text": "w41"}})")}).ok());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 12})"), test::doc(R"({"$set": {"text": "w42"}})")}).ok());
  REQUIRE(w.db->update_one("docs", {test::doc(R"({"_id": 13})"), test::doc(R"({"$set": {"grp": 9}})")}).ok());
  REQUIRE(w.db->insert("docs", test::doc(R"({"_id": 50, "text": "w43"})")).ok());
  CHECK(stale_ids(w, "text") == std::vector<std::int64_t>{5, 12, 50});
  auto r = vector::stale(*w.db, "docs", "text");
  CHECK(r->stale == 2);
  CHECK(r->missing == 1);
  CHECK(r->fresh == 18);
  CHECK_FALSE(r->truncated);
  w.sync("text");
  CHECK(stale_ids(w, "text").empty());
}

TEST_CASE("vstale's list is bounded and says when it was cut") {
  test::vector_world w(50, 4);
  w.fill(30);
  auto r = vector::stale(*w.db, "docs", "text", 10);
  REQUIRE(r.ok());
  CHECK(r->ids.size() == 10);
  CHECK(r->truncated);
  CHECK(r->missing == 30);
  CHECK_FALSE(r->bound.has_value());
}

TEST_CASE("changing a field's model makes exactly that field's vectors stale; batches committed before a cancel stay") {
  test::vector_world w(50, 8);
  w.fill(12);
  w.sync("text", "a");
  w.sync("title", "a");
  std::atomic<bool> cancel{false};
  scan_control control;
  control.cancelled = &cancel;
  control.progress = [&](std::uint64_t done, std::uint64_t) {
    if (done >= 4) cancel = true;  // after the first batch of 4 has committed
  };
  vector::sync_request req;
  req.collection = "docs";
  req.field = "text";
  req.model = "b";
  req.batch = 4;
  auto cut = vector::sync(*w.db, *w.models, req, control);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().kind == failure_kind::cancelled);
  CHECK(cut.error().message.find("cancelled after 1 committed batches (4 vectors embedded") != std::string::npos);
  // The first batch (ids 0..3) holds model b; the other 8 are stale against the new binding.
  CHECK(stale_ids(w, "text") == std::vector<std::int64_t>{4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(stale_ids(w, "title").empty());
  auto bound = vector::read_binding(*w.db, "docs", "text");
  REQUIRE(bound.ok());
  CHECK((*bound)->model == "b");
  // Searching never mixes: only the fresh (model b) vectors are ranked.
  auto r = vector::search_text(*w.db, *w.models, "docs", "text", "w1", 12, {});
  REQUIRE(r.ok());
  CHECK(r->ranked == 4);
  CHECK(r->stale + r->missing == 8);
  CHECK(r->hits.at(0).id.as_int64() == 1);
}

TEST_CASE("the ordinary write path refuses `.__vectors` collections; only drop_collection removes them") {
  test::vector_world w(10, 4);
  w.fill(3);
  w.sync("text", "a");
  auto ins = w.db->insert("docs.__vectors", test::doc(R"({"_id": 1})"));
  REQUIRE_FALSE(ins.ok());
  CHECK(ins.error().message.find("written only by vsync") != std::string::npos);
  CHECK_FALSE(w.db->delete_many("docs.__vectors", {test::doc("{}")}).ok());
  CHECK(count_of(*w.db, "docs.__vectors") == 4);  // readable: 3 vectors and the binding
  // drop_collection (the dangerous tool) may remove them: vsync rebuilds them.
  REQUIRE(w.db->drop_collection("docs.__vectors").ok());
  auto r = vector::stale(*w.db, "docs", "text");
  REQUIRE(r.ok());
  CHECK(r->missing == 3);
  CHECK(w.sync("text", "a").embedded == 3);
}

TEST_CASE("a vsync killed by SIGKILL mid-run leaves whole batches and a store that verifies") {
  test::vector_world w(400, 16);
  w.fill(400);
  const std::string path = w.db->path();
  w.db.reset();  // the child owns the store
  const std::size_t batch = 10;
  bool interrupted = false;
  for (int attempt = 0; attempt < 4 && !interrupted; ++attempt) {
    // Each attempt binds the other model, so every vector is re-embedded.
    const std::string model = attempt % 2 == 0 ? "a" : "b";
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      close(ready[0]);
      auto s = store::open(path);
      if (!s) _exit(2);
      vector::sync_request r;
      r.collection = "docs";
      r.field = "text";
      r.model = model;
      r.batch = batch;
      scan_control report;  // one byte per committed batch, then a little pause
      report.progress = [fd = ready[1]](std::uint64_t done, std::uint64_t) {
        if (done == 0) return;
        const char b = 'b';
        (void)!write(fd, &b, 1);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      };
      (void)vector::sync(**s, *w.models, r, report);
      _exit(0);
    }
    close(ready[1]);
    // Three batches in, kill it within the next batch or so.
    char b[3];
    std::size_t got = 0;
    while (got < 3) {
      const auto n = read(ready[0], b + got, 3 - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(300 + 700 * attempt));
    kill(child, SIGKILL);
    close(ready[0]);
    int st = 0;
    waitpid(child, &st, 0);
    auto s = store::open(path);
    REQUIRE_MESSAGE(s.ok(), (s ? "" : s.error().message));
    const auto vectors = count_of(**s, "docs.__vectors", R"({"textHash": {"$exists": true}, "model": ")" + model + "\"}");
    MESSAGE("attempt " << attempt << ": " << vectors << " vectors of model " << model << " after SIGKILL");
    CHECK(vectors % batch == 0);
    auto v = (*s)->verify();
    REQUIRE(v.ok());
    CHECK(v->ok);
    // Killed mid-run: some whole batches and not all (progress is reported as a batch is
    // staged, so under a slow build the third batch may not have committed yet).
    interrupted = WIFSIGNALED(st) && vectors >= batch && vectors < 400;
  }
  CHECK(interrupted);
  // A second vsync completes the rest.
  auto s = store::open(path);
  REQUIRE(s.ok());
  vector::sync_request r;
  r.collection = "docs";
  r.field = "text";
  auto done = vector::sync(**s, *w.models, r);
  REQUIRE(done.ok());
  CHECK(count_of(**s, "docs.__vectors", R"({"textHash": {"$exists": true}})") == 400);
}
