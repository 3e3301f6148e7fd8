// $setWindowFields: per partition (partitionBy), in sortBy order, each output field is an
// accumulator over a window of documents ({documents: [lower, upper]} with "unbounded",
// "current" or an offset; default: the whole partition) or a rank ($rank, $denseRank,
// $documentNumber), or a gap filler over the partition ($locf, $linearFill: stage_fill.cpp).
// Range windows (`range`, `unit`) are refused. The stage holds its whole input within the
// memory limit; output is in partition, then sort, order.
#include <algorithm>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

constexpr std::int64_t k_unbounded = INT64_MIN;

struct window_output {
  std::string path;
  std::string rank;  // "$rank", "$denseRank", "$documentNumber", "$locf", "$linearFill", or empty: an accumulator
  accumulator acc;
  expression fill_input;  // $locf / $linearFill
  std::int64_t lower = k_unbounded, upper = INT64_MAX;  // INT64_MAX: unbounded above
};

bool is_gap_filler(std::string_view op) { return op == "$locf" || op == "$linearFill"; }

struct window_stage final : stage {
  std::string name = "$setWindowFields";  // in the memory limit error
  std::optional<expression> partition_by;
  std::shared_ptr<const sort_spec> sort_by;
  std::optional<expression> sort_field;  // "$<the one sortBy field>" ($linearFill)
  std::vector<window_output> outputs;

  struct row {
    std::string partition;
    array key;
    std::uint64_t seq;
    document doc;
  };

  void fill(std::vector<row>& rows, std::size_t b, std::size_t e, const window_output& o, std::vector<value>& out,
            exec_ctx& ctx) const {
    if (is_gap_filler(o.rank)) {
      std::vector<expr_value> ys, xs;
      for (std::size_t i = b; i < e; ++i) {
        ctx.poll();
        ys.push_back(ctx.eval(o.fill_input, rows[i].doc));
        if (o.rank == "$linearFill") xs.push_back(ctx.eval(*sort_field, rows[i].doc));
      }
      out = o.rank == "$locf" ? locf_values(ys) : linear_fill_values(ys, xs);
      return;
    }
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
    const auto n = static_cast<std::int64_t>(e - b);
    auto clamp = [&](std::int64_t i, std::int64_t off, bool low) -> std::int64_t {
      if (low && off == k_unbounded) return 0;
      if (!low && off == INT64_MAX) return n - 1;
      return std::clamp<std::int64_t>(i + off, -1, n);
    };
    std::unique_ptr<accumulator_state> running;
    std::int64_t added = -1;  // the last row fed to `running`
    for (std::int64_t i = 0; i < n; ++i) {
      ctx.poll();
      const std::int64_t lo = std::max<std::int64_t>(0, clamp(i, o.lower, true));
      const std::int64_t hi = std::min<std::int64_t>(n - 1, clamp(i, o.upper, false));
      if (o.lower == k_unbounded) {  // a growing window: feed the state incrementally
        if (!running) running = o.acc.start();
        for (; added < hi; ++added) running->add(rows[b + static_cast<std::size_t>(added + 1)].doc, ctx);
        out.push_back(running->finish(ctx).value_or(value()));
        continue;
      }
      auto state = o.acc.start();
      for (std::int64_t k = lo; k <= hi; ++k) state->add(rows[b + static_cast<std::size_t>(k)].doc, ctx);
      out.push_back(state->finish(ctx).value_or(value()));
    }
  }

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    memory_budget budget(name, ctx);
    std::vector<row> rows;
    document d;
    std::uint64_t seq = 0;
    while (input->next(d)) {
      ctx.poll();
      row r{partition_by ? encode_key(ctx.eval(*partition_by, d).value_or(value())) : std::string(), {}, seq++, std::move(d)};
      if (sort_by) {
        r.key = sort_by->sort_key(r.doc);
        r.key.pop_back();  // no `_id` tiebreak: equal keys rank equal
      }
      budget.add(approx_bytes(r.doc) + r.partition.size() + approx_bytes(value(r.key)) + sizeof(row) + outputs.size() * 64);
      rows.push_back(std::move(r));
      d = document{};
    }
    std::stable_sort(rows.begin(), rows.end(), [this](const row& a, const row& b) {
      if (a.partition != b.partition) return a.partition < b.partition;
      return sort_by ? sort_by->compare_keys(a.key, b.key) < 0 : false;
    });
    for (std::size_t b = 0; b < rows.size();) {
      std::size_t e = b + 1;
      while (e < rows.size() && rows[e].partition == rows[b].partition) ++e;
      std::vector<std::vector<value>> values(outputs.size());
      for (std::size_t k = 0; k < outputs.size(); ++k) fill(rows, b, e, outputs[k], values[k], ctx);
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        for (std::size_t i = b; i < e; ++i) set_path(rows[i].doc, outputs[k].path, std::move(values[k][i - b]));
      }
      b = e;
    }
    std::vector<document> out;
    out.reserve(rows.size());
    for (row& r : rows) out.push_back(std::move(r.doc));
    return vector_cursor(std::move(out));
  }
};

