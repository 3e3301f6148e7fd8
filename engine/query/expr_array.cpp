// Array expression operators ($size … $sortArray). An operand that must be an array and is
// null or missing makes the result null (except $size and $isArray, as MongoDB).
#include <algorithm>
#include <string>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;
constexpr i64 k_max_elements = 10'000'000;  // bound on arrays built by $range

// A copy of `a`, charged before it is made.
array copy_charged(eval_ctx& ctx, const array& a, std::string_view what) {
  array out;
  reserve_built(ctx, out, a.size(), what);
  for (const value& e : a) push_copy(ctx, out, e, what);
  return out;
}

expr_value size_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (!v || !v->is_array()) fail("The argument to $size must be an array. The argument was of type: " + type_name(v));
  return int_or_long(static_cast<i64>(v->as_array().size()));
}

expr_value is_array_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  return value(v && v->is_array());
}

expr_value elem_at_op(const op_node& self, eval_ctx& ctx) {
  expr_value a = self.arg(0, ctx), i = self.arg(1, ctx);
  if (nullish(a) || nullish(i)) return value();
  const array& arr = array_arg("$arrayElemAt's first argument", *a);
  if (!i->is_number()) fail("$arrayElemAt's second argument must be a numeric value, but is " + type_name(*i));
  i64 idx = integral_arg("$arrayElemAt's second argument", *i);
  const i64 n = static_cast<i64>(arr.size());
  if (idx < 0) idx += n;
  if (idx < 0 || idx >= n) return std::nullopt;
  return arr[static_cast<std::size_t>(idx)];
}

expr_value first_last_op(const op_node& self, eval_ctx& ctx) {
  expr_value a = self.arg(0, ctx);
  if (nullish(a)) return a;
  if (!a->is_array()) fail(self.name + "'s argument must be an array, but is " + type_name(*a));
  const array& arr = a->as_array();
  if (arr.empty()) return std::nullopt;
  return self.name == "$first" ? arr.front() : arr.back();
}

expr_value in_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx), a = self.arg(1, ctx);
  if (!a || !a->is_array()) fail("$in requires an array as a second argument, found: " + type_name(a));
  std::size_t i = 0;
  for (const value& e : a->as_array()) {
    poll_step(ctx, i++);
    if (compare_expr(v, e) == 0) return value(true);
  }
  return value(false);
}

expr_value slice_op(const op_node& self, eval_ctx& ctx) {
  expr_value a = self.arg(0, ctx);
  if (nullish(a)) return value();
  const array& arr = array_arg("$slice's first argument", *a);
  const i64 n = static_cast<i64>(arr.size());
  expr_value p = self.arg(1, ctx);
  if (nullish(p)) return value();
  i64 start = 0, count = 0;
  if (self.args.size() == 2) {
    count = integral_arg("$slice's second argument", *p);
    if (count < 0) {
      start = std::max<i64>(0, n + count);
      count = -count;
    }
  } else {
    expr_value c = self.arg(2, ctx);
    if (nullish(c)) return value();
    start = integral_arg("$slice's second argument", *p);
    count = integral_arg("$slice's third argument", *c);
    if (count <= 0) fail("$slice's third argument must be positive, got " + std::to_string(count));
    if (start < 0) start = std::max<i64>(0, n + start);
  }
  start = std::min(start, n);
  const i64 end = std::min(n, start + std::min(count, n));
  array out;
  reserve_built(ctx, out, static_cast<std::size_t>(end - start), self.name);
  for (i64 i = start; i < end; ++i) push_copy(ctx, out, arr[static_cast<std::size_t>(i)], self.name);
  return value(std::move(out));
}

expr_value concat_arrays_op(const op_node& self, eval_ctx& ctx) {
  array out;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) return value();
    if (!v->is_array()) fail("$concatArrays only supports arrays, not " + type_name(*v));
    reserve_built(ctx, out, v->as_array().size(), self.name);
    for (const value& e : v->as_array()) push_copy(ctx, out, e, self.name);
  }
  return value(std::move(out));
}

