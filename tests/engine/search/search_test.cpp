// Search indexes end to end on a real store: definitions through the op-log, stemming and
// folding, incremental (caught-up) generations equal rebuilt ones, filters equal brute force,
// crashes (SIGKILL) during a rebuild and a catch-up, and verify's view of the generations.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>

#include "engine/query/filter.hpp"
#include "engine/search/index.hpp"
#include "engine/search/search.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;
namespace es = omgdb::engine::search;

namespace {

es::define_result define(store& s, std::string_view json) {
  auto r = es::manager::of(s)->define(doc(json));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

es::search_result run_search(store& s, std::string_view index, std::string q, std::uint64_t limit = 10,
                         std::string_view filter = "{}", std::string collection = "pages") {
  es::search_request r;
  r.collection = collection;
  r.index = std::string(index);
  r.query = std::move(q);
  r.limit = limit;
  r.filter = doc(filter);
  auto out = es::manager::of(s)->run(r, nullptr);
  REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
  return *out;
}

std::vector<std::pair<std::string, double>> ranked(const es::search_result& r) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& h : r.hits) out.emplace_back(to_json(h.id), h.score);
  return out;
}

std::vector<std::string> ids(const es::search_result& r) {
  std::vector<std::string> out;
  for (const auto& h : r.hits) out.push_back(to_json(h.id));
  return out;
}

const store::verify_cache& cache(const store::verify_report& r, std::string_view name) {
  auto it = std::find_if(r.caches.begin(), r.caches.end(), [&](const auto& c) { return c.name == name; });
  REQUIRE(it != r.caches.end());
  return *it;
}

store::verify_report verified(store& s) {
  auto r = s.verify();
  REQUIRE(r.ok());
  CHECK_MESSAGE(r->ok, (r->mismatches.empty() ? "" : r->mismatches.front()));
  return *r;
}

constexpr std::string_view k_def = R"({"collection":"pages","name":"text","fields":[{"path":"title","weight":3},"body"]})";

void seed(store& s) {
  REQUIRE(s.insert_many("pages", docs({R"({"_id":1,"title":"Opening files","body":"open(2) opens the file named by pathname"})",
                                       R"({"_id":2,"title":"Sockets","body":"socket creates an endpoint; bind names it"})",
                                       R"({"_id":3,"title":"Café au lait","body":"a drink, not a system call","tags":["x"]})",
                                       R"({"_id":4,"title":"Reading","body":"read from a file descriptor; reads bytes"})"}))
              .ok());
}

}  // namespace

TEST_CASE("a search ranks the documents matching any query word, stemmed and folded") {
  fresh_store f;
  seed(*f.db);
  auto d = define(*f.db, k_def);
  CHECK(d.created);
  CHECK(d.built);
  CHECK(d.def.version == 1);
  // "reading" and "reads" stem to "read"; "cafe" matches "Café".
  CHECK(ids(run_search(*f.db, "text", "reading")) == std::vector<std::string>{"4"});
  CHECK(ids(run_search(*f.db, "text", "cafe")) == std::vector<std::string>{"3"});
  // Any word: "socket" or "file"; the title weight ranks the title match of 1 above the body one of 4.
  auto r = run_search(*f.db, "text", "socket file");
  CHECK(r.hits.size() == 3);
  auto opening = run_search(*f.db, "text", "files");
  CHECK(ids(opening) == std::vector<std::string>{"1", "4"});
  CHECK(opening.hits[0].score > opening.hits[1].score);
  CHECK(ids(run_search(*f.db, "text", "title:file")) == std::vector<std::string>{"1"});
  CHECK(ids(run_search(*f.db, "text", "file NOT title:opening")) == std::vector<std::string>{"4"});
  CHECK(ids(run_search(*f.db, "text", "\"endpoint bind\"")) == std::vector<std::string>{"2"});
  CHECK(ids(run_search(*f.db, "text", "\"bind endpoint\"")).empty());
  CHECK(ids(run_search(*f.db, "text", "sock*")) == std::vector<std::string>{"2"});
}

