// The planner's choices, seen through explain: which index, which bounds, how many keys and
// documents, and why the other candidates were rejected.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

store::index_spec spec(std::initializer_list<std::pair<const char*, int>> fields, std::string name = {}) {
  store::index_spec s;
  s.name = std::move(name);
  for (const auto& [path, dir] : fields) s.fields.push_back({path, dir < 0});
  return s;
}

// 100 documents: a = i % 10, b = "s<i>", c = i, tags = [i % 3, i % 5], live on even i.
void seed(fresh_store& s) {
  std::vector<document> all;
  for (int i = 0; i < 100; ++i) {
    all.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"a\":" + std::to_string(i % 10) + ",\"b\":\"s" +
                      std::to_string(i) + "\",\"c\":" + std::to_string(i) + ",\"tags\":[" + std::to_string(i % 3) +
                      "," + std::to_string(i % 5) + "],\"live\":" + (i % 2 == 0 ? "true" : "false") + "}"));
  }
  REQUIRE(s->insert_many("t", std::move(all)).ok());
  for (auto sp : {spec({{"a", 1}}), spec({{"b", 1}}), spec({{"c", -1}}), spec({{"a", 1}, {"c", 1}}),
                  spec({{"tags", 1}})}) {
    REQUIRE(s->create_index("t", sp).ok());
  }
  auto partial = spec({{"c", 1}}, "c_live");
  partial.partial_filter = doc(R"({"live":true})");
  REQUIRE(s->create_index("t", partial).ok());
}

struct explained {
  document d;
  std::string text(std::string_view name) const {
    const value* v = find_field(d, name);
    return v == nullptr ? "<absent>" : to_json(*v);
  }
  // The candidate entry of `index` as JSON.
  std::string candidate(std::string_view index) const {
    for (const auto& c : find_field(d, "candidates")->as_array()) {
      if (find_field(c.as_document(), "index")->as_string() == index) return to_json(c);
    }
    return "<none>";
  }
};

explained explain(fresh_store& s, std::string_view filter) {
  auto r = s->explain("t", doc(filter), {});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return explained{std::move(*r)};
}

}  // namespace

TEST_CASE("equality uses an index; equal estimates go to more bound fields, then the smaller name") {
  fresh_store s;
  seed(s);
  auto e = explain(s, R"({"a":3})");
  CHECK(e.text("plan") == "\"index scan\"");
  CHECK(e.text("index") == "\"a_1\"");
  CHECK(e.text("bounds") == R"({"a":["[3, 3]"]})");
  CHECK(e.text("keysExamined") == "10");
  CHECK(e.text("docsExamined") == "10");
  CHECK(e.candidate("a_1_c_1").find("which wins the tiebreak") != std::string::npos);
  CHECK(e.candidate("b_1").find("no indexable predicate on its leading field `b`") != std::string::npos);
}

TEST_CASE("a compound prefix of equality then range narrows to both fields") {
  fresh_store s;
  seed(s);
  auto e = explain(s, R"({"a":3,"c":{"$gte":50}})");
  CHECK(e.text("index") == "\"a_1_c_1\"");
  CHECK(e.text("bounds") == R"({"a":["[3, 3]"],"c":["[50, max number]"]})");
  CHECK(e.text("keysExamined") == "5");
  CHECK(e.candidate("a_1").find("reads more keys (10) than `a_1_c_1` (5)") != std::string::npos);
}

