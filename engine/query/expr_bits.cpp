// Bitwise expression operators: $bitAnd $bitOr $bitXor (any number of operands) and $bitNot.
// Operands are int or long only; the result is a long when any operand is a long, else an
// int. Null or missing anywhere gives null. $bitAnd of no operands is -1, $bitOr and
// $bitXor of none are 0 (the identities, as int). Error texts are mongod's: the folding
// operators name no type ("$bitAnd only supports int and long operands."), $bitNot does.
#include <cstdint>
#include <string>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;

expr_value fold_op(const op_node& self, eval_ctx& ctx) {
  const char which = self.name[4];  // $bit[A]nd, $bit[O]r, $bit[X]or
  i64 acc = which == 'A' ? -1 : 0;
  bool is_long = false;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) return value();
    i64 n = 0;
    if (v->is_int32()) {
      n = v->as_int32();
    } else if (v->is_int64()) {
      n = v->as_int64();
      is_long = true;
    } else {
      fail(self.name + " only supports int and long operands.");
    }
    acc = which == 'A' ? (acc & n) : (which == 'O' ? (acc | n) : (acc ^ n));
  }
  // Int operands sign-extend into acc, so its low 32 bits are the int result.
  if (is_long) return value(acc);
  return value(static_cast<std::int32_t>(acc));
}

expr_value not_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (v->is_int32()) return value(static_cast<std::int32_t>(~v->as_int32()));
  if (v->is_int64()) return value(static_cast<i64>(~v->as_int64()));
  if (!v->is_number()) fail("$bitNot only supports numeric types, not " + type_name(*v));
  fail("$bitNot only supports int and long, not: " + type_name(*v) + ".");
}

constexpr op_info bits_op_list[] = {
    {"$bitAnd", 0, -1, fold_op},
    {"$bitOr", 0, -1, fold_op},
    {"$bitXor", 0, -1, fold_op},
    {"$bitNot", 1, 1, not_op},
};

}  // namespace

op_table bits_ops() { return table_of(bits_op_list); }

}  // namespace omgdb::engine::expr_detail
