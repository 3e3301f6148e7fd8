// $fill, and the window operators $locf and $linearFill behind it.
//
// {$fill: {partitionBy | partitionByFields, sortBy, output: {f: {value: <expr>} | {method:
// "locf" | "linear"}}}} fills the null and missing values of each output field. As in
// MongoDB it is two stages: the method fields are a `$setWindowFields` with {$locf: "$f"} or
// {$linearFill: "$f"} (its partitioning, sortBy order and memory limit, named `$fill` in the
// error), then the value fields are `$addFields` {f: {$ifNull: ["$f", <expr>]}}. Without a
// method field nothing is sorted and the input order is kept.
#include <utility>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

bool nullish(const expr_value& v) { return !v || v->is_null(); }
std::string type_of(const expr_value& v) { return v ? std::string(bson_type_alias(*v)) : "missing"; }

// The stages one $fill became, run one after the other.
struct chain_stage final : stage {
  stage_list parts;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override { return open_pipeline(parts, std::move(input), ctx); }
};

// Milliseconds for a date, the number otherwise: the abscissa of $linearFill.
double abscissa(const value& x) { return is_date(x) ? static_cast<double>(date_millis(x)) : x.number_as_double(); }

// Checks the documents of a partition as MongoDB does while it fills them: numeric or null
// values, numeric or date sort values of one kind, no sort value twice.
void check_linear_inputs(const std::vector<expr_value>& ys, const std::vector<expr_value>& xs) {
  for (std::size_t i = 0; i < ys.size(); ++i) {
    if (!nullish(ys[i]) && !ys[i]->is_number()) {
      fail("`$linearFill`: value to be filled must be numeric or nullish, but found " + type_of(ys[i]));
    }
    if (!xs[i] || !(xs[i]->is_number() || is_date(*xs[i]))) {
      fail("`$linearFill`: value of the sortBy field must be numeric or a date, but found " + type_of(xs[i]));
    }
    if ((!nullish(ys[i]) && ys[i]->is_decimal()) || xs[i]->is_decimal()) {
      fail("`$linearFill`: Decimal128 values are not supported yet (convert with `$toDouble` first)");
    }
    if (i == 0) continue;
    if (is_date(*xs[i]) != is_date(*xs[i - 1])) {
      fail("`$linearFill`: conflicting sort value types, previously received type " + type_of(xs[i - 1]) +
           ", but found " + type_of(xs[i]));
    }
    if (compare(*xs[i], *xs[i - 1]) == 0) fail("`$linearFill`: there can be no repeated values in the sort field");
  }
}

}  // namespace

std::vector<value> locf_values(const std::vector<expr_value>& ys) {
  std::vector<value> out;
  out.reserve(ys.size());
  const value* last = nullptr;
  for (const expr_value& y : ys) {
    if (!nullish(y)) last = &*y;
    out.push_back(last != nullptr ? *last : value());
  }
  return out;
}

std::vector<value> linear_fill_values(const std::vector<expr_value>& ys, const std::vector<expr_value>& xs) {
  check_linear_inputs(ys, xs);
  std::vector<value> out(ys.size());
  std::size_t prev = ys.size();  // the last non-null index so far, or none
  for (std::size_t i = 0; i < ys.size(); ++i) {
    if (!nullish(ys[i])) {
      out[i] = *ys[i];
      prev = i;
      continue;
    }
    std::size_t next = i + 1;
    while (next < ys.size() && nullish(ys[next])) ++next;
    if (prev == ys.size() || next == ys.size()) continue;  // no neighbour on one side: null
    // y = y1 + (x - x1) * ((y2 - y1) / (x2 - x1)), in double as MongoDB's $divide gives
    const double x1 = abscissa(*xs[prev]), y1 = ys[prev]->number_as_double();
    const double x2 = abscissa(*xs[next]), y2 = ys[next]->number_as_double();
    out[i] = value(y1 + (abscissa(*xs[i]) - x1) * ((y2 - y1) / (x2 - x1)));
  }
  return out;
}

