// omgdb engine — the compiled form of an aggregation expression (private to engine/expr*.cpp).
//
// Nodes evaluate to an expr_value and signal run-time errors by throwing expression_error;
// expression::evaluate converts them into a failure at the module's edge.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/expr.hpp"

namespace omgdb::engine {

struct expression::node {
  virtual ~node() = default;
  virtual expr_value eval(const document& root) const = 0;
};

namespace expr_detail {

using node_ptr = std::unique_ptr<const expression::node>;

struct op_node;
using op_fn = expr_value (*)(const op_node& self, const document& root);

// An operator applied to its argument expressions ({$add: [a, b]}).
struct op_node final : expression::node {
  std::string name;
  std::vector<node_ptr> args;
  op_fn fn = nullptr;
  expr_value eval(const document& root) const override { return fn(*this, root); }
  expr_value arg(std::size_t i, const document& root) const { return args[i]->eval(root); }
};

// What the compiler needs to know about one operator: its argument count range (-1: no
// upper bound) and its evaluator.
struct op_info {
  std::string_view name;
  int min_args;
  int max_args;
  op_fn fn;
};

// expr_arith.cpp: $add $subtract $multiply $divide $mod $abs $ceil $floor $round $trunc.
const op_info* find_arith_op(std::string_view name);

// MongoDB's name of a value's type in messages ("string", "int", "double", "date", …).
std::string type_name(const value& v);
inline std::string type_name(const expr_value& v) { return v ? type_name(*v) : "missing"; }

[[noreturn]] inline void fail(const std::string& message) { throw expression_error(message); }

inline bool nullish(const expr_value& v) { return !v || v->is_null(); }

}  // namespace expr_detail
}  // namespace omgdb::engine
