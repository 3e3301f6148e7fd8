// omgdb fuzz — one entry point per target, for libFuzzer and for the replay in `make test`.
//
//   OMGDB_FUZZ_TARGET(filter_match) { ... return 0; }   // body sees `data` and `size`
//
// Under the fuzz preset (OMGDB_LIBFUZZER) the body is libFuzzer's LLVMFuzzerTestOneInput.
// Elsewhere it registers itself under its name with fuzz_replay (fuzz/replay_main.cpp), which
// feeds it every file of fuzz/regressions/<name>/ and fuzz/corpus/<name>/. A finding is a
// crash, a sanitizer report, or an explicit fuzz_check failure (a differential mismatch),
// which prints what differed and aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace omgdb::fuzz {

using entry_fn = int (*)(const std::uint8_t*, std::size_t);
// Registers a target for fuzz_replay (a no-op under libFuzzer).
bool register_target(const char* name, entry_fn fn);

// The bytes as text.
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void fail(const char* target, std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz %s: %.*s\n", target, static_cast<int>(what.size()), what.data());
  if (!detail.empty()) std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace omgdb::fuzz

#define OMGDB_FUZZ_CHECK(target, cond, detail) \
  do {                                         \
    if (!(cond)) ::omgdb::fuzz::fail(target, "check failed: " #cond, detail); \
  } while (0)

#if defined(OMGDB_LIBFUZZER)
#define OMGDB_FUZZ_TARGET(name)                                                          \
  static int omgdb_fuzz_##name(const std::uint8_t* data, std::size_t size);              \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {    \
    return omgdb_fuzz_##name(data, size);                                                \
  }                                                                                      \
  static int omgdb_fuzz_##name(const std::uint8_t* data, std::size_t size)
#else
#define OMGDB_FUZZ_TARGET(name)                                                                  \
  static int omgdb_fuzz_##name(const std::uint8_t* data, std::size_t size);                      \
  [[maybe_unused]] static const bool omgdb_fuzz_registered_##name =                              \
      ::omgdb::fuzz::register_target(#name, &omgdb_fuzz_##name);                                 \
  static int omgdb_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