result<std::int64_t> bound(const value& v, bool lower) {
  if (v.is_string() && v.as_string() == "unbounded") return lower ? k_unbounded : INT64_MAX;
  if (v.is_string() && v.as_string() == "current") return std::int64_t{0};
  if ((v.is_int32() || v.is_int64()) && !(v.is_int64() && (v.as_int64() == INT64_MIN || v.as_int64() == INT64_MAX))) {
    return v.is_int32() ? std::int64_t{v.as_int32()} : v.as_int64();
  }
  return make_error("window bounds must be \"unbounded\", \"current\" or an integer");
}

result<window_output> compile_output(const field& f, const compile_ctx& ctx) {
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
  if (is_gap_filler(name)) {
    if (window != nullptr) return make_error(quoted(name) + " does not take a window");
    auto e = ctx.compile(op.front().val);
    if (!e) return make_error(quoted(name) + ": " + e.error().message);
    o.rank = name;
    o.fill_input = std::move(*e);
    return o;
  }
  auto a = compile_accumulator(value(op), f.name, ctx);
  if (!a) return std::move(a).error();
  o.acc = std::move(*a);
  if (window == nullptr) return o;
  if (!window->is_document()) return make_error("`window` must be a document");
  for (const field& w : window->as_document()) {
    if (w.name == "range" || w.name == "unit") return make_error("range windows (`range`, `unit`) are not supported yet; use `documents`");
    if (w.name != "documents") return make_error("unknown window argument " + quoted(w.name));
    if (!w.val.is_array() || w.val.as_array().size() != 2) return make_error("`documents` must be [lower, upper]");
    auto lo = bound(w.val.as_array()[0], true);
    if (!lo) return std::move(lo).error();
    auto hi = bound(w.val.as_array()[1], false);
    if (!hi) return std::move(hi).error();
    if (w.val.as_array()[0].is_string() && w.val.as_array()[0].as_string() == "unbounded") o.lower = k_unbounded; else o.lower = *lo;
    o.upper = *hi;
    if (o.lower != k_unbounded && o.upper != INT64_MAX && o.lower > o.upper) return make_error("the lower window bound must not be above the upper one");
  }
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
      if (!e) return make_error("`partitionBy`: " + e.error().message);
      s->partition_by = std::move(*e);
    } else if (f.name == "sortBy") {
      if (!f.val.is_document() || f.val.as_document().empty()) return make_error("`sortBy` must be a non-empty sort document");
      auto so = sort_spec::compile(f.val.as_document());
      if (!so) return std::move(so).error();
      s->sort_by = std::make_shared<const sort_spec>(std::move(*so));
      if (f.val.as_document().size() == 1) {  // for $linearFill, which reads the sort value
        if (auto e = ctx.compile(value("$" + f.val.as_document().front().name))) s->sort_field = std::move(*e);
      }
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
    auto o = compile_output(f, ctx);
    if (!o) return std::move(o).error();
    if (o->rank == "$linearFill" && !s->sort_by) return make_error("`$linearFill` requires a sortBy");
    if (o->rank == "$linearFill" && !s->sort_field) return make_error("`$linearFill` requires a non-compound sortBy");
    if (!o->rank.empty() && o->rank != "$locf" && !s->sort_by) return make_error(quoted(o->rank) + " needs a `sortBy`");
    s->outputs.push_back(std::move(*o));
  }
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
