// The accumulators that keep a fixed-size state ($sum $avg $min $max $first $last $count
// $stdDevPop $stdDevSamp $mergeObjects) and those that collect ($push $addToSet); compiling
// accumulator specs and $group's output fields. The N-element and percentile ones are in
// accumulators_n.cpp.
#include <cmath>
#include <string>
#include <unordered_set>

#include "engine/aggregate/stage.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::aggregate_detail {

std::unique_ptr<accumulator_state> start_n_accumulator(const accumulator& a);  // accumulators_n.cpp
result<bool> compile_n_accumulator(accumulator& a, const value& arg, const compile_ctx& ctx);

namespace {

struct sum_state final : accumulator_state {
  const accumulator& a;
  numeric_sum sum;
  bool avg;
  sum_state(const accumulator& acc, bool average) : a(acc), avg(average) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (v) sum.add(*v);
    return 0;
  }
  expr_value finish(exec_ctx&) override {
    return avg ? sum.average() : sum.total();
  }
};

struct count_state final : accumulator_state {
  std::int64_t n = 0;
  std::size_t add(const document&, exec_ctx&) override { return ++n, 0; }
  expr_value finish(exec_ctx&) override {
    return n <= INT32_MAX ? value(static_cast<std::int32_t>(n)) : value(n);
  }
};

struct min_max_state final : accumulator_state {
  const accumulator& a;
  bool max;
  expr_value best;
  min_max_state(const accumulator& acc, bool is_max) : a(acc), max(is_max) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (nullish(v)) return 0;
    if (!best || (max ? compare(*v, *best) > 0 : compare(*v, *best) < 0)) {
      const std::size_t before = best ? approx_bytes(*best) : 0;
      best = std::move(v);
      const std::size_t after = approx_bytes(*best);
      return after > before ? after - before : 0;
    }
    return 0;
  }
  expr_value finish(exec_ctx&) override { return best ? best : value(); }
  static bool nullish(const expr_value& v) { return !v || v->is_null(); }
};

struct first_last_state final : accumulator_state {
  const accumulator& a;
  bool last;
  bool seen = false;
  value v;
  first_last_state(const accumulator& acc, bool is_last) : a(acc), last(is_last) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    if (seen && !last) return 0;
    const std::size_t before = seen ? approx_bytes(v) : 0;
    seen = true;
    v = ctx.eval(a.input, doc).value_or(value());
    const std::size_t after = approx_bytes(v);
    return after > before ? after - before : 0;
  }
  expr_value finish(exec_ctx&) override { return v; }
};

struct push_state final : accumulator_state {
  const accumulator& a;
  bool set;
  array items;
  std::unordered_set<std::string> keys;
  push_state(const accumulator& acc, bool to_set) : a(acc), set(to_set) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (!v) return 0;
    std::size_t bytes = approx_bytes(*v);
    if (set) {
      std::string k = encode_key(*v);
      if (keys.count(k) != 0) return 0;
      bytes += k.size() + 32;
      keys.insert(std::move(k));
    }
    items.push_back(std::move(*v));
    return bytes;
  }
  expr_value finish(exec_ctx&) override { return value(items); }
};

struct merge_state final : accumulator_state {
  const accumulator& a;
  document out;
  explicit merge_state(const accumulator& acc) : a(acc) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (!v || v->is_null()) return 0;
    if (!v->is_document()) fail("$mergeObjects requires object inputs, but input is of type " + std::string(bson_type_alias(*v)));
    std::size_t bytes = 0;
    for (field& f : v->as_document()) {
      bytes += approx_bytes(f.val) + f.name.size();
      if (value* e = find_field(out, f.name)) {
        *e = std::move(f.val);
      } else {
        out.push_back(std::move(f));
      }
    }
    return bytes;
  }
  expr_value finish(exec_ctx&) override { return value(out); }
};

