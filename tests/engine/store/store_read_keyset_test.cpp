// find: keyset pagination (afterId / afterSortKey), the `more` flag and its continuation,
// projections, and $expr failures at run time.
#include <algorithm>

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

// The `_id`s of a page, space separated.
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

find_page run(const store& s, const find_options& o) {
  auto page = s.find("c", o);
  REQUIRE_MESSAGE(page.ok(), (page.ok() ? "" : page.error().message));
  return std::move(*page);
}

std::string error_of(const store& s, const find_options& o) {
  auto page = s.find("c", o);
  REQUIRE_FALSE(page.ok());
  return page.error().message;
}

find_options sorted(std::string_view sort, std::uint64_t limit) {
  find_options o;
  o.sort = doc(sort);
  o.limit = limit;
  return o;
}

// Every page of `o` followed with the continuation each page reports, joined.
std::string all_pages(const store& s, find_options o) {
  std::string out;
  for (int guard = 0; guard < 100; ++guard) {
    const find_page p = run(s, o);
    if (!p.ndjson.empty()) out += (out.empty() ? "" : " ") + ids_of(p.ndjson);
    if (!p.more) return out;
    o.after_id = p.last_id;
    o.after_sort_key = p.last_sort_key;
  }
  FAIL("paging did not end");
  return out;
}

// Documents with duplicate sort values, arrays, missing fields and an empty array.
void seed_mixed(store& s) {
  REQUIRE(s.insert_many("c", docs({R"({"_id": 1, "a": 5, "b": "x"})", R"({"_id": 2, "a": 3, "b": "y"})",
                                   R"({"_id": 3, "a": 5, "b": "x"})", R"({"_id": 4, "a": [1, 9], "b": "z"})",
                                   R"({"_id": 5, "b": "x"})", R"({"_id": 6, "a": null})",
                                   R"({"_id": 7, "a": [], "b": "y"})", R"({"_id": 8, "a": 3})",
                                   R"({"_id": "s", "a": "str"})", R"({"_id": 9.5, "a": [5, 3]})"}))
              .ok());
}

}  // namespace

TEST_CASE("afterId alone pages in _id order and reports where the next page starts") {
  fresh_store s;
  seed_mixed(*s);
  find_options o = sorted("{}", 4);
  find_page p = run(*s, o);
  CHECK(ids_of(p.ndjson) == "1 2 3 4");
  CHECK(p.more);
  CHECK(to_json(p.last_id) == "4");
  CHECK_FALSE(p.last_sort_key.has_value());
  o.after_id = val("4");
  CHECK(ids_of(run(*s, o).ndjson) == "5 6 7 8");
  o.after_id = val("2.5");  // need not exist: documents strictly after it
  CHECK(ids_of(run(*s, o).ndjson) == "3 4 5 6");
  o.after_id = val("9");
  p = run(*s, o);
  CHECK(ids_of(p.ndjson) == R"(9.5 "s")");
  CHECK_FALSE(p.more);
  CHECK(all_pages(*s, sorted("{}", 3)) == R"(1 2 3 4 5 6 7 8 9.5 "s")");
  CHECK(all_pages(*s, sorted(R"({"_id": -1})", 3)) == R"("s" 9.5 8 7 6 5 4 3 2 1)");
}

TEST_CASE("keyset pages never skip or repeat a document, whatever the duplicates and arrays") {
  fresh_store s;
  seed_mixed(*s);
  for (const char* sort : {R"({"a": 1})", R"({"a": -1})", R"({"b": 1, "a": -1})", R"({"a": 1, "_id": -1})"}) {
    find_options whole;
    whole.sort = doc(sort);
    const std::string expected = ids_of(run(*s, whole).ndjson);
    for (std::uint64_t limit : {1, 2, 3, 7}) {
      CAPTURE(sort);
      CAPTURE(limit);
      CHECK(all_pages(*s, sorted(sort, limit)) == expected);
    }
  }
  // The reported sort values are the ones the sort used: the smallest element ascending,
  // an empty array for `a: []`, null for a missing field.
  find_options o = sorted(R"({"a": 1})", 1);
  find_page p = run(*s, o);
  CHECK(ids_of(p.ndjson) == "7");
  REQUIRE(p.last_sort_key.has_value());
  CHECK(to_json(*p.last_sort_key) == R"({"a":[]})");
  o.after_id = p.last_id;
  o.after_sort_key = p.last_sort_key;
  o.limit = 2;
  p = run(*s, o);
  CHECK(ids_of(p.ndjson) == "5 6");
  CHECK(to_json(*p.last_sort_key) == R"({"a":null})");
}

