// $setWindowFields: per partition (partitionBy), in sortBy order, each output field is an
// accumulator over a window of documents ({documents: [lower, upper]}) or of sort values
// ({range: [lower, upper], unit?}) — default: the whole partition — a rank ($rank,
// $denseRank, $documentNumber) or a window-only operator ($shift, $derivative, $integral,
// $expMovingAvg, $covariancePop, $covarianceSamp, $locf, $linearFill; the last two are also
// what $fill compiles into, stage_fill.cpp). Windows and those operators: window.hpp. The stage holds its whole input within the memory limit; output is
// in partition, then sort, order.
#include <algorithm>
#include <utility>

#include "engine/aggregate/window.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

struct window_output {
  std::string path;
  std::string rank;  // "$rank", "$denseRank", "$documentNumber", or empty: an accumulator
  accumulator acc;
  window_spec window;
  window_function_ptr fn;  // a window-only operator instead of `acc`
};

struct window_stage final : stage {
  std::string name = "$setWindowFields";  // in the memory limit error ($fill compiles into one)
  std::optional<expression> partition_by;
  std::shared_ptr<const sort_spec> sort_by;
  std::vector<window_output> outputs;

  std::optional<expression> sort_value;  // "$<the sortBy field>", when an output reads it

  struct row {
    std::string partition;
    array key;
    std::uint64_t seq;
    document doc;
    expr_value sort_value;
  };

  void fill(std::vector<row>& rows, std::size_t b, std::size_t e, const window_output& o, const window_partition& part,
            std::vector<expr_value>& out, exec_ctx& ctx) const {
    if (!o.rank.empty()) {
      std::int64_t rank = 1, dense = 1;
      for (std::size_t i = b; i < e; ++i) {
        if (i > b && (!sort_by || sort_by->compare_keys(rows[i].key, rows[i - 1].key) != 0)) {
          rank = static_cast<std::int64_t>(i - b) + 1;
          ++dense;
        }
        const std::int64_t v = o.rank == "$rank" ? rank : (o.rank == "$denseRank" ? dense : static_cast<std::int64_t>(i - b) + 1);
        out.push_back(v <= INT32_MAX ? value(static_cast<std::int32_t>(v)) : value(v));
      }
      return;
    }
    std::vector<extent> extents;
    if (!o.fn || o.fn->takes_window) window_extents(o.window, part, extents, ctx);
    if (o.fn) {
      o.fn->fill(part, extents, out, ctx);
    } else {
      accumulate_windows(o.acc, part, extents, out, ctx);
    }
  }

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    auto held = std::make_unique<memory_budget>(name, ctx);
    memory_budget& budget = *held;
    std::vector<row> rows;
    document d;
    std::uint64_t seq = 0;
    while (input->next(d)) {
      ctx.poll();
      row r{partition_by ? encode_key(ctx.eval(*partition_by, d).value_or(value())) : std::string(), {}, seq++, std::move(d), {}};
      if (sort_by) {
        r.key = sort_by->sort_key(r.doc);
        r.key.pop_back();  // no `_id` tiebreak: equal keys rank equal
      }
      if (sort_value) r.sort_value = ctx.eval(*sort_value, r.doc);
      // The row, and per row what a partition's outputs hold: its window_partition entries,
      // its extent and one output value per field.
      budget.add(approx_bytes(r.doc) + r.partition.size() + approx_bytes(value(r.key)) + sizeof(row) +
                 (r.sort_value ? approx_bytes(*r.sort_value) : 0) + sizeof(window_partition) / 2 + sizeof(extent) +
                 outputs.size() * 64);
      rows.push_back(std::move(r));
      d = document{};
    }
    std::stable_sort(rows.begin(), rows.end(), [this, &ctx](const row& a, const row& b) {
      ctx.poll();
      if (a.partition != b.partition) return a.partition < b.partition;
      return sort_by ? sort_by->compare_keys(a.key, b.key) < 0 : false;
    });
    for (std::size_t b = 0; b < rows.size();) {
      std::size_t e = b + 1;
      while (e < rows.size() && rows[e].partition == rows[b].partition) ++e;
      window_partition part;
      part.docs.reserve(e - b);
      for (std::size_t i = b; i < e; ++i) part.docs.push_back(&rows[i].doc);
      if (sort_value) {
        part.sort_values.reserve(e - b);
        for (std::size_t i = b; i < e; ++i) part.sort_values.push_back(&rows[i].sort_value);
      }
      // The outputs charge the call as they are made; the stage takes the charges over
      // (counted against its limit, given back when its documents have been handed on).
      std::vector<std::vector<expr_value>> values(outputs.size());
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const std::uint64_t before = ctx.budget->used();
        try {
          fill(rows, b, e, outputs[k], part, values[k], ctx);
        } catch (...) {
          const std::uint64_t now = ctx.budget->used();
          if (now > before) budget.adopt(now - before, false);  // given back with the rest
          throw;
        }
        const std::uint64_t now = ctx.budget->used();
        if (now > before) budget.adopt(now - before);
      }
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        for (std::size_t i = b; i < e; ++i) {
          if (values[k][i - b]) budget.adopt(set_path(rows[i].doc, outputs[k].path, std::move(*values[k][i - b])));
        }
      }
      b = e;
    }
    std::vector<document> out;
    out.reserve(rows.size());
    const std::string what = "stage " + quoted(name);
    for (row& r : rows) {
      ctx.poll();
      output_hold::check_depth(r.doc, what);
      out.push_back(std::move(r.doc));
    }
    return vector_cursor(std::move(out), std::move(held));
  }
};

