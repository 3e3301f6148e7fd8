// Vector search latency across a restart and a small vsync (issue 30 item 3): a field of N
// documents embedded with a D-dimensional word-vector model (texts of three words from a
// 2,000-word vocabulary, so the vectors cluster like real embeddings), then, in wall-clock
// milliseconds (what the user waits):
//   graph_build_ms       the first vsearch after the initial vsync (builds and saves the graph)
//   restart_first_ms     the first vsearch after the store is closed and opened again, with no
//                        cache in memory (loads the .f32 and .hnsw files, checks both checksums)
//   vsync_one_ms         vsync after one document's text changed
//   after_vsync_first_ms the first vsearch after that vsync (absorbs the change in place)
//   restart_after_ms     the first vsearch after another restart (files + op-log replay)
//   warm_ms              a later vsearch (the floor: the scan of the source documents + ranking)
// usage: vector_restart_bench N D      (prints one JSON line; the OS page cache stays warm)
//        OMGDB_BENCH_KEEP=1 keeps the store; `vector_restart_bench again DIR` then repeats the
//        restart and one-document phases on it, with thread CPU time beside wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <time.h>

#include "engine/embed/loaders.hpp"
#include "engine/vector/vector_cache.hpp"
#include "engine/vector/vector_search.hpp"

using namespace omgdb;
using namespace omgdb::engine;
namespace fs = std::filesystem;

namespace {

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

double last_cpu_ms = 0;  // the thread CPU time of the last timed() call

template <class F>
double timed(F&& f) {
  auto t = std::chrono::steady_clock::now();
  const double c = cpu_ms();
  f();
  last_cpu_ms = cpu_ms() - c;
  return ms_since(t);
}

bool search(store& s, const embed::model_registry& models, const std::string& q, std::string* method = nullptr) {
  auto r = vector::search_text(s, models, "docs", "text", q, 10, {});
  if (!r) {
    std::fprintf(stderr, "vsearch failed: %s\n", r.error().message.c_str());
    return false;
  }
  if (method != nullptr) *method = r->method;
  return true;
}

}  // namespace

