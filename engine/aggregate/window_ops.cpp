// The window-only operators of $setWindowFields that walk the partition in order rather than
// fold a window: $shift (the value `by` documents away, or `default`), $expMovingAvg (the
// exponential moving average, N or alpha), $locf (the last non-null value carried forward)
// and $linearFill (nulls filled on the line between the surrounding values; both filled by
// stage_fill.cpp's functions, which $fill uses too). Each follows
// mongod's rules on windows and sortBy; $derivative, $integral and $covariance*: window_math.cpp.
#include <cmath>

#include "engine/aggregate/window.hpp"

namespace omgdb::engine::aggregate_detail {

std::string type_of(const expr_value& v) { return v ? std::string(bson_type_alias(*v)) : "missing"; }

void charge_output(exec_ctx& ctx, const expr_value& v) {
  if (!v || !(v->is_array() || v->is_document() || v->is_string() || v->type() == kind::binary)) {
    ctx.budget->charge(sizeof(value), "a window's output");
    return;
  }
  const value_measure m = measure_value(*v, k_max_built_depth);
  call_budget::check_depth(m.depth, "a window's output");
  ctx.budget->charge(m.bytes, "a window's output");
}

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
      charge_output(ctx, out.back());
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
      if (!e) return make_error("`$shift`'s `output`: " + e.error().message, e.error().kind);
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
      if (!e) return make_error("`$shift`'s `default`: " + e.error().message, e.error().kind);
      auto v = e->evaluate(document{});
      if (!v) return make_error("`$shift`'s `default`: " + v.error().message, v.error().kind);
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
  if (!e) return make_error("`$expMovingAvg`'s `input`: " + e.error().message, e.error().kind);
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

// $locf and $linearFill share their filling with $fill (stage_fill.cpp: locf_values,
// linear_fill_values and mongod's checks of $linearFill's values and sort values).
struct gap_fill_fn final : window_function {
  expression input;
  bool linear = false;
  void fill(const window_partition& p, const std::vector<extent>&, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    std::vector<expr_value> ys, xs;
    ys.reserve(p.size());
    for (const document* d : p.docs) {
      ctx.poll();
      ys.push_back(ctx.eval(input, *d));
      charge_output(ctx, ys.back());
    }
    if (linear) {
      xs.reserve(p.size());
      for (const expr_value* x : p.sort_values) xs.push_back(*x);
    }
    for (value& v : linear ? linear_fill_values(ys, xs) : locf_values(ys)) out.push_back(std::move(v));
  }
};

result<window_function_ptr> compile_plain(const window_call& c) {
  if (c.window != nullptr) return make_error("`window` is not allowed in " + quoted(c.name));
  auto e = c.ctx.compile(c.arg);
  if (!e) return make_error(quoted(c.name) + ": " + e.error().message, e.error().kind);
  auto f = std::make_shared<gap_fill_fn>();
  f->input = std::move(*e);
  if (c.name == "$linearFill") {
    if (c.sort_by == nullptr) return make_error("`$linearFill` requires a sortBy");
    if (c.sort_by->keys().size() != 1) return make_error("`$linearFill` requires a non-compound sortBy");
    f->linear = true;
    f->needs_sort_values = true;
  }
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
