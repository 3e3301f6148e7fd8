// The pipeline decodes from the store only the top-level fields its stages can read
// (engine/aggregate/pipeline_deps.cpp): which fields that is, and that a later stage reading a
// field the source stages do not name still sees it ($group after $addFields, $replaceRoot,
// $$ROOT, $lookup's localField, $unwind, $getField). Expected answers are worked out by hand.
#include "engine/aggregate/stage.hpp"
#include "engine/bson/bson_codec.hpp"
#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;

namespace {

std::optional<std::vector<std::string>> fields_of(std::string_view pipeline, std::size_t first = 0) {
  return aggregate_detail::source_fields(aggregate_test::json_value(pipeline).as_array(), first);
}

using names = std::vector<std::string>;

struct deps_store {
  test::fresh_store s;
  deps_store() {
    REQUIRE(s->insert_many("c", test::docs({
                                    R"({"_id": 1, "k": "a", "v": 1, "w": {"x": 10}, "arr": [1, 2], "ref": 7, "other": "o1"})",
                                    R"({"_id": 2, "k": "b", "v": 2, "w": {"x": 20}, "arr": [3], "ref": 8, "other": "o2"})",
                                    R"({"_id": 3, "k": "a", "v": 3, "w": {"x": 30}, "arr": [], "ref": 7, "other": "o3"})",
                                }))
                .ok());
    REQUIRE(s->insert_many("f", test::docs({R"({"_id": 7, "name": "seven"})", R"({"_id": 8, "name": "eight"})"})).ok());
  }
  std::string run(std::string_view pipeline) {
    store_provider p(*s.db);
    auto r = run_pipeline(p, "c", aggregate_test::json_value(pipeline).as_array());
    REQUIRE_MESSAGE(r.ok(), pipeline, ": ", (r.ok() ? "" : r.error().message));
    std::string out;
    for (const document& d : *r) out += to_json(d) + "\n";
    return out;
  }
};

}  // namespace

TEST_CASE("a pipeline that ends in a group reads only the fields it names, the pushed match's excepted") {
  CHECK(fields_of(R"([{"$match": {"flag": true}}, {"$group": {"_id": "$k", "s": {"$sum": "$v"}, "a": {"$avg": "$w.x"}}}])", 1) ==
        names{"_id", "k", "v", "w"});
  // A later $match counts its fields; $sort its keys; $addFields the fields it sets and reads.
  CHECK(fields_of(R"([{"$match": {"$or": [{"a.b": 1}, {"c": {"$gt": 2}}]}}, {"$sort": {"d": 1}},
      {"$addFields": {"e.f": "$g"}}, {"$count": "n"}])") == names{"_id", "a", "c", "d", "e", "g"});
  // An inclusion $project ends the analysis; $top's sortBy keys are paths.
  CHECK(fields_of(R"([{"$project": {"a": 1, "b": {"$add": ["$c", 1]}}}, {"$group": {"_id": "$zzz"}}])") ==
        names{"_id", "a", "b", "c"});
  CHECK(fields_of(R"([{"$group": {"_id": null, "t": {"$top": {"sortBy": {"score": -1}, "output": "$p"}}}}])") ==
        names{"_id", "p", "score"});
  // $lookup reads its localField (and sets `as`), $unwind its path; `$$ROOT.a` reads `a`.
  CHECK(fields_of(R"([{"$lookup": {"from": "f", "localField": "r.s", "foreignField": "_id", "as": "j"}},
      {"$unwind": "$u"}, {"$group": {"_id": "$$ROOT.a"}}])") == names{"_id", "a", "j", "r", "u"});
}