result<stage_ptr> compile_fill(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  const value* partition_by = nullptr;
  const value* partition_fields = nullptr;
  const value* sort_by = nullptr;
  const value* output = nullptr;
  for (const field& f : spec.as_document()) {
    if (f.name == "partitionBy") {
      partition_by = &f.val;
    } else if (f.name == "partitionByFields") {
      partition_fields = &f.val;
    } else if (f.name == "sortBy") {
      sort_by = &f.val;
    } else if (f.name == "output") {
      output = &f.val;
    } else {
      return make_error("unknown argument " + quoted(f.name) + " (expected `partitionBy`, `partitionByFields`, `sortBy`, `output`)");
    }
  }
  if (output == nullptr || !output->is_document() || output->as_document().empty()) {
    return make_error("`output` must be a document with at least one field to fill");
  }
  if (partition_by != nullptr && partition_fields != nullptr) {
    return make_error("at most one of `partitionBy` and `partitionByFields` may be given");
  }
  if (partition_by != nullptr && !partition_by->is_string() && !partition_by->is_document()) {
    return make_error("`partitionBy` must be an expression given as a string (\"$field\") or a document, got " +
                      std::string(bson_type_alias(*partition_by)));
  }
  if (sort_by != nullptr && !sort_by->is_document()) return make_error("`sortBy` must be a sort document such as {\"time\": 1}");
  document window_output, add_fields;
  for (const field& f : output->as_document()) {
    if (auto p = field_path_parts(f.name, "output field"); !p) return std::move(p).error();
    const std::string where = "output " + quoted(f.name);
    if (!f.val.is_document()) return make_error(where + " must be a document: {\"value\": <expression>} or {\"method\": \"locf\" | \"linear\"}");
    const value* method = find_field(f.val.as_document(), "method");
    const value* fill_value = find_field(f.val.as_document(), "value");
    for (const field& g : f.val.as_document()) {
      if (g.name != "method" && g.name != "value") return make_error(where + ": unknown argument " + quoted(g.name));
    }
    if ((method == nullptr) == (fill_value == nullptr)) {
      return make_error(where + " must have exactly one of `method` or `value`");
    }
    const value path("$" + f.name);
    if (fill_value != nullptr) {
      add_fields.push_back(field{f.name, value(document{{"$ifNull", value(array{path, *fill_value})}})});
      continue;
    }
    if (!method->is_string() || (method->as_string() != "locf" && method->as_string() != "linear")) {
      return make_error(where + ": `method` must be either \"locf\" or \"linear\"");
    }
    const char* op = method->as_string() == "locf" ? "$locf" : "$linearFill";
    window_output.push_back(field{f.name, value(document{{op, path}})});
  }
  auto chain = std::make_shared<chain_stage>();
  if (!window_output.empty()) {
    document window;
    if (partition_by != nullptr) window.push_back(field{"partitionBy", *partition_by});
    if (partition_fields != nullptr) {
      // {"0": "$a", "1": "$b.c"}: a document, so that a missing field and a null one are
      // different partitions, as with MongoDB's {a: "$a", …}; numbered, so dotted fields work.
      if (!partition_fields->is_array()) return make_error("`partitionByFields` must be an array of field names");
      document key;
      for (const value& name : partition_fields->as_array()) {
        if (!name.is_string()) return make_error("`partitionByFields` must be an array of field names");
        if (auto p = field_path_parts(name.as_string(), "partitionByFields field"); !p) return std::move(p).error();
        key.push_back(field{std::to_string(key.size()), value("$" + name.as_string())});
      }
      window.push_back(field{"partitionBy", value(std::move(key))});
    }
    if (sort_by != nullptr) window.push_back(field{"sortBy", *sort_by});
    window.push_back(field{"output", value(std::move(window_output))});
    auto w = compile_window_stage(value(std::move(window)), ctx, "$fill");
    if (!w) return std::move(w).error();
    chain->parts.push_back(std::move(*w));
  }
  if (!add_fields.empty()) {
    auto a = compile_add_fields(value(std::move(add_fields)), ctx);
    if (!a) return make_error("`value`: " + a.error().message, a.error().kind);
    chain->parts.push_back(std::move(*a));
  }
  return stage_ptr(chain);
}

}  // namespace omgdb::engine::aggregate_detail