TEST_CASE("writes after the build are caught up from the op-log at search time") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  const auto before = run_search(*f.db, "text", "pipe");
  CHECK(before.hits.empty());
  REQUIRE(f.db->insert("pages", doc(R"({"_id":5,"title":"Pipes","body":"pipe creates a pipe"})")).ok());
  REQUIRE(f.db->remove("pages", val("4")).ok());
  auto after = run_search(*f.db, "text", "pipe read");
  CHECK(ids(after) == std::vector<std::string>{"5"});
  CHECK(after.caught_up);
  CHECK(after.searched_seq == after.last_seq);
}

TEST_CASE("an unchanged definition writes nothing and a changed one gets the next version") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  auto again = define(*f.db, k_def);
  CHECK_FALSE(again.changed);
  CHECK(again.def.version == 1);
  auto changed = define(*f.db, R"({"collection":"pages","name":"text","fields":["body"],"language":"none"})");
  CHECK(changed.changed);
  CHECK(changed.def.version == 2);
  // Unstemmed now: "reading" no longer finds "read".
  CHECK(run_search(*f.db, "text", "reading").hits.empty());
  verified(*f.db);
}

TEST_CASE("bad definitions and unknown indexes get precise errors") {
  fresh_store f;
  auto m = es::manager::of(*f.db);
  auto r = m->define(doc(R"({"collection":"pages","name":"t","fields":[],"language":"english"})"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("`fields` must be a non-empty array") != std::string::npos);
  r = m->define(doc(R"({"collection":"pages","name":"t","fields":["a"],"language":"klingon"})"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("no stemmer `klingon`") != std::string::npos);
  define(*f.db, R"({"collection":"pages","name":"text","fields":["a"]})");
  es::search_request q;
  q.collection = "pages";
  q.index = "txt";
  q.query = "x";
  auto s = m->run(q, nullptr);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("did you mean `text`?") != std::string::npos);
  q.index = "text";
  q.query = "a AND";
  s = m->run(q, nullptr);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("query syntax: expected a term after `AND`") != std::string::npos);
  q.query = "x";
  q.mode = es::search_mode::semantic;
  s = m->run(q, nullptr);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("has no semantic part") != std::string::npos);
}

TEST_CASE("a caught-up generation equals one rebuilt from scratch after random writes") {
  fresh_store f;
  std::mt19937 rng(1234);
  const std::vector<std::string> words{"alpha", "beta", "gamma", "delta", "file", "files", "socket", "read", "reading", "pipe"};
  auto text = [&](int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += words[rng() % words.size()] + " ";
    return t;
  };
  REQUIRE(f.db->insert("pages", doc(R"({"_id":0,"title":"seed","body":"alpha"})")).ok());
  define(*f.db, k_def);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 60; ++i) {
      const int id = static_cast<int>(rng() % 40);
      const int op = static_cast<int>(rng() % 4);
      const std::string idj = std::to_string(id);
      auto d = doc(R"({"_id":)" + idj + R"(,"title":")" + text(2) + R"(","body":")" + text(1 + rng() % 12) + R"("})");
      if (op == 0) {
        (void)f.db->insert("pages", d);
      } else if (op == 1) {
        (void)f.db->replace("pages", val(idj), d);
      } else if (op == 2) {
        (void)f.db->remove("pages", val(idj));
      } else {
        store::update_request u;
        u.filter = doc(R"({"_id":)" + idj + "}");
        u.update = doc(R"({"$set":{"body":")" + text(3) + R"("}})");
        (void)f.db->update_one("pages", u);
      }
    }
    // The same definition under another name: built from the documents, not the op-log.
    auto rebuilt_name = "fresh" + std::to_string(round);
    define(*f.db, R"({"collection":"pages","name":")" + rebuilt_name + R"(","fields":[{"path":"title","weight":3},"body"]})");
    for (const auto* q : {"file", "read socket", "alpha beta gamma delta", "pipe NOT file", "\"beta gamma\"", "fil*"}) {
      auto inc = run_search(*f.db, "text", q, 100);
      auto full = run_search(*f.db, rebuilt_name, q, 100);
      CHECK_MESSAGE(ranked(inc) == ranked(full), q);
    }
  }
}

