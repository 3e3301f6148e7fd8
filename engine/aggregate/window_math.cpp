// The window-only operators of $setWindowFields that compute over each document's window:
// $derivative (rise over run between the window's first and last documents), $integral (the
// trapezoidal rule over the window, by the sortBy value) — both with a `unit` for date sort
// values, week or shorter — and $covariancePop / $covarianceSamp of two numeric expressions.
// Results are doubles, as in mongod; Decimal128 inputs are refused (window_number).
#include <cmath>

#include "engine/aggregate/window.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

// {input, unit?} of $derivative and $integral.
struct rate_args {
  expression input;
  std::int64_t unit_millis = 0;  // 0: no unit
};

result<rate_args> compile_rate(const window_call& c) {
  const std::string& op = c.name;
  if (c.sort_by == nullptr) return make_error(quoted(op) + " needs a `sortBy`");
  if (c.sort_by->keys().size() != 1) return make_error(quoted(op) + " needs a `sortBy` on exactly one field");
  if (!c.arg.is_document()) return make_error(quoted(op) + " takes a document {input, unit?}, got " + type_of(c.arg));
  rate_args r;
  bool have_input = false;
  for (const field& a : c.arg.as_document()) {
    if (a.name == "input") {
      auto e = c.ctx.compile(a.val);
      if (!e) return make_error(quoted(op) + "'s `input`: " + e.error().message, e.error().kind);
      r.input = std::move(*e);
      have_input = true;
    } else if (a.name == "unit") {
      const auto u = a.val.is_string() ? parse_date_unit(a.val.as_string()) : std::nullopt;
      if (!u) return make_error(quoted(op) + "'s `unit` must be one of week, day, hour, minute, second, millisecond");
      r.unit_millis = date_unit_millis(*u);
      if (r.unit_millis == 0) return make_error(quoted(op) + "'s `unit` must be 'week' or smaller");
    } else {
      return make_error(quoted(op) + " got unexpected argument " + quoted(a.name) + " (it takes `input` and `unit`)");
    }
  }
  if (!have_input) return make_error(quoted(op) + " requires an `input` expression");
  return r;
}

// A sort value as the position on the x axis (milliseconds for dates), after the checks
// mongod makes for `op` with or without a unit.
double position(const std::string& op, const expr_value& x, bool with_unit) {
  const bool date = x && is_date(*x);
  if (with_unit) {
    if (!date) fail(op + " with 'unit' expects the sortBy field to be a Date");
    return static_cast<double>(date_millis(*x));
  }
  if (date && op == "$derivative") fail(op + " where the sortBy is a Date requires an 'unit'");
  if (!x || !x->is_number()) fail(op + " (with no 'unit') expects the sortBy field to be numeric");
  return *window_number(op, *x);
}

struct derivative_fn final : window_function {
  rate_args args;
  void fill(const window_partition& p, const std::vector<extent>& extents, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    const bool unit = args.unit_millis != 0;
    for (const extent& e : extents) {
      ctx.poll();
      if (e.hi < e.lo) {
        out.push_back(value());
        continue;
      }
      const auto a = static_cast<std::size_t>(e.lo), b = static_cast<std::size_t>(e.hi);
      const double run = position("$derivative", *p.sort_values[b], unit) - position("$derivative", *p.sort_values[a], unit);
      expr_value y0 = ctx.eval(args.input, *p.docs[a]), y1 = ctx.eval(args.input, *p.docs[b]);
      if (nullish(y0) || nullish(y1)) fail("$derivative input must not be null or missing");
      auto v0 = window_number("$derivative", *y0), v1 = window_number("$derivative", *y1);
      if (!v0 || !v1) fail("$derivative input must be numeric, found " + type_of(v0 ? y1 : y0));
      if (run == 0) {
        out.push_back(value());
        continue;
      }
      const double rate = (*v1 - *v0) / run;
      out.push_back(value(unit ? rate * static_cast<double>(args.unit_millis) : rate));
    }
  }
};

