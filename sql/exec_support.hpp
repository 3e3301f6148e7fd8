// omgdb sql — what every adapter shares: the deadline of one call, the row/byte budget of a
// result, and the conversion of client-library values to JSON (exact numbers, binary, UTF-8).
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

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point end_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>* cancelled_;
};

// Collects rows into an exec_outcome under max_rows and max_bytes. `add` returns false once
// the budget is spent: the caller stops reading (or drains without keeping). A row that would
// pass max_bytes is not kept (results are cut at a whole row): `truncated` is set. Any row not
// returned sets `rows_more_available`.
class row_budget {
 public:
  row_budget(exec_outcome& out, const exec_options& opts) noexcept
      : out_(out), max_rows_(opts.max_rows), max_bytes_(opts.max_bytes) {}
  bool add(boost::json::array row);
  bool full() const noexcept { return full_; }
  // A row known to exceed max_bytes before it is even read (a value longer than the budget):
  // ends the result as `truncated` without materialising the row.
  void oversized() noexcept;

 private:
  exec_outcome& out_;
  std::size_t max_rows_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 2;  // "[]"
  bool full_ = false;
};

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

// Decimal digits as an integer; nullopt for anything else (never throws).
std::optional<std::int64_t> parse_int(std::string_view text);

// The first line of a client-library error message, trimmed, at most 1000 bytes.
std::string clean_message(std::string_view message);

}  // namespace omgdb::sql::detail
