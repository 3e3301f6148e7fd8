// The accumulators that keep up to n values ($firstN $lastN $maxN $minN, $top $bottom $topN
// $bottomN) and the percentile ones ($median, $percentile). `n` is evaluated once per group,
// against an empty document, and must be a positive integer.
#include <algorithm>
#include <cmath>
#include <deque>

#include "engine/aggregate/stage.hpp"
#include "engine/query/percentile.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

std::uint64_t n_of(const accumulator& a, exec_ctx& ctx) {
  expr_value v = ctx.eval(a.n, document{});
  const double d = v && v->is_number() ? v->number_as_double() : 0;
  if (!(d >= 1) || d != std::trunc(d) || d > 1e9) {
    fail("'n' of " + a.op + " must be a positive integer, found " + std::string(v ? bson_type_alias(*v) : "missing"));
  }
  return static_cast<std::uint64_t>(d);
}

struct first_last_n final : accumulator_state {
  const accumulator& a;
  std::uint64_t n = 0;
  std::deque<value> items;
  explicit first_last_n(const accumulator& acc) : a(acc) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    if (n == 0) n = n_of(a, ctx);
    const bool first = a.op == "$firstN";
    if (first && items.size() >= n) return 0;
    value v = ctx.eval(a.input, doc).value_or(value());
    const std::size_t bytes = approx_bytes(v);
    items.push_back(std::move(v));
    if (items.size() > n) items.pop_front();
    return bytes;
  }
  expr_value finish(exec_ctx&) override { return value(array(items.begin(), items.end())); }
};

// $maxN / $minN (values) and $top / $bottom / $topN / $bottomN (sort keys and outputs):
// the best n entries, kept by trimming whenever 2n accumulate.
struct best_n final : accumulator_state {
  struct entry {
    array key;
    value out;
    std::uint64_t seq;
  };
  const accumulator& a;
  std::uint64_t n = 0, seq = 0;
  std::vector<entry> items;
  bool single;  // $top / $bottom: one value, not an array
  explicit best_n(const accumulator& acc) : a(acc), single(acc.op == "$top" || acc.op == "$bottom") {}

  bool better(const entry& x, const entry& y) const {
    int c = 0;
    if (a.sort_by) {
      c = a.sort_by->compare_keys(x.key, y.key);
      if (a.op == "$bottom" || a.op == "$bottomN") c = -c;
    } else {
      c = compare(x.out, y.out);
      if (a.op == "$maxN") c = -c;
    }
    if (c != 0) return c < 0;
    const bool later_wins = a.op == "$bottom" || a.op == "$bottomN";
    return later_wins ? x.seq > y.seq : x.seq < y.seq;
  }
  void trim() {
    std::sort(items.begin(), items.end(), [this](const entry& x, const entry& y) { return better(x, y); });
    if (items.size() > n) items.resize(n);
  }
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    if (n == 0) n = single ? 1 : n_of(a, ctx);
    entry e{{}, ctx.eval(a.input, doc).value_or(value()), seq++};
    if (!a.sort_by && e.out.is_null()) return 0;  // $maxN / $minN skip null and missing
    if (a.sort_by) {
      array key = a.sort_by->sort_key(doc);
      key.pop_back();  // the `_id` tiebreak: the arrival order decides instead
      e.key = std::move(key);
    }
    const std::size_t bytes = approx_bytes(e.out) + approx_bytes(value(e.key));
    items.push_back(std::move(e));
    if (items.size() >= 2 * n) trim();
    return bytes;
  }
  expr_value finish(exec_ctx&) override {
    trim();
    if (single) return items.empty() ? value() : items.front().out;
    array out;
    for (const entry& e : items) out.push_back(e.out);  // finish() may be called again (windows)
    if (a.op == "$bottomN") std::reverse(out.begin(), out.end());  // in sort order
    return value(std::move(out));
  }
};

