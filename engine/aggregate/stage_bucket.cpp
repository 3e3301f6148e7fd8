// $bucket (documents into [lower, upper) intervals of given boundaries, others into
// `default`) and $bucketAuto (into n buckets of about equal size, never splitting equal
// values). Without `output` each bucket counts its documents ({count: {$sum: 1}}).
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

using states = std::vector<std::unique_ptr<accumulator_state>>;

states start(const std::vector<output_field>& outputs) {
  states s;
  for (const output_field& o : outputs) s.push_back(o.acc.start());
  return s;
}

document finish(value id, states& s, const std::vector<output_field>& outputs, exec_ctx& ctx) {
  document out{{"_id", std::move(id)}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    expr_value v = s[i]->finish(ctx);
    if (v) out.push_back(field{outputs[i].name, std::move(*v)});
  }
  return out;
}

// Adds a finished bucket to the stage's output: depth-checked and charged to the stage (the
// budget goes with the output cursor).
void keep_output(std::vector<document>& out, document d, memory_budget& budget) {
  const value_measure m = measure_document(d, k_max_built_depth);
  call_budget::check_depth(m.depth, "stage " + quoted(budget.stage()));
  budget.add(m.bytes);
  out.push_back(std::move(d));
}

struct bucket_stage final : stage {
  expression group_by;
  array boundaries;
  std::optional<value> otherwise;
  std::vector<output_field> outputs;

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    auto held = std::make_unique<memory_budget>("$bucket", ctx);
    memory_budget& budget = *held;
    std::vector<states> buckets(boundaries.size());  // the last one: default
    document d;
    while (input->next(d)) {
      ctx.poll();
      expr_value v = ctx.eval(group_by, d);
      if (!v) v = value();
      auto upper = std::upper_bound(boundaries.begin(), boundaries.end(), *v,
                                    [](const value& x, const value& b) { return compare_expr(x, b) < 0; });
      std::size_t slot = boundaries.size() - 1;
      if (upper != boundaries.begin() && upper != boundaries.end()) {
        slot = static_cast<std::size_t>(upper - boundaries.begin()) - 1;
      } else if (!otherwise) {
        fail("$bucket could not find a matching branch for an input, and no default was specified.");
      }
      if (buckets[slot].empty()) {
        buckets[slot] = start(outputs);
        budget.add(96 + outputs.size() * 64);
      }
      for (auto& st : buckets[slot]) budget.add(st->add(d, ctx));
    }
    std::vector<document> out;
    const std::size_t states_bytes = budget.used();  // given back once `buckets` is gone
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      if (buckets[i].empty()) continue;
      ctx.poll();
      keep_output(out, finish(i + 1 == buckets.size() ? *otherwise : boundaries[i], buckets[i], outputs, ctx), budget);
      buckets[i].clear();
    }
    budget.release(states_bytes);
    return vector_cursor(std::move(out), std::move(held));
  }
};

struct bucket_auto_stage final : stage {
  expression group_by;
  std::uint64_t buckets = 1;
  std::vector<output_field> outputs;

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    auto held = std::make_unique<memory_budget>("$bucketAuto", ctx);
    memory_budget& budget = *held;
    std::vector<std::pair<value, document>> all;
    document d;
    while (input->next(d)) {
      ctx.poll();
      value v = ctx.eval(group_by, d).value_or(value());
      budget.add(approx_bytes(v) + approx_bytes(d) + 32);
      all.emplace_back(std::move(v), std::move(d));
      d = document{};
    }
    std::stable_sort(all.begin(), all.end(), [&ctx](const auto& a, const auto& b) {
      ctx.poll();
      return compare(a.first, b.first) < 0;
    });
    const std::size_t n = all.size();
    // MongoDB fills a bucket while it holds fewer than n / buckets documents.
    const std::size_t per = std::max<std::size_t>(1, (n + buckets - 1) / buckets);
    struct range {
      std::size_t begin, end;
    };
    std::vector<range> ranges;
    for (std::size_t i = 0; i < n;) {
      std::size_t j = std::min(n, i + per);
      if (ranges.size() + 1 == buckets) j = n;  // the last bucket takes the rest
      while (j < n && compare(all[j].first, all[j - 1].first) == 0) ++j;
      ranges.push_back({i, j});
      i = j;
    }
    std::vector<document> out;
    const std::size_t input_bytes = budget.used();  // given back once `all` is gone
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      states s = start(outputs);
      memory_budget states_held("$bucketAuto", ctx);  // this bucket's accumulators, until it is finished
      for (std::size_t i = ranges[r].begin; i < ranges[r].end; ++i) {
        ctx.poll();
        for (auto& st : s) states_held.add(st->add(all[i].second, ctx));
      }
      const value& max = r + 1 < ranges.size() ? all[ranges[r + 1].begin].first : all[ranges[r].end - 1].first;
      value id(document{{"min", all[ranges[r].begin].first}, {"max", max}});
      keep_output(out, finish(std::move(id), s, outputs, ctx), budget);
    }
    all.clear();
    budget.release(input_bytes);
    return vector_cursor(std::move(out), std::move(held));
  }
};

