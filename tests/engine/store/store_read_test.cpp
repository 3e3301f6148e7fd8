// get, find (filter, sort, skip, limit, max_bytes), count and corrupt data.
#include <algorithm>

#include "engine/index/keystring.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

// Ten people with ids 1..10 inserted out of order; age = 20 + id % 4, name "p<id>".
void seed_people(store& s) {
  std::vector<document> people;
  for (int id : {7, 3, 10, 1, 5, 9, 2, 8, 4, 6}) {
    people.push_back(doc("{\"_id\":" + std::to_string(id) + ",\"name\":\"p" + std::to_string(id) +
                         "\",\"age\":" + std::to_string(20 + id % 4) + "}"));
  }
  REQUIRE(s.insert_many("people", std::move(people)).ok());
}

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

find_options query(std::string_view filter, std::string_view sort = "{}", std::uint64_t skip = 0,
                   std::optional<std::uint64_t> limit = std::nullopt) {
  find_options o;
  o.filter = doc(filter);
  o.sort = doc(sort);
  o.skip = skip;
  o.limit = limit;
  return o;
}

}  // namespace

TEST_CASE("get finds a document by a value-equal _id") {
  fresh_store s;
  seed_people(*s);
  auto got = s->get("people", val(R"({"$numberLong":"3"})"));
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK(to_json(**got) == R"({"_id":3,"name":"p3","age":23})");
  auto none = s->get("people", val("11"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto no_collection = s->get("nobody", val("1"));
  REQUIRE(no_collection.ok());
  CHECK_FALSE(no_collection->has_value());
}

TEST_CASE("find without a filter returns every document in _id order") {
  fresh_store s;
  seed_people(*s);
  auto page = s->find("people", {});
  REQUIRE(page.ok());
  CHECK(ids_of(page->ndjson) == "1 2 3 4 5 6 7 8 9 10");
  CHECK(page->returned == 10);
  CHECK_FALSE(page->truncated);
}

TEST_CASE("_id order follows BSON order across types") {
  fresh_store s;
  REQUIRE(s->insert_many("mixed", docs({R"({"_id":"b"})", R"({"_id":2.5})", R"({"_id":null})",
                                        R"({"_id":-3})", R"({"_id":"a"})", R"({"_id":true})"}))
              .ok());
  CHECK(ids_of(find_all(*s, "mixed")) == R"(null -3 2.5 "a" "b" true)");
}

TEST_CASE("find applies filter, sort, skip and limit") {
  fresh_store s;
  seed_people(*s);
  CHECK(ids_of(find_all(*s, "people", query(R"({"age":{"$gte":22}})"))) == "2 3 6 7 10");
  CHECK(ids_of(find_all(*s, "people", query(R"({"age":{"$gte":22}})", "{}", 1, 2))) == "3 6");
  CHECK(ids_of(find_all(*s, "people", query("{}", R"({"age":-1})"))) == "3 7 2 6 10 1 5 9 4 8");
  CHECK(ids_of(find_all(*s, "people", query("{}", R"({"age":-1})", 2, 3))) == "2 6 10");
  CHECK(ids_of(find_all(*s, "people", query("{}", R"({"age":1,"_id":-1})", 0, 4))) == "8 4 9 5");
  CHECK(ids_of(find_all(*s, "people", query("{}", R"({"_id":-1})", 0, 3))) == "10 9 8");
  CHECK(ids_of(find_all(*s, "people", query("{}", R"({"_id":1})", 8))) == "9 10");
  // limit 0 means no limit, as in MongoDB; a skip past the end is an empty page.
  CHECK(ids_of(find_all(*s, "people", query("{}", "{}", 0, 0))) == "1 2 3 4 5 6 7 8 9 10");
  CHECK(find_all(*s, "people", query("{}", R"({"age":1})", 20)).empty());
}

TEST_CASE("an _id equality filter is a point lookup that still applies the rest of the filter") {
  fresh_store s;
  seed_people(*s);
  CHECK(ids_of(find_all(*s, "people", query(R"({"_id":4})"))) == "4");
  CHECK(ids_of(find_all(*s, "people", query(R"({"_id":4.0,"age":20})"))) == "4");
  CHECK(find_all(*s, "people", query(R"({"_id":4,"age":21})")).empty());
  CHECK(find_all(*s, "people", query(R"({"_id":4})", "{}", 1)).empty());
  auto n = s->count("people", doc(R"({"_id":{"$eq":4}})"));
  REQUIRE(n.ok());
  CHECK(*n == 1);
}

TEST_CASE("max_bytes ends a page at a document boundary with a correct next_skip") {
  fresh_store s;
  seed_people(*s);
  for (bool sorted : {false, true}) {
    CAPTURE(sorted);
    std::string whole = find_all(*s, "people", query("{}", sorted ? R"({"age":1})" : "{}"));
    std::string joined;
    find_options o = query("{}", sorted ? R"({"age":1})" : "{}");
    o.max_bytes = 70;  // each line is 31 or 33 bytes: two per page
    int pages = 0;
    while (true) {
      auto page = s->find("people", o);
      REQUIRE(page.ok());
      ++pages;
      CHECK(page->ndjson.size() <= 70);
      CHECK((page->ndjson.empty() || page->ndjson.back() == '\n'));
      joined += page->ndjson;
      if (!page->truncated) break;
      CHECK(page->next_skip == o.skip + page->returned);
      o.skip = page->next_skip;
    }
    CHECK(joined == whole);
    CHECK(pages == 5);
  }

  // A page that exactly exhausts the matches is not truncated.
  find_options exact = query("{}", "{}", 0, 2);
  exact.max_bytes = 70;
  auto page = s->find("people", exact);
  REQUIRE(page.ok());
  CHECK(page->returned == 2);
  CHECK_FALSE(page->truncated);
}

TEST_CASE("a first document larger than max_bytes is still returned alone") {
  fresh_store s;
  seed_people(*s);
  find_options o;
  o.max_bytes = 5;
  auto page = s->find("people", o);
  REQUIRE(page.ok());
  CHECK(page->returned == 1);
  CHECK(page->truncated);
  CHECK(page->next_skip == 1);
}

TEST_CASE("find on an unknown collection yields an empty page, a bad filter an error") {
  fresh_store s;
  seed_people(*s);
  auto page = s->find("nobody", query(R"({"a":1})"));
  REQUIRE(page.ok());
  CHECK(page->ndjson.empty());
  CHECK(page->returned == 0);
  auto bad = s->find("people", query(R"({"age":{"$bogus":1}})"));
  CHECK_FALSE(bad.ok());
  auto bad_sort = s->find("people", query("{}", R"({"age":2})"));
  CHECK_FALSE(bad_sort.ok());
}

TEST_CASE("count uses the counter or a scan") {
  fresh_store s;
  seed_people(*s);
  auto all = s->count("people", {});
  REQUIRE(all.ok());
  CHECK(*all == 10);
  auto some = s->count("people", doc(R"({"age":{"$lt":22}})"));
  REQUIRE(some.ok());
  CHECK(*some == 5);
  auto none = s->count("nobody", {});
  REQUIRE(none.ok());
  CHECK(*none == 0);
}

TEST_CASE("a cancelled scan fails with cancelled") {
  fresh_store s;
  seed_people(*s);
  std::atomic<bool> cancelled{true};
  scan_control control;
  control.cancelled = &cancelled;
  auto page = s->find("people", query(R"({"age":1})"), control);
  REQUIRE_FALSE(page.ok());
  CHECK(page.error().message == "cancelled");
  auto n = s->count("people", doc(R"({"age":1})"), control);
  REQUIRE_FALSE(n.ok());
  auto d = s->dump([](std::string_view) { return true; }, control);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "cancelled");
}

TEST_CASE("a corrupt stored document is an error naming the collection, not a crash") {
  fresh_store s;
  seed_people(*s);
  s.db.reset();
  {
    raw_db raw(s.path);
    std::string key("\0\0\0\x01", 4);  // the first collection's id is 1
    key += encode_key(val("5"));
    raw.put("docs", key, "not bson at all");
  }
  s.reopen();
  auto got = s->get("people", val("5"));
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().message.find("corrupt document in collection `people` (key ") == 0);
  auto page = s->find("people", {});
  REQUIRE_FALSE(page.ok());
  CHECK(page.error().message.find("corrupt document in collection `people`") == 0);
  // Scans that judge documents by their stored bytes still report it.
  auto counted = s->count("people", doc(R"({"age": 21})"));
  REQUIRE_FALSE(counted.ok());
  CHECK(counted.error().message.find("corrupt document in collection `people`") == 0);
  find_options filtered;
  filtered.filter = doc(R"({"age": {"$gt": 0}})");
  auto filtered_page = s->find("people", filtered);
  REQUIRE_FALSE(filtered_page.ok());
  CHECK(filtered_page.error().message.find("corrupt document in collection `people`") == 0);
  CHECK_FALSE(s->dump([](std::string_view) { return true; }).ok());
  CHECK_FALSE(s->remove("people", val("5")).ok());
  auto md = s->describe();
  REQUIRE(md.ok());
  CHECK(md->find("1 sampled document could not be decoded") != std::string::npos);
  // The other documents stay readable.
  auto other = s->get("people", val("4"));
  REQUIRE(other.ok());
  CHECK(other->has_value());
}