TEST_CASE("ranges on a descending index, $in, prefix regexes and multikey fields use indexes") {
  fresh_store s;
  seed(s);
  auto range = explain(s, R"({"c":{"$gt":95}})");
  CHECK(range.text("index") == "\"c_-1\"");
  CHECK(range.text("keysExamined") == "4");  // $gt excludes 95 itself
  CHECK(range.text("countFromIndex") == "true");
  CHECK(find_all(*s, "t", find_options{doc(R"({"c":{"$gt":97}})"), {}, 0, {}, 1 << 20, {}, {}, doc(R"({"_id":1})")}) ==
        "{\"_id\":98}\n{\"_id\":99}\n");
  auto both = explain(s, R"({"c":{"$gt":10,"$lte":12}})");
  CHECK(both.text("bounds") == R"({"c":["(10, max number] ∩ [min number, 12]"]})");
  CHECK(both.text("keysExamined") == "2");
  auto upper = explain(s, R"({"c":{"$lt":3}})");  // a lone upper bound over numbers takes in NaN
  CHECK(upper.text("keysExamined") == "3");
  CHECK(upper.text("countFromIndex") == "false");
  CHECK(*s->count("t", doc(R"({"c":{"$gte":3,"$lt":7}})")) == 4);
  auto in = explain(s, R"({"a":{"$in":[1,2]}})");
  CHECK(in.text("index") == "\"a_1\"");
  CHECK(in.text("keysExamined") == "20");
  auto re = explain(s, R"({"b":{"$regex":"^s1"}})");
  CHECK(re.text("index") == "\"b_1\"");
  CHECK(re.text("docsExamined") == "11");
  auto tags = explain(s, R"({"tags":4})");
  CHECK(tags.text("index") == "\"tags_1\"");
  CHECK(tags.text("docsExamined") == "20");
  CHECK(tags.text("countFromIndex") == "false");  // multikey: a document may have several keys
}

TEST_CASE("non-indexable and unselective predicates give a full scan, with the reasons") {
  fresh_store s;
  seed(s);
  auto ne = explain(s, R"({"a":{"$ne":3}})");
  CHECK(ne.text("plan") == "\"full scan\"");
  CHECK(ne.text("docsExamined") == "100");
  CHECK(ne.candidate("a_1").find("no indexable predicate on its leading field `a`") != std::string::npos);
  auto wide = explain(s, R"({"c":{"$gte":0}})");
  CHECK(wide.text("plan") == "\"full scan\"");
  CHECK(wide.candidate("c_-1").find("not selective") != std::string::npos);
  auto or_ = explain(s, R"({"$or":[{"a":1},{"a":2}]})");
  CHECK(or_.text("plan") == "\"full scan\"");
  auto id = explain(s, R"({"_id":5,"a":5})");
  CHECK(id.text("plan") == "\"_id lookup\"");
  CHECK(id.text("docsExamined") == "1");
}

TEST_CASE("a partial index is used only when the query implies its partialFilter") {
  fresh_store s;
  seed(s);
  auto no = explain(s, R"({"c":4})");
  CHECK(no.candidate("c_live").find(R"(partial index: the query does not imply its partialFilter {\"live\":true})") !=
        std::string::npos);
  REQUIRE(s->drop_index("t", "c_-1").ok());
  auto yes = explain(s, R"({"c":4,"live":true})");
  CHECK(yes.text("index") == "\"c_live\"");
  CHECK(yes.text("keysExamined") == "1");
  // The odd document 5 is not in the partial index; the query cannot match it anyway.
  CHECK(find_all(*s, "t", find_options{doc(R"({"c":5,"live":true})")}) == "");
  CHECK(find_all(*s, "t", find_options{doc(R"({"c":4,"live":true})"), doc(R"({"c":1})"), 0, {}, 1 << 20, {}, {},
                                       doc(R"({"_id":1})")}) == "{\"_id\":4}\n");
}

TEST_CASE("explain and diagnose refuse an unknown collection with a hint; suggest_indexes does not") {
  fresh_store s;
  seed(s);
  auto e = s->explain("tt", doc("{}"), {});
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message == "collection `tt` does not exist; did you mean `t`?");
  auto d = s->diagnose("tt", doc("{}"));
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "collection `tt` does not exist; did you mean `t`?");
  auto sg = s->suggest_indexes("new", doc(R"({"x":1,"y":{"$gt":2}})"), doc(R"({"z":-1})"));
  REQUIRE(sg.ok());
  CHECK(to_json(*find_field(*sg, "suggestions")).starts_with(R"([{"key":{"x":1,"z":-1,"y":1},"exists":null,)"));
}

