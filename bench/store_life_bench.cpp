// omgdb store-life benchmark (issue 31), in process; not part of `make test`
// (bench/store_life.sh runs the steps and prints the figures).
//
//   store_life_bench large STORE [--kill]   60,000 documents, then ONE update_many $set of an
//                                           8 KB string on all of them: its time and the peak
//                                           RSS growth; --kill ends the process with SIGKILL
//                                           right after the call returns (no close)
//   store_life_bench open STORE             open + count_documents: time and peak RSS
//   store_life_bench retention STORE N      1,000 small documents, N update_one calls with a
//                                           256 KiB retention trimmed in the background, then
//                                           verify and the store's size against the same data
//                                           compacted without op-log
// Each prints one JSON line.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "engine/store/store.hpp"

namespace {

namespace eng = omgdb::engine;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "store_life_bench: %s\n", what.c_str());
  std::exit(1);
}

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

// Current and peak resident set size in bytes (/proc/self/status VmRSS, VmHWM).
std::uint64_t status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + std::strlen(key) + 1, nullptr, 10) * 1024;
  }
  return 0;
}

std::uint64_t dir_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

eng::document small_doc(int i) {
  eng::document d;
  d.push_back(eng::field{"_id", eng::value(static_cast<std::int32_t>(i))});
  d.push_back(eng::field{"n", eng::value(static_cast<std::int32_t>(0))});
  d.push_back(eng::field{"name", eng::value(std::string("document number ") + std::to_string(i))});
  return d;
}

std::shared_ptr<eng::store> fresh(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (auto c = eng::store::create(path); !c) die(c.error().message);
  auto s = eng::store::open(path);
  if (!s) die(s.error().message);
  return *s;
}

void insert_small(eng::store& s, int n) {
  for (int base = 0; base < n; base += 10000) {
    std::vector<eng::document> docs;
    for (int i = base; i < std::min(n, base + 10000); ++i) docs.push_back(small_doc(i));
    if (auto r = s.insert_many("c", std::move(docs)); !r) die(r.error().message);
  }
}

int large(const std::string& path, bool kill) {
  auto s = fresh(path);
  insert_small(*s, 60000);
  eng::store::update_request u;
  eng::document set;
  set.push_back(eng::field{"blob", eng::value(std::string(8192, 'x'))});
  u.update.push_back(eng::field{"$set", eng::value(std::move(set))});
  const std::uint64_t rss_before = status_bytes("VmRSS:");
  const auto t = clock_type::now();
  auto r = s->update_many("c", u);
  const double secs = seconds_since(t);
  if (!r) die(r.error().message);
  const std::uint64_t peak = status_bytes("VmHWM:");
  std::printf("{\"step\":\"large_update\",\"documents\":%llu,\"seconds\":%.2f,\"rss_before\":%llu,\"peak_rss\":%llu,"
              "\"peak_growth\":%llu,\"budget\":%llu}\n",
              static_cast<unsigned long long>(r->modified), secs, static_cast<unsigned long long>(rss_before),
              static_cast<unsigned long long>(peak), static_cast<unsigned long long>(peak - rss_before),
              static_cast<unsigned long long>(s->options().max_write_bytes));
  std::fflush(stdout);
  if (kill) ::raise(SIGKILL);
  const auto c = clock_type::now();
  s.reset();
  std::printf("{\"step\":\"close\",\"seconds\":%.2f}\n", seconds_since(c));
  return 0;
}

int open_count(const std::string& path) {
  const auto t = clock_type::now();
  auto s = eng::store::open(path);
  if (!s) die(s.error().message);
  auto n = (*s)->count("c", {});
  if (!n) die(n.error().message);
  const double secs = seconds_since(t);
  std::printf("{\"step\":\"open_count\",\"documents\":%llu,\"seconds\":%.2f,\"peak_rss\":%llu}\n",
              static_cast<unsigned long long>(*n), secs, static_cast<unsigned long long>(status_bytes("VmHWM:")));
  return 0;
}

int retention(const std::string& path, int updates) {
  auto s = fresh(path);
  insert_small(*s, 1000);
  if (auto r = s->set_retention({.max_bytes = 256 << 10, .max_age_seconds = 0}); !r) die(r.error().message);
  s->auto_trim(256 << 10);
  const auto t = clock_type::now();
  for (int i = 0; i < updates; ++i) {
    eng::store::update_request u;
    u.filter.push_back(eng::field{"_id", eng::value(static_cast<std::int32_t>((i * 7) % 1000))});
    eng::document inc;
    inc.push_back(eng::field{"n", eng::value(static_cast<std::int32_t>(1))});
    u.update.push_back(eng::field{"$inc", eng::value(std::move(inc))});
    if (auto r = s->update_one("c", u); !r) die(r.error().message);
  }
  const double secs = seconds_since(t);
  if (auto r = s->trim_oplog(); !r) die(r.error().message);
  auto v = s->verify();
  if (!v) die(v.error().message);
  std::string dumped;
  if (auto d = s->dump([&](std::string_view line) {
        dumped.append(line).push_back('\n');
        return true;
      });
      !d) {
    die(d.error().message);
  }
  const std::uint64_t trimmed = s->oplog_trimmed_through();
  s.reset();
  const std::uint64_t kept = dir_bytes(path);
  auto ref = fresh(path + ".ref");
  std::size_t pos = 0;
  auto l = ref->load([&](std::string& line) -> omgdb::result<bool> {
    if (pos >= dumped.size()) return false;
    auto nl = dumped.find('\n', pos);
    line.assign(dumped, pos, nl - pos);
    pos = nl + 1;
    return true;
  });
  if (!l) die(l.error().message);
  if (auto r = ref->set_retention({.max_bytes = 1, .max_age_seconds = 0}); !r) die(r.error().message);
  if (auto r = ref->trim_oplog(); !r) die(r.error().message);
  if (auto r = ref->compact(); !r) die(r.error().message);
  ref.reset();
  const std::uint64_t compacted = dir_bytes(path + ".ref");
  std::printf("{\"step\":\"retention\",\"updates\":%d,\"seconds\":%.2f,\"verify_ok\":%s,\"verified_from\":%llu,"
              "\"trimmed_through\":%llu,\"store_bytes\":%llu,\"compacted_no_oplog_bytes\":%llu,\"ratio\":%.2f}\n",
              updates, secs, v->ok ? "true" : "false", static_cast<unsigned long long>(v->verified_from),
              static_cast<unsigned long long>(trimmed), static_cast<unsigned long long>(kept),
              static_cast<unsigned long long>(compacted), static_cast<double>(kept) / static_cast<double>(compacted));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: store_life_bench large|open|retention STORE [--kill | N]");
  const std::string mode = argv[1], path = argv[2];
  if (mode == "large") return large(path, argc > 3 && std::string(argv[3]) == "--kill");
  if (mode == "open") return open_count(path);
  if (mode == "retention") return retention(path, argc > 3 ? std::atoi(argv[3]) : 200000);
  die("unknown mode " + mode);
}
