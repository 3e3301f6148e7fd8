// omgdb common — the per-call budget: how much one tool call may build, how deep its values
// may nest, and whether it has been told to stop.
//
// Every call that runs on a worker has one `call_budget`, made by the MCP session (its bound
// from `--call-memory` / `[limits] call_memory_bytes`, its flag the call's cancellation flag,
// which the deadline, `notifications/cancelled`, a client going away and SIGTERM set) and
// installed as the thread's current budget for the call's duration (budget_scope). The engine
// reaches it through engine::scan_control::budget or current_budget(): one mechanism, not a
// cap per operator.
//
// What is charged: the values a call builds while it runs — expression results, arrays and
// strings made by operators, window outputs, `$unwind` copies, documents a stage holds,
// chunks and section paths of a context pack, parsed Markdown and YAML. A value built for
// one document and dropped after it is charged while it is built and given back at the end of
// that document (budget_mark); what a stage keeps is charged until the stage lets it go. So
// `used()` bounds what the call holds now *and* what it built for the current document, and
// the memory of a call stays within its budget whatever its arguments.
//
// Nesting: a built value nests at most k_max_built_depth levels (the BSON codec's bound for
// stored documents), so every recursive walk over a value — writing JSON, comparing, hashing,
// copying — stays far from a stack limit.
//
// Stopping: poll() (and every charge) reads the cancellation flag; a set flag throws
// call_error "cancelled" (kind `cancelled`), which the tool layer turns into the reason
// (deadline, client gone, shutdown). Loops whose length an argument controls poll at least
// every few thousand steps, so a call stops within milliseconds of being told to.
//
// Thread safety: a budget belongs to the one thread that runs its call; only the
// cancellation flag is shared (atomic). current_budget() is per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace omgdb {

// A failure raised inside a call's inner loops and converted to a `failure` (same message,
// same kind) at the module's edge. The engine's expression_error is this type.
class call_error : public std::runtime_error {
 public:
  explicit call_error(const std::string& message, failure_kind kind = failure_kind::invalid_argument)
      : std::runtime_error(message), kind_(kind) {}
  failure_kind kind() const noexcept { return kind_; }
  failure to_failure() const { return failure{what(), kind_}; }

 private:
  failure_kind kind_;
};

// 128 MiB: a call's values, with the allocator's overhead, stay well under 256 MB of resident
// memory. docs/limits.md.
inline constexpr std::uint64_t k_default_call_memory_bytes = std::uint64_t{128} << 20;
inline constexpr std::uint64_t k_min_call_memory_bytes = std::uint64_t{1} << 20;
// The nesting bound of built values: the BSON codec's bound for stored documents.
inline constexpr int k_max_built_depth = 200;

class call_budget {
 public:
  explicit call_budget(std::uint64_t max_bytes = k_default_call_memory_bytes,
                       const std::atomic<bool>* cancelled = nullptr) noexcept
      : max_(max_bytes < k_min_call_memory_bytes ? k_min_call_memory_bytes : max_bytes), cancelled_(cancelled) {}
  call_budget(const call_budget&) = delete;
  call_budget& operator=(const call_budget&) = delete;

  // Adds `bytes` to what the call holds. Past the bound: throws call_error (limit_exceeded)
  // naming the bound, its setting and `what` ("`$range`", "stage `$group`", "the context
  // pack's chunks"); the charge is not kept. Also polls the cancellation flag.
  void charge(std::uint64_t bytes, std::string_view what) {
    poll();
    if (bytes > max_ - used_) over(bytes, what);
    used_ += bytes;
  }
  // charge() as a status, for code that returns results.
  [[nodiscard]] status try_charge(std::uint64_t bytes, std::string_view what);
  // Gives back what was charged (what a stage let go of).
  void release(std::uint64_t bytes) noexcept { used_ = bytes > used_ ? 0 : used_ - bytes; }

  // Throws call_error("cancelled", cancelled) when the call has been told to stop.
  void poll() const {
    if (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed)) stop();
  }
  // poll() as a status.
  [[nodiscard]] status check() const;
  bool stop_requested() const noexcept {
    return cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed);
  }

  // Fails (limit_exceeded) when a built value would nest deeper than k_max_built_depth;
  // `what` names what built it.
  static void check_depth(int depth, std::string_view what);

  std::uint64_t used() const noexcept { return used_; }
  std::uint64_t max_bytes() const noexcept { return max_; }
  const std::atomic<bool>* cancel_flag() const noexcept { return cancelled_; }

  // The message of a charge past the bound (also used by code that measures before it builds).
  std::string limit_message(std::uint64_t bytes, std::string_view what) const;

 private:
  [[noreturn]] void over(std::uint64_t bytes, std::string_view what) const;
  [[noreturn]] static void stop();

  std::uint64_t max_;
  std::uint64_t used_ = 0;
  const std::atomic<bool>* cancelled_;
};

// The budget of the call this thread runs: the one a budget_scope installed, else a
// per-thread default (the default bound, never cancelled) for code that runs outside a call
// (the command line, tests).
call_budget& current_budget() noexcept;

// Installs `b` as the thread's current budget until the scope ends (null: keeps the current).
class budget_scope {
 public:
  explicit budget_scope(call_budget* b) noexcept;
  ~budget_scope();
  budget_scope(const budget_scope&) = delete;
  budget_scope& operator=(const budget_scope&) = delete;

 private:
  call_budget* previous_;
  bool installed_;
};

// Gives back, when it ends, what was charged to `b` since it began: the transient values of
// one document's evaluation. Marks nest.
class budget_mark {
 public:
  explicit budget_mark(call_budget& b = current_budget()) noexcept : b_(b), at_(b.used()) {}
  ~budget_mark() {
    if (b_.used() > at_) b_.release(b_.used() - at_);
  }
  budget_mark(const budget_mark&) = delete;
  budget_mark& operator=(const budget_mark&) = delete;

 private:
  call_budget& b_;
  std::uint64_t at_;
};

// "128 MiB", "1.5 GiB", "4096 bytes".
std::string byte_size_text(std::uint64_t bytes);

}  // namespace omgdb
