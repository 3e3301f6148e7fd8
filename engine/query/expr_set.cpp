// Set expression operators: arrays as sets (duplicates ignored, compared by value as
// MongoDB's $eq, 1 == 1.0). Results keep the first occurrence order of their inputs.
#include <algorithm>
#include <string>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

bool contains(const array& set, const value& v) {
  return std::any_of(set.begin(), set.end(), [&](const value& e) { return compare(e, v) == 0; });
}

array distinct(const array& a) {
  array out;
  for (const value& v : a) {
    if (!contains(out, v)) out.push_back(v);
  }
  return out;
}

// Every argument as an array; `null_out` is set when one is null or missing.
std::vector<array> sets(const op_node& self, eval_ctx& ctx, bool& null_out) {
  std::vector<array> out;
  null_out = false;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) {
      null_out = true;
      continue;
    }
    if (!v->is_array()) fail("All operands of " + self.name + " must be arrays. One argument is of type: " + type_name(*v));
    out.push_back(v->as_array());
  }
  return out;
}

expr_value set_union_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  array out;
  for (const array& a : s) {
    for (const value& v : a) {
      if (!contains(out, v)) out.push_back(v);
    }
  }
  return value(std::move(out));
}

expr_value set_intersection_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  if (s.empty()) return value(array{});
  array out = distinct(s[0]);
  for (std::size_t i = 1; i < s.size(); ++i) {
    std::erase_if(out, [&](const value& v) { return !contains(s[i], v); });
  }
  return value(std::move(out));
}

expr_value set_difference_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  array out = distinct(s[0]);
  std::erase_if(out, [&](const value& v) { return contains(s[1], v); });
  return value(std::move(out));
}

expr_value set_equals_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) fail("All operands of $setEquals must be arrays. One argument is null or missing");
  for (std::size_t i = 1; i < s.size(); ++i) {
    for (const value& v : s[0]) {
      if (!contains(s[i], v)) return value(false);
    }
    for (const value& v : s[i]) {
      if (!contains(s[0], v)) return value(false);
    }
  }
  return value(true);
}

expr_value set_is_subset_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) fail("both operands of $setIsSubset must be arrays. One argument is null or missing");
  for (const value& v : s[0]) {
    if (!contains(s[1], v)) return value(false);
  }
  return value(true);
}

expr_value element_truth_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (!v || !v->is_array()) fail(self.name + "'s argument must be an array, but is " + type_name(v));
  const bool any = self.name == "$anyElementTrue";
  for (const value& e : v->as_array()) {
    if (expr_truthy(e) == any) return value(any);
  }
  return value(!any);
}

constexpr op_info ops[] = {
    {"$setUnion", 0, -1, set_union_op},
    {"$setIntersection", 0, -1, set_intersection_op},
    {"$setDifference", 2, 2, set_difference_op},
    {"$setEquals", 2, -1, set_equals_op},
    {"$setIsSubset", 2, 2, set_is_subset_op},
    {"$anyElementTrue", 1, 1, element_truth_op},
    {"$allElementsTrue", 1, 1, element_truth_op},
};

}  // namespace

op_table set_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
