// $setWindowFields windows: compiling {documents: [lower, upper]} and {range: [lower, upper],
// unit?}, resolving them to the rows of each document's window, and folding an accumulator
// over those rows. Range windows follow mongod: the sortBy is one ascending field; every
// sort value of the partition must be a number (or, with `unit`, a date); a numeric bound is
// added to the current document's sort value (a `unit` bound is $dateAdd'ed in UTC) and takes
// every document whose sort value lies within; "current" is the current document itself.
#include <algorithm>
#include <cmath>

#include "engine/aggregate/window.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

result<std::int64_t> document_bound(const value& v, bool lower) {
  if (v.is_string() && v.as_string() == "unbounded") return lower ? k_unbounded : k_unbounded_above;
  if (v.is_string() && v.as_string() == "current") return std::int64_t{0};
  if (v.is_int32()) return std::int64_t{v.as_int32()};
  if (v.is_int64() && v.as_int64() != INT64_MIN && v.as_int64() != INT64_MAX) return v.as_int64();
  if (v.is_double() && v.as_double() == std::trunc(v.as_double()) && std::fabs(v.as_double()) < 9e18) {
    return static_cast<std::int64_t>(v.as_double());
  }
  return make_error("window bounds must be \"unbounded\", \"current\" or an integer");
}

status range_bound(const value& v, bool with_unit, window_spec::edge& edge, value& delta) {
  if (v.is_string() && v.as_string() == "unbounded") return edge = window_spec::edge::unbounded, status{};
  if (v.is_string() && v.as_string() == "current") return edge = window_spec::edge::current, status{};
  if (!v.is_number() || (v.is_double() && std::isnan(v.as_double()))) {
    return make_error("range bounds must be \"unbounded\", \"current\" or a number");
  }
  if (v.is_decimal()) return make_error("Decimal128 range bounds are not supported yet; give an int, long or double");
  if (with_unit && !(v.is_int32() || v.is_int64() || (v.is_double() && v.as_double() == std::trunc(v.as_double())))) {
    return make_error("with `unit`, range bounds must be integers");
  }
  edge = window_spec::edge::delta;
  delta = v;
  return {};
}

// A sort value or a bound position: an exact integer, or a long double; NaN sorts first.
struct point {
  bool integral = true;
  __int128 i = 0;
  long double d = 0;
  bool nan() const { return !integral && std::isnan(d); }
  long double as_ld() const { return integral ? static_cast<long double>(i) : d; }
};

bool less(const point& a, const point& b) {
  if (a.nan() || b.nan()) return a.nan() && !b.nan();
  if (a.integral && b.integral) return a.i < b.i;
  return a.as_ld() < b.as_ld();
}

point point_of(const value& v) {
  point p;
  if (v.is_int32()) p.i = v.as_int32();
  else if (v.is_int64()) p.i = v.as_int64();
  else if (is_date(v)) p.i = date_millis(v);
  else p.integral = false, p.d = v.as_double();
  return p;
}

// The sort value plus a bound's delta; dates step by the unit, saturating far past any date.
point shifted(const point& base, const value& delta, const std::optional<date_unit>& unit) {
  if (unit) {
    const double a = delta.number_as_double();
    std::optional<std::int64_t> out;  // nullopt: past any date
    if (std::fabs(a) < 1e15) out = date_add_utc(static_cast<std::int64_t>(base.i), *unit, static_cast<std::int64_t>(a));
    point p;
    p.i = out ? __int128{*out} : (a > 0 ? __int128{1} << 100 : -(__int128{1} << 100));
    return p;
  }
  const point d = point_of(delta);
  if (base.integral && d.integral) return point{true, base.i + d.i, 0};
  return point{false, 0, base.as_ld() + d.as_ld()};
}

// The sort values of a range window's partition as points, after mongod's type checks.
std::vector<point> range_points(const window_spec& w, const window_partition& p) {
  std::vector<point> out;
  out.reserve(p.size());
  for (const expr_value* sv : p.sort_values) {
    const value* v = sv != nullptr && *sv ? &**sv : nullptr;
    if (w.unit) {
      if (v == nullptr || !is_date(*v)) {
        fail("Invalid range: Expected the sortBy field to be a Date, but it was " + type_of(v ? expr_value(*v) : expr_value()));
      }
    } else {
      if (v != nullptr && is_date(*v)) fail("Invalid range: For windows that involve date or time ranges, a unit must be provided.");
      if (v == nullptr || !v->is_number()) {
        fail("Invalid range: Expected the sortBy field to be a number, but it was " + type_of(v ? expr_value(*v) : expr_value()));
      }
      if (v->is_decimal()) fail("Invalid range: Decimal128 sort values are not supported yet in range windows");
    }
    out.push_back(point_of(*v));
  }
  return out;
}

}  // namespace