TEST_CASE("a filtered search returns exactly the ranked hits that match the filter") {
  fresh_store f;
  std::vector<document> batch;
  for (int i = 0; i < 200; ++i) {
    batch.push_back(doc(R"({"_id":)" + std::to_string(i) + R"(,"n":)" + std::to_string(i % 7) + R"(,"title":"t","body":")" +
                        std::string(i % 3 == 0 ? "file file read" : i % 3 == 1 ? "file" : "read socket") + R"("})"));
  }
  REQUIRE(f.db->insert_many("pages", batch).ok());
  define(*f.db, k_def);
  auto all = run_search(*f.db, "text", "file read", 1000);
  auto flt = filter::compile(doc(R"({"n":{"$in":[1,4]}})"));
  REQUIRE(flt.ok());
  std::vector<std::pair<std::string, double>> expected;
  for (const auto& h : all.hits) {
    auto d = f.db->get("pages", h.id);
    REQUIRE(d.ok());
    if (d->has_value() && flt->matches(**d)) expected.emplace_back(to_json(h.id), h.score);
  }
  CHECK(expected.size() > 10);
  auto got = run_search(*f.db, "text", "file read", 1000, R"({"n":{"$in":[1,4]}})");
  CHECK(ranked(got) == expected);
  auto top = run_search(*f.db, "text", "file read", 5, R"({"n":{"$in":[1,4]}})");
  CHECK(ranked(top) == std::vector<std::pair<std::string, double>>(expected.begin(), expected.begin() + 5));
}

TEST_CASE("verify reports a tampered or deleted generation and a rebuild repairs it") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  CHECK(cache(verified(*f.db), "text").state == "fresh");
  CHECK(cache(verified(*f.db), "text").indexed == 4);
  REQUIRE(f.db->insert("pages", doc(R"({"_id":9,"body":"later"})")).ok());
  CHECK(cache(verified(*f.db), "text").state == "behind");
  run_search(*f.db, "text", "later");
  CHECK(cache(verified(*f.db), "text").state == "fresh");
  auto m = es::manager::of(*f.db);
  const auto dir = m->internals().dir("pages", "text");
  const auto file = es::manager::impl::gen_file(dir, es::manager::impl::current(dir));
  {
    // Tamper: overwrite the middle of the file.
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(fs::file_size(file) / 2));
    const std::string junk(4096, '\x5a');
    io.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  m->internals().states.clear();
  CHECK(cache(verified(*f.db), "text").state == "corrupt");
  auto rb = m->rebuild("pages", "text", es::k_min_writer_memory);
  REQUIRE_MESSAGE(rb.ok(), (rb.ok() ? "" : rb.error().message));
  CHECK(rb->documents == 5);
  CHECK(cache(verified(*f.db), "text").state == "fresh");
  fs::remove(es::manager::impl::gen_file(dir, es::manager::impl::current(dir)));
  m->internals().states.clear();
  CHECK(cache(verified(*f.db), "text").state == "missing");
  REQUIRE(m->rebuild("pages", "text", es::k_default_writer_memory).ok());
  CHECK(cache(verified(*f.db), "text").state == "fresh");
}

TEST_CASE("a rebuild commits every writerMemoryBytes of indexed text") {
  fresh_store f;
  std::vector<document> batch;
  const std::string body(4000, 'a');
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(doc(R"({"_id":)" + std::to_string(i) + R"(,"body":"w)" + std::to_string(i) + " " + body + R"("})"));
  }
  REQUIRE(f.db->insert_many("pages", batch).ok());
  define(*f.db, k_def);
  auto rb = es::manager::of(*f.db)->rebuild("pages", "text", es::k_min_writer_memory);
  REQUIRE(rb.ok());
  CHECK(rb->commits >= 4);  // ~4 MB of text in 1 MiB commits, plus the last one
  CHECK(rb->documents == 1000);
}