result<window_output> compile_output(const field& f, const sort_spec* sort_by, const compile_ctx& ctx) {
  window_output o;
  o.path = f.name;
  if (auto p = field_path_parts(f.name, "output field"); !p) return std::move(p).error();
  if (!f.val.is_document()) return make_error("output " + quoted(f.name) + " must be a document like {\"$sum\": \"$x\", \"window\": …}");
  document op;
  const value* window = nullptr;
  for (const field& g : f.val.as_document()) {
    if (g.name == "window") {
      window = &g.val;
    } else {
      op.push_back(g);
    }
  }
  if (op.size() != 1) return make_error("output " + quoted(f.name) + " must hold exactly one window operator");
  const std::string& name = op.front().name;
  if (name == "$rank" || name == "$denseRank" || name == "$documentNumber") {
    if (window != nullptr) return make_error(quoted(name) + " does not take a window");
    o.rank = name;
    return o;
  }
  if (is_window_function(name)) {
    auto fn = compile_window_function(window_call{name, op.front().val, window, sort_by, f.name, ctx}, o.window);
    if (!fn) return std::move(fn).error();
    o.fn = std::move(*fn);
    return o;
  }
  auto a = compile_accumulator(value(op), f.name, ctx);
  if (!a) return std::move(a).error();
  o.acc = std::move(*a);
  if (window == nullptr) return o;
  auto w = compile_window(*window, sort_by);
  if (!w) return std::move(w).error();
  o.window = std::move(*w);
  return o;
}

}  // namespace

result<stage_ptr> compile_set_window_fields(const value& spec, const compile_ctx& ctx) {
  return compile_window_stage(spec, ctx, "$setWindowFields");
}

result<stage_ptr> compile_window_stage(const value& spec, const compile_ctx& ctx, std::string_view stage_name) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  auto s = std::make_shared<window_stage>();
  s->name = std::string(stage_name);
  const value* output = nullptr;
  for (const field& f : spec.as_document()) {
    if (f.name == "partitionBy") {
      auto e = ctx.compile(f.val);
      if (!e) return make_error("`partitionBy`: " + e.error().message, e.error().kind);
      s->partition_by = std::move(*e);
    } else if (f.name == "sortBy") {
      if (!f.val.is_document() || f.val.as_document().empty()) return make_error("`sortBy` must be a non-empty sort document");
      auto so = sort_spec::compile(f.val.as_document());
      if (!so) return std::move(so).error();
      s->sort_by = std::make_shared<const sort_spec>(std::move(*so));
    } else if (f.name == "output") {
      output = &f.val;
    } else {
      return make_error("unknown argument " + quoted(f.name));
    }
  }
  if (output == nullptr || !output->is_document() || output->as_document().empty()) {
    return make_error("`output` must be a non-empty document");
  }
  for (const field& f : output->as_document()) {
    auto o = compile_output(f, s->sort_by.get(), ctx);
    if (!o) return std::move(o).error();
    if (!o->rank.empty() && !s->sort_by) return make_error(quoted(o->rank) + " needs a `sortBy`");
    if ((o->window.range || (o->fn && o->fn->needs_sort_values)) && !s->sort_value) {
      auto e = ctx.compile(value("$" + s->sort_by->keys().front().path));
      if (!e) return std::move(e).error();
      s->sort_value = std::move(*e);
    }
    s->outputs.push_back(std::move(*o));
  }
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