// Welford's running variance over the numeric inputs.
struct std_dev_state final : accumulator_state {
  const accumulator& a;
  bool sample;
  std::uint64_t n = 0;
  double mean = 0, m2 = 0;
  std_dev_state(const accumulator& acc, bool samp) : a(acc), sample(samp) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (!v || !v->is_number()) return 0;
    const double x = v->number_as_double();
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
    return 0;
  }
  expr_value finish(exec_ctx&) override {
    if (n == 0 || (sample && n < 2)) return value();
    return value(std::sqrt(m2 / static_cast<double>(sample ? n - 1 : n)));
  }
};

constexpr std::string_view basic_ops[] = {"$sum",    "$avg",        "$min",      "$max",       "$first",
                                          "$last",   "$push",       "$addToSet", "$count",     "$mergeObjects",
                                          "$stdDevPop", "$stdDevSamp"};

}  // namespace

std::unique_ptr<accumulator_state> accumulator::start() const {
  if (op == "$sum") return std::make_unique<sum_state>(*this, false);
  if (op == "$avg") return std::make_unique<sum_state>(*this, true);
  if (op == "$count") return std::make_unique<count_state>();
  if (op == "$min" || op == "$max") return std::make_unique<min_max_state>(*this, op == "$max");
  if (op == "$first" || op == "$last") return std::make_unique<first_last_state>(*this, op == "$last");
  if (op == "$push" || op == "$addToSet") return std::make_unique<push_state>(*this, op == "$addToSet");
  if (op == "$mergeObjects") return std::make_unique<merge_state>(*this);
  if (op == "$stdDevPop" || op == "$stdDevSamp") return std::make_unique<std_dev_state>(*this, op == "$stdDevSamp");
  return start_n_accumulator(*this);
}

result<accumulator> compile_accumulator(const value& spec, const std::string& where, const compile_ctx& ctx) {
  if (!spec.is_document() || spec.as_document().size() != 1 || spec.as_document().front().name.empty() ||
      spec.as_document().front().name[0] != '$') {
    return make_error(quoted(where) + " must be an accumulator object, e.g. {\"$sum\": 1}");
  }
  const field& f = spec.as_document().front();
  accumulator a;
  a.op = f.name;
  if (a.op == "$accumulator" || a.op == "$function") {
    return make_error(quoted(where) + ": " + quoted(a.op) + " is not supported: omgdb runs no JavaScript");
  }
  for (std::string_view b : basic_ops) {
    if (b != a.op) continue;
    if (a.op == "$count") {
      if (!f.val.is_document() || !f.val.as_document().empty()) {
        return make_error(quoted(where) + ": `$count` takes no arguments ({})");
      }
      return a;
    }
    if (f.val.is_array() && a.op != "$push" && a.op != "$addToSet") {
      return make_error(quoted(where) + ": " + quoted(a.op) + " is a unary operator; it takes one expression, not an array");
    }
    auto e = ctx.compile(f.val);
    if (!e) return make_error(quoted(where) + ": " + e.error().message, e.error().kind);
    a.input = std::move(*e);
    return a;
  }
  auto n = compile_n_accumulator(a, f.val, ctx);
  if (!n) return make_error(quoted(where) + ": " + n.error().message, n.error().kind);
  if (!*n) return make_error(quoted(where) + ": unknown accumulator " + quoted(a.op));
  return a;
}

result<std::vector<output_field>> compile_outputs(const document& spec, bool skip_id, const compile_ctx& ctx) {
  std::vector<output_field> out;
  for (const field& f : spec) {
    if (skip_id && f.name == "_id") continue;
    if (f.name.empty()) return make_error("an accumulator field name must not be empty");
    if (f.name.front() == '$') return make_error("accumulator field name " + quoted(f.name) + " must not start with '$'");
    if (f.name.find('.') != std::string::npos) {
      return make_error("accumulator field name " + quoted(f.name) + " must not contain '.'");
    }
    for (const output_field& o : out) {
      if (o.name == f.name) return make_error("accumulator field " + quoted(f.name) + " is given twice");
    }
    auto a = compile_accumulator(f.val, f.name, ctx);
    if (!a) return std::move(a).error();
    out.push_back(output_field{f.name, std::move(*a)});
  }
  return out;
}

}  // namespace omgdb::engine::aggregate_detail
