// The expression forms of $median and $percentile: {$median: {input, method}} and
// {$percentile: {input, p, method}} over an array (its numbers; other elements are skipped)
// or a single number. They compute exactly what the accumulators of the same names compute
// (engine/query/percentile.hpp, shared): with no numbers, $median is null and $percentile an
// array of nulls. `method` is "approximate", "discrete" or "continuous" and must be a literal
// string (checked when the expression compiles); `p` is an expression that must give a
// non-empty array of numbers in [0, 1].
#include <string>
#include <vector>

#include "engine/query/expr_detail.hpp"
#include "engine/query/percentile.hpp"

namespace omgdb::engine::expr_detail {
namespace {

const std::string k_bad_p = "`$percentile`: `p` must be a non-empty array of numbers in [0, 1]";

bool valid_method(const value& m) {
  return m.is_string() &&
         (m.as_string() == "approximate" || m.as_string() == "discrete" || m.as_string() == "continuous");
}

std::vector<double> p_list(const expr_value& p) {
  if (!p || !p->is_array() || p->as_array().empty()) fail(k_bad_p);
  std::vector<double> out;
  for (const value& x : p->as_array()) {
    const double v = x.is_number() ? x.number_as_double() : -1;
    if (!(v >= 0 && v <= 1)) fail(k_bad_p);
    out.push_back(v);
  }
  return out;
}

expr_value percentile_op(const op_node& self, eval_ctx& ctx) {
  const bool median = self.name == "$median";
  expr_value input = self.arg(0, ctx);
  expr_value p = median ? expr_value{} : self.arg(1, ctx);
  if (p && p->is_array()) charge_built(ctx, p->as_array().size() * (sizeof(double) + sizeof(value)), self.name);
  const std::vector<double> ps = median ? std::vector<double>{0.5} : p_list(p);
  expr_value method = self.arg(median ? 1 : 2, ctx);
  const bool continuous = method && method->is_string() && method->as_string() == "continuous";
  std::vector<double> values;
  if (input && input->is_array()) {
    charge_built(ctx, input->as_array().size() * sizeof(double), self.name);
    values.reserve(input->as_array().size());
    std::size_t steps = 0;
    for (const value& e : input->as_array()) {
      poll_step(ctx, steps++);
      if (e.is_number()) values.push_back(e.number_as_double());
    }
  } else if (input && input->is_number()) {
    values.push_back(input->number_as_double());
  }
  array out = percentiles_of(values, ps, continuous);
  if (median) return out.front();
  return value(std::move(out));
}

constexpr op_info percentile_op_list[] = {
    {"$median", -1, -1, percentile_op, "input,method"},
    {"$percentile", -1, -1, percentile_op, "input,p,method"},
};

}  // namespace

op_table percentile_ops() { return table_of(percentile_op_list); }

status check_percentile_arguments(const std::string& name, const value& arg) {
  if ((name != "$median" && name != "$percentile") || !arg.is_document()) return {};
  const value* m = find_field(arg.as_document(), "method");
  if (m != nullptr && !valid_method(*m)) {
    return make_error(quoted(name) + ": `method` must be \"approximate\", \"discrete\" or \"continuous\"");
  }
  if (name == "$percentile") {
    const value* p = find_field(arg.as_document(), "p");
    if (p != nullptr && p->is_array()) {
      try {
        p_list(*p);
      } catch (const expression_error& e) {
        return e.to_failure();
      }
    }
  }
  return {};
}

}  // namespace omgdb::engine::expr_detail