struct percentile_state final : accumulator_state {
  const accumulator& a;
  std::vector<double> values;
  bool continuous;
  explicit percentile_state(const accumulator& acc, bool cont) : a(acc), continuous(cont) {}
  std::size_t add(const document& doc, exec_ctx& ctx) override {
    expr_value v = ctx.eval(a.input, doc);
    if (!v || !v->is_number()) return 0;
    values.push_back(v->number_as_double());
    return sizeof(double);
  }
  expr_value finish(exec_ctx&) override {
    array out = percentiles_of(values, a.percentiles, continuous);
    if (a.op == "$median") return out.front();
    return value(std::move(out));
  }
};

status only(const document& d, std::initializer_list<std::string_view> keys, const std::string& op) {
  for (const field& f : d) {
    if (std::find(keys.begin(), keys.end(), f.name) == keys.end()) {
      return make_error(quoted(op) + " does not take " + quoted(f.name));
    }
  }
  for (std::string_view k : keys) {
    if (k != "method" && find_field(d, k) == nullptr) return make_error(quoted(op) + " is missing " + quoted(k));
  }
  return {};
}

}  // namespace

std::unique_ptr<accumulator_state> start_n_accumulator(const accumulator& a) {
  if (a.op == "$firstN" || a.op == "$lastN") return std::make_unique<first_last_n>(a);
  if (a.op == "$median" || a.op == "$percentile") return std::make_unique<percentile_state>(a, a.continuous);
  return std::make_unique<best_n>(a);
}

// Compiles the accumulators of this file into `a`; false when a.op is none of them.
result<bool> compile_n_accumulator(accumulator& a, const value& arg, const compile_ctx& ctx) {
  const std::string& op = a.op;
  const bool top = op == "$top" || op == "$bottom" || op == "$topN" || op == "$bottomN";
  const bool n_op = op == "$firstN" || op == "$lastN" || op == "$maxN" || op == "$minN";
  const bool pct = op == "$median" || op == "$percentile";
  if (!top && !n_op && !pct) return false;
  if (!arg.is_document()) return make_error(quoted(op) + " takes a document of named arguments");
  const document& d = arg.as_document();
  status keys = top ? (op == "$top" || op == "$bottom" ? only(d, {"sortBy", "output"}, op)
                                                     : only(d, {"sortBy", "output", "n"}, op))
                    : (n_op ? only(d, {"input", "n"}, op)
                            : (op == "$median" ? only(d, {"input", "method"}, op) : only(d, {"input", "p", "method"}, op)));
  if (!keys) return std::move(keys).error();
  auto input = ctx.compile(*find_field(d, top ? "output" : "input"));
  if (!input) return std::move(input).error();
  a.input = std::move(*input);
  if (const value* n = find_field(d, "n")) {
    auto e = ctx.compile(*n);
    if (!e) return std::move(e).error();
    a.n = std::move(*e);
  }
  if (top) {
    const value* by = find_field(d, "sortBy");
    if (!by->is_document() || by->as_document().empty()) return make_error(quoted(op) + ": `sortBy` must be a non-empty sort document");
    auto s = sort_spec::compile(by->as_document());
    if (!s) return std::move(s).error();
    a.sort_by = std::make_shared<const sort_spec>(std::move(*s));
  }
  if (pct) {
    const value* m = find_field(d, "method");
    if (m == nullptr || !m->is_string() ||
        (m->as_string() != "approximate" && m->as_string() != "discrete" && m->as_string() != "continuous")) {
      return make_error(quoted(op) + ": `method` must be \"approximate\", \"discrete\" or \"continuous\"");
    }
    a.continuous = m->as_string() == "continuous";
    if (op == "$median") {
      a.percentiles.push_back(0.5);
    } else {
      const value* p = find_field(d, "p");
      if (!p->is_array() || p->as_array().empty()) return make_error("`$percentile`: `p` must be a non-empty array of numbers in [0, 1]");
      for (const value& x : p->as_array()) {
        const double v = x.is_number() ? x.number_as_double() : -1;
        if (!(v >= 0 && v <= 1)) return make_error("`$percentile`: `p` must be a non-empty array of numbers in [0, 1]");
        a.percentiles.push_back(v);
      }
    }
  }
  return true;
}

}  // namespace omgdb::engine::aggregate_detail
