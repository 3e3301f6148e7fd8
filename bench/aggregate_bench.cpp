// omgdb aggregation benchmark, in process (issue 17): engine::run_pipeline over a store
// against SQLite over the same JSON lines, in one process, interleaved run by run. Not part of
// `make test`; bench/aggregate_bench.sh builds it, runs it and runs the mingo side in Node
// (bench/aggregate_mingo.mjs) over the file this program writes.
//
// Usage: aggregate_bench WORKDIR [--docs N] [--join N] [--runs R] [--group-only]
// Writes WORKDIR/docs.jsonl (N documents, default 1,000,000):
//   {"_id": i, "k": "k<i % 100>", "v": (i * 7919) % 1000, "w": <i % 1000 / 8, a double>,
//    "flag": <i % 3 != 0>, "name": "user <i>"}
// and loads it into WORKDIR/agg.omgdb (import_jsonl, batches of 1000) and WORKDIR/agg.sqlite
// (one TEXT column, json(?), 1000 rows per transaction). Then, R times each, alternating:
//   group:  [{$match: {flag: true}}, {$group: {_id: "$k", s: {$sum: "$v"}, a: {$avg: "$w"}}}]
//           vs SELECT json_extract(body,'$.k'), sum(…'$.v'), avg(…'$.w') … WHERE
//           json_extract(body,'$.flag') = 1 GROUP BY 1 — the answers are compared;
//   topk:   [{$sort: {v: -1, _id: 1}}, {$limit: 10}] over every document: time and the
//           process's peak RSS growth during the run (VmHWM after resetting it);
//   lookup: J (default 100,000) documents {_id, ref: (i * 31) % J} $lookup into J documents
//           {_id, key: i, pad}, localField ref / foreignField key, then $count — without an
//           index on `key` (the hash table) and with one (one seek per document), alternating.
// --group-only (profiling): only omgdb's `group` runs, no SQLite, no other figures.
// Prints one JSON object with medians in milliseconds and the ratios.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <sqlite3.h>

#include "engine/aggregate/pipeline.hpp"
#include "engine/store/store.hpp"
#include "engine/value/ejson.hpp"

namespace {

namespace eng = omgdb::engine;
namespace bj = boost::json;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "aggregate_bench: %s\n", what.c_str());
  std::exit(1);
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// A /proc/self/status figure in KiB ("VmHWM:" the peak resident set, "VmRSS:" the current
// one); reset_peak() starts a new peak at the current size.
long status_kib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::strtol(line.c_str() + key.size(), nullptr, 10);
  }
  return -1;
}
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

eng::array pipeline(const char* json) {
  auto v = eng::from_json(bj::parse(json));
  if (!v || !v->is_array()) die(std::string("bad pipeline ") + json);
  return v->as_array();
}

std::vector<eng::document> run(const eng::store& s, const char* coll, const eng::array& p) {
  eng::store_provider provider(s);
  auto r = eng::run_pipeline(provider, coll, p);
  if (!r) die(r.error().message);
  return std::move(*r);
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) die(std::string(sql) + ": " + (err ? err : "?"));
}

void write_docs(const std::string& path, long n) {
  std::ofstream out(path);
  for (long i = 0; i < n; ++i) {
    out << "{\"_id\":" << i << ",\"k\":\"k" << i % 100 << "\",\"v\":" << (i * 7919) % 1000 << ",\"w\":"
        << static_cast<double>(i % 1000) / 8 + 0.5 << ",\"flag\":" << (i % 3 != 0 ? "true" : "false")
        << ",\"name\":\"user " << i << "\"}\n";
  }
}