result<std::vector<output_field>> outputs_of(const document& d, const compile_ctx& ctx) {
  const value* o = find_field(d, "output");
  if (o == nullptr) return compile_outputs(document{{"count", value(document{{"$sum", value(std::int32_t{1})}})}}, false, ctx);
  if (!o->is_document()) return make_error("`output` must be a document of accumulators");
  return compile_outputs(o->as_document(), false, ctx);
}

result<expression> group_by_of(const document& d, const compile_ctx& ctx) {
  const value* g = find_field(d, "groupBy");
  if (g == nullptr) return make_error("missing `groupBy`");
  const bool path = g->is_string() && !g->as_string().empty() && g->as_string()[0] == '$';
  const bool op = g->is_document() && !g->as_document().empty() && g->as_document().front().name[0] == '$';
  if (!path && !op) return make_error("`groupBy` must be a field path (\"$field\") or an operator expression");
  auto e = ctx.compile(*g);
  if (!e) return make_error("`groupBy`: " + e.error().message, e.error().kind);
  return e;
}

status known_keys(const document& d, std::initializer_list<std::string_view> keys) {
  for (const field& f : d) {
    if (std::find(keys.begin(), keys.end(), f.name) == keys.end()) return make_error("unknown argument " + quoted(f.name));
  }
  return {};
}

}  // namespace

result<stage_ptr> compile_bucket(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  const document& d = spec.as_document();
  if (auto st = known_keys(d, {"groupBy", "boundaries", "default", "output"}); !st) return std::move(st).error();
  auto s = std::make_shared<bucket_stage>();
  auto g = group_by_of(d, ctx);
  if (!g) return std::move(g).error();
  s->group_by = std::move(*g);
  const value* b = find_field(d, "boundaries");
  if (b == nullptr || !b->is_array() || b->as_array().size() < 2) return make_error("`boundaries` must be an array of at least 2 values");
  s->boundaries = b->as_array();
  for (std::size_t i = 1; i < s->boundaries.size(); ++i) {
    if (type_rank(s->boundaries[i]) != type_rank(s->boundaries[0])) return make_error("all `boundaries` must be of the same type");
    if (compare(s->boundaries[i - 1], s->boundaries[i]) >= 0) return make_error("`boundaries` must be sorted in ascending order");
  }
  if (const value* def = find_field(d, "default")) {
    if (compare(*def, s->boundaries.front()) >= 0 && compare(*def, s->boundaries.back()) < 0 &&
        type_rank(*def) == type_rank(s->boundaries.front())) {
      return make_error("the `default` value must lie outside the range of the `boundaries`");
    }
    s->otherwise = *def;
  }
  auto outs = outputs_of(d, ctx);
  if (!outs) return std::move(outs).error();
  s->outputs = std::move(*outs);
  return stage_ptr(s);
}

result<stage_ptr> compile_bucket_auto(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  const document& d = spec.as_document();
  if (auto st = known_keys(d, {"groupBy", "buckets", "output", "granularity"}); !st) return std::move(st).error();
  if (find_field(d, "granularity") != nullptr) return make_error("`granularity` is not supported (omgdb splits by count only)");
  auto s = std::make_shared<bucket_auto_stage>();
  auto g = group_by_of(d, ctx);
  if (!g) return std::move(g).error();
  s->group_by = std::move(*g);
  const value* n = find_field(d, "buckets");
  const double nd = n != nullptr && n->is_number() ? n->number_as_double() : 0;
  if (!(nd >= 1) || nd != std::trunc(nd) || nd > 1e9) return make_error("`buckets` must be a positive integer");
  s->buckets = static_cast<std::uint64_t>(nd);
  auto outs = outputs_of(d, ctx);
  if (!outs) return std::move(outs).error();
  s->outputs = std::move(*outs);
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