namespace {

// Runs `body` in a child that SIGKILLs itself at the fault stage `stage`; the parent's store
// is closed meanwhile (the store lock admits one process) and reopened after.
void crash_at(fresh_store& f, std::string_view stage, const std::function<void(store&)>& body) {
  f.db.reset();
  const pid_t pid = fork();
  if (pid == 0) {
    auto s = store::open(f.path);
    if (!s.ok()) _exit(3);
    auto& impl = detail::store_access::of(**s);
    impl.fault = [stage = std::string(stage)](std::string_view at) {
      if (at == stage) raise(SIGKILL);
    };
    body(**s);
    _exit(4);  // the fault was never reached
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  f.reopen();
}

}  // namespace

TEST_CASE("SIGKILL during a rebuild leaves the previous generation serving and no orphan") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  auto m = es::manager::of(*f.db);
  const auto dir = m->internals().dir("pages", "text");
  const auto gen_before = es::manager::impl::current(dir);
  for (const auto* stage : {"search_before_rename", "search_before_flip"}) {
    crash_at(f, stage, [](store& s) { (void)es::manager::of(s)->rebuild("pages", "text", es::k_default_writer_memory); });
    CHECK(es::manager::impl::current(dir) == gen_before);
    auto r = run_search(*f.db, "text", "file");
    CHECK(r.generation == gen_before);
    CHECK(ids(r) == std::vector<std::string>{"1", "4"});
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    CHECK(files == std::vector<std::string>{"CURRENT", es::manager::impl::gen_file(dir, gen_before).filename().string()});
    CHECK(cache(verified(*f.db), "text").state == "fresh");
  }
}

TEST_CASE("SIGKILL during a catch-up keeps the last committed boundary and the next search finishes it") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  for (int i = 10; i < 310; ++i) {
    REQUIRE(f.db->insert("pages", doc(R"({"_id":)" + std::to_string(i) + R"(,"body":"pipe number )" + std::to_string(i) + R"("})")).ok());
  }
  crash_at(f, "search_catch_up", [](store& s) {
    auto m = es::manager::of(s);
    m->internals().catch_up_commit_every = 100;
    es::search_request r;
    r.collection = "pages";
    r.index = "text";
    r.query = "pipe";
    (void)m->run(r, nullptr);
  });
  auto v = verified(*f.db);
  CHECK(cache(v, "text").state == "behind");
  CHECK(cache(v, "text").built_through > 4);
  auto r = run_search(*f.db, "text", "pipe", 1000);
  CHECK(r.hits.size() == 300);
  define(*f.db, R"({"collection":"pages","name":"fresh","fields":[{"path":"title","weight":3},"body"]})");
  CHECK(ranked(r) == ranked(run_search(*f.db, "fresh", "pipe", 1000)));
  run_search(*f.db, "text", "pipe");  // past the define record of `fresh`
  CHECK(cache(verified(*f.db), "text").state == "fresh");
}

TEST_CASE("dropping an index removes its definition and files") {
  fresh_store f;
  seed(*f.db);
  define(*f.db, k_def);
  auto m = es::manager::of(*f.db);
  const auto dir = m->internals().dir("pages", "text");
  CHECK(fs::exists(dir));
  REQUIRE(m->drop("pages", "text").ok());
  CHECK_FALSE(fs::exists(dir));
  CHECK(verified(*f.db).caches.empty());
  auto again = m->drop("pages", "text");
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("no search index `text`") != std::string::npos);
}

TEST_CASE("reciprocal rank fusion is deterministic and breaks ties by _id") {
  using es::ranked;
  const std::vector<ranked> lex{{"b", value(2)}, {"a", value(1)}, {"c", value(3)}};
  const std::vector<ranked> sem{{"a", value(1)}, {"b", value(2)}, {"d", value(4)}};
  auto f = es::rrf({lex, sem}, {1.0, 1.0});
  REQUIRE(f.size() == 4);
  // a and b both have ranks {1, 2}: equal scores, a first by _id.
  CHECK(f[0].key == "a");
  CHECK(f[1].key == "b");
  CHECK(f[0].score == doctest::Approx(1.0 / 61 + 1.0 / 62));
  CHECK(f[2].key == "c");  // rank 3 in one list: 1/63, same as d — c before d by _id
  CHECK(f[3].key == "d");
  CHECK(f[3].ranks[0] == std::nullopt);
  CHECK(f[3].ranks[1] == 3u);
  auto w = es::rrf({lex, sem}, {1.0, 0.2});
  CHECK(w[0].key == "b");  // lexical weighs more: its first hit wins
}