sqlite3* load_sqlite(const std::string& path, const std::string& jsonl) {
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) die("cannot open " + path);
  exec(db, "PRAGMA journal_mode=WAL");
  exec(db, "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO docs (body) VALUES (json(?))", -1, &ins, nullptr);
  std::ifstream in(jsonl);
  std::string line;
  long n = 0;
  exec(db, "BEGIN");
  while (std::getline(in, line)) {
    sqlite3_bind_text(ins, 1, line.data(), static_cast<int>(line.size()), SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) die(std::string("insert: ") + sqlite3_errmsg(db));
    sqlite3_reset(ins);
    if (++n % 1000 == 0) {
      exec(db, "COMMIT");
      exec(db, "BEGIN");
    }
  }
  exec(db, "COMMIT");
  sqlite3_finalize(ins);
  return db;
}

// k -> (sum, avg) from SQLite.
std::map<std::string, std::pair<long, double>> sqlite_group(sqlite3* db) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT json_extract(body,'$.k'), sum(json_extract(body,'$.v')), avg(json_extract(body,'$.w')) "
                     "FROM docs WHERE json_extract(body,'$.flag') = 1 GROUP BY 1",
                     -1, &st, nullptr);
  std::map<std::string, std::pair<long, double>> out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = {sqlite3_column_int64(st, 1),
                                                                      sqlite3_column_double(st, 2)};
  }
  sqlite3_finalize(st);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: aggregate_bench WORKDIR [--docs N] [--join N] [--runs R]");
  const std::filesystem::path dir = argv[1];
  long docs = 1000000, join = 100000;
  int runs = 3;
  bool group_only = false;  // for profiling: the omgdb side of `group` alone, no SQLite, no other figures
  for (int i = 2; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--group-only") {
      group_only = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) die("option " + a + " needs a value");
    if (a == "--docs") docs = std::atol(argv[i + 1]);
    else if (a == "--join") join = std::atol(argv[i + 1]);
    else if (a == "--runs") runs = std::atoi(argv[i + 1]);
    else die("unknown option " + a);
  }
  std::filesystem::create_directories(dir);
  const std::string jsonl = (dir / "docs.jsonl").string();
  const std::string store_path = (dir / "agg.omgdb").string();
  write_docs(jsonl, docs);

  std::filesystem::remove_all(store_path);
  if (!eng::store::create(store_path)) die("cannot create " + store_path);
  auto opened = eng::store::open(store_path);
  if (!opened) die(opened.error().message);
  auto st = *opened;
  auto t0 = clock_type::now();
  if (auto r = st->import_jsonl("docs", jsonl, 1000); !r) die(r.error().message);
  const double omgdb_load_ms = ms_since(t0);
  t0 = clock_type::now();
  sqlite3* db = group_only ? nullptr : load_sqlite((dir / "agg.sqlite").string(), jsonl);
  const double sqlite_load_ms = ms_since(t0);

  // --- group
  const auto group = pipeline(R"([{"$match": {"flag": true}},
      {"$group": {"_id": "$k", "s": {"$sum": "$v"}, "a": {"$avg": "$w"}}}])");
  std::vector<double> omgdb_group, sqlite_group_ms;
  bool same = true;
  for (int r = 0; r < runs; ++r) {
    for (int side = 0; side < 2; ++side) {
      if (group_only && side == 1) continue;
      if (group_only) {
        t0 = clock_type::now();
        auto out = run(*st, "docs", group);
        omgdb_group.push_back(ms_since(t0));
      } else if ((side + r) % 2 == 0) {
        t0 = clock_type::now();
        auto out = run(*st, "docs", group);
        omgdb_group.push_back(ms_since(t0));
        if (r == 0) {
          auto ref = sqlite_group(db);
          same = out.size() == ref.size();
          for (const auto& d : out) {
            const auto& want = ref[eng::find_field(d, "_id")->as_string()];
            same = same && eng::to_json(*eng::find_field(d, "s")) == std::to_string(want.first) &&
                   std::abs(eng::find_field(d, "a")->as_double() - want.second) < 1e-9;
          }
        }
      } else {
        t0 = clock_type::now();
        auto ref = sqlite_group(db);
        sqlite_group_ms.push_back(ms_since(t0));
      }
    }
  }

  if (group_only) {
    std::printf("{\"docs\":%ld,\"group_omgdb_ms\":%f}\n", docs, median(omgdb_group));
    return 0;
  }

  // --- top-k
  const auto topk = pipeline(R"([{"$sort": {"v": -1, "_id": 1}}, {"$limit": 10}])");
  std::vector<double> topk_ms;
  long topk_peak_growth = 0;
  for (int r = 0; r < runs; ++r) {
    const long before = status_kib("VmRSS:");
    reset_peak();
    t0 = clock_type::now();
    auto out = run(*st, "docs", topk);
    topk_ms.push_back(ms_since(t0));
    topk_peak_growth = std::max(topk_peak_growth, status_kib("VmHWM:") - before);
    if (out.size() != 10) die("top-k returned " + std::to_string(out.size()));
  }

  // --- lookup
  {
    std::ofstream l(dir / "local.jsonl"), f(dir / "foreign.jsonl");
    for (long i = 0; i < join; ++i) {
      l << "{\"_id\":" << i << ",\"ref\":" << (i * 31) % join << "}\n";
      f << "{\"_id\":" << i << ",\"key\":" << i << ",\"pad\":\"foreign document " << i << "\"}\n";
    }
  }
  if (auto r = st->import_jsonl("local", (dir / "local.jsonl").string(), 1000); !r) die(r.error().message);
  // The same foreign documents twice: `foreign` without an index (the hash table) and
  // `foreign_indexed` with one on `key`; the two joins alternate run by run.
  if (auto r = st->import_jsonl("foreign", (dir / "foreign.jsonl").string(), 1000); !r) die(r.error().message);
  if (auto r = st->import_jsonl("foreign_indexed", (dir / "foreign.jsonl").string(), 1000); !r) die(r.error().message);
  eng::store::index_spec spec{"", {{"key", false}}, false, std::nullopt};
  if (auto r = st->create_index("foreign_indexed", spec); !r) die(r.error().message);
  auto lookup_from = [&](const char* from) {
    return pipeline((std::string(R"([{"$lookup": {"from": ")") + from + R"(", "localField": "ref", "foreignField": "key",
        "as": "j"}}, {"$match": {"j": {"$size": 1}}}, {"$count": "n"}])").c_str());
  };
  const auto lookup_hash = lookup_from("foreign"), lookup_index = lookup_from("foreign_indexed");
  std::vector<double> hash_ms, index_ms;
  for (int r = 0; r < runs; ++r) {
    for (int side = 0; side < 2; ++side) {
      const bool hash = (side + r) % 2 == 0;
      t0 = clock_type::now();
      auto out = run(*st, "local", hash ? lookup_hash : lookup_index);
      (hash ? hash_ms : index_ms).push_back(ms_since(t0));
      if (out.size() != 1 || eng::to_json(out[0]) != "{\"n\":" + std::to_string(join) + "}") die("lookup answer");
    }
  }
  const double lookup_hash_ms = median(hash_ms), lookup_index_ms = median(index_ms);

  bj::object o{{"docs", docs},
               {"runs", runs},
               {"load_ms", bj::object{{"omgdb", omgdb_load_ms}, {"sqlite", sqlite_load_ms}}},
               {"group", bj::object{{"omgdb_ms", median(omgdb_group)},
                                    {"sqlite_ms", median(sqlite_group_ms)},
                                    {"ratio_vs_sqlite", median(omgdb_group) / median(sqlite_group_ms)},
                                    {"target_ratio_max", 1.5},
                                    {"same_answer", same}}},
               {"topk", bj::object{{"omgdb_ms", median(topk_ms)}, {"peak_rss_growth_kib", topk_peak_growth}}},
               {"lookup", bj::object{{"local_docs", join},
                                     {"foreign_docs", join},
                                     {"without_index_ms", lookup_hash_ms},
                                     {"with_index_ms", lookup_index_ms}}}};
  std::printf("%s\n", bj::serialize(o).c_str());
  sqlite3_close(db);
  return 0;
}