struct integral_fn final : window_function {
  rate_args args;
  void fill(const window_partition& p, const std::vector<extent>& extents, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    const bool unit = args.unit_millis != 0;
    const std::size_t n = p.size();
    std::vector<double> xs(n), ys(n);  // checked once per partition, as mongod checks each document it adds
    for (std::size_t i = 0; i < n; ++i) {
      ctx.poll();
      const expr_value& x = *p.sort_values[i];
      expr_value y = ctx.eval(args.input, *p.docs[i]);
      const bool x_ok = x && (x->is_number() || is_date(*x));
      if (!x_ok || !y || !y->is_number()) {
        fail("The input value of $integral window function must be a vector of 2 value, the first value must be numeric "
             "or date type and the second must be numeric.");
      }
      xs[i] = position("$integral", x, unit);
      ys[i] = *window_number("$integral", *y);
    }
    for (std::size_t r = 0; r < extents.size(); ++r) {
      ctx.poll();
      const extent& e = extents[r];
      if (r > 0 && e == extents[r - 1]) {
        out.push_back(out.back());
        continue;
      }
      if (e.hi < e.lo) {
        out.push_back(value());
        continue;
      }
      bool nan = false;
      long double sum = 0;
      for (auto k = static_cast<std::size_t>(e.lo); k <= static_cast<std::size_t>(e.hi); ++k) {
        nan = nan || std::isnan(xs[k]) || std::isnan(ys[k]);
        if (k > static_cast<std::size_t>(e.lo) && !std::isnan(xs[k]) && !std::isnan(ys[k]) && !std::isnan(xs[k - 1]) && !std::isnan(ys[k - 1])) {
          sum += ((ys[k - 1] + ys[k]) * (xs[k] - xs[k - 1])) / 2.0;
        }
      }
      if (nan) {
        out.push_back(value(std::nan("")));
      } else if (e.lo == e.hi) {  // no interval: mongod's empty sum, an int 0 (0.0 once divided by the unit)
        out.push_back(unit ? value(0.0) : value(std::int32_t{0}));
      } else {
        out.push_back(value(unit ? static_cast<double>(sum) / static_cast<double>(args.unit_millis) : static_cast<double>(sum)));
      }
    }
  }
};

struct covariance_fn final : window_function {
  expression x, y;
  bool sample = false;
  void fill(const window_partition& p, const std::vector<extent>& extents, std::vector<expr_value>& out, exec_ctx& ctx) const override {
    const std::string op = sample ? "$covarianceSamp" : "$covariancePop";
    const std::size_t n = p.size();
    std::vector<std::optional<std::pair<double, double>>> pts(n);  // pairs that are both numbers
    for (std::size_t i = 0; i < n; ++i) {
      ctx.poll();
      expr_value a = ctx.eval(x, *p.docs[i]), b = ctx.eval(y, *p.docs[i]);
      auto u = a ? window_number(op, *a) : std::nullopt;
      auto v = b ? window_number(op, *b) : std::nullopt;
      if (u && v) pts[i] = std::make_pair(*u, *v);
    }
    for (std::size_t r = 0; r < extents.size(); ++r) {
      ctx.poll();
      const extent& e = extents[r];
      if (r > 0 && e == extents[r - 1]) {
        out.push_back(out.back());
        continue;
      }
      long double count = 0, mx = 0, my = 0, cxy = 0;  // Welford's running co-moment
      for (std::int64_t k = e.lo; k <= e.hi; ++k) {
        const auto& pt = pts[static_cast<std::size_t>(k)];
        if (!pt) continue;
        count += 1;
        const long double dx = pt->first - mx;
        mx += dx / count;
        my += (pt->second - my) / count;
        cxy += dx * (pt->second - my);
      }
      if (count < (sample ? 2 : 1)) {
        out.push_back(value());
      } else {
        out.push_back(value(static_cast<double>(cxy / (sample ? count - 1 : count))));
      }
    }
  }
};

}  // namespace

result<window_function_ptr> compile_window_math(const window_call& c, window_spec& w) {
  if (c.name == "$derivative" || c.name == "$integral") {
    OMGDB_TRY(args, compile_rate(c));
    if (c.name == "$derivative" && c.window == nullptr) return make_error("`$derivative` requires explicit window bounds");
    if (c.window != nullptr) {
      OMGDB_TRY(spec, compile_window(*c.window, c.sort_by));
      w = spec;
    }
    std::shared_ptr<window_function> f;
    if (c.name == "$derivative") {
      auto d = std::make_shared<derivative_fn>();
      d->args = std::move(args);
      f = d;
    } else {
      auto i = std::make_shared<integral_fn>();
      i->args = std::move(args);
      f = i;
    }
    f->takes_window = true;
    f->needs_sort_values = true;
    return window_function_ptr(f);
  }
  // $covariancePop / $covarianceSamp: [x, y]
  if (!c.arg.is_array() || c.arg.as_array().size() != 2) return make_error(quoted(c.name) + " takes an array of two expressions");
  auto f = std::make_shared<covariance_fn>();
  f->sample = c.name == "$covarianceSamp";
  auto x = c.ctx.compile(c.arg.as_array()[0]);
  if (!x) return make_error(quoted(c.name) + ": " + x.error().message, x.error().kind);
  auto y = c.ctx.compile(c.arg.as_array()[1]);
  if (!y) return make_error(quoted(c.name) + ": " + y.error().message, y.error().kind);
  f->x = std::move(*x);
  f->y = std::move(*y);
  if (c.window != nullptr) {
    OMGDB_TRY(spec, compile_window(*c.window, c.sort_by));
    w = spec;
  }
  f->takes_window = true;
  return window_function_ptr(f);
}

}  // namespace omgdb::engine::aggregate_detail
