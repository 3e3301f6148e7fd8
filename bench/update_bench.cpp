// omgdb update benchmark, in process (issue 3): `import_jsonl` of a JSON Lines file into a
// fresh store, then `update_many({}, {$inc: {age: 1}})` over every document, each timed and
// with this process's CPU time. Not part of `make test`; for profiling the write paths under
// callgrind or perf without the daemon (bench/bench_engine.py measures the same calls through
// the server against db_bench).
//
// Usage: update_bench DOCS.jsonl WORKDIR [--rounds R] [--only-update]
// Prints one JSON line per round: import and update seconds, CPU seconds, documents.
// --only-update imports once, untimed, and then times R update_many calls.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "engine/store/store.hpp"

namespace {

namespace eng = omgdb::engine;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "update_bench: %s\n", what.c_str());
  std::exit(1);
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct timing {
  double wall = 0;
  double cpu = 0;
};

template <typename F>
timing timed(F&& fn) {
  auto t0 = clock_type::now();
  double c0 = cpu_seconds();
  fn();
  return {std::chrono::duration<double>(clock_type::now() - t0).count(), cpu_seconds() - c0};
}

std::uint64_t run_update(eng::store& s) {
  eng::store::update_request req;
  req.update = eng::document{eng::field{"$inc", eng::value(eng::document{eng::field{"age", eng::value(std::int64_t{1})}})}};
  auto r = s.update_many("users", req);
  if (!r) die("update_many: " + r.error().message);
  return r->modified;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: update_bench DOCS.jsonl WORKDIR [--rounds R] [--only-update]");
  const std::string file = argv[1];
  const std::filesystem::path work = argv[2];
  int rounds = 1;
  bool only_update = false;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--only-update") == 0) only_update = true;
    else die(std::string("unknown argument ") + argv[i]);
  }
  const std::string path = (work / "update_bench.omgdb").string();
  for (int round = 0; round < rounds; ++round) {
    if (!only_update || round == 0) {
      std::filesystem::remove_all(path);
      if (auto c = eng::store::create(path); !c) die("create: " + c.error().message);
      auto s = eng::store::open(path);
      if (!s) die("open: " + s.error().message);
      std::uint64_t imported = 0;
      auto t = timed([&] {
        auto r = (*s)->import_jsonl("users", file, 1000);
        if (!r) die("import_jsonl: " + r.error().message);
        imported = r->imported;
      });
      if (!only_update) std::printf("{\"round\":%d,\"import_s\":%.3f,\"import_cpu_s\":%.3f,\"docs\":%llu}\n", round, t.wall, t.cpu,
                                    static_cast<unsigned long long>(imported));
    }
    auto s = eng::store::open(path);
    if (!s) die("open: " + s.error().message);
    std::uint64_t modified = 0;
    auto t = timed([&] { modified = run_update(**s); });
    std::printf("{\"round\":%d,\"update_s\":%.3f,\"update_cpu_s\":%.3f,\"modified\":%llu}\n", round, t.wall, t.cpu,
                static_cast<unsigned long long>(modified));
    std::fflush(stdout);
  }
  return 0;
}