TEST_CASE("diagnose reports per-predicate matches and why each index was not used") {
  fresh_store s;
  seed(s);
  auto d = s->diagnose("t", doc(R"({"a":3,"b":{"$exists":true},"$or":[{"c":3},{"c":13}]})"));
  REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message));
  CHECK(to_json(*find_field(*d, "matched")) == "2");
  const auto& preds = find_field(*d, "predicates")->as_array();
  REQUIRE(preds.size() == 3);
  CHECK(to_json(*find_field(preds[0].as_document(), "matches")) == "10");
  CHECK(to_json(*find_field(preds[1].as_document(), "matches")) == "100");
  CHECK(to_json(*find_field(preds[1].as_document(), "indexable")) == "false");
  CHECK(to_json(*find_field(preds[2].as_document(), "matches")) == "2");
  CHECK(to_json(*find_field(*d, "index")) == "\"a_1\"");
}

TEST_CASE("an index in the sort's order streams a limited sorted find, keyset pages included") {
  fresh_store s;
  seed(s);
  auto e = s->explain("t", doc(R"({"a":3})"), doc(R"({"c":1})"));
  REQUIRE(e.ok());
  CHECK(to_json(*find_field(*e, "sort")) == R"("index order (`a_1_c_1`): no sort stage, stops after the page")");
  auto back = s->explain("t", doc(R"({"a":3})"), doc(R"({"c":-1})"));
  CHECK(to_json(*find_field(*back, "sort")) ==
        R"("index order (`a_1_c_1`, backwards): no sort stage, stops after the page")");
  auto mem = s->explain("t", doc(R"({"a":3})"), doc(R"({"b":1})"));
  CHECK(to_json(*find_field(*mem, "sort")) == R"("in memory")");
  find_options o;
  o.sort = doc(R"({"c":-1})");
  o.limit = 2;
  o.projection = doc(R"({"c":1,"_id":0})");
  auto first = s->find("t", o);
  REQUIRE(first.ok());
  CHECK(first->ndjson == "{\"c\":99}\n{\"c\":98}\n");
  REQUIRE(first->more);
  REQUIRE(first->last_sort_key.has_value());
  CHECK(to_json(*first->last_sort_key) == R"({"c":98})");
  o.after_id = first->last_id;
  o.after_sort_key = first->last_sort_key;
  auto second = s->find("t", o);
  REQUIRE(second.ok());
  CHECK(second->ndjson == "{\"c\":97}\n{\"c\":96}\n");
}

TEST_CASE("the planner sees at once an index created, made multikey by a write, and dropped") {
  fresh_store s;
  std::vector<document> all;
  for (int i = 0; i < 10; ++i) all.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"x\":" + std::to_string(i) + "}"));
  REQUIRE(s->insert_many("t", std::move(all)).ok());
  const std::string range = R"({"x":{"$in":[2,3,4]}})";
  CHECK(explain(s, range).text("plan") == "\"full scan\"");
  REQUIRE(s->create_index("t", spec({{"x", 1}})).ok());
  auto before = explain(s, range);
  CHECK(before.text("index") == "\"x_1\"");
  CHECK(before.text("countFromIndex") == "true");
  CHECK(*s->count("t", doc(range)) == 3);
  // Two keys for one document: counting keys would now say 5.
  REQUIRE(s->insert("t", doc(R"({"_id":100,"x":[3,4]})")).ok());
  CHECK(explain(s, range).text("countFromIndex") == "false");
  CHECK(*s->count("t", doc(range)) == 4);
  CHECK(find_all(*s, "t", find_options{doc(R"({"x":4})")}) == "{\"_id\":4,\"x\":4}\n{\"_id\":100,\"x\":[3,4]}\n");
  REQUIRE(s->drop_index("t", "x_1").ok());
  CHECK(explain(s, range).text("plan") == "\"full scan\"");
  CHECK(*s->count("t", doc(range)) == 4);
}