expr_value range_op(const op_node& self, eval_ctx& ctx) {
  expr_value s = self.arg(0, ctx), e = self.arg(1, ctx);
  if (!s || !s->is_number()) fail("$range requires a numeric starting value, found value of type: " + type_name(s));
  if (!e || !e->is_number()) fail("$range requires a numeric ending value, found value of type: " + type_name(e));
  const i64 start = integral_arg("$range", *s), end = integral_arg("$range", *e);
  i64 step = 1;
  if (self.args.size() > 2) {
    expr_value st = self.arg(2, ctx);
    if (!st || !st->is_number()) fail("$range requires a numeric step value, found value of type: " + type_name(st));
    step = integral_arg("$range", *st);
    if (step == 0) fail("$range requires a non-zero step value");
  }
  // The length is known before anything is built: it is refused (the element bound, then
  // the call's budget) before the array is allocated.
  const unsigned __int128 span = step > 0 ? (start < end ? static_cast<unsigned __int128>(static_cast<__int128>(end) - start) : 0)
                                          : (start > end ? static_cast<unsigned __int128>(static_cast<__int128>(start) - end) : 0);
  const unsigned __int128 mag = step > 0 ? static_cast<unsigned __int128>(step) : static_cast<unsigned __int128>(-static_cast<__int128>(step));
  const unsigned __int128 count = (span + mag - 1) / mag;
  if (count > static_cast<unsigned __int128>(k_max_elements)) {
    throw expression_error("$range would produce " + std::to_string(static_cast<std::uint64_t>(count)) +
                               " elements, more than its bound of 10000000",
                           failure_kind::limit_exceeded);
  }
  array out;
  reserve_built(ctx, out, static_cast<std::size_t>(count), self.name);
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    poll_step(ctx, i);
    out.push_back(int_or_long(static_cast<i64>(start + static_cast<__int128>(i) * step)));
  }
  return value(std::move(out));
}

expr_value reverse_op(const op_node& self, eval_ctx& ctx) {
  expr_value a = self.arg(0, ctx);
  if (nullish(a)) return value();
  if (!a->is_array()) fail("The argument to $reverseArray must be an array, but was of type: " + type_name(*a));
  array out;
  reserve_built(ctx, out, a->as_array().size(), self.name);
  for (auto it = a->as_array().rbegin(); it != a->as_array().rend(); ++it) push_copy(ctx, out, *it, self.name);
  return value(std::move(out));
}

expr_value index_of_array_op(const op_node& self, eval_ctx& ctx) {
  expr_value a = self.arg(0, ctx);
  if (nullish(a)) return value();
  const array& arr = array_arg("$indexOfArray's first argument", *a);
  expr_value v = self.arg(1, ctx);
  i64 start = 0, end = static_cast<i64>(arr.size());
  if (self.args.size() > 2) start = integral_arg("$indexOfArray's starting index", self.arg(2, ctx).value_or(value()));
  if (self.args.size() > 3) end = std::min(end, integral_arg("$indexOfArray's ending index", self.arg(3, ctx).value_or(value())));
  if (start < 0 || end < 0) fail("$indexOfArray's indexes must not be negative");
  for (i64 i = start; i < end; ++i) {
    poll_step(ctx, static_cast<std::size_t>(i - start));
    if (compare_expr(v, arr[static_cast<std::size_t>(i)]) == 0) return int_or_long(i);
  }
  return value(std::int32_t{-1});
}

expr_value zip_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx);
  if (nullish(in)) return value();
  if (!in->is_array()) fail("$zip's inputs must be an array of arrays, not " + type_name(*in));
  bool longest = false;
  if (self.has(1)) {
    expr_value l = self.arg(1, ctx);
    if (!l || !l->is_bool()) fail("$zip's useLongestLength must be a boolean, not " + type_name(l));
    longest = l->as_bool();
  }
  std::vector<const array*> inputs;
  for (const value& e : in->as_array()) {
    if (e.is_null()) return value();
    if (!e.is_array()) fail("$zip's inputs must all be arrays, found " + type_name(e));
    inputs.push_back(&e.as_array());
  }
  array defaults;
  if (self.has(2)) {
    expr_value d = self.arg(2, ctx);
    if (!longest) fail("$zip: cannot specify defaults unless useLongestLength is true");
    if (!d || !d->is_array() || d->as_array().size() != inputs.size()) {
      fail("$zip: defaults must be an array of the same length as inputs");
    }
    defaults = d->as_array();
  }
  std::size_t n = longest ? 0 : (inputs.empty() ? 0 : SIZE_MAX);
  for (const array* a : inputs) n = longest ? std::max(n, a->size()) : std::min(n, a->size());
  array out;
  reserve_built(ctx, out, n, self.name);
  for (std::size_t i = 0; i < n; ++i) {
    array row;
    reserve_built(ctx, row, inputs.size(), self.name);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      push_copy(ctx, row, i < inputs[k]->size() ? (*inputs[k])[i] : (defaults.empty() ? value() : defaults[k]), self.name);
    }
    out.emplace_back(std::move(row));
  }
  return value(std::move(out));
}