TEST_CASE("a pipeline that may read the whole document decodes it whole") {
  CHECK_FALSE(fields_of(R"([{"$sort": {"v": 1}}, {"$limit": 3}])"));  // the output is the documents
  CHECK_FALSE(fields_of(R"([{"$group": {"_id": null, "all": {"$push": "$$ROOT"}}}])"));
  CHECK_FALSE(fields_of(R"([{"$group": {"_id": null, "all": {"$push": "$$CURRENT"}}}])"));
  CHECK_FALSE(fields_of(R"([{"$project": {"secret": 0}}, {"$count": "n"}])"));  // exclusion keeps the rest
  CHECK_FALSE(fields_of(R"([{"$project": {"_id": 0}}, {"$count": "n"}])"));     // _id: 0 alone excludes
  CHECK_FALSE(fields_of(R"([{"$project": {"w": {"x": 0}}}, {"$count": "n"}])"));  // a nested exclusion
  CHECK_FALSE(fields_of(R"([{"$project": {"w": {"y": {"z": false}}}}, {"$count": "n"}])"));
  CHECK(fields_of(R"([{"$project": {"_id": 0, "k": 1}}, {"$count": "n"}])") == names{"_id", "k"});
  CHECK(fields_of(R"([{"$project": {"w": {"x": 1}}}, {"$count": "n"}])") == names{"_id", "w"});
  CHECK_FALSE(fields_of(R"([{"$group": {"_id": {"$getField": "a.b"}}}])"));     // a literal name, not a path
  CHECK_FALSE(fields_of(R"([{"$group": {"_id": {"$let": {"vars": {"CURRENT": "$w"}, "in": "$x"}}}}])"));
  CHECK_FALSE(fields_of(R"([{"$redact": "$$KEEP"}, {"$count": "n"}])"));
  CHECK_FALSE(fields_of(R"([{"$match": {"$text": {"$search": "x"}}}, {"$count": "n"}])"));
  CHECK_FALSE(fields_of(R"([{"$facet": {"a": [{"$count": "n"}], "b": [{"$limit": 1}]}}])"));  // facet b outputs documents
  CHECK(fields_of(R"([{"$facet": {"a": [{"$count": "n"}], "b": [{"$group": {"_id": "$k"}}]}}])") == names{"_id", "k"});
}