TEST_CASE("a count from index keys stays in the value's type bracket and never counts a partial index") {
  fresh_store s;
  std::vector<document> all;
  const char* values[] = {"1", "2.5", "\"3\"", "null", "true", "4", "{\"$numberLong\":\"5\"}", "[]", "\"a\"", "6"};
  for (int i = 0; i < 10; ++i) {
    all.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"v\":" + values[i] + ",\"even\":" +
                      (i % 2 == 0 ? "true" : "false") + "}"));
  }
  REQUIRE(s->insert_many("t", std::move(all)).ok());
  auto partial = spec({{"v", 1}}, "v_even");
  partial.partial_filter = doc(R"({"even":true})");
  REQUIRE(s->create_index("t", partial).ok());
  // The partial index is used (the query implies its filter) but its keys are not the count.
  auto p = explain(s, R"({"v":{"$gte":1},"even":true})");
  CHECK(p.text("index") == "\"v_even\"");
  CHECK(p.text("countFromIndex") == "false");
  CHECK(*s->count("t", doc(R"({"v":{"$gte":1},"even":true})")) == 2);  // 1 and NumberLong(5)
  REQUIRE(s->drop_index("t", "v_even").ok());
  // An empty array makes an index multikey: a collection without one for the covered count.
  std::vector<document> flat;
  for (int i = 0; i < 10; ++i) {
    if (i == 7) continue;  // the empty array
    flat.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"v\":" + values[i] + "}"));
  }
  REQUIRE(s->insert_many("u", std::move(flat)).ok());
  REQUIRE(s->create_index("u", spec({{"v", 1}})).ok());
  auto e = s->explain("u", doc(R"({"v":{"$gte":2,"$lte":5}})"), {});
  REQUIRE(e.ok());
  CHECK(to_json(*find_field(*e, "countFromIndex")) == "true");
  CHECK(*s->count("u", doc(R"({"v":{"$gte":2,"$lte":5}})")) == 3);  // 2.5, 4, NumberLong(5); not "3"
  CHECK(*s->count("u", doc(R"({"v":{"$gte":"0","$lt":"z"}})")) == 2);  // "3", "a"
  CHECK(*s->count("u", doc(R"({"v":null})")) == 1);
}

TEST_CASE("an index scan with many entries and one with few return the same documents as a full scan") {
  fresh_store s;
  std::vector<document> all;
  for (int i = 0; i < 300; ++i) {
    all.push_back(doc("{\"_id\":" + std::to_string(299 - i) + ",\"g\":" + std::to_string(i % 3) + ",\"h\":" +
                      std::to_string(i % 100) + "}"));
  }
  REQUIRE(s->insert_many("t", std::move(all)).ok());
  const std::string many = R"({"g":1,"h":{"$gte":0}})", few = R"({"h":{"$in":[7,8]},"g":{"$gte":0}})";
  const std::string many_plain = find_all(*s, "t", find_options{doc(many)});
  const std::string few_plain = find_all(*s, "t", find_options{doc(few)});
  REQUIRE(s->create_index("t", spec({{"g", 1}})).ok());
  REQUIRE(s->create_index("t", spec({{"h", 1}})).ok());
  CHECK(explain(s, many).text("keysExamined") == "100");
  CHECK(explain(s, few).text("keysExamined") == "6");
  CHECK(find_all(*s, "t", find_options{doc(many)}) == many_plain);
  CHECK(find_all(*s, "t", find_options{doc(few)}) == few_plain);
  CHECK(std::count(few_plain.begin(), few_plain.end(), '\n') == 6);
  CHECK(*s->count("t", doc(many)) == 100);
}
