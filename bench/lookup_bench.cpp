// omgdb $lookup benchmark, in process (issue 30 item 2): a $lookup into a foreign collection of
// about 100 MiB — past half the default stage limit (50 MiB), where the hash table is refused —
// for 1 and for 10,000 input documents, through `_id` and through an index, in the equality
// form and in the `let` / `pipeline` form with an `$expr` equality. Not part of `make test`;
// build the `lookup_bench` target and run it (bench/README.md).
//
// Usage: lookup_bench WORKDIR [--foreign N] [--pad BYTES] [--local N] [--runs R] [--one-only]
// Writes WORKDIR/foreign.jsonl: N (default 100,000) documents {_id: i, key: i, pad: <BYTES
// (default 1000) letters>} and WORKDIR/local.jsonl: {_id: i, ref: (i * 31) % N} for i < local
// (default 10,000); loads both into WORKDIR/lookup.omgdb (import_jsonl) with an index on `key`.
// Each pipeline starts with {$limit: n} (n = 1, then every local document), ends with a
// $count of the documents that found exactly one match (checked), and runs R (default 3)
// times; prints one JSON object with the medians in milliseconds (or the error of a refused
// call). --one-only: only the 1-document runs (for a build where a scan per input document
// would take hours).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "engine/aggregate/pipeline.hpp"
#include "engine/store/store.hpp"
#include "engine/value/ejson.hpp"

namespace {

namespace eng = omgdb::engine;
namespace bj = boost::json;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "lookup_bench: %s\n", what.c_str());
  std::exit(1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

eng::array pipeline(const std::string& json) {
  auto v = eng::from_json(bj::parse(json));
  if (!v || !v->is_array()) die("bad pipeline " + json);
  return v->as_array();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: lookup_bench WORKDIR [--foreign N] [--pad BYTES] [--local N] [--runs R]");
  const std::filesystem::path dir = argv[1];
  long foreign = 100000, pad = 1000, local = 10000;
  int runs = 3;
  bool one_only = false;
  for (int i = 2; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--one-only") {
      one_only = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) die("missing value of " + a);
    const long v = std::strtol(argv[i + 1], nullptr, 10);
    if (a == "--foreign") foreign = v;
    else if (a == "--pad") pad = v;
    else if (a == "--local") local = v;
    else if (a == "--runs") runs = static_cast<int>(v);
    else die("unknown option " + a);
  }
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "foreign.jsonl"), l(dir / "local.jsonl");
    const std::string letters(static_cast<std::size_t>(pad), 'p');
    for (long i = 0; i < foreign; ++i) f << "{\"_id\":" << i << ",\"key\":" << i << ",\"pad\":\"" << letters << "\"}\n";
    for (long i = 0; i < local; ++i) l << "{\"_id\":" << i << ",\"ref\":" << (i * 31) % foreign << "}\n";
  }
  const std::string store_path = (dir / "lookup.omgdb").string();
  std::filesystem::remove_all(store_path);
  if (!eng::store::create(store_path)) die("cannot create " + store_path);
  auto opened = eng::store::open(store_path);
  if (!opened) die(opened.error().message);
  auto st = *opened;
  auto t0 = clock_type::now();
  if (auto r = st->import_jsonl("foreign", (dir / "foreign.jsonl").string(), 1000); !r) die(r.error().message);
  if (auto r = st->import_jsonl("local", (dir / "local.jsonl").string(), 1000); !r) die(r.error().message);
  if (auto r = st->create_index("foreign", eng::store::index_spec{"", {{"key", false}}, false, std::nullopt}); !r) {
    die(r.error().message);
  }
  const double load_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  const auto foreign_bytes = std::filesystem::file_size(dir / "foreign.jsonl");

  const std::vector<std::pair<std::string, std::string>> forms = {
      {"equality_on_id", R"({"from": "foreign", "localField": "ref", "foreignField": "_id", "as": "j"})"},
      {"equality_on_indexed_key", R"({"from": "foreign", "localField": "ref", "foreignField": "key", "as": "j"})"},
      {"let_expr_on_id", R"({"from": "foreign", "let": {"r": "$ref"}, "pipeline": [{"$match": {"$expr":
          {"$eq": ["$_id", "$$r"]}}}, {"$project": {"pad": 0}}], "as": "j"})"},
      {"let_expr_on_indexed_key", R"({"from": "foreign", "let": {"r": "$ref"}, "pipeline": [{"$match": {"$expr":
          {"$eq": ["$key", "$$r"]}}}, {"$project": {"pad": 0}}], "as": "j"})"},
  };
  bj::object results;
  for (const auto& [name, spec] : forms) {
    bj::object per;
    for (const long n : {1L, local}) {
      if (n != 1 && one_only) continue;
      const auto p = pipeline(R"([{"$limit": )" + std::to_string(n) + R"(}, {"$lookup": )" + spec +
                              R"(}, {"$match": {"j": {"$size": 1}}}, {"$count": "n"}])");
      std::vector<double> ms;
      std::string error;
      for (int r = 0; r < runs && error.empty(); ++r) {
        eng::store_provider provider(*st);
        t0 = clock_type::now();
        auto out = eng::run_pipeline(provider, "local", p);
        ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
        if (!out) {
          error = out.error().message;
          break;
        }
        if (out->size() != 1 || eng::to_json((*out)[0]) != "{\"n\":" + std::to_string(n) + "}") die(name + ": wrong answer");
      }
      const std::string key = "input_" + std::to_string(n);
      if (error.empty()) {
        per[key + "_ms"] = median(ms);
      } else {
        per[key + "_error"] = error;
      }
    }
    results[name] = std::move(per);
  }
  bj::object o{{"foreign_docs", foreign},
               {"foreign_jsonl_mib", static_cast<double>(foreign_bytes) / (1 << 20)},
               {"local_docs", local},
               {"runs", runs},
               {"load_ms", load_ms},
               {"lookup", std::move(results)}};
  std::printf("%s\n", bj::serialize(o).c_str());
  std::filesystem::remove_all(store_path);
  return 0;
}
