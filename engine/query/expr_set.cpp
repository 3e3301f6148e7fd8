// Set expression operators: arrays as sets (duplicates ignored, compared by value as
// MongoDB's $eq, 1 == 1.0). Results keep the first occurrence order of their inputs.
// Each is O(n log n) in its arguments' sizes (one sort by compare(), then binary searches),
// charges what it builds and polls the call's flag while it sorts and searches.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

// One sort of `items` by compare() (stable, polling the call's flag): the O(n log n) base of
// every set operator, which used to compare each element with each other (O(n²)).
std::vector<std::size_t> sorted_order(const std::vector<const value*>& items, eval_ctx& ctx, std::string_view what) {
  charge_built(ctx, items.size() * sizeof(std::size_t), what);
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::size_t steps = 0;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    poll_step(ctx, ++steps);
    return compare(*items[x], *items[y]) < 0;
  });
  return order;
}

// The first occurrence of each distinct value of `items`, in the order of `items`.
std::vector<const value*> distinct_in_order(const std::vector<const value*>& items, eval_ctx& ctx, std::string_view what) {
  const std::vector<std::size_t> order = sorted_order(items, ctx, what);
  std::vector<std::size_t> firsts;  // the stable sort puts each group's first occurrence first
  for (std::size_t i = 0; i < order.size(); ++i) {
    poll_step(ctx, i);
    if (i == 0 || compare(*items[order[i - 1]], *items[order[i]]) != 0) firsts.push_back(order[i]);
  }
  std::sort(firsts.begin(), firsts.end());
  std::vector<const value*> out;
  out.reserve(firsts.size());
  for (std::size_t i : firsts) out.push_back(items[i]);
  return out;
}

// The distinct values of `a`, sorted by compare(): what membership tests search.
std::vector<const value*> sorted_set(const array& a, eval_ctx& ctx, std::string_view what) {
  std::vector<const value*> items;
  charge_built(ctx, a.size() * sizeof(const value*), what);
  items.reserve(a.size());
  for (const value& v : a) items.push_back(&v);
  const std::vector<std::size_t> order = sorted_order(items, ctx, what);
  std::vector<const value*> out;
  out.reserve(order.size());
  for (std::size_t i : order) {
    if (out.empty() || compare(*out.back(), *items[i]) != 0) out.push_back(items[i]);
  }
  return out;
}

bool member(const std::vector<const value*>& sorted, const value& v) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), &v, [](const value* x, const value* y) { return compare(*x, *y) < 0; });
  return it != sorted.end() && compare(**it, v) == 0;
}

std::vector<const value*> pointers(const array& a, eval_ctx& ctx, std::string_view what) {
  std::vector<const value*> out;
  charge_built(ctx, a.size() * sizeof(const value*), what);
  out.reserve(a.size());
  for (const value& v : a) out.push_back(&v);
  return out;
}

// Every argument, evaluated (each an array); `null_out` is set when one is null or missing.
std::vector<expr_value> sets(const op_node& self, eval_ctx& ctx, bool& null_out) {
  std::vector<expr_value> out;
  null_out = false;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) {
      null_out = true;
      continue;
    }
    if (!v->is_array()) fail("All operands of " + self.name + " must be arrays. One argument is of type: " + type_name(*v));
    out.push_back(std::move(v));
  }
  return out;
}

value copied(eval_ctx& ctx, const std::vector<const value*>& items, std::string_view what) {
  array out;
  reserve_built(ctx, out, items.size(), what);
  for (const value* v : items) push_copy(ctx, out, *v, what);
  return value(std::move(out));
}

expr_value set_union_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  std::size_t total = 0;
  for (const expr_value& a : s) total += a->as_array().size();
  std::vector<const value*> items;
  charge_built(ctx, total * sizeof(const value*), self.name);
  items.reserve(total);
  for (const expr_value& a : s) {
    for (const value& v : a->as_array()) items.push_back(&v);
  }
  return copied(ctx, distinct_in_order(items, ctx, self.name), self.name);
}

expr_value set_intersection_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  if (s.empty()) return value(array{});
  std::vector<const value*> out = distinct_in_order(pointers(s[0]->as_array(), ctx, self.name), ctx, self.name);
  for (std::size_t i = 1; i < s.size(); ++i) {
    const std::vector<const value*> other = sorted_set(s[i]->as_array(), ctx, self.name);
    std::size_t steps = 0;
    std::erase_if(out, [&](const value* v) { return poll_step(ctx, ++steps), !member(other, *v); });
  }
  return copied(ctx, out, self.name);
}

expr_value set_difference_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) return value();
  std::vector<const value*> out = distinct_in_order(pointers(s[0]->as_array(), ctx, self.name), ctx, self.name);
  const std::vector<const value*> other = sorted_set(s[1]->as_array(), ctx, self.name);
  std::size_t steps = 0;
  std::erase_if(out, [&](const value* v) { return poll_step(ctx, ++steps), member(other, *v); });
  return copied(ctx, out, self.name);
}

expr_value set_equals_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) fail("All operands of $setEquals must be arrays. One argument is null or missing");
  const std::vector<const value*> first = sorted_set(s[0]->as_array(), ctx, self.name);
  for (std::size_t i = 1; i < s.size(); ++i) {
    const std::vector<const value*> other = sorted_set(s[i]->as_array(), ctx, self.name);
    if (other.size() != first.size()) return value(false);
    for (std::size_t k = 0; k < first.size(); ++k) {
      poll_step(ctx, k);
      if (compare(*first[k], *other[k]) != 0) return value(false);
    }
  }
  return value(true);
}

expr_value set_is_subset_op(const op_node& self, eval_ctx& ctx) {
  bool null_out = false;
  auto s = sets(self, ctx, null_out);
  if (null_out) fail("both operands of $setIsSubset must be arrays. One argument is null or missing");
  const std::vector<const value*> other = sorted_set(s[1]->as_array(), ctx, self.name);
  std::size_t steps = 0;
  for (const value& v : s[0]->as_array()) {
    poll_step(ctx, steps++);
    if (!member(other, v)) return value(false);
  }
  return value(true);
}

expr_value element_truth_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (!v || !v->is_array()) fail(self.name + "'s argument must be an array, but is " + type_name(v));
  const bool any = self.name == "$anyElementTrue";
  std::size_t steps = 0;
  for (const value& e : v->as_array()) {
    poll_step(ctx, steps++);
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