// $sortArray {input, sortBy}: sortBy 1 / -1 sorts the values; {field: ±1, …} sorts
// documents by those fields (missing lowest). Stable, as MongoDB.
expr_value sort_array_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx), by = self.arg(1, ctx);
  if (nullish(in)) return value();
  if (!in->is_array()) fail("$sortArray requires the input to be an array, not " + type_name(*in));
  array out = copy_charged(ctx, in->as_array(), self.name);
  std::size_t steps = 0;
  if (by && by->is_number()) {
    const double dir = by->number_as_double();
    if (dir != 1 && dir != -1) fail("$sortArray: sortBy must be 1, -1 or a sort document");
    std::stable_sort(out.begin(), out.end(), [&](const value& a, const value& b) {
      poll_step(ctx, ++steps);
      const int c = compare_expr(a, b);
      return dir > 0 ? c < 0 : c > 0;
    });
    return value(std::move(out));
  }
  if (!by || !by->is_document() || by->as_document().empty()) fail("$sortArray: sortBy must be 1, -1 or a sort document");
  std::vector<std::pair<std::vector<std::string>, int>> keys;
  for (const field& f : by->as_document()) {
    const double dir = f.val.is_number() ? f.val.number_as_double() : 0;
    if (dir != 1 && dir != -1) fail("$sortArray: sort direction of " + quoted(f.name) + " must be 1 or -1");
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = f.name.find('.', start);
      parts.push_back(f.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    keys.emplace_back(std::move(parts), dir > 0 ? 1 : -1);
  }
  std::stable_sort(out.begin(), out.end(), [&](const value& a, const value& b) {
    poll_step(ctx, ++steps);
    for (const auto& [parts, dir] : keys) {
      const int c = compare_expr(walk_fields(a, parts, 0), walk_fields(b, parts, 0));
      if (c != 0) return dir > 0 ? c < 0 : c > 0;
    }
    return false;
  });
  return value(std::move(out));
}

// $firstN / $lastN / $maxN / $minN as array expressions: {n, input}.
expr_value n_op(const op_node& self, eval_ctx& ctx) {
  expr_value nv = self.arg(0, ctx), in = self.arg(1, ctx);
  if (!nv || !nv->is_number()) fail(self.name + " requires 'n' to be a positive integer, found " + type_name(nv));
  const i64 n = integral_arg(self.name, *nv);
  if (n <= 0) fail(self.name + " requires 'n' to be a positive integer, found " + std::to_string(n));
  if (nullish(in)) return value();
  if (!in->is_array()) fail(self.name + " requires 'input' to be an array, found " + type_name(*in));
  const array& all = in->as_array();
  const std::size_t k = static_cast<std::size_t>(std::min<i64>(n, static_cast<i64>(all.size())));
  array out;
  if (self.name == "$firstN" || self.name == "$lastN") {
    const std::size_t from = self.name == "$firstN" ? 0 : all.size() - k;
    reserve_built(ctx, out, k, self.name);
    for (std::size_t i = from; i < from + k; ++i) push_copy(ctx, out, all[i], self.name);
    return value(std::move(out));
  }
  // null and missing values are not counted, as the accumulators; the best k of the rest,
  // in order (ties keep their input order)
  std::vector<const value*> kept;
  charge_built(ctx, all.size() * sizeof(const value*), self.name);
  kept.reserve(all.size());
  for (const value& v : all) {
    if (!v.is_null()) kept.push_back(&v);
  }
  const bool max = self.name == "$maxN";
  std::size_t steps = 0;
  std::stable_sort(kept.begin(), kept.end(), [&](const value* a, const value* b) {
    poll_step(ctx, ++steps);
    return max ? compare(*a, *b) > 0 : compare(*a, *b) < 0;
  });
  kept.resize(std::min(kept.size(), k));
  reserve_built(ctx, out, kept.size(), self.name);
  for (const value* v : kept) push_copy(ctx, out, *v, self.name);
  return value(std::move(out));
}

constexpr op_info ops[] = {
    {"$size", 1, 1, size_op},
    {"$isArray", 1, 1, is_array_op},
    {"$arrayElemAt", 2, 2, elem_at_op},
    {"$first", 1, 1, first_last_op},
    {"$last", 1, 1, first_last_op},
    {"$in", 2, 2, in_op},
    {"$slice", 2, 3, slice_op},
    {"$concatArrays", 0, -1, concat_arrays_op},
    {"$range", 2, 3, range_op},
    {"$reverseArray", 1, 1, reverse_op},
    {"$indexOfArray", 2, 4, index_of_array_op},
    {"$zip", -1, -1, zip_op, "inputs,useLongestLength?,defaults?"},
    {"$sortArray", -1, -1, sort_array_op, "input,sortBy"},
    {"$firstN", -1, -1, n_op, "n,input"},
    {"$lastN", -1, -1, n_op, "n,input"},
    {"$maxN", -1, -1, n_op, "n,input"},
    {"$minN", -1, -1, n_op, "n,input"},
};

}  // namespace

op_table array_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
