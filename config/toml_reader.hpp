// omgdb config (internal) — typed, position-aware reads from one toml++ table.
//
// A `table_reader` hands out the values of one TOML table by key, checks their types and
// ranges, interpolates `${env:NAME}` in strings, and remembers which keys were read so that
// `finish()` can report the first unknown one. The first problem wins: later reads are no-ops
// and `error()` holds "FILE:LINE:COLUMN: message".
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "common/result.hpp"
#include "config/config.hpp"

namespace omgdb::config::detail {

// "FILE:LINE:COLUMN: message" (LINE:COLUMN omitted when the position is unknown).
std::string where(std::string_view file, const toml::source_region& at, std::string_view message);

// Replaces every `${env:NAME}` in `text`; the error names a missing variable or a malformed
// reference (the caller adds the position).
result<std::string> interpolate(std::string_view text, const getenv_fn& getenv);

struct problem_sink {
  std::string file;
  getenv_fn getenv;
  std::optional<failure> first;

  bool failed() const noexcept { return first.has_value(); }
  void report(const toml::source_region& at, std::string_view message) {
    if (!first) first = make_error(where(file, at, message));
  }
};

class table_reader {
 public:
  // `prefix` names the table in messages ("http", "connections[2]"); "" for the root.
  table_reader(const toml::table& table, std::string prefix, problem_sink& sink)
      : table_(table), prefix_(std::move(prefix)), sink_(sink) {}

  void str(std::string_view key, std::string& out);
  void boolean(std::string_view key, bool& out);
  // An integer in [lo, hi].
  void integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t& out);
  template <class T>
  void count(std::string_view key, std::int64_t lo, std::int64_t hi, T& out) {
    std::int64_t v = static_cast<std::int64_t>(out);
    integer(key, lo, hi, v);
    out = static_cast<T>(v);
  }
  // An integer of seconds or a duration string ("30s", "1500ms", "2m") in [lo, hi].
  void duration(std::string_view key, std::chrono::milliseconds lo, std::chrono::milliseconds hi,
                std::chrono::milliseconds& out);
  void seconds(std::string_view key, std::chrono::seconds lo, std::chrono::seconds hi, std::chrono::seconds& out);
  void strings(std::string_view key, std::vector<std::string>& out);
  // The same, also accepting one string (a list of one).
  void string_or_strings(std::string_view key, std::vector<std::string>& out);
  // A sub-table, or nullptr when absent (an error when the key holds something else).
  const toml::table* table(std::string_view key);
  // An array of tables (`[[key]]`), empty when absent.
  std::vector<const toml::table*> tables(std::string_view key);

  // True when the key is present (and marks it read).
  bool has(std::string_view key);
  // Reports a problem at the value of `key` (or at the table when absent).
  void fail(std::string_view key, std::string_view message);
  void fail_here(std::string_view message) { sink_.report(table_.source(), message); }
  // Reports the first key that was never read.
  void finish();

  std::string name(std::string_view key) const;  // "http.listen"
  problem_sink& sink() noexcept { return sink_; }

 private:
  const toml::node* take(std::string_view key);
  void strings_of(const toml::node& n, std::string_view key, std::vector<std::string>& out);

  const toml::table& table_;
  std::string prefix_;
  problem_sink& sink_;
  std::set<std::string, std::less<>> seen_;
};

}  // namespace omgdb::config::detail
