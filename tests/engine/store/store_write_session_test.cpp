// The one write path (engine/store/write_session.hpp): every mutating operation advances the
// op-log sequence through the session's one commit (contiguous seqs, one batch id per call,
// seen by a derived hook), a write past the byte budget is refused while its batch is built
// and leaves the store as it was, and a fault after the commit never turns a committed write
// into an error.
#include <doctest/doctest.h>

#include <fstream>
#include <new>
#include <set>
#include <stdexcept>

#include "engine/store/store_detail.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

std::int64_t int_of(const document& d, std::string_view name) {
  const value* v = find_field(d, name);
  REQUIRE(v != nullptr);
  return v->is_int64() ? v->as_int64() : v->as_int32();
}

// Op-log seqs must be 1..N without a gap, and batch ids must not decrease.
void check_contiguous(const store& s, std::size_t expected_records) {
  auto log = s.oplog();
  REQUIRE(log.ok());
  REQUIRE(log->size() == expected_records);
  std::int64_t last_batch = 0;
  for (std::size_t i = 0; i < log->size(); ++i) {
    CHECK(int_of((*log)[i], "seq") == static_cast<std::int64_t>(i + 1));
    const std::int64_t batch = int_of((*log)[i], "batch");
    CHECK(batch >= last_batch);
    CHECK(batch <= last_batch + 1);  // a new call takes the next batch id
    last_batch = batch;
  }
}

std::string big_text(std::size_t n) { return std::string(n, 'x'); }

// Records what a derived hook saw and writes one meta key into the same batch.
struct counting_hook : detail::derived_hook {
  std::vector<std::uint64_t> seqs;
  std::size_t commits = 0;
  bool refuse = false;
  omgdb::status stage(const store::impl& s, const std::vector<detail::oplog_entry>& records,
                      detail::staged_batch& batch) override {
    if (refuse) return omgdb::make_error("the derived structure refuses");
    ++commits;
    for (const auto& r : records) seqs.push_back(r.seq);
    return batch.put(s.meta, "derived/test", std::to_string(seqs.size()));
  }
};

}  // namespace

TEST_CASE("every mutating operation advances the op-log sequence through the one commit, contiguously") {
  fresh_store s;
  auto hook = std::make_shared<counting_hook>();
  detail::add_derived_hook(detail::store_access::of(*s), hook);
  std::size_t records = 0;
  auto step = [&](std::size_t added) {
    records += added;
    check_contiguous(*s, records);
  };

  REQUIRE(s->create_collection("users").ok());
  step(1);
  REQUIRE(s->insert("users", doc(R"({"_id":1,"n":1})")).ok());
  step(1);
  REQUIRE(s->insert_many("users", docs({R"({"_id":2,"n":2})", R"({"_id":3,"n":3})", R"({"_id":4,"n":4})"})).ok());
  step(3);
  REQUIRE(s->replace("users", val("2"), doc(R"({"n":20})")).ok());
  step(1);
  REQUIRE(s->remove("users", val("4")).ok());
  step(1);
  store::update_request inc;
  inc.update = doc(R"({"$inc":{"n":1}})");
  inc.filter = doc(R"({"_id":1})");
  REQUIRE(s->update_one("users", inc).ok());
  step(1);
  inc.filter = {};
  REQUIRE(s->update_many("users", inc).ok());
  step(3);
  REQUIRE(s->find_one_and_update("users", inc).ok());
  step(1);
  store::delete_request del;
  del.filter = doc(R"({"_id":3})");
  REQUIRE(s->delete_many("users", del).ok());
  step(1);

  store::bulk_step a;
  a.op = store::bulk_step::kind::insert;
  a.collection = "orders";  // cataloged by the program: create_collection + insert
  a.documents.push_back(doc(R"({"_id":1,"total":5})"));
  store::bulk_step b;
  b.op = store::bulk_step::kind::update_many;
  b.collection = "users";
  b.update.update = doc(R"({"$set":{"seen":true}})");
  auto bulk = s->bulk_write({a, b}, {});
  REQUIRE_MESSAGE(bulk.ok(), (bulk.ok() ? "" : bulk.error().message));
  step(4);  // create_collection, insert, two updates

  store::index_spec spec;
  spec.fields.push_back({"n", false});
  REQUIRE(s->create_index("users", spec).ok());  // not op-logged
  step(0);
  REQUIRE(s->create_index("tags", spec).ok());  // catalogs `tags`
  step(1);
  REQUIRE(s->define_collection("users", doc(R"({"required":["n"]})")).ok());
  step(1);

  store::plan_request plan;
  plan.update = doc(R"({"$inc":{"n":100}})");
  auto p = s->plan_update("users", plan);  // not op-logged
  REQUIRE(p.ok());
  step(0);
  auto applied = s->apply(p->token);
  REQUIRE_MESSAGE(applied.ok(), (applied.ok() ? "" : applied.error().message));
  step(2);
  auto undone = s->rollback(applied->change_id);
  REQUIRE_MESSAGE(undone.ok(), (undone.ok() ? "" : undone.error().message));
  step(2);

  const std::string file = s.dir.sub("more.jsonl");
  {
    std::ofstream out(file);
    out << R"({"_id":10})" << "\n" << R"({"_id":11})" << "\n";
  }
  REQUIRE(s->import_jsonl("orders", file, 1).ok());  // two batches
  step(2);
  REQUIRE(s->drop_collection("orders").ok());
  step(1);

  // The hook saw every record, each once, in seq order: each went through the one commit.
  REQUIRE(hook->seqs.size() == records);
  for (std::size_t i = 0; i < records; ++i) CHECK(hook->seqs[i] == i + 1);
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
  CHECK(v->last_seq == records);
  CHECK(v->meta_last_seq == records);

  // The sequence survives a reopen and goes on from where it was.
  s.reopen();
  REQUIRE(s->insert("users", doc(R"({"_id":50,"n":1})")).ok());
  check_contiguous(*s, records + 1);
}

