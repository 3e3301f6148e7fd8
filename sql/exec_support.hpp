// omgdb sql — what every adapter shares: the deadline of one call and the conversion of
// client-library values to JSON values (exact numbers, binary, UTF-8). Result rows are written
// as text by sql/json_text.hpp, which prints exactly what these values serialise to.
//
// Internal to sql/: the adapters include it, nothing above sql/ should.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include "sql/adapter.hpp"

namespace omgdb::sql::detail {

// The time limit and cancel flag of one adapter call. Every wait in an adapter is sliced
// (about 50 ms) and checks `expired()` between slices, so no wait outlives the deadline or a
// cancellation by more than a slice plus the server's own reaction.
class deadline {
 public:
  explicit deadline(const exec_options& opts)
      : start_(std::chrono::steady_clock::now()),
        end_(start_ + (opts.timeout.count() > 0 ? opts.timeout : std::chrono::milliseconds(30000))),
        timeout_(opts.timeout.count() > 0 ? opts.timeout : std::chrono::milliseconds(30000)),
        cancelled_(opts.cancelled) {}

  bool cancelled() const noexcept { return cancelled_ && cancelled_->load(std::memory_order_relaxed); }
  bool timed_out() const noexcept { return std::chrono::steady_clock::now() >= end_; }
  bool expired() const noexcept { return cancelled() || timed_out(); }
  std::chrono::milliseconds remaining() const noexcept;
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  double elapsed_ms() const noexcept;

  // "the statement was cancelled; nothing was committed" / "… exceeded the statement timeout
  // of 30000 ms and was stopped; …". `committed_note` replaces the tail when a caller knows
  // better (e.g. a write whose outcome is unknown).
  std::string stop_message(std::string_view committed_note = "nothing was committed") const;
  // The kind of that stop: `cancelled` (the call's flag: the client, its deadline, a
  // shutdown; the tool layer says which) or `limit_exceeded` (the statement timeout).
  failure_kind stop_kind() const noexcept {
    return cancelled() ? failure_kind::cancelled : failure_kind::limit_exceeded;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point end_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>* cancelled_;
};

// The kind of a database error from its SQLSTATE (the standard's classes, which PostgreSQL,
// MariaDB and the ODBC drivers share): 42S02/42P01 (no such table) not_found, 23 (integrity)
// conflict, 40 (serialization, deadlock) busy, 42501/28 (privilege, authorization)
// permission_denied, 08 (connection) unavailable, 57014 cancelled, else invalid_argument.
inline failure_kind sqlstate_kind(std::string_view state) noexcept {
  if (state == "42S02" || state == "42P01" || state == "42S22" || state == "3F000") return failure_kind::not_found;
  if (state == "42501" || state == "25006") return failure_kind::permission_denied;
  if (state == "57014") return failure_kind::cancelled;
  const std::string_view cls = state.substr(0, state.size() < 2 ? state.size() : 2);
  if (cls == "23") return failure_kind::conflict;
  if (cls == "40") return failure_kind::busy;
  if (cls == "28") return failure_kind::permission_denied;
  if (cls == "08") return failure_kind::unavailable;
  return failure_kind::invalid_argument;
}

// Integers within ±2^53 as JSON numbers, others as decimal strings (JSON readers use doubles).
boost::json::value exact_int(std::int64_t v);
boost::json::value exact_uint(std::uint64_t v);
// Parses decimal integer text ("-12"); out-of-int64 text stays a string.
boost::json::value int_from_text(std::string_view text);
// A finite double prints as a number; NaN/±Infinity (or unparsable text) as a string.
boost::json::value double_value(double v);
boost::json::value double_from_text(std::string_view text);
// {"$binary":{"base64":"…","subType":"00"}}
boost::json::value binary_value(const unsigned char* data, std::size_t size);
// Text as a JSON string; invalid UTF-8 sequences become U+FFFD so the result always serialises
// to valid JSON.
boost::json::value text_value(std::string_view text);

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) { n = 3; lo = 0xA0; }
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) { n = 3; hi = 0x9F; }
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) { n = 4; lo = 0x90; }
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) { n = 4; hi = 0x8F; }
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// Decimal digits as an integer; nullopt for anything else (never throws).
std::optional<std::int64_t> parse_int(std::string_view text);

// The first line of a client-library error message, trimmed, at most 1000 bytes.
std::string clean_message(std::string_view message);

}  // namespace omgdb::sql::detail
