// omgdb index benchmark, in process (issue 5): the engine calls behind the `find` and
// `count_documents` tools against SQLite with expression indexes on json_extract, over the
// same JSON lines, in one process, interleaved query by query. Not part of `make test`;
// bench/bench_index.py runs it on the file it generates (bench/run.sh BIN --index).
//
// Usage: index_bench DOCS.jsonl WORKDIR [--queries Q] [--seed S] [--reuse] [--only point|range|wide]
//        [--keys N]  (point lookups of the first N documents only: every block cached, for profiles)
// Loads DOCS.jsonl into WORKDIR/inproc.omgdb (import_jsonl, batches of 1000, then indexes on
// `k` and `r`) and into WORKDIR/inproc.sqlite (one TEXT column, `json(?)`, 1000 rows per
// transaction, WAL, synchronous=FULL, then expression indexes), as bench_index.py loads them,
// closes both and opens them again for the queries; --reuse opens the two stores a previous
// run left in WORKDIR instead, --only runs one of the query kinds (both for profiling).
// Then, per query i (the same random values for both, the order of the two alternating):
//   point:  omgdb store::find({k: X}) → its NDJSON text (the text the `find` tool returns),
//           SQLite `SELECT body … WHERE json_extract(body,'$.k') = ?` → the row's text;
//           (and, for reference, omgdb store::get of another random `_id`: one Get, no index);
//   range:  omgdb store::count({r: {$gte: a, $lt: a+10000}}) vs SQLite
//           `SELECT count(*) … WHERE json_extract(body,'$.r') BETWEEN a AND a+9999`;
//   wide:   find({k: X, r: {$gte: 0, $lt: 400000}}) vs the same two conditions in SQLite (two
//           candidate indexes, one very unselective: what choosing between them costs).
// Prints one JSON object: medians and minima in milliseconds, and omgdb / SQLite ratios.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <sqlite3.h>

#include "engine/value/ejson.hpp"
#include "engine/store/store.hpp"

namespace {

namespace eng = omgdb::engine;
namespace bj = boost::json;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "index_bench: %s\n", what.c_str());
  std::exit(1);
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct stats {
  std::vector<double> ms;
  double median() const {
    auto v = ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  double min() const { return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end()); }
  bj::object json() const { return {{"median_ms", median()}, {"min_ms", min()}, {"runs", ms.size()}}; }
};

double time_ms(const std::function<void()>& fn) {
  auto t0 = clock_type::now();
  fn();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) die(std::string(sql) + ": " + (err ? err : "?"));
}

sqlite3_stmt* prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) die(std::string(sql) + ": " + sqlite3_errmsg(db));
  return st;
}

// Loads the lines as bench_index.py does: 1000 `json(?)` inserts per transaction.
sqlite3* load_sqlite(const std::string& jsonl, const std::string& path, bj::object& out) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) die("cannot open " + path);
  exec(db, "PRAGMA journal_mode=WAL");
  exec(db, "PRAGMA synchronous=FULL");
  exec(db, "CREATE TABLE docs (body TEXT NOT NULL)");
  auto t0 = clock_type::now();
  sqlite3_stmt* ins = prepare(db, "INSERT INTO docs (body) VALUES (json(?))");
  std::ifstream in(jsonl);
  std::string line;
  int in_txn = 0;
  while (std::getline(in, line)) {
    if (in_txn == 0) exec(db, "BEGIN");
    sqlite3_bind_text(ins, 1, line.data(), static_cast<int>(line.size()), SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) die(std::string("insert: ") + sqlite3_errmsg(db));
    sqlite3_reset(ins);
    if (++in_txn == 1000) {
      exec(db, "COMMIT");
      in_txn = 0;
    }
  }
  if (in_txn > 0) exec(db, "COMMIT");
  sqlite3_finalize(ins);
  out["sqlite_load_s"] = seconds_since(t0);
  t0 = clock_type::now();
  exec(db, "CREATE INDEX docs_k ON docs (json_extract(body, '$.k'))");
  exec(db, "CREATE INDEX docs_r ON docs (json_extract(body, '$.r'))");
  out["sqlite_index_build_s"] = seconds_since(t0);
  return db;
}

std::shared_ptr<eng::store> load_omgdb(const std::string& jsonl, const std::string& path, bj::object& out) {
  if (auto st = eng::store::create(path); !st) die(st.error().message);
  auto s = eng::store::open(path);
  if (!s) die(s.error().message);
  auto t0 = clock_type::now();
  auto imported = (*s)->import_jsonl("docs", jsonl, 1000);
  if (!imported) die(imported.error().message);
  out["omgdb_load_s"] = seconds_since(t0);
  t0 = clock_type::now();
  for (const char* f : {"k", "r"}) {
    eng::store::index_spec spec;
    spec.fields.push_back({f, false});
    if (auto r = (*s)->create_index("docs", spec); !r) die(r.error().message);
  }
  out["omgdb_index_build_s"] = seconds_since(t0);
  return *s;
}

