// The window-only operators of $setWindowFields that walk the partition in order rather than
// fold a window: $shift (the value `by` documents away, or `default`), $expMovingAvg (the
// exponential moving average, N or alpha), $locf (the last non-null value carried forward)
// and $linearFill (nulls filled on the line between the surrounding values). Each follows
// mongod's rules on windows and sortBy; $derivative, $integral and $covariance*: window_math.cpp.
#include <cmath>

#include "engine/aggregate/window.hpp"

namespace omgdb::engine::aggregate_detail {

std::string type_of(const expr_value& v) { return v ? std::string(bson_type_alias(*v)) : "missing"; }

std::optional<double> window_number(const std::string& op, const value& v) {
  if (v.is_decimal()) fail(op + " does not support Decimal128 values yet");
  if (!v.is_number()) return std::nullopt;
  return v.number_as_double();
}

namespace {

// Whether an expression spec reads nothing from the document or the variables (mongod asks
// `default` to fold to a constant).
bool constant_spec(const value& v) {
  if (v.is_string()) return v.as_string().empty() || v.as_string()[0] != '$';
  if (v.is_array()) {
    for (const value& e : v.as_array()) {
      if (!constant_spec(e)) return false;
    }
  }
  if (v.is_document()) {
    const document& d = v.as_document();
    if (d.size() == 1 && d.front().name == "$literal") return true;
    for (const field& f : d) {
      if (f.name == "$rand" || !constant_spec(f.val)) return false;
    }
  }
  return true;
}

struct shift_fn final : window_function {
  expression output;
  std::int64_t by = 0;
  value fallback;  // `default`, null when absent
  void fill(const window_partition& p, const std::vector<extent>&, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    const auto n = static_cast<std::int64_t>(p.size());
    for (std::int64_t i = 0; i < n; ++i) {
      ctx.poll();
      const std::int64_t j = i + by;
      out.push_back(j >= 0 && j < n ? ctx.eval(output, *p.docs[static_cast<std::size_t>(j)]) : expr_value(fallback));
    }
  }
};

result<window_function_ptr> compile_shift(const window_call& c) {
  if (c.window != nullptr) return make_error("`$shift` does not take a window");
  if (!c.arg.is_document()) return make_error("`$shift` takes a document {output, by, default?}");
  auto f = std::make_shared<shift_fn>();
  bool have_output = false, have_by = false;
  for (const field& a : c.arg.as_document()) {
    if (a.name == "output") {
      auto e = c.ctx.compile(a.val);
      if (!e) return make_error("`$shift`'s `output`: " + e.error().message);
      f->output = std::move(*e);
      have_output = true;
    } else if (a.name == "by") {
      const value& v = a.val;
      const bool whole = v.is_int32() || v.is_int64() || (v.is_double() && v.as_double() == std::trunc(v.as_double()));
      if (!whole || std::fabs(v.number_as_double()) > INT32_MAX) return make_error("`$shift`'s `by` must be an integer");
      f->by = static_cast<std::int64_t>(v.number_as_double());
      have_by = true;
    } else if (a.name == "default") {
      if (!constant_spec(a.val)) return make_error("`$shift`'s `default` must be a constant expression");
      auto e = c.ctx.compile(a.val);
      if (!e) return make_error("`$shift`'s `default`: " + e.error().message);
      auto v = e->evaluate(document{});
      if (!v) return make_error("`$shift`'s `default`: " + v.error().message);
      f->fallback = v->value_or(value());
    } else {
      return make_error("unknown argument " + quoted(a.name) + " in `$shift` (it takes `output`, `by` and `default`)");
    }
  }
  if (!have_output) return make_error("`$shift` requires an `output` expression");
  if (!have_by) return make_error("`$shift` requires `by`, an integer");
  if (c.sort_by == nullptr) return make_error("`$shift` needs a `sortBy`");
  return window_function_ptr(f);
}

struct ema_fn final : window_function {
  expression input;
  long double alpha = 0;
  void fill(const window_partition& p, const std::vector<extent>&, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    std::optional<long double> avg;
    for (const document* d : p.docs) {
      ctx.poll();
      expr_value v = ctx.eval(input, *d);
      if (v) {
        if (auto x = window_number("$expMovingAvg", *v)) avg = avg ? *x * alpha + *avg * (1 - alpha) : static_cast<long double>(*x);
      }
      out.push_back(avg ? value(static_cast<double>(*avg)) : value());
    }
  }
};

result<window_function_ptr> compile_ema(const window_call& c) {
  if (c.window != nullptr) return make_error("`$expMovingAvg` does not take a window");
  const char* shape = "`$expMovingAvg` takes a document with exactly two fields: `input`, and either `N` or `alpha`";
  if (!c.arg.is_document() || c.arg.as_document().size() != 2) return make_error(shape);
  const document& d = c.arg.as_document();
  const value* input = find_field(d, "input");
  const value* n = find_field(d, "N");
  const value* alpha = find_field(d, "alpha");
  if (input == nullptr || (n == nullptr) == (alpha == nullptr)) return make_error(shape);
  if (c.sort_by == nullptr) return make_error("`$expMovingAvg` needs a `sortBy`");
  auto f = std::make_shared<ema_fn>();
  auto e = c.ctx.compile(*input);
  if (!e) return make_error("`$expMovingAvg`'s `input`: " + e.error().message);
  f->input = std::move(*e);
  if (n != nullptr) {
    if (!n->is_number() || n->is_decimal()) return make_error("`$expMovingAvg`'s `N` must be an integer, found " + type_of(*n));
    const double x = n->number_as_double();
    if (x != std::floor(x)) return make_error("`$expMovingAvg`'s `N` must be an integer; for a fraction give `alpha`");
    if (x <= 0) return make_error("`$expMovingAvg`'s `N` must be greater than zero");
    f->alpha = 2.0L / (static_cast<long double>(x) + 1);
  } else {
    if (!alpha->is_number() || alpha->is_decimal()) return make_error("`$expMovingAvg`'s `alpha` must be a number");
    const double a = alpha->number_as_double();
    if (!(a > 0 && a < 1)) return make_error("`$expMovingAvg`'s `alpha` must be between 0 and 1 (exclusive)");
    f->alpha = a;
  }
  return window_function_ptr(f);
}

struct locf_fn final : window_function {
  expression input;
  void fill(const window_partition& p, const std::vector<extent>&, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    value last;  // null until a value is seen
    for (const document* d : p.docs) {
      ctx.poll();
      expr_value v = ctx.eval(input, *d);
      if (!nullish(v)) last = std::move(*v);
      out.push_back(last);
    }
  }
};

struct linear_fill_fn final : window_function {
  expression input;
  void fill(const window_partition& p, const std::vector<extent>&, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    const std::size_t n = p.size();
    std::vector<expr_value> ys(n);
    for (std::size_t i = 0; i < n; ++i) {  // mongod's checks, in document order
      ctx.poll();
      ys[i] = ctx.eval(input, *p.docs[i]);
      if (!nullish(ys[i]) && !ys[i]->is_number()) fail("Value to be filled must be numeric or nullish, but found " + type_of(ys[i]));
      const expr_value& x = *p.sort_values[i];
      if (!x || !(x->is_number() || is_date(*x))) fail("Value of the sortBy field must be numeric or a date, but found " + type_of(x));
      if (i > 0) {
        const expr_value& prev = *p.sort_values[i - 1];
        if (compare(*x, *prev) == 0) fail("There can be no repeated values in the sort field");
        if (is_date(*x) != is_date(*prev)) {
          fail("Conflicting sort value types, previously received type " + type_of(prev) + ", but found " + type_of(x));
        }
      }
    }
    auto xv = [&](std::size_t i) -> double {
      const value& x = **p.sort_values[i];
      return is_date(x) ? static_cast<double>(date_of(x)) : *window_number("$linearFill", x);
    };
    std::size_t left = n;  // the last row with a value
    for (std::size_t i = 0; i < n; ++i) {
      if (!nullish(ys[i])) {
        window_number("$linearFill", *ys[i]);
        out.push_back(ys[i]);
        left = i;
        continue;
      }
      std::size_t right = i + 1;
      while (right < n && nullish(ys[right])) ++right;
      if (left == n || right == n) {
        out.push_back(value());
        continue;
      }
      const double x1 = xv(left), y1 = *window_number("$linearFill", *ys[left]);
      const double x2 = xv(right), y2 = *window_number("$linearFill", *ys[right]);
      out.push_back(value(y1 + (xv(i) - x1) * ((y2 - y1) / (x2 - x1))));
    }
  }
};

result<window_function_ptr> compile_plain(const window_call& c) {
  if (c.window != nullptr) return make_error("`window` is not allowed in " + quoted(c.name));
  auto e = c.ctx.compile(c.arg);
  if (!e) return make_error(quoted(c.name) + ": " + e.error().message);
  if (c.name == "$locf") {
    auto f = std::make_shared<locf_fn>();
    f->input = std::move(*e);
    return window_function_ptr(f);
  }
  if (c.sort_by == nullptr || c.sort_by->keys().size() != 1) return make_error("`$linearFill` needs a `sortBy` on exactly one field");
  auto f = std::make_shared<linear_fill_fn>();
  f->input = std::move(*e);
  f->needs_sort_values = true;
  return window_function_ptr(f);
}

}  // namespace

bool is_window_function(std::string_view name) {
  return name == "$shift" || name == "$derivative" || name == "$integral" || name == "$expMovingAvg" ||
         name == "$covariancePop" || name == "$covarianceSamp" || name == "$locf" || name == "$linearFill";
}

result<window_function_ptr> compile_window_function(const window_call& call, window_spec& w) {
  if (call.name == "$shift") return compile_shift(call);
  if (call.name == "$expMovingAvg") return compile_ema(call);
  if (call.name == "$locf" || call.name == "$linearFill") return compile_plain(call);
  return compile_window_math(call, w);
}

}  // namespace omgdb::engine::aggregate_detail