TEST_CASE("paging a sorted find with a small max_bytes yields the whole sorted result") {
  fresh_store s;
  std::vector<document> many;
  for (int i = 0; i < 300; ++i) {
    many.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"k\":" + std::to_string((i * 37) % 101) +
                       ",\"pad\":\"" + std::string(static_cast<std::size_t>(i % 7), 'x') + "\"}"));
  }
  REQUIRE(s->insert_many("many", std::move(many)).ok());
  find_options o = query(R"({"k":{"$ne":5}})", R"({"k":-1})");
  o.max_bytes = 1 << 30;
  std::string whole = find_all(*s, "many", o);
  CHECK(std::count(whole.begin(), whole.end(), '\n') == 297);

  o.max_bytes = 200;
  std::string joined;
  int pages = 0;
  while (true) {
    auto page = s->find("many", o);
    REQUIRE(page.ok());
    ++pages;
    joined += page->ndjson;
    if (!page->truncated) break;
    o.skip = page->next_skip;
  }
  CHECK(joined == whole);
  CHECK(pages > 40);
}

TEST_CASE("reads see every write between them, though the catalog is remembered per snapshot") {
  // The catalog entry and counter of a collection are reused between reads at the same
  // sequence number only: each write below must show in the very next read.
  fresh_store s;
  auto count_of = [&](std::string_view filter) {
    auto n = s->count("c", doc(filter));
    REQUIRE(n.ok());
    return *n;
  };
  auto ids = [&] {
    auto page = s->find("c", query("{}"));
    REQUIRE(page.ok());
    return ids_of(page->ndjson);
  };
  CHECK(count_of("{}") == 0);
  CHECK(ids().empty());
  CHECK_FALSE(s->get("c", val("1"))->has_value());
  REQUIRE(s->insert_many("c", docs({R"({"_id":1,"x":1})"})).ok());
  CHECK(count_of("{}") == 1);
  CHECK(ids() == "1");
  CHECK(s->get("c", val("1"))->has_value());
  REQUIRE(s->insert_many("c", docs({R"({"_id":2,"x":2})", R"({"_id":3,"x":2})"})).ok());
  CHECK(count_of("{}") == 3);
  CHECK(count_of(R"({"x":2})") == 2);
  REQUIRE(s->drop_collection("c").ok());
  CHECK(count_of("{}") == 0);
  CHECK(ids().empty());
  CHECK_FALSE(s->get("c", val("1"))->has_value());
  auto text = s->get_json("c", val("1"));
  REQUIRE(text.ok());
  CHECK_FALSE(text->has_value());
  // The same name again is a new collection (a new id): none of the old documents.
  REQUIRE(s->insert_many("c", docs({R"({"_id":9})"})).ok());
  CHECK(count_of("{}") == 1);
  CHECK(ids() == "9");
  text = s->get_json("c", val("9"));
  REQUIRE(text.ok());
  REQUIRE(text->has_value());
  CHECK(**text == R"({"_id":9})");
}
