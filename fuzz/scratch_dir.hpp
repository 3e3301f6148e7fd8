// omgdb fuzz — a scratch directory for targets that need a real store.
//
// It lives on /dev/shm when there is one (tmpfs: RocksDB's fsyncs cost nothing there, which
// is what lets a store-backed target run thousands of inputs a second) and under the system
// temp directory otherwise; OMGDB_FUZZ_TMP overrides both. The store code is the same either
// way: only the file system under it differs. Removed (with everything in it) at the end; a
// process that ended without its destructors (libFuzzer exits with _Exit after a finding)
// leaves its directory behind, so the next one removes those of processes no longer running.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include <unistd.h>

namespace omgdb::fuzz {

class scratch_dir {
 public:
  explicit scratch_dir(const std::string& prefix) {
    namespace fs = std::filesystem;
    fs::path base = fs::temp_directory_path();
    std::error_code ec;
    if (const char* t = std::getenv("OMGDB_FUZZ_TMP"); t && *t) {
      base = t;
    } else if (fs::is_directory("/dev/shm", ec)) {
      base = "/dev/shm";
    }
    const std::string stem = "omgdb-fuzz-" + prefix + "-";
    for (const auto& e : fs::directory_iterator(base, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(stem, 0) != 0) continue;
      const std::string pid = name.substr(stem.size(), name.find('-', stem.size()) - stem.size());
      if (!pid.empty() && !fs::exists("/proc/" + pid, ec)) fs::remove_all(e.path(), ec);
    }
    std::random_device rd;
    path_ = base / (stem + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace omgdb::fuzz
