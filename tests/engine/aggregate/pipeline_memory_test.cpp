// Bounds: $group and $sort refuse past their memory limit with an error naming the stage and
// the limit, the process's peak RSS stays bounded while they do (read from /proc), and
// $sort + $limit holds only the top k.
#include <fstream>
#include <string>

#include "tests/engine/aggregate/aggregate_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::aggregate_test;

namespace {

// `count` documents {_id: i, k: i, pad: 100 bytes}, made as they are read.
class generated_provider final : public collection_provider {
 public:
  explicit generated_provider(std::int64_t count) : count_(count) {}
  omgdb::result<std::unique_ptr<document_source>> scan(std::string_view, const document&, const scan_control&) const override {
    struct source final : document_source {
      std::int64_t i = 0, n;
      explicit source(std::int64_t count) : n(count) {}
      omgdb::result<bool> next(document& out) override {
        if (i >= n) return false;
        out = document{{"_id", value(i)}, {"k", value(i)}, {"pad", value(std::string(100, 'x'))}};
        ++i;
        return true;
      }
    };
    return std::unique_ptr<document_source>(std::make_unique<source>(count_));
  }

 private:
  std::int64_t count_;
};

// The process's peak resident set size in KiB (VmHWM), or 0 when /proc has none.
std::int64_t peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

array pipeline(std::string_view json) { return json_value(json).as_array(); }

}  // namespace

TEST_CASE("group over more distinct keys than the memory limit allows refuses and peak RSS stays bounded") {
  generated_provider provider(2'000'000);
  pipeline_options options;
  options.max_stage_bytes = std::size_t{16} << 20;
  const std::int64_t before = peak_rss_kib();
  auto r = run_pipeline(provider, "c", pipeline(R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}])"), options,
                        [](document&&) { return true; });
  const std::int64_t after = peak_rss_kib();
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("stage `$group` exceeded its memory limit of 16 MiB") == 0);
  MESSAGE("peak RSS before ", before, " KiB, after ", after, " KiB");
  CHECK(after - before < 96 * 1024);  // the limit plus the allocator's slack, far below 2e6 groups
}

TEST_CASE("sort past its memory limit refuses naming the stage") {
  generated_provider provider(200'000);
  pipeline_options options;
  options.max_stage_bytes = std::size_t{4} << 20;
  auto r = run_pipeline(provider, "c", pipeline(R"([{"$sort": {"k": -1}}])"), options);
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("stage `$sort` exceeded the sort memory limit of 4 MiB") == 0);
}

TEST_CASE("sort followed by limit keeps only the top k within a small memory limit") {
  generated_provider provider(300'000);
  pipeline_options options;
  options.max_stage_bytes = std::size_t{1} << 20;
  auto r = run_pipeline(provider, "c", pipeline(R"([{"$sort": {"k": -1}}, {"$limit": 3}, {"$project": {"_id": 1}}])"), options);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r->size() == 3);
  CHECK(to_json((*r)[0]) == R"({"_id":299999})");
  CHECK(to_json((*r)[2]) == R"({"_id":299997})");
}