// `again DIR`: the restart and one-document phases only, three times, on a store a previous
// run kept (OMGDB_BENCH_KEEP=1), with each figure's thread CPU time beside its wall time.
int again(const fs::path& dir) {
  embed::model_registry models(dir / "models");
  const std::string path = (dir / "s.omgdb").string();
  vector::sync_request r;
  r.collection = "docs";
  r.field = "text";
  std::shared_ptr<store> s;
  auto restart = [&] {
    s.reset();
    vector::detail::forget_loaded_caches();
    auto o = store::open(path);
    if (!o) std::abort();
    s = std::move(*o);
  };
  bool ok = true;
  for (int round = 0; round < 3; ++round) {
    restart();
    std::string m1, m2;
    const double restart_ms = timed([&] { ok = search(*s, models, "w4 w5 w6", &m1); });
    const double restart_cpu = last_cpu_ms;
    const std::string text = "w" + std::to_string(20 + round) + " w11 w12";
    if (!s->update_one("docs", {document{{"_id", value(std::int64_t{7 + round})}},
                                document{{"$set", value(document{{"text", value(text)}})}}})) {
      return 1;
    }
    const double vsync_ms = timed([&] { ok = ok && vector::sync(*s, models, r).ok(); });
    const double after_ms = timed([&] { ok = ok && search(*s, models, text, &m2); });
    const double after_cpu = last_cpu_ms;
    const double warm_ms = timed([&] { ok = ok && search(*s, models, "w13 w14 w15"); });
    const double warm_cpu = last_cpu_ms;
    std::printf("{\"bench\":\"vector_restart_again\",\"round\":%d,\"restart_first_ms\":%.0f,\"restart_first_cpu_ms\":%.0f,"
                "\"method\":\"%s\",\"vsync_one_ms\":%.0f,\"after_vsync_first_ms\":%.0f,\"after_vsync_first_cpu_ms\":%.0f,"
                "\"after_method\":\"%s\",\"warm_ms\":%.0f,\"warm_cpu_ms\":%.0f}\n",
                round, restart_ms, restart_cpu, m1.c_str(), vsync_ms, after_ms, after_cpu, m2.c_str(), warm_ms, warm_cpu);
    std::fflush(stdout);
  }
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "again") return again(argv[2]);
  if (argc < 3) {
    std::fprintf(stderr, "usage: vector_restart_bench N D | again DIR\n");
    return 2;
  }
  const std::size_t n = std::stoul(argv[1]);
  const auto d = static_cast<std::uint32_t>(std::stoul(argv[2]));
  const fs::path dir = fs::temp_directory_path() / ("omgdb-restart-bench-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const std::size_t words = 2000;
  std::mt19937_64 gen(5);
  std::normal_distribution<float> normal;
  {
    std::ofstream out(dir / "w.txt");
    for (std::size_t i = 0; i < words; ++i) {
      out << "w" << i;
      for (std::uint32_t j = 0; j < d; ++j) out << ' ' << normal(gen);
      out << '\n';
    }
  }
  if (!embed::install_model(dir / "models", "w", dir / "w.txt", std::string(64, '0'))) return 1;
  embed::model_registry models(dir / "models");
  const std::string path = (dir / "s.omgdb").string();
  if (!store::create(path)) return 1;
  auto opened = store::open(path);
  if (!opened) return 1;
  std::shared_ptr<store> s = std::move(*opened);
  std::uniform_int_distribution<std::size_t> pick(0, words - 1);
  for (std::size_t done = 0; done < n;) {
    std::vector<document> docs;
    for (std::size_t i = 0; i < 10000 && done < n; ++i, ++done) {
      const std::string text = "w" + std::to_string(pick(gen)) + " w" + std::to_string(pick(gen)) + " w" + std::to_string(pick(gen));
      docs.push_back(document{{"_id", value(static_cast<std::int64_t>(done))}, {"text", value(text)}});
    }
    if (!s->insert_many("docs", std::move(docs))) return 1;
  }
  vector::sync_request r;
  r.collection = "docs";
  r.field = "text";
  r.model = "w";
  bool ok = true;
  const double vsync_all_ms = timed([&] { ok = vector::sync(*s, models, r).ok(); });
  if (!ok) return 1;
  std::string method;
  const double build_ms = timed([&] { ok = search(*s, models, "w1 w2 w3", &method); });
  if (!ok) return 1;
  auto restart = [&] {
    s.reset();
    vector::detail::forget_loaded_caches();
    auto again = store::open(path);
    if (!again) {
      std::fprintf(stderr, "reopen failed: %s\n", again.error().message.c_str());
      std::abort();
    }
    s = std::move(*again);
  };
  restart();
  std::string restart_method;
  const double restart_ms = timed([&] { ok = search(*s, models, "w4 w5 w6", &restart_method); });
  if (!ok) return 1;
  if (!s->update_one("docs", {document{{"_id", value(std::int64_t{7})}},
                              document{{"$set", value(document{{"text", value("w10 w11 w12")}})}}})) {
    return 1;
  }
  const double vsync_one_ms = timed([&] { ok = vector::sync(*s, models, r).ok(); });
  if (!ok) return 1;
  std::string after_method;
  const double after_ms = timed([&] { ok = search(*s, models, "w10 w11 w12", &after_method); });
  if (!ok) return 1;
  restart();
  const double restart_after_ms = timed([&] { ok = search(*s, models, "w7 w8 w9"); });
  const double warm_ms = timed([&] { ok = ok && search(*s, models, "w13 w14 w15"); });
  std::error_code ec;
  std::uintmax_t f32 = 0, graph = 0;
  for (const auto& e : fs::directory_iterator(fs::path(path) / "caches" / "vectors", ec)) {
    if (e.path().extension() == ".f32") f32 = e.file_size();
    if (e.path().extension() == ".hnsw") graph = e.file_size();
  }
  std::printf("{\"bench\":\"vector_restart\",\"n\":%zu,\"dim\":%u,\"vsync_all_s\":%.1f,\"graph_build_ms\":%.0f,"
              "\"method\":\"%s\",\"restart_first_ms\":%.0f,\"restart_method\":\"%s\",\"vsync_one_ms\":%.0f,"
              "\"after_vsync_first_ms\":%.0f,\"after_method\":\"%s\",\"restart_after_ms\":%.0f,\"warm_ms\":%.0f,"
              "\"f32_mb\":%.1f,\"hnsw_mb\":%.1f}\n",
              n, d, vsync_all_ms / 1000, build_ms, method.c_str(), restart_ms, restart_method.c_str(), vsync_one_ms,
              after_ms, after_method.c_str(), restart_after_ms, warm_ms, f32 / 1e6, graph / 1e6);
  s.reset();
  if (std::getenv("OMGDB_BENCH_KEEP") != nullptr) {
    std::fprintf(stderr, "kept %s\n", dir.c_str());
  } else {
    fs::remove_all(dir, ec);
  }
  return ok ? 0 : 1;
}
