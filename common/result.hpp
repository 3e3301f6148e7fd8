// omgdb — expected failures as values.
//
// `result<T>` holds either a T or a `failure`. Module boundaries (engine, sql, mcp) return
// results instead of throwing; the dispatcher turns an error into the seed's error envelope.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace omgdb {

// What kind of failure it is, so that a caller can map it (an HTTP status, an exit code,
// "retry later") without reading the text. Every tool error carries it to the client
// (mcp/structured.hpp: `_meta.error.kind`, and `structuredContent.error.kind` from 2025-06-18);
// docs/errors.md is the table of kinds. New kinds go at the end: `omgdb call`'s exit status
// is 3 + the enumerator's index.
enum class failure_kind {
  invalid_argument,  // the request is wrong; repeating it fails again (the default)
  not_found,         // it names something that does not exist
  conflict,          // it contradicts what exists (a duplicate `_id`, a changed definition)
  busy,              // a limit of concurrent work or a lock held elsewhere; retry later
  cancelled,         // the caller or a deadline stopped it
  limit_exceeded,    // a declared bound was reached (scan, mutation, size, time)
  unavailable,       // the service cannot do it here (standalone mode, no connection)
  corrupt,           // stored data is damaged
  io,                // the operating system or storage refused
  internal,          // a bug: an exception or an impossible state
  permission_denied, // the caller may not do it: a scope, a path outside the roots, a read-only connection
};

// "invalid_argument", "not_found", … (the enumerator's name).
constexpr const char* to_string(failure_kind k) noexcept {
  constexpr const char* names[] = {"invalid_argument", "not_found",   "conflict", "busy", "cancelled",
                                   "limit_exceeded",   "unavailable", "corrupt",  "io",   "internal",
                                   "permission_denied"};
  return names[static_cast<int>(k)];
}

// Whether the same request may succeed if sent again unchanged, later: `busy` (concurrent
// work or a lock), `cancelled` (stopped by a shutdown or a signal, not by its own content),
// `unavailable` (a connection, an approver or the server itself is not there now) and `io`
// (the operating system or the disk refused, e.g. a full disk). The others fail the same way
// again until the request or the data changes.
constexpr bool retryable(failure_kind k) noexcept {
  return k == failure_kind::busy || k == failure_kind::cancelled || k == failure_kind::unavailable ||
         k == failure_kind::io;
}

// A failure a user can read and act on. `message` is complete prose without the "Error: "
// prefix (the dispatcher adds it), e.g. "collection `users` does not exist".
struct failure {
  std::string message;
  failure_kind kind = failure_kind::invalid_argument;
};

inline failure make_error(std::string message, failure_kind kind = failure_kind::invalid_argument) {
  return failure{std::move(message), kind};
}

template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  result(failure e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const omgdb::failure& error() const& { return std::get<1>(v_); }
  omgdb::failure&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, omgdb::failure> v_;
};

template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(failure e) : error_(std::move(e)), ok_(false) {}  // NOLINT

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const omgdb::failure& error() const& { return error_; }
  omgdb::failure&& error() && { return std::move(error_); }

 private:
  omgdb::failure error_;
  bool ok_ = true;
};

using status = result<void>;

}  // namespace omgdb

// `OMGDB_TRY(x, expr);` evaluates the result `expr`; on failure the enclosing function returns
// its error, otherwise `x` names the value (a reference into the kept result).
#define OMGDB_TRY_CAT2(a, b) a##b
#define OMGDB_TRY_CAT(a, b) OMGDB_TRY_CAT2(a, b)
#define OMGDB_TRY(name, expr)                                          \
  auto&& OMGDB_TRY_CAT(name, _result_) = (expr);                       \
  if (!OMGDB_TRY_CAT(name, _result_)) return std::move(OMGDB_TRY_CAT(name, _result_)).error(); \
  auto& name = *OMGDB_TRY_CAT(name, _result_)
// `OMGDB_CHECK(expr);` returns the error of the status (or result) `expr` when it failed.
#define OMGDB_CHECK(expr) \
  if (auto&& omgdb_check_ = (expr); !omgdb_check_) return std::move(omgdb_check_).error()
