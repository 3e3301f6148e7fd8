// $densify: adds the documents missing from a sequence of numbers or dates.
//
// {$densify: {field, partitionByFields, range: {step, unit, bounds}}}. Each partition (the
// values of partitionByFields; one partition without them) gets a document for every value
// of the grid lo, lo + step, lo + 2·step, … that no document of the partition holds, where
// the grid and its end are:
//   bounds [lower, upper]  lo = lower, values below upper (exclusive), in every partition
//                          (without partitionByFields also when no document has the field);
//   "full"                 lo = the smallest value of all documents, up to the largest
//                          (inclusive), in every partition;
//   "partition"            lo = the partition's smallest value, up to its largest.
// Steps are added one after the other as MongoDB does: numbers with `$add` (int stays int,
// widening on overflow), dates with `$dateAdd` in UTC with `unit` (months clamp to the end of
// the month: Jan 31 + 1 month is Feb 28, then Mar 28). A generated document holds the
// partition fields and the field, nothing else. Documents whose field is null or missing
// pass through unchanged; values of another kind fail the call.
//
// Output order (MongoDB guarantees none): partition by partition (in the order of their key
// values), each in field order, null and missing first. The stage holds its input and the
// documents it generates within the stage memory limit (pipeline_options::max_stage_bytes;
// docs/decisions.md): past it the call fails naming `$densify` and the limit.
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

enum class bounds_kind { full, partition, range };

constexpr std::string_view k_units[] = {"millisecond", "second", "minute", "hour", "day",
                                        "week",        "month",  "quarter", "year"};

bool nullish(const expr_value& v) { return !v || v->is_null(); }

// `a` equals `b` or one is a dotted prefix of the other ("a" and "a.b").
bool overlaps(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && (b.size() == a.size() || b[a.size()] == '.');
}

struct densify_stage final : stage {
  std::string field;
  expression field_expr;  // "$field"
  std::vector<std::string> partition_paths;
  std::vector<expression> partition_exprs;
  bounds_kind kind = bounds_kind::full;
  value lower, upper;  // bounds [lower, upper]
  bool dates = false;  // `unit` given: the values are dates
  expression step_expr;  // the next grid value after $$cur

  struct row {
    std::string partition;  // encode_key of `keys`
    document keys;          // the partition fields of the document
    expr_value v;           // the field; nullopt when null or missing
    document doc;
  };

  void check(const value& v) const {
    const std::string where = "`$densify`: the field " + quoted(field) + " holds ";
    if (!v.is_number() && !is_date(v)) {
      fail(where + "a value of type " + std::string(bson_type_alias(v)) + "; densify field type must be numeric or a date");
    }
    if (v.is_decimal()) fail(where + "a Decimal128 value; densifying Decimal128 values is not supported yet");
    if (dates && !is_date(v)) fail(where + "a number but the range has a `unit`, which densifies dates");
    if (!dates && is_date(v)) fail(where + "a date but the range has no `unit`: give one, for example \"unit\": \"day\"");
  }