// The engine side of the `find` tool: the JSON filter argument converted as the tool converts
// it, the engine call, the page's NDJSON text.
std::string omgdb_find(eng::store& s, const bj::value& filter) {
  eng::find_options o;
  auto f = eng::document_from_json(filter);
  if (!f) die(f.error().message);
  o.filter = std::move(*f);
  auto page = s.find("docs", o);
  if (!page) die(page.error().message);
  return std::move(page->ndjson);
}

std::string omgdb_get(eng::store& s, std::int64_t id) {
  auto doc = s.get("docs", eng::value(id));
  if (!doc) die(doc.error().message);
  if (!*doc) die("no document with _id " + std::to_string(id));
  std::string text;
  eng::append_json(text, **doc);
  return text;
}

std::uint64_t omgdb_count(eng::store& s, const bj::value& filter) {
  auto f = eng::document_from_json(filter);
  if (!f) die(f.error().message);
  auto n = s.count("docs", *f);
  if (!n) die(n.error().message);
  return *n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: index_bench DOCS.jsonl WORKDIR [--queries Q] [--seed S] [--reuse]");
  const std::string jsonl = argv[1], work = argv[2];
  int queries = 200;
  unsigned seed = 2;
  bool reuse = false;
  std::string only;  // "point", "range" or "wide": run only that query kind (for profiling)
  std::size_t keys = 0;  // point: draw k from this many documents only (0: all), for cached-block profiles
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reuse") {
      reuse = true;
      continue;
    }
    if (i + 1 >= argc) die("option " + a + " needs a value");
    ++i;
    if (a == "--queries") queries = std::atoi(argv[i]);
    else if (a == "--only") only = argv[i];
    else if (a == "--keys") keys = static_cast<std::size_t>(std::atoll(argv[i]));
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(argv[i]));
    else die("unknown option " + a);
  }
  std::size_t n = 0;
  {
    std::ifstream in(jsonl);
    std::string line;
    while (std::getline(in, line)) n += !line.empty();
  }
  if (n == 0) die("no documents in " + jsonl);
  bj::object out{{"documents", n}, {"queries", queries}};
  std::filesystem::create_directories(work);
  const std::string omgdb_path = work + "/inproc.omgdb", sqlite_path = work + "/inproc.sqlite";
  std::shared_ptr<eng::store> store;
  sqlite3* db = nullptr;
  if (!reuse || !std::filesystem::exists(omgdb_path) || !std::filesystem::exists(sqlite_path)) {
    std::filesystem::remove_all(omgdb_path);
    std::filesystem::remove(sqlite_path);
    std::filesystem::remove(sqlite_path + "-wal");
    std::filesystem::remove(sqlite_path + "-shm");
    load_omgdb(jsonl, omgdb_path, out).reset();
    sqlite3_close(load_sqlite(jsonl, sqlite_path, out));
  }
  // Both measured reopened after the load, as after a restart: the store's flushes of the
  // bulk writes are done and SQLite's WAL is checkpointed, instead of timing whichever
  // background work the load left running.
  {
    auto s = eng::store::open(omgdb_path);
    if (!s) die(s.error().message);
    store = *s;
    if (sqlite3_open(sqlite_path.c_str(), &db) != SQLITE_OK) die("cannot open " + sqlite_path);
  }
  sqlite3_stmt* point_st = prepare(db, "SELECT body FROM docs WHERE json_extract(body, '$.k') = ?");
  sqlite3_stmt* range_st = prepare(db, "SELECT count(*) FROM docs WHERE json_extract(body, '$.r') BETWEEN ? AND ?");
  sqlite3_stmt* wide_st = prepare(db, "SELECT body FROM docs WHERE json_extract(body, '$.k') = ? AND "
                                      "json_extract(body, '$.r') BETWEEN 0 AND 399999");
  auto want = [&](const char* kind) { return only.empty() || only == kind; };

  std::mt19937_64 rnd(seed);
  stats o_point, s_point, o_range, s_range, o_get, o_wide, s_wide;
  std::string sink, get_text;
  for (int i = 0; i < queries; ++i) {
    const std::int64_t k = static_cast<std::int64_t>(rnd() % (keys > 0 ? std::min(keys, n) : n)) * 7 + 3;
    const std::int64_t a = static_cast<std::int64_t>(rnd() % (1'000'000 - 10'000));
    const std::int64_t k2 = static_cast<std::int64_t>(rnd() % n) * 7 + 3;  // wide: another document
    std::string o_text, s_text, o_wide_text, s_wide_text;
    std::uint64_t o_count = 0, s_count = 0;
    auto run_omgdb = [&] {
      if (want("point")) o_point.ms.push_back(time_ms([&] { o_text = omgdb_find(*store, bj::object{{"k", k}}); }));
      if (want("point")) {
        // Reference: the same document by `_id` (one Get, no index), with its JSON text.
        const std::int64_t other = static_cast<std::int64_t>(rnd() % n);
        o_get.ms.push_back(time_ms([&] { get_text = omgdb_get(*store, other); }));
      }
      if (want("wide")) o_wide.ms.push_back(time_ms([&] {
        o_wide_text = omgdb_find(*store, bj::object{{"k", k2}, {"r", bj::object{{"$gte", 0}, {"$lt", 400'000}}}});
      }));
      if (want("range")) o_range.ms.push_back(time_ms([&] {
        o_count = omgdb_count(*store, bj::object{{"r", bj::object{{"$gte", a}, {"$lt", a + 10'000}}}});
      }));
    };
    auto run_sqlite = [&] {
      if (want("point")) s_point.ms.push_back(time_ms([&] {
        sqlite3_bind_int64(point_st, 1, k);
        s_text.clear();
        while (sqlite3_step(point_st) == SQLITE_ROW) {
          s_text.append(reinterpret_cast<const char*>(sqlite3_column_text(point_st, 0)),
                        static_cast<std::size_t>(sqlite3_column_bytes(point_st, 0)));
          s_text.push_back('\n');
        }
        sqlite3_reset(point_st);
      }));
      if (want("wide")) s_wide.ms.push_back(time_ms([&] {
        sqlite3_bind_int64(wide_st, 1, k2);
        s_wide_text.clear();
        while (sqlite3_step(wide_st) == SQLITE_ROW) {
          s_wide_text.append(reinterpret_cast<const char*>(sqlite3_column_text(wide_st, 0)),
                             static_cast<std::size_t>(sqlite3_column_bytes(wide_st, 0)));
          s_wide_text.push_back('\n');
        }
        sqlite3_reset(wide_st);
      }));
      if (want("range")) s_range.ms.push_back(time_ms([&] {
        sqlite3_bind_int64(range_st, 1, a);
        sqlite3_bind_int64(range_st, 2, a + 9'999);
        if (sqlite3_step(range_st) != SQLITE_ROW) die("sqlite count returned no row");
        s_count = static_cast<std::uint64_t>(sqlite3_column_int64(range_st, 0));
        sqlite3_reset(range_st);
      }));
    };
    if (i % 2 == 0) {
      run_omgdb();
      run_sqlite();
    } else {
      run_sqlite();
      run_omgdb();
    }
    if (!want("point")) o_text = s_text = "{}\n";
    if (std::count(o_wide_text.begin(), o_wide_text.end(), '\n') !=
        std::count(s_wide_text.begin(), s_wide_text.end(), '\n')) {
      die("the point lookup of k = " + std::to_string(k2) + " with a wide range on r differs");
    }
    if (std::count(o_text.begin(), o_text.end(), '\n') != 1 || std::count(s_text.begin(), s_text.end(), '\n') != 1) {
      die("a point lookup of k = " + std::to_string(k) + " did not return one document");
    }
    if (o_count != s_count) {
      die("range counts differ at a = " + std::to_string(a) + ": omgdb " + std::to_string(o_count) + ", sqlite " +
          std::to_string(s_count));
    }
    sink += o_text.substr(0, 1);
  }
  sqlite3_finalize(point_st);
  sqlite3_finalize(range_st);
  sqlite3_finalize(wide_st);
  sqlite3_close(db);
  out["omgdb"] = bj::object{{"point", o_point.json()},
                            {"range_1pct", o_range.json()},
                            {"point_and_wide_range", o_wide.json()},
                            {"get_by_id", o_get.json()}};
  out["sqlite"] = bj::object{{"point", s_point.json()}, {"range_1pct", s_range.json()}, {"point_and_wide_range", s_wide.json()}};
  bj::object ratios;
  if (want("point")) ratios["point"] = o_point.median() / s_point.median();
  if (want("range")) ratios["range_1pct"] = o_range.median() / s_range.median();
  if (want("wide")) ratios["point_and_wide_range"] = o_wide.median() / s_wide.median();
  out["omgdb_over_sqlite"] = std::move(ratios);
  std::printf("%s\n", bj::serialize(out).c_str());
  return sink.size() == static_cast<std::size_t>(queries) ? 0 : 1;
}