TEST_CASE("the continuation is exact: a page that ends with the last match says so") {
  fresh_store s;
  seed_mixed(*s);
  find_options o = sorted(R"({"a": 1})", 0);
  o.filter = doc(R"({"b": "x"})");
  o.limit = 3;
  CHECK_FALSE(run(*s, o).more);
  o.limit = 2;
  CHECK(run(*s, o).more);
  find_options scan = sorted("{}", 3);
  scan.filter = doc(R"({"b": "x"})");
  CHECK_FALSE(run(*s, scan).more);
  scan.limit = 2;
  CHECK(run(*s, scan).more);
  // Cut by max_bytes: more, with both the skip and the keyset continuation.
  find_options cut = sorted(R"({"_id": -1})", 0);
  cut.max_bytes = 30;
  const find_page p = run(*s, cut);
  CHECK(p.truncated);
  CHECK(p.more);
  CHECK(ids_of(p.ndjson) == R"("s")");
  CHECK(to_json(p.last_id) == R"("s")");
}

TEST_CASE("afterId seeks instead of scanning from the first document") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 1000; ++i) many.push_back(doc("{\"_id\":" + std::to_string(i) + "}"));
  REQUIRE(s->insert_many("c", std::move(many)).ok());
  int polls = 0;
  scan_control control;
  control.progress = [&](std::uint64_t, std::uint64_t) { ++polls; };
  find_options o;
  o.after_id = val("899");
  auto page = s->find("c", o, control);
  REQUIRE(page.ok());
  CHECK(page->returned == 100);
  CHECK(polls == 1);  // one poll per 256 documents visited: only the last 100 were read
  polls = 0;
  REQUIRE(s->find("c", find_options{}, control).ok());
  CHECK(polls == 4);
}

TEST_CASE("keyset arguments that cannot work are errors saying what to send") {
  fresh_store s;
  seed_mixed(*s);
  find_options o = sorted(R"({"a": 1})", 2);
  o.after_sort_key = doc(R"({"a": 3})");
  CHECK(error_of(*s, o) ==
        "`afterSortKey` needs `afterId` too: send the `_id` of the last document you received as "
        "`afterId` and its sort values as `afterSortKey`");
  o.after_sort_key.reset();
  o.after_id = val("2");
  CHECK(error_of(*s, o) ==
        R"(`afterId` with the sort {"a":1} also needs `afterSortKey`: an object with the last document's )"
        "sort values for exactly `a` (the continuation note of the previous page gives both)");
  o.after_sort_key = doc(R"({"b": 3})");
  CHECK(error_of(*s, o) ==
        R"(`afterSortKey` must hold exactly the sort's keys `a`, with the last document's values; got {"b":3})");
  o.after_sort_key = doc(R"({"a": 3, "b": 1})");
  CHECK(error_of(*s, o).find("`afterSortKey` must hold exactly the sort's keys `a`") == 0);
  find_options plain;
  plain.after_id = val("1");
  plain.after_sort_key = doc(R"({"a": 3})");
  CHECK(error_of(*s, plain).find("`afterSortKey` must hold exactly the sort's keys (none: without a sort") == 0);
}

TEST_CASE("find applies the projection to each returned document") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id": 1, "semester": 1, "grades": [70, 87, 90], "name": "a"})",
                                    R"({"_id": 2, "semester": 1, "grades": [90, 88, 92], "name": "b"})",
                                    R"({"_id": 3, "semester": 2, "grades": [85, 100, 90], "name": "c"})"}))
              .ok());
  find_options o;
  o.filter = doc(R"({"semester": 1, "grades": {"$gte": 85}})");
  o.projection = doc(R"({"grades.$": 1})");
  CHECK(run(*s, o).ndjson == "{\"_id\":1,\"grades\":[87]}\n{\"_id\":2,\"grades\":[90]}\n");
  o.sort = doc(R"({"name": -1})");
  o.projection = doc(R"({"name": 1, "_id": 0})");
  CHECK(run(*s, o).ndjson == "{\"name\":\"b\"}\n{\"name\":\"a\"}\n");
  // The continuation comes from the whole document, even when the projection hides it.
  o.limit = 1;
  const find_page p = run(*s, o);
  CHECK(to_json(p.last_id) == "2");
  CHECK(to_json(*p.last_sort_key) == R"({"name":"b"})");
  o.filter = doc(R"({"semester": 1})");
  o.projection = doc(R"({"grades.$": 1})");
  CHECK(error_of(*s, o).find("positional projection `grades.$` needs the filter") == 0);
  o.projection = doc(R"({"a": 1, "b": 0})");
  CHECK(error_of(*s, o).find("projection cannot mix") == 0);
}

TEST_CASE("a $expr that fails at run time fails find and count") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id": 1, "a": 4, "b": 2})", R"({"_id": 2, "a": 4, "b": 0})"})).ok());
  find_options o;
  o.filter = doc(R"({"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}})");
  CHECK(error_of(*s, o) == "can't $divide by zero");
  auto n = s->count("c", o.filter);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message == "can't $divide by zero");
  o.filter = doc(R"({"$expr": {"$gt": ["$a", "$b"]}})");
  CHECK(ids_of(run(*s, o).ndjson) == "1 2");
  auto m = s->count("c", o.filter);
  REQUIRE(m.ok());
  CHECK(*m == 2);
}