  value advance(const value& cur, std::vector<value>& vars) const {
    vars[0] = cur;
    const eval_env env{&vars, 0};
    expr_value next = step_expr.eval_or_throw(document{}, env);
    if (!next || compare(*next, cur) <= 0) {
      fail("`$densify`: adding the step to a value of " + quoted(field) + " does not make it larger (the step is below the precision of a double there)");
    }
    return std::move(*next);
  }

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    auto held = std::make_unique<memory_budget>("$densify", ctx);  // given back when the output is handed on
    memory_budget& budget = *held;
    std::vector<row> rows;
    document d;
    while (input->next(d)) {
      ctx.poll();
      row r;
      r.v = ctx.eval(field_expr, d);
      if (nullish(r.v)) {
        r.v.reset();
      } else {
        check(*r.v);
      }
      for (std::size_t k = 0; k < partition_exprs.size(); ++k) {
        if (expr_value p = ctx.eval(partition_exprs[k], d)) set_path(r.keys, partition_paths[k], std::move(*p));
      }
      if (!partition_exprs.empty()) r.partition = encode_key(value(r.keys));
      r.doc = std::move(d);
      d = document{};
      budget.add(approx_bytes(r.doc) + approx_bytes(r.keys) + r.partition.size() + sizeof(row));
      rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
      if (a.partition != b.partition) return a.partition < b.partition;
      if (!a.v || !b.v) return !a.v && b.v;
      return compare(*a.v, *b.v) < 0;
    });
    const value* global_min = nullptr;
    const value* global_max = nullptr;
    for (const row& r : rows) {
      if (!r.v) continue;
      if (global_min == nullptr || compare(*r.v, *global_min) < 0) global_min = &*r.v;
      if (global_max == nullptr || compare(*r.v, *global_max) > 0) global_max = &*r.v;
    }

    std::vector<document> out;
    out.reserve(rows.size());
    std::vector<value> vars(1);
    std::uint64_t generated = 0;
    // Emits rows [b, e) of one partition with the grid values from `lo` that none of them
    // holds, while below `hi` (or equal to it when `inclusive`).
    auto densify = [&](std::size_t b, std::size_t e, const document& keys, const value* lo, const value* hi, bool inclusive) {
      std::optional<value> g;
      if (lo != nullptr) g = *lo;
      auto in_range = [&] {
        if (!g) return false;
        const int c = compare(*g, *hi);
        return c < 0 || (inclusive && c == 0);
      };
      auto generate = [&] {
        ctx.poll();
        document made = keys;
        set_path(made, field, *g);
        try {
          budget.add(approx_bytes(made) + sizeof(document));
        } catch (const expression_error& e) {  // "stage `$densify` exceeded its memory limit of N MiB (…)"
          if (e.kind() == failure_kind::cancelled) throw;
          const std::string m = e.what();
          fail_limit(m.substr(0, m.find(" (")) + " after generating " + std::to_string(generated) +
               " documents (it holds its input and the documents it generates in memory and does not spill to disk): "
               "use a larger `step` or narrower `bounds`, or add a `$match` before it");
        }
        ++generated;
        out.push_back(std::move(made));
        g = advance(*g, vars);
      };
      for (std::size_t i = b; i < e; ++i) {
        if (rows[i].v && g) {
          while (in_range() && compare(*g, *rows[i].v) < 0) generate();
          if (in_range() && compare(*g, *rows[i].v) == 0) g = advance(*g, vars);  // present: not generated
        }
        out.push_back(std::move(rows[i].doc));
      }
      while (in_range()) generate();
    };

    if (partition_exprs.empty() && kind == bounds_kind::range) {
      densify(0, rows.size(), document{}, &lower, &upper, false);  // even over no documents
      return vector_cursor(std::move(out), std::move(held));
    }
    for (std::size_t b = 0; b < rows.size();) {
      std::size_t e = b + 1;
      while (e < rows.size() && rows[e].partition == rows[b].partition) ++e;
      const value* first = nullptr;  // the partition's smallest and largest values
      const value* last = nullptr;
      for (std::size_t i = b; i < e; ++i) {
        if (!rows[i].v) continue;
        if (first == nullptr) first = &*rows[i].v;
        last = &*rows[i].v;
      }
      const document keys = rows[b].keys;
      if (first == nullptr) {
        densify(b, e, keys, nullptr, nullptr, false);  // only null or missing values: nothing to fill
      } else if (kind == bounds_kind::range) {
        densify(b, e, keys, &lower, &upper, false);
      } else if (kind == bounds_kind::full) {
        densify(b, e, keys, global_min, global_max, true);
      } else {
        densify(b, e, keys, first, last, true);
      }
      b = e;
    }
    return vector_cursor(std::move(out), std::move(held));
  }
};

constexpr std::string_view k_bad_step = "The step parameter in a range statement must be a strictly positive numeric value";