result<window_spec> compile_window(const value& window, const sort_spec* sort_by) {
  window_spec w;
  if (!window.is_document()) return make_error("`window` must be a document");
  const value* documents = find_field(window.as_document(), "documents");
  const value* range = find_field(window.as_document(), "range");
  const value* unit = find_field(window.as_document(), "unit");
  for (const field& f : window.as_document()) {
    if (f.name != "documents" && f.name != "range" && f.name != "unit") return make_error("unknown window argument " + quoted(f.name));
  }
  if (documents != nullptr && range != nullptr) return make_error("a window takes `documents` or `range`, not both");
  if (unit != nullptr && range == nullptr) return make_error("a window takes `unit` only with `range`");
  if (documents == nullptr && range == nullptr) return w;  // {}: the whole partition
  const value& bounds = documents != nullptr ? *documents : *range;
  const std::string what = documents != nullptr ? "`documents`" : "`range`";
  if (!bounds.is_array() || bounds.as_array().size() != 2) return make_error(what + " must be [lower, upper]");
  const value& lo = bounds.as_array()[0];
  const value& hi = bounds.as_array()[1];
  if (documents != nullptr) {
    OMGDB_TRY(l, document_bound(lo, true));
    OMGDB_TRY(h, document_bound(hi, false));
    w.lower = l;
    w.upper = h;
    if (w.lower != k_unbounded && w.upper != k_unbounded_above && w.lower > w.upper) {
      return make_error("the lower window bound must not be above the upper one");
    }
    if (!w.whole() && sort_by == nullptr) return make_error("a `documents` window needs a `sortBy`");
    return w;
  }
  w.range = true;
  if (unit != nullptr) {
    if (!unit->is_string() || !parse_date_unit(unit->as_string())) {
      return make_error("`unit` must be one of year, quarter, month, week, day, hour, minute, second, millisecond");
    }
    w.unit = parse_date_unit(unit->as_string());
  }
  OMGDB_CHECK(range_bound(lo, w.unit.has_value(), w.lo_edge, w.lo_delta));
  OMGDB_CHECK(range_bound(hi, w.unit.has_value(), w.hi_edge, w.hi_delta));
  auto numeric = [](window_spec::edge e, const value& d) { return e == window_spec::edge::current ? 0.0 : d.number_as_double(); };
  if (w.lo_edge != window_spec::edge::unbounded && w.hi_edge != window_spec::edge::unbounded &&
      numeric(w.lo_edge, w.lo_delta) > numeric(w.hi_edge, w.hi_delta)) {
    return make_error("the lower window bound must not be above the upper one");
  }
  if (sort_by == nullptr || sort_by->keys().size() != 1) return make_error("a `range` window needs a `sortBy` on exactly one field");
  if (sort_by->keys().front().descending) return make_error("a `range` window needs an ascending `sortBy`");
  return w;
}

void window_extents(const window_spec& w, const window_partition& p, std::vector<extent>& out, exec_ctx& ctx) {
  const auto n = static_cast<std::int64_t>(p.size());
  out.assign(p.size(), extent{});
  if (!w.range) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t lo = w.lower == k_unbounded ? 0 : std::clamp<std::int64_t>(i + w.lower, -1, n);
      const std::int64_t hi = w.upper == k_unbounded_above ? n - 1 : std::clamp<std::int64_t>(i + w.upper, -1, n);
      out[static_cast<std::size_t>(i)] = extent{std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(hi, n - 1)};
    }
    return;
  }
  const std::vector<point> pts = range_points(w, p);
  for (std::int64_t i = 0; i < n; ++i) {
    ctx.poll();
    const point& base = pts[static_cast<std::size_t>(i)];
    extent e{0, n - 1};
    if (w.lo_edge == window_spec::edge::current) {
      e.lo = i;
    } else if (w.lo_edge == window_spec::edge::delta) {  // the first value not below base + delta
      const point t = shifted(base, w.lo_delta, w.unit);
      e.lo = std::partition_point(pts.begin(), pts.end(), [&](const point& v) { return less(v, t); }) - pts.begin();
    }
    if (w.hi_edge == window_spec::edge::current) {
      e.hi = i;
    } else if (w.hi_edge == window_spec::edge::delta) {  // the last value not above base + delta
      const point t = shifted(base, w.hi_delta, w.unit);
      e.hi = (std::partition_point(pts.begin(), pts.end(), [&](const point& v) { return !less(t, v); }) - pts.begin()) - 1;
    }
    out[static_cast<std::size_t>(i)] = e;
  }
}

void accumulate_windows(const accumulator& acc, const window_partition& p, const std::vector<extent>& extents,
                        std::vector<expr_value>& out, exec_ctx& ctx) {
  std::unique_ptr<accumulator_state> state;
  call_hold state_bytes(*ctx.budget);  // what `state` holds, until it starts afresh
  extent fed{0, -1};  // the rows `state` holds
  for (std::size_t i = 0; i < extents.size(); ++i) {
    ctx.poll();
    const extent& e = extents[i];
    if (i > 0 && e == extents[i - 1]) {  // the same window as the row before
      charge_output(ctx, out.back());  // before the copy is made
      out.push_back(out.back());
      continue;
    }
    // A window that only grows at its end keeps feeding one state; any other starts afresh.
    if (!state || e.lo != fed.lo || e.hi < fed.hi) {
      state = acc.start();
      state_bytes.reset();
      fed = extent{e.lo, e.lo - 1};
    }
    for (; fed.hi < e.hi; ++fed.hi) {
      ctx.poll();
      state_bytes.charge(state->add(*p.docs[static_cast<std::size_t>(fed.hi + 1)], ctx), "a window's accumulator");
    }
    expr_value v = state->finish(ctx).value_or(value());
    charge_output(ctx, v);
    out.push_back(std::move(v));
  }
}

}  // namespace omgdb::engine::aggregate_detail
