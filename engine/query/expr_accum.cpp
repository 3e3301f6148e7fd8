// The accumulator-named expression operators ($sum $avg $min $max $stdDevPop $stdDevSamp):
// over the elements of a single array argument, or over several arguments. And numeric_sum,
// the widening sum they share with the $group accumulators.
#include <cmath>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine {

void numeric_sum::add(const value& v) {
  if (!v.is_number()) return;
  if (v.is_decimal()) {
    const decimal128& d = std::get<decimal128>(v.raw());
    decimal_ = has_decimal_ ? decimal_math::add(decimal_, d) : d;
    has_decimal_ = true;
    ++count_;
    return;
  }
  ++count_;
  if (v.is_double()) {
    if (width_ < 2) double_ = static_cast<long double>(long_);
    width_ = 2;
    double_ += v.as_double();
    return;
  }
  const std::int64_t x = v.is_int32() ? v.as_int32() : v.as_int64();
  if (width_ == 2) {
    double_ += static_cast<long double>(x);
    return;
  }
  if (v.is_int64()) width_ = std::max(width_, 1);
  std::int64_t sum = 0;
  if (__builtin_add_overflow(long_, x, &sum)) {
    double_ = static_cast<long double>(long_) + static_cast<long double>(x);  // continues in double
    width_ = 2;
  } else {
    long_ = sum;
  }
}

decimal128 numeric_sum::decimal_total() const {
  const decimal128 others = width_ == 2 ? decimal_math::from_double_34(static_cast<double>(double_))
                                        : decimal_math::from_int64(long_);
  return decimal_math::add(decimal_, others);
}

value numeric_sum::total() const {
  if (has_decimal_) return value(decimal_total());
  if (width_ == 2) return value(static_cast<double>(double_));
  if (width_ == 1) return value(long_);
  return expr_detail::int_or_long(long_);
}

value numeric_sum::average() const {
  if (count_ == 0) return value();
  if (has_decimal_) {
    return value(decimal_math::div(decimal_total(), decimal_math::from_int64(static_cast<std::int64_t>(count_))));
  }
  return value(as_double() / static_cast<double>(count_));
}

double numeric_sum::as_double() const { return width_ == 2 ? static_cast<double>(double_) : static_cast<double>(long_); }

namespace expr_detail {
namespace {

// Calls `f` on each operand: a single array argument's elements (read in place, not copied),
// else the arguments themselves (missing ones skipped). Polls the call's flag as it goes.
template <class F>
void each_operand(const op_node& self, eval_ctx& ctx, F f) {
  if (self.args.size() == 1) {
    expr_value v = self.arg(0, ctx);
    if (v && v->is_array()) {
      std::size_t steps = 0;
      for (value& e : v->as_array()) {
        poll_step(ctx, steps++);
        f(e);
      }
    } else if (v) {
      f(*v);
    }
    return;
  }
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (v) f(*v);
  }
}

expr_value sum_op(const op_node& self, eval_ctx& ctx) {
  numeric_sum s;
  each_operand(self, ctx, [&](const value& v) { s.add(v); });
  return self.name == "$sum" ? s.total() : s.average();
}

expr_value min_max_op(const op_node& self, eval_ctx& ctx) {
  const bool max = self.name == "$max";
  expr_value best;
  each_operand(self, ctx, [&](value& v) {
    if (v.is_null()) return;
    if (!best || (max ? compare(v, *best) > 0 : compare(v, *best) < 0)) best = std::move(v);
  });
  return best ? best : value();
}

expr_value std_dev_op(const op_node& self, eval_ctx& ctx) {
  double mean = 0, m2 = 0;
  std::uint64_t n = 0;
  each_operand(self, ctx, [&](const value& v) {
    if (!v.is_number()) return;
    const double x = v.number_as_double();
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
  });
  const bool sample = self.name == "$stdDevSamp";
  if (n == 0 || (sample && n < 2)) return value();
  return value(std::sqrt(m2 / static_cast<double>(sample ? n - 1 : n)));
}

constexpr op_info ops[] = {
    {"$sum", 1, -1, sum_op},         {"$avg", 1, -1, sum_op},
    {"$min", 1, -1, min_max_op},     {"$max", 1, -1, min_max_op},
    {"$stdDevPop", 1, -1, std_dev_op}, {"$stdDevSamp", 1, -1, std_dev_op},
};

}  // namespace

op_table accum_ops() { return table_of(ops); }

}  // namespace expr_detail
}  // namespace omgdb::engine
