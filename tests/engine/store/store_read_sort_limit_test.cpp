// An unindexed find sort is bounded by bytes (issue 16, item 7): it holds sort keys, not
// documents, keeps only the top skip + limit, and refuses past the sort memory limit with an
// error naming the limit and what avoids it.
#include "engine/aggregate/pipeline.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

// `n` documents {_id: i, k: (i * 7) % n, big: <bytes of padding>, s: <key_bytes of a sortable string>}.
void seed(store& s, int n, std::size_t big_bytes, std::size_t key_bytes) {
  std::vector<document> all;
  for (int i = 0; i < n; ++i) {
    std::string key = std::to_string(100000 + (i * 7919) % n);
    key.resize(std::max(key.size(), key_bytes), 'x');
    all.push_back(document{{"_id", i}, {"k", (i * 7) % n}, {"big", std::string(big_bytes, 'b')}, {"s", key}});
  }
  REQUIRE(s.insert_many("c", std::move(all)).ok());
}

std::vector<std::int64_t> ks(const std::string& ndjson) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start < ndjson.size()) {
    auto end = ndjson.find('\n', start);
    auto d = doc(std::string_view(ndjson).substr(start, end - start));
    out.push_back(static_cast<std::int64_t>(find_field(d, "k")->number_as_double()));
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("a sort of large documents by a small field holds their keys, not the documents") {
  fresh_store s;
  seed(*s, 300, 60 * 1024, 0);  // 18 MB of documents
  find_options o;
  o.sort = doc(R"({"k":-1})");
  o.projection = doc(R"({"big":0,"s":0})");
  o.limit = 3;
  o.skip = 200;  // keeps the top 204 entries: 12 MB as documents, ~40 KB as keys
  o.max_sort_bytes = 256 * 1024;
  auto page = s->find("c", o);
  REQUIRE_MESSAGE(page.ok(), (page.ok() ? "" : page.error().message));
  CHECK(ks(page->ndjson) == std::vector<std::int64_t>{99, 98, 97});
  CHECK(page->more);
}

TEST_CASE("a sort whose kept keys pass the sort memory limit is refused naming the limit and the way out") {
  fresh_store s;
  seed(*s, 400, 0, 4096);  // 400 sort keys of 4 KiB: 1.6 MB
  find_options o;
  o.sort = doc(R"({"s":1})");
  o.max_sort_bytes = 1 << 20;
  auto page = s->find("c", o);
  REQUIRE_FALSE(page.ok());
  CHECK(page.error().kind == failure_kind::limit_exceeded);
  const std::string& m = page.error().message;
  CHECK(m.starts_with(R"(sorting by {"s":1} without an index in that order exceeded the sort memory limit of 1 MiB )"
                      "(it holds the sort entries of "));
  CHECK(m.find("documents and does not spill to disk): pass a `limit` (with an index on the sort "
               "fields the sort then streams in its order) and a smaller `skip`, or narrow the filter") != std::string::npos);
  // With a limit only the top k are kept, so the same sort fits.
  o.limit = 5;
  auto top = s->find("c", o);
  REQUIRE_MESSAGE(top.ok(), (top.ok() ? "" : top.error().message));
  CHECK(top->returned == 5);
  // And with an index in the sort's order a large limit streams instead of holding keys.
  store::index_spec by_s;
  by_s.fields.push_back({"s", false});
  auto made = s->create_index("c", by_s);
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
  o.limit = 1000;
  o.projection = doc(R"({"s":0})");
  auto indexed = s->find("c", o);
  REQUIRE_MESSAGE(indexed.ok(), (indexed.ok() ? "" : indexed.error().message));
  CHECK(indexed->returned == 400);
}

TEST_CASE("the sort memory limit is the one 100 MiB figure shared with aggregation") {
  CHECK(find_options{}.max_sort_bytes == k_max_sort_bytes);
  CHECK(pipeline_options{}.max_stage_bytes == k_max_sort_bytes);
  CHECK(k_max_sort_bytes == std::size_t{100} << 20);
}