// range: {step, unit, bounds}
status compile_range(const value& spec, densify_stage& s, value& step, std::string& unit) {
  if (!spec.is_document()) return make_error("`range` must be a document: {\"step\": …, \"bounds\": …, \"unit\": …}");
  const value* bounds = nullptr;
  const value* step_v = nullptr;
  const value* unit_v = nullptr;
  for (const field& f : spec.as_document()) {
    if (f.name == "step") {
      step_v = &f.val;
    } else if (f.name == "unit") {
      unit_v = &f.val;
    } else if (f.name == "bounds") {
      bounds = &f.val;
    } else {
      return make_error("unknown argument `range." + f.name + "` (expected `step`, `unit`, `bounds`)");
    }
  }
  if (step_v == nullptr || !step_v->is_number() || compare(*step_v, value(std::int32_t{0})) <= 0) return make_error(std::string(k_bad_step));
  if (step_v->is_decimal()) return make_error("a Decimal128 `step` is not supported yet; give an int, a long or a double");
  if (step_v->is_double() && !std::isfinite(step_v->as_double())) return make_error(std::string(k_bad_step));
  step = *step_v;
  if (unit_v != nullptr) {
    if (!unit_v->is_string() || std::find(std::begin(k_units), std::end(k_units), unit_v->as_string()) == std::end(k_units)) {
      return make_error("`unit` must be one of millisecond, second, minute, hour, day, week, month, quarter, year");
    }
    const double n = step_v->number_as_double();
    if (n != std::floor(n) || n > 9.0e15) {
      return make_error("The step parameter in a range statement must be a whole number when densifying a date range");
    }
    unit = unit_v->as_string();
    s.dates = true;
  }
  if (bounds != nullptr && bounds->is_string()) {
    if (bounds->as_string() != "full" && bounds->as_string() != "partition") {
      return make_error("Bounds string must either be 'full' or 'partition'");
    }
    s.kind = bounds->as_string() == "full" ? bounds_kind::full : bounds_kind::partition;
    return {};
  }
  if (bounds == nullptr || !bounds->is_array()) {
    return make_error("The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates");
  }
  const array& a = bounds->as_array();
  if (a.size() != 2) return make_error("A bounding array in a range statement must have exactly two elements");
  if (compare(a[0], a[1]) > 0) return make_error("A bounding array must be an ascending array of either two dates or two numbers");
  if (a[0].is_number()) {
    if (s.dates) return make_error("Numeric bounds may not have unit parameter");
    if (!a[1].is_number()) return make_error("A bounding array must contain either both dates or both numeric types");
    if (a[0].is_decimal() || a[1].is_decimal()) return make_error("Decimal128 bounds are not supported yet; give ints, longs or doubles");
  } else if (is_date(a[0])) {
    if (!is_date(a[1])) return make_error("A bounding array must contain either both dates or both numeric types");
    if (!s.dates) return make_error("A bounding array of dates must specify a unit");
  } else {
    return make_error("Explicit bounds must be numeric or dates");
  }
  s.kind = bounds_kind::range;
  s.lower = a[0];
  s.upper = a[1];
  return {};
}

}  // namespace

result<stage_ptr> compile_densify(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  auto s = std::make_shared<densify_stage>();
  const value* field_v = nullptr;
  const value* partitions = nullptr;
  const value* range = nullptr;
  for (const field& f : spec.as_document()) {
    if (f.name == "field") {
      field_v = &f.val;
    } else if (f.name == "partitionByFields") {
      partitions = &f.val;
    } else if (f.name == "range") {
      range = &f.val;
    } else {
      return make_error("unknown argument " + quoted(f.name) + " (expected `field`, `partitionByFields`, `range`)");
    }
  }
  if (field_v == nullptr || !field_v->is_string()) return make_error("`field` is required: the name of the field to densify");
  if (auto p = field_path_parts(field_v->as_string(), "`field`"); !p) return std::move(p).error();
  s->field = field_v->as_string();
  if (partitions != nullptr) {
    if (!partitions->is_array()) return make_error("`partitionByFields` must be an array of field names");
    for (const value& p : partitions->as_array()) {
      if (!p.is_string()) return make_error("`partitionByFields` must be an array of field names");
      if (auto parts = field_path_parts(p.as_string(), "partitionByFields field"); !parts) return std::move(parts).error();
      if (overlaps(p.as_string(), s->field)) {
        return make_error("`field` " + quoted(s->field) + " must not be in `partitionByFields` (" + quoted(p.as_string()) +
                          "), nor a prefix of one or have one as its prefix");
      }
      auto e = ctx.compile(value("$" + p.as_string()));
      if (!e) return std::move(e).error();
      s->partition_paths.push_back(p.as_string());
      s->partition_exprs.push_back(std::move(*e));
    }
  }
  if (range == nullptr) return make_error("`range` is required: {\"step\": …, \"bounds\": …, \"unit\": …}");
  value step;
  std::string unit;
  if (status st = compile_range(*range, *s, step, unit); !st) return std::move(st).error();
  if (s->kind == bounds_kind::partition && s->partition_paths.empty()) {
    return make_error("One cannot specify the bounds as 'partition' without specifying a non-empty array of "
                      "partitionByFields. You may have meant to specify 'full' bounds.");
  }
  auto f = ctx.compile(value("$" + s->field));
  if (!f) return std::move(f).error();
  s->field_expr = std::move(*f);
  expression_options o;
  o.variables = {"cur"};
  document next_doc;
  if (s->dates) {
    document add;
    add.emplace_back("startDate", value("$$cur"));
    add.emplace_back("unit", value(unit));
    add.emplace_back("amount", step);
    next_doc.emplace_back("$dateAdd", value(std::move(add)));
  } else {
    array operands;
    operands.emplace_back("$$cur");
    operands.push_back(step);
    next_doc.emplace_back("$add", value(std::move(operands)));
  }
  auto n = expression::compile(value(std::move(next_doc)), o);
  if (!n) return std::move(n).error();
  s->step_expr = std::move(*n);
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