TEST_CASE("later stages see the fields they read although the source decodes only what the stages name") {
  deps_store t;
  // $group after $addFields reading a nested field.
  CHECK(t.run(R"([{"$match": {"v": {"$gte": 1}}}, {"$addFields": {"t": {"$multiply": ["$v", "$w.x"]}}},
      {"$group": {"_id": "$k", "t": {"$sum": "$t"}}}, {"$sort": {"_id": 1}}])") ==
        aggregate_test::lines({R"({"_id":"a","t":100})", R"({"_id":"b","t":40})"}));
  // $replaceRoot to an embedded document, then a group over its fields.
  CHECK(t.run(R"([{"$replaceRoot": {"newRoot": "$w"}}, {"$group": {"_id": null, "s": {"$sum": "$x"}}}])") ==
        "{\"_id\":null,\"s\":60}\n");
  // $$ROOT keeps every field: seven of them in _id 1.
  CHECK(t.run(R"([{"$group": {"_id": "$k", "d": {"$first": "$$ROOT"}}}, {"$sort": {"_id": 1}},
      {"$project": {"n": {"$size": {"$objectToArray": "$d"}}}}])") ==
        aggregate_test::lines({R"({"_id":"a","n":7})", R"({"_id":"b","n":7})"}));
  // $lookup's localField.
  CHECK(t.run(R"([{"$lookup": {"from": "f", "localField": "ref", "foreignField": "_id", "as": "j"}},
      {"$group": {"_id": {"$first": "$j.name"}, "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}])") ==
        aggregate_test::lines({R"({"_id":"eight","n":1})", R"({"_id":"seven","n":2})"}));
  // $unwind's path.
  CHECK(t.run(R"([{"$unwind": "$arr"}, {"$group": {"_id": null, "s": {"$sum": "$arr"}, "n": {"$sum": 1}}}])") ==
        "{\"_id\":null,\"s\":6,\"n\":3}\n");
  // $getField names a field without a path string.
  CHECK(t.run(R"([{"$group": {"_id": "$k", "o": {"$first": {"$getField": "other"}}}}, {"$sort": {"_id": 1}}])") ==
        aggregate_test::lines({R"({"_id":"a","o":"o1"})", R"({"_id":"b","o":"o2"})"}));
  // The pushed $match is judged on the stored bytes: `other` is matched, not decoded.
  CHECK(t.run(R"([{"$match": {"other": "o2"}}, {"$group": {"_id": "$k", "n": {"$sum": 1}}}])") ==
        "{\"_id\":\"b\",\"n\":1}\n");
  // Exclusions keep the fields they do not name: {_id: 0} alone, and a nested {w: {x: 0}}.
  CHECK(t.run(R"([{"$project": {"_id": 0}}, {"$group": {"_id": "$k", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}])") ==
        aggregate_test::lines({R"({"_id":"a","n":2})", R"({"_id":"b","n":1})"}));
  CHECK(t.run(R"([{"$project": {"w": {"x": 0}}}, {"$project": {"k": 1, "w": 1}}, {"$sort": {"_id": 1}}, {"$limit": 1}])") ==
        "{\"_id\":1,\"k\":\"a\",\"w\":{}}\n");
  // A $match by _id (a point read) followed by a group.
  CHECK(t.run(R"([{"$match": {"_id": 3}}, {"$group": {"_id": "$k", "v": {"$sum": "$v"}}}])") == "{\"_id\":\"a\",\"v\":3}\n");
}

TEST_CASE("a store scan with a field list decodes only those top-level fields") {
  deps_store t;
  const std::vector<std::string> fields{"_id", "w"};
  auto stream = t.s->scan("c", document{}, {}, &fields);
  REQUIRE(stream.ok());
  document d;
  std::vector<std::string> got;
  while (true) {
    auto more = (*stream)->next(d);
    REQUIRE(more.ok());
    if (!*more) break;
    got.push_back(to_json(d));
  }
  CHECK(got == std::vector<std::string>{R"({"_id":1,"w":{"x":10}})", R"({"_id":2,"w":{"x":20}})", R"({"_id":3,"w":{"x":30}})"});
}

TEST_CASE("decoding chosen fields refuses corrupt bytes as decoding the whole document does") {
  auto bytes = to_bson(test::doc(R"({"_id": 1, "a": "x", "b": {"c": 2}})"));
  REQUIRE(bytes.ok());
  auto some = from_bson_fields(*bytes, {"_id", "b"});
  REQUIRE(some.ok());
  CHECK(to_json(*some) == R"({"_id":1,"b":{"c":2}})");
  std::string cut = bytes->substr(0, bytes->size() - 3);
  CHECK_FALSE(from_bson_fields(cut, {"_id"}).ok());
  std::string bad_length = *bytes;
  bad_length[0] = static_cast<char>(bad_length[0] + 40);
  CHECK_FALSE(from_bson_fields(bad_length, {"b"}).ok());
}

TEST_CASE("decoding chosen fields refuses damage inside a field it skips, as the whole decode does") {
  // Invalid UTF-8 in a top-level string and in a nested document's string, neither asked for:
  // the pipeline never reads them, but the document is damaged and must not pass as whole.
  auto bytes = to_bson(test::doc(R"({"_id": 1, "a": "xy", "n": {"c": "zz"}, "b": 2})"));
  REQUIRE(bytes.ok());
  for (const char* mark : {"xy", "zz"}) {
    std::string damaged = *bytes;
    const auto at = damaged.find(mark);
    REQUIRE(at != std::string::npos);
    damaged[at] = static_cast<char>(0xff);
    CHECK_FALSE(from_bson(damaged).ok());
    auto some = from_bson_fields(damaged, {"_id", "b"});
    CHECK_FALSE(some.ok());
    if (!some.ok()) CHECK(some.error().message.find("corrupt") != std::string::npos);
  }
}
