// omgdb fuzz — the replay of kept inputs (ctest `fuzz_replay`, part of `make test`).
//
//   fuzz_replay <fuzz dir>                  every target over regressions/<name>/ and corpus/<name>/
//   fuzz_replay <fuzz dir> <name> [file…]   one target, over the given files (or its directories)
//
// Each input goes through the same entry function libFuzzer runs (fuzz/fuzz_target.hpp), built
// with the normal compiler: a crash or a failed differential check aborts the process and the
// test fails; the last line printed names the input. No libFuzzer needed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.hpp"

namespace fs = std::filesystem;

namespace omgdb::fuzz {

static std::map<std::string, entry_fn>& registry() {
  static std::map<std::string, entry_fn> r;
  return r;
}

bool register_target(const char* name, entry_fn fn) {
  registry().emplace(name, fn);
  return true;
}

}  // namespace omgdb::fuzz

namespace {

constexpr std::uintmax_t k_max_input = 1 << 20;  // libFuzzer's default -max_len is far below

bool replay_file(const std::string& name, omgdb::fuzz::entry_fn fn, const fs::path& file) {
  std::error_code ec;
  if (fs::file_size(file, ec) > k_max_input || ec) {
    std::cerr << "fuzz_replay: " << file.string() << ": unreadable or over 1 MiB\n";
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::cerr << "fuzz_replay: " << name << " " << file.string() << "\n";
  fn(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

// Files of `dir` in name order; a missing directory has none.
std::vector<fs::path> files_of(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fuzz_replay <fuzz dir> [target [file…]]\n";
    return 2;
  }
  const fs::path root = argv[1];
  auto& targets = omgdb::fuzz::registry();
  if (argc >= 3 && !targets.count(argv[2])) {
    std::cerr << "fuzz_replay: no target `" << argv[2] << "`\n";
    return 2;
  }
  std::size_t inputs = 0;
  bool ok = true;
  for (const auto& [name, fn] : targets) {
    if (argc >= 3 && name != argv[2]) continue;
    std::vector<fs::path> files;
    if (argc >= 4) {
      for (int i = 3; i < argc; ++i) files.emplace_back(argv[i]);
    } else {
      for (const char* kind : {"regressions", "corpus"}) {
        auto more = files_of(root / kind / name);
        files.insert(files.end(), more.begin(), more.end());
      }
    }
    for (const auto& f : files) {
      ok = replay_file(name, fn, f) && ok;
      ++inputs;
    }
  }
  std::cout << "fuzz_replay: " << inputs << " inputs over " << targets.size() << " targets, no crash\n";
  return ok ? 0 : 1;
}
