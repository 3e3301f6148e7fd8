// Issue 29, items 1–2 in pipelines: what stages hold and hand on is charged to the call's
// budget — window outputs, documents in flight between stages, copies through arrays, the
// holding stages of a $facet together — and stage outputs nest at most 200 levels; a
// pipeline has at most 1000 stages.
#include <string>

#include "tests/engine/aggregate/aggregate_fixture.hpp"
#include "tests/engine/query/budget_fixture.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;
using namespace omgdb::engine::budget_test;

namespace {

// `n` documents {_id: i, k: i % 10, pad: `pad` bytes}.
std::vector<document> numbered(int n, std::size_t pad = 8) {
  std::vector<document> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    out.push_back(document{{"_id", value(i)}, {"k", value(i % 10)}, {"pad", value(std::string(pad, 'x'))}});
  }
  return out;
}

failure pipeline_error(fixture& f, const std::string& pipeline) {
  auto r = f.try_run(pipeline);
  REQUIRE_MESSAGE(!r.ok(), "expected an error from ", pipeline.substr(0, 200));
  return r.error();
}

}  // namespace

TEST_CASE("$setWindowFields pushing the whole partition for each of 20,000 documents is refused at the bound, quickly") {
  installed_budget b(std::uint64_t{128} << 20);
  fixture f;
  f.provider.collections["c"] = numbered(20000);
  failure e;
  double grew = 0;
  const double s = cpu_seconds([&] {
    grew = peak_growth_mib([&] { e = pipeline_error(f, R"([{"$setWindowFields": {"output": {"all": {"$push": "$_id"}}}}])"); });
  });
  CAPTURE(e.message);
  CHECK(e.kind == failure_kind::limit_exceeded);
  CHECK(e.message.find("exceeded its memory limit of") != std::string::npos);
  CHECK(s < 3.0);
  CHECK(grew < 256);
}

TEST_CASE("documents growing across stages are charged while in flight: forty $addFields of a range pass the bound") {
  installed_budget b(std::uint64_t{64} << 20);
  fixture f;
  f.provider.collections["c"] = numbered(1);
  std::string p = "[";
  for (int i = 0; i < 40; ++i) p += std::string(i ? "," : "") + R"({"$addFields": {"a)" + std::to_string(i) + R"(": {"$range": [0, 100000]}}})";
  p += "]";
  failure e;
  const double grew = peak_growth_mib([&] { e = pipeline_error(f, p); });
  check_memory_bound(e, "64 MiB");
  CHECK(grew < 192);
}

TEST_CASE("a field set through an array of 100,000 documents charges each copy before it is made") {
  installed_budget b(std::uint64_t{64} << 20);
  fixture f;
  f.provider.collections["c"] = numbered(1);
  failure e;
  const double grew = peak_growth_mib([&] {
    e = pipeline_error(f, R"([{"$addFields": {"arr": {"$map": {"input": {"$range": [0, 100000]}, "in": {}}}}},
                              {"$addFields": {"arr.x": {"$range": [0, 1000]}}}])");
  });
  check_memory_bound(e, "64 MiB");
  CHECK(grew < 192);
}

TEST_CASE("a $facet of many sorts cannot together pass the call's bound") {
  installed_budget b(std::uint64_t{64} << 20);
  fixture f;
  f.provider.collections["c"] = numbered(20000, 200);  // ~6 MiB held per copy
  std::string p = R"([{"$facet": {)";
  for (int i = 0; i < 16; ++i) p += std::string(i ? "," : "") + "\"f" + std::to_string(i) + R"(": [{"$sort": {"k": -1}}])";
  p += "}}]";
  const failure e = pipeline_error(f, p);
  check_memory_bound(e, "64 MiB");
  // One facet of the same documents is well within it.
  auto r = f.try_run(R"([{"$facet": {"one": [{"$sort": {"k": -1}}, {"$limit": 1}, {"$project": {"_id": 1}}]}}])");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(to_json((*r)[0]) == R"({"one":[{"_id":9}]})");
}

TEST_CASE("a pipeline of many $group stages pushing $$ROOT is refused at 200 levels") {
  fixture f;
  f.provider.collections["c"] = numbered(1);
  auto groups = [](int n) {
    std::string p = "[";
    for (int i = 0; i < n; ++i) p += std::string(i ? "," : "") + R"({"$group": {"_id": null, "a": {"$push": "$$ROOT"}}})";
    return p + "]";
  };
  // Each stage adds two levels (the array, the document): 100 make an output 201 deep.
  for (int n : {100, 150}) {
    const failure e = pipeline_error(f, groups(n));
    CAPTURE(e.message);
    CHECK(e.kind == failure_kind::limit_exceeded);
    CHECK(e.message.find("deeper than 200 levels") != std::string::npos);
  }
  // 99 nest 199 levels: allowed.
  auto r = f.try_run(groups(99));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(measure_document((*r)[0]).depth == 199);
}

TEST_CASE("$facet and $lookup outputs are refused when they would nest past 200 levels") {
  fixture f;
  f.provider.collections["c"] = numbered(1);
  std::string p = "[";
  for (int i = 0; i < 120; ++i) p += std::string(i ? "," : "") + R"({"$facet": {"x": []}})";
  p += "]";
  const failure e = pipeline_error(f, p);
  CHECK(e.kind == failure_kind::limit_exceeded);
  CHECK(e.message.find("deeper than 200 levels") != std::string::npos);
  std::string q = "[";
  for (int i = 0; i < 120; ++i) {
    q += std::string(i ? "," : "") +
         R"({"$lookup": {"from": "c", "let": {"r": "$$ROOT"}, "pipeline": [{"$replaceWith": {"x": "$$r"}}], "as": "j"}},)" +
         R"({"$project": {"_id": 0, "j": 1}})";
  }
  q += "]";
  const failure l = pipeline_error(f, q);
  CHECK(l.kind == failure_kind::limit_exceeded);
  CHECK(l.message.find("deeper than 200 levels") != std::string::npos);
}

TEST_CASE("a pipeline of more than 1000 stages is refused naming the bound") {
  fixture f;
  f.provider.collections["c"] = numbered(1);
  std::string p = "[";
  for (int i = 0; i < 1001; ++i) p += std::string(i ? "," : "") + R"({"$skip": 0})";
  p += "]";
  const failure e = pipeline_error(f, p);
  CHECK(e.kind == failure_kind::limit_exceeded);
  CHECK(e.message == "the pipeline has 1001 stages; a pipeline (or sub-pipeline) may have at most 1000 (MongoDB's bound)");
  p = "[";
  for (int i = 0; i < 1000; ++i) p += std::string(i ? "," : "") + R"({"$skip": 0})";
  p += "]";
  CHECK(f.try_run(p).ok());
}
