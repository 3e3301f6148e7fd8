// find's unindexed sort and aggregation's `$sort` are one sorter (engine/query/sort.hpp,
// bounded_sorter): the same order on tricky values (mixed types, arrays by their smallest or
// largest element, empty arrays, missing fields and nulls, numbers equal by value with the
// `_id` tie-break), the same top-k under a limit and the same refusal past the memory limit.
// The expected orders are written out from MongoDB's documented sort order, not computed.
#include <doctest/doctest.h>

#include "engine/aggregate/pipeline.hpp"
#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

// Twelve documents whose `a` covers the awkward cases; comments give the ascending key (the
// smallest element of an array) and the descending one (the largest).
const char* const k_tricky[] = {
    R"({"_id": 1, "a": 5})",                      // 5 / 5
    R"({"_id": 2, "a": "x"})",                    // "x" / "x"
    R"({"_id": 3})",                              // missing: null / null
    R"({"_id": 4, "a": null})",                   // null / null
    R"({"_id": 5, "a": [3, 10]})",                // 3 / 10
    R"({"_id": 6, "a": []})",                     // undefined (below null) both ways
    R"({"_id": 7, "a": {"b": 1}})",               // an object / an object
    R"({"_id": 8, "a": true})",                   // true / true
    R"({"_id": 9, "a": ["y", 1]})",               // 1 (numbers before strings) / "y"
    R"({"_id": 10, "a": 5.0})",                   // equal to 5: the `_id` breaks the tie
    R"({"_id": 11, "a": [null, 7]})",             // null / 7
    R"({"_id": 12, "a": {"$numberLong": "4"}})",  // 4 / 4
};

struct tricky_store {
  test::fresh_store s;
  tricky_store() {
    std::vector<document> all;
    for (const char* d : k_tricky) all.push_back(test::doc(d));
    REQUIRE(s->insert_many("c", std::move(all)).ok());
  }
};

std::vector<std::int64_t> ids_of_ndjson(const std::string& ndjson) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start < ndjson.size()) {
    const std::size_t end = ndjson.find('\n', start);
    const document d = test::doc(std::string_view(ndjson).substr(start, end - start));
    out.push_back(static_cast<std::int64_t>(find_field(d, "_id")->number_as_double()));
    start = end + 1;
  }
  return out;
}

std::vector<std::int64_t> find_order(store& s, std::string_view sort, std::optional<std::uint64_t> limit = {}) {
  find_options o;
  o.sort = test::doc(sort);
  o.limit = limit;
  auto page = s.find("c", o);
  REQUIRE_MESSAGE(page.ok(), (page.ok() ? "" : page.error().message));
  return ids_of_ndjson(page->ndjson);
}

result<std::vector<document>> aggregate(store& s, std::string_view pipeline, const pipeline_options& options = {}) {
  store_provider provider(s);
  return run_pipeline(provider, "c", aggregate_test::json_value(pipeline).as_array(), options);
}

std::vector<std::int64_t> sort_stage_order(store& s, std::string_view pipeline) {
  auto r = aggregate(s, pipeline);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  std::vector<std::int64_t> out;
  for (const document& d : *r) out.push_back(static_cast<std::int64_t>(find_field(d, "_id")->number_as_double()));
  return out;
}

}  // namespace

TEST_CASE("find and $sort order mixed types, arrays, missing fields and nulls the same, MongoDB's way") {
  tricky_store t;
  // Ascending: [] (undefined), then null and missing (ties by `_id`), numbers by value (an
  // array by its smallest element; 5 and 5.0 tie, `_id` first), strings, objects, booleans.
  const std::vector<std::int64_t> ascending{6, 3, 4, 11, 9, 5, 12, 1, 10, 2, 7, 8};
  CHECK(find_order(*t.s, R"({"a": 1})") == ascending);
  CHECK(sort_stage_order(*t.s, R"([{"$sort": {"a": 1}}])") == ascending);
  // Descending: booleans, objects, strings (["y", 1] by its largest, "y"), numbers (an array
  // by its largest element), null and missing, []; equal keys still in `_id` ascending order.
  const std::vector<std::int64_t> descending{8, 7, 9, 2, 5, 11, 1, 10, 12, 3, 4, 6};
  CHECK(find_order(*t.s, R"({"a": -1})") == descending);
  CHECK(sort_stage_order(*t.s, R"([{"$sort": {"a": -1}}])") == descending);
}

TEST_CASE("find with a limit and $sort followed by $limit keep the same top k") {
  tricky_store t;
  CHECK(find_order(*t.s, R"({"a": -1})", 4) == std::vector<std::int64_t>{8, 7, 9, 2});
  CHECK(sort_stage_order(*t.s, R"([{"$sort": {"a": -1}}, {"$limit": 4}])") == std::vector<std::int64_t>{8, 7, 9, 2});
  CHECK(find_order(*t.s, R"({"a": 1})", 3) == std::vector<std::int64_t>{6, 3, 4});
  CHECK(sort_stage_order(*t.s, R"([{"$sort": {"a": 1}}, {"$limit": 3}])") == std::vector<std::int64_t>{6, 3, 4});
}

TEST_CASE("find and $sort refuse past the same sort memory limit with one error naming the limit, and a limit bounds both") {
  test::fresh_store s;
  std::vector<document> all;
  for (int i = 0; i < 600; ++i) {
    all.push_back(document{{"_id", value(i)}, {"s", value(std::string(200, static_cast<char>('a' + i % 26)) + std::to_string(i))}});
  }
  REQUIRE(s->insert_many("c", std::move(all)).ok());
  constexpr std::size_t limit = 64 * 1024;  // 600 keys of ~200 bytes do not fit, 5 do

  find_options o;
  o.sort = test::doc(R"({"s": -1})");
  o.max_sort_bytes = limit;
  auto page = s->find("c", o);
  REQUIRE_FALSE(page.ok());
  CHECK(page.error().kind == failure_kind::limit_exceeded);
  CHECK(page.error().message.starts_with(R"(sorting by {"s":-1} without an index in that order exceeded the sort memory )"
                                         "limit of 65536 bytes (it holds the sort entries of "));

  pipeline_options po;
  po.max_stage_bytes = limit;
  auto r = aggregate(*s, R"([{"$sort": {"s": -1}}])", po);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.starts_with("stage `$sort` exceeded the sort memory limit of 65536 bytes (it holds the sort "
                                      "entries of "));
  CHECK(r.error().message.find("add a `$limit` right after the `$sort`") != std::string::npos);

  // Under the same limit, a limit of 5 keeps five entries and both answer the same.
  o.limit = 5;
  auto top = s->find("c", o);
  REQUIRE_MESSAGE(top.ok(), (top.ok() ? "" : top.error().message));
  auto top_sorted = aggregate(*s, R"([{"$sort": {"s": -1}}, {"$limit": 5}])", po);
  REQUIRE_MESSAGE(top_sorted.ok(), (top_sorted.ok() ? "" : top_sorted.error().message));
  std::vector<std::int64_t> from_stage;
  for (const document& d : *top_sorted) from_stage.push_back(find_field(d, "_id")->as_int32());
  // The largest strings are the 'z' runs (i % 26 == 25: i = 25, 51, 77, …, 597), ordered by
  // the digits after the run as text: "77" > "597" > "571" > "545" > "519" > "51" > …
  const std::vector<std::int64_t> expected{77, 597, 571, 545, 519};
  CHECK(ids_of_ndjson(top->ndjson) == expected);
  CHECK(from_stage == expected);
}
