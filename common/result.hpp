// omgdb — expected failures as values.
//
// `result<T>` holds either a T or a `failure`. Module boundaries (engine, sql, mcp) return
// results instead of throwing; the dispatcher turns an error into the seed's error envelope.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace omgdb {

// A failure a user can read and act on. `message` is complete prose without the "Error: "
// prefix (the dispatcher adds it), e.g. "collection `users` does not exist".
struct failure {
  std::string message;
};

inline failure make_error(std::string message) { return failure{std::move(message)}; }

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
