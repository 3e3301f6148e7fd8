// The field operators: $set $setOnInsert $unset $inc $mul $min $max $currentDate $bit $rename.
#include <cmath>
#include <limits>

#include "engine/update/update_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::update_detail {
namespace {

std::string q(std::string_view s) { return "`" + std::string(s) + "`"; }

// int32 op int32 gives int32, or int64 when it overflows; anything with int64 gives int64
// (overflow is an error); anything with a double gives a double; anything with a decimal
// gives a decimal, integers converted exactly and a double with 15 significant digits
// (MongoDB's $inc/$mul table and its Decimal128 conversion).
result<value> arithmetic(const update_op& op, const concrete& at, const value& cur, const value& arg) {
  const bool mul = op.kind == op_kind::mul;
  if (cur.is_decimal() || arg.is_decimal()) {
    const decimal128 a = decimal_math::of(cur), b = decimal_math::of(arg);
    return value(mul ? decimal_math::mul(a, b) : decimal_math::add(a, b));
  }
  if (cur.is_double() || arg.is_double()) {
    double a = cur.number_as_double();
    double b = arg.number_as_double();
    return value(mul ? a * b : a + b);
  }
  auto as64 = [](const value& v) -> std::int64_t { return v.is_int32() ? v.as_int32() : v.as_int64(); };
  const std::int64_t a = as64(cur);
  const std::int64_t b = as64(arg);
  std::int64_t r = 0;
  if (mul ? __builtin_mul_overflow(a, b, &r) : __builtin_add_overflow(a, b, &r)) {
    return make_error(q(op.op_name) + " at " + q(join(at)) + ": integer overflow (" + std::to_string(a) +
                      (mul ? " * " : " + ") + std::to_string(b) + " does not fit in a 64-bit integer)");
  }
  if (cur.is_int32() && arg.is_int32() && r >= std::numeric_limits<std::int32_t>::min() &&
      r <= std::numeric_limits<std::int32_t>::max()) {
    return value(static_cast<std::int32_t>(r));
  }
  return value(r);
}

value zero_like(const value& v) {
  // A decimal multiplier gives 0 × it, as MongoDB computes it (0 × 1.50 = 0.00).
  if (v.is_decimal()) return value(decimal_math::mul(decimal_math::zero(), std::get<decimal128>(v.raw())));
  if (v.is_int32()) return value(std::int32_t{0});
  if (v.is_int64()) return value(std::int64_t{0});
  return value(0.0);
}

status bitwise(const update_op& op, const concrete& at, value& target, bool created) {
  if (created) target = value(std::int32_t{0});
  if (!target.is_int32() && !target.is_int64()) {
    return make_error("`$bit` at " + q(join(at)) + ": cannot apply to a value of non-integral type " +
                      type_name(target));
  }
  for (const auto& b : op.bits) {
    const bool wide = target.is_int64() || b.operand.is_int64();
    std::int64_t x = target.is_int32() ? target.as_int32() : target.as_int64();
    std::int64_t y = b.operand.is_int32() ? b.operand.as_int32() : b.operand.as_int64();
    std::int64_t r = b.k == bit_step::kind::and_ ? (x & y) : b.k == bit_step::kind::or_ ? (x | y) : (x ^ y);
    target = wide ? value(r) : value(static_cast<std::int32_t>(r));
  }
  return {};
}

}  // namespace

status apply_field_op(const update_op& op, const concrete& at, document& root,
                      const update_apply_options& options) {
  if (op.kind == op_kind::unset) {
    auto s = find_existing(root, at);
    if (!s) return {};
    if (s->parent_doc != nullptr) {
      s->parent_doc->erase(s->parent_doc->begin() + static_cast<std::ptrdiff_t>(s->pos));
    } else {
      *s->val = value();  // an array element becomes null; the array keeps its length
    }
    return {};
  }
  bool created = false;
  auto slot = find_or_create(root, at, op.op_name, created);
  if (!slot) return std::move(slot).error();
  value& target = **slot;
  switch (op.kind) {
    case op_kind::set:
    case op_kind::set_on_insert:
      target = op.arg;
      return {};
    case op_kind::inc:
    case op_kind::mul: {
      if (created) {
        target = op.kind == op_kind::inc ? op.arg : zero_like(op.arg);
        return {};
      }
      if (!target.is_number()) {
        return make_error("cannot apply " + op.op_name + " to a value of non-numeric type: " +
                          q(join(at)) + " has type " + type_name(target));
      }
      auto r = arithmetic(op, at, target, op.arg);
      if (!r) return std::move(r).error();
      target = std::move(*r);
      return {};
    }
    case op_kind::min:
    case op_kind::max: {
      const int c = compare(op.arg, target);
      if (created || (op.kind == op_kind::min ? c < 0 : c > 0)) target = op.arg;
      return {};
    }
    case op_kind::current_date:
      if (op.timestamp) {
        target = value(timestamp{static_cast<std::uint32_t>(options.now_millis / 1000), 1});
      } else {
        target = value(date_time{options.now_millis});
      }
      return {};
    case op_kind::bit:
      return bitwise(op, at, target, created);
    default:
      return make_error("internal error: " + op.op_name + " is not a field operator");
  }
}

namespace {

// The first component of `at` (before the last) whose value is an array, or npos.
std::size_t array_on_the_way(document& root, const concrete& at) {
  for (std::size_t n = 1; n < at.size(); ++n) {
    concrete prefix(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(n));
    auto s = find_existing(root, prefix);
    if (!s) return std::string::npos;
    if (s->val->is_array()) return n;
  }
  return std::string::npos;
}

}  // namespace

status apply_rename(const update_op& op, const concrete& from, const concrete& to, document& root) {
  if (std::size_t n = array_on_the_way(root, from); n != std::string::npos) {
    return make_error("`$rename`: the source field cannot be an array element: " + q(join(from)) +
                      " goes through the array " + q(join(from, n)));
  }
  auto source = find_existing(root, from);
  if (!source) return {};  // nothing to rename
  if (std::size_t n = array_on_the_way(root, to); n != std::string::npos) {
    return make_error("`$rename`: the destination field cannot be an array element: " + q(join(to)) +
                      " goes through the array " + q(join(to, n)));
  }
  value moved = std::move(*source->val);
  source->parent_doc->erase(source->parent_doc->begin() + static_cast<std::ptrdiff_t>(source->pos));
  bool created = false;
  auto target = find_or_create(root, to, "$rename", created);
  if (!target) return std::move(target).error();
  **target = std::move(moved);  // an existing target keeps its position
  return {};
}

}  // namespace omgdb::engine::update_detail