TEST_CASE("a derived hook writes into the same batch, and its refusal writes nothing") {
  fresh_store s;
  auto hook = std::make_shared<counting_hook>();
  auto& impl = detail::store_access::of(*s);
  detail::add_derived_hook(impl, hook);
  REQUIRE(s->insert_many("c", docs({R"({"_id":1})", R"({"_id":2})"})).ok());
  CHECK(hook->commits == 1);
  std::string got;
  REQUIRE(impl.db->Get(rocksdb::ReadOptions(), impl.meta, "derived/test", &got).ok());
  CHECK(got == "3");  // create_collection and two inserts

  const std::string before = dump_text(*s);
  hook->refuse = true;
  auto r = s->insert("c", doc(R"({"_id":3})"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "the derived structure refuses");
  CHECK(dump_text(*s) == before);
  CHECK(oplog_size(*s) == 3);
  hook->refuse = false;
  REQUIRE(s->insert("c", doc(R"({"_id":3})")).ok());
  check_contiguous(*s, 4);
}

TEST_CASE("the write budget defaults to 1 GiB and refuses a setting below 1 MiB") {
  fresh_store s;
  CHECK(s->options().max_write_bytes == std::uint64_t{1} << 30);
  store_options o;
  o.max_write_bytes = 1000;
  auto c = s->configure(o);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "max_write_bytes 1000 is too small (at least 1048576)");
  o.max_write_bytes = 2u << 20;
  REQUIRE(s->configure(o).ok());
  CHECK(s->options().max_write_bytes == 2u << 20);
}

TEST_CASE("a write past the byte budget is refused while it is built and the store is unchanged") {
  fresh_store s;
  store_options o;
  o.max_write_bytes = 1u << 20;  // 1 MiB
  REQUIRE(s->configure(o).ok());
  std::vector<document> seed;
  for (int i = 0; i < 200; ++i) seed.push_back(doc(R"({"_id":)" + std::to_string(i) + R"(,"n":1})"));
  REQUIRE(s->insert_many("users", std::move(seed)).ok());
  const std::string before = dump_text(*s);
  const std::size_t records = oplog_size(*s);

  // update_many {} $set of 8 KB on 200 documents: ~3.2 MB of batch.
  store::update_request set;
  set.update = document{field{"$set", value(document{field{"blob", value(big_text(8192))}})}};
  auto u = s->update_many("users", set);
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().message ==
        "the write needs more than the write budget of 1 MiB (store option max_write_bytes = 1048576 bytes); "
        "nothing was written. Split it into smaller writes (a narrower filter, maxMutations, fewer documents "
        "or steps per call)");

  // insert_many and bulk_write alike.
  std::vector<document> large;
  for (int i = 0; i < 200; ++i) {
    large.push_back(document{field{"_id", value(std::int64_t{1000 + i})}, field{"blob", value(big_text(8192))}});
  }
  auto im = s->insert_many("users", large);
  REQUIRE_FALSE(im.ok());
  CHECK(im.error().message.find("more than the write budget of 1 MiB") != std::string::npos);
  store::bulk_step step;
  step.op = store::bulk_step::kind::insert_many;
  step.collection = "users";
  step.documents = large;
  auto bw = s->bulk_write({step}, {});
  REQUIRE_FALSE(bw.ok());
  CHECK(bw.error().message.find("more than the write budget of 1 MiB") != std::string::npos);

  CHECK(dump_text(*s) == before);
  CHECK(oplog_size(*s) == records);
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);

  // The same update within a larger budget goes through, and the sequence has no gap.
  o.max_write_bytes = 64u << 20;
  REQUIRE(s->configure(o).ok());
  auto ok = s->update_many("users", set);
  REQUIRE_MESSAGE(ok.ok(), (ok.ok() ? "" : ok.error().message));
  CHECK(ok->modified == 200);
  check_contiguous(*s, records + 200);
}

TEST_CASE("a fault after the commit does not turn a committed write into an error") {
  fresh_store s;
  auto& impl = detail::store_access::of(*s);
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"n":1})", R"({"_id":2,"n":1})"})).ok());
  for (const char* stage : {"write", "after_commit"}) {
    CAPTURE(stage);
    int faults = 0;
    impl.fault = [&](std::string_view at) {
      if (at != stage) return;
      ++faults;
      throw std::bad_alloc();
    };
    // $inc twice must count twice: a write reported as failed would be retried and counted
    // three times.
    store::update_request inc;
    inc.filter = doc(R"({"_id":{"$in":[1,2]}})");
    inc.update = doc(R"({"$inc":{"n":1}})");
    auto u = s->update_many("users", inc);
    REQUIRE_MESSAGE(u.ok(), (u.ok() ? "" : u.error().message));
    CHECK(u->modified == 2);
    auto r = s->insert("users", doc(R"({"n":0})"));
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    CHECK(faults == 2);
  }
  impl.fault = nullptr;
  auto got = s->get("users", val("1"));
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK(int_of(**got, "n") == 3);
  check_contiguous(*s, 3 + 2 * 3);  // create and 2 inserts, then two rounds of 2 updates + 1 insert
  auto v = s->verify();
  REQUIRE(v.ok());
  CHECK(v->ok);
}
