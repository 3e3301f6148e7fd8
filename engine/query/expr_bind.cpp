// The operators that bind variables: $let, $map, $filter, $reduce.
#include <string>
#include <utility>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

struct let_node final : expression::node {
  std::vector<std::pair<int, node_ptr>> vars;
  node_ptr in;
  expr_value eval(eval_ctx& ctx) const override {
    std::vector<expr_value> values;
    values.reserve(vars.size());
    for (const auto& [slot, e] : vars) values.push_back(e->eval(ctx));
    for (std::size_t i = 0; i < vars.size(); ++i) ctx.slots[static_cast<std::size_t>(vars[i].first)] = std::move(values[i]);
    return in->eval(ctx);
  }
};

// $map, $filter and $reduce: an input array and a per-element body.
struct iterate_node final : expression::node {
  enum class mode { map, filter, reduce } kind = mode::map;
  node_ptr input, body, initial, limit;
  int this_slot = 0, value_slot = 0;

  expr_value eval(eval_ctx& ctx) const override {
    const char* op = kind == mode::map ? "$map" : (kind == mode::filter ? "$filter" : "$reduce");
    expr_value in = input->eval(ctx);
    if (nullish(in)) return value();
    if (!in->is_array()) fail(std::string("input to ") + op + " must be an array not " + type_name(*in));
    auto& slot = ctx.slots[static_cast<std::size_t>(this_slot)];
    if (kind == mode::reduce) {
      // Only the current accumulator is alive: each step gives back what the previous one
      // charged and charges the new value (a `$reduce` that grows or nests its value is
      // refused when the value passes the bound, not after it has built it).
      const std::uint64_t at = ctx.budget.used();
      expr_value acc = initial->eval(ctx);
      for (const value& e : in->as_array()) {
        ctx.slots[static_cast<std::size_t>(value_slot)] = std::move(acc);
        ctx.slots[static_cast<std::size_t>(this_slot)] = e;
        acc = body->eval(ctx);
        ctx.slots[static_cast<std::size_t>(value_slot)].reset();
        settle(ctx, at, acc, "$reduce");
      }
      return acc;
    }
    std::int64_t max = -1;
    if (limit) {
      expr_value l = limit->eval(ctx);
      if (!nullish(l)) {
        max = integral_arg("$filter limit", *l);
        if (max <= 0) fail("$filter: limit must be greater than 0, got " + std::to_string(max));
      }
    }
    // Each `$map` result stays charged as its body settled it; `$filter` copies elements of an
    // input already charged. The whole output is settled at the end.
    const std::uint64_t at = ctx.budget.used();
    array out;
    if (kind == mode::map) reserve_built(ctx, out, in->as_array().size(), op);
    for (const value& e : in->as_array()) {
      slot = e;
      if (kind == mode::map) {
        expr_value v = body->eval(ctx);
        out.push_back(v ? std::move(*v) : value());
      } else if (expr_truthy(body->eval(ctx))) {
        push_copy(ctx, out, e, op);
        if (max > 0 && static_cast<std::int64_t>(out.size()) >= max) break;
      }
    }
    expr_value r = value(std::move(out));
    settle(ctx, at, r, op);
    return r;
  }
};

}  // namespace

status only_keys(const std::string& op, const document& d, std::initializer_list<std::string_view> keys) {
  for (const field& f : d) {
    bool ok = false;
    for (std::string_view k : keys) ok = ok || k == f.name;
    if (!ok) return make_error(quoted(op) + " does not take " + quoted(f.name));
  }
  return {};
}

result<node_ptr> required(compiler& c, const std::string& op, const document& d, std::string_view key) {
  const value* v = find_field(d, key);
  if (v == nullptr) return make_error(quoted(op) + " is missing " + quoted(key));
  return c.compile(*v);
}

namespace {

status variable_name(const std::string& op, const std::string& name) {
  const bool ok = !name.empty() && ((name[0] >= 'a' && name[0] <= 'z') || static_cast<unsigned char>(name[0]) >= 0x80);
  bool chars = true;
  for (char ch : name) chars = chars && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || static_cast<unsigned char>(ch) >= 0x80);
  if (!ok || !chars) {
    return make_error(quoted(op) + ": variable name " + quoted(name) +
                      " must start with a lower-case letter and hold only letters, digits and '_'");
  }
  return {};
}

result<node_ptr> compile_let(compiler& c, const document& d) {
  if (auto st = only_keys("$let", d, {"vars", "in"}); !st) return std::move(st).error();
  const value* vars = find_field(d, "vars");
  if (vars == nullptr || !vars->is_document()) return make_error("`$let` needs `vars`, a document");
  auto n = std::make_unique<let_node>();
  std::vector<std::pair<std::string, node_ptr>> compiled;
  for (const field& f : vars->as_document()) {
    if (auto st = variable_name("$let", f.name); !st) return std::move(st).error();
    auto e = c.compile(f.val);
    if (!e) return std::move(e).error();
    compiled.emplace_back(f.name, std::move(*e));
  }
  for (auto& [name, e] : compiled) n->vars.emplace_back(c.bind(name), std::move(e));
  auto in = required(c, "$let", d, "in");
  c.pop_scope(compiled.size());
  if (!in) return std::move(in).error();
  n->in = std::move(*in);
  return node_ptr(std::move(n));
}

result<node_ptr> compile_iterate(compiler& c, const std::string& op, const document& d) {
  auto n = std::make_unique<iterate_node>();
  const bool reduce = op == "$reduce";
  n->kind = op == "$map" ? iterate_node::mode::map : (reduce ? iterate_node::mode::reduce : iterate_node::mode::filter);
  status keys = reduce ? only_keys(op, d, {"input", "initialValue", "in"})
                       : (op == "$map" ? only_keys(op, d, {"input", "as", "in"})
                                       : only_keys(op, d, {"input", "as", "cond", "limit"}));
  if (!keys) return std::move(keys).error();
  auto input = required(c, op, d, "input");
  if (!input) return std::move(input).error();
  n->input = std::move(*input);
  if (reduce) {
    auto init = required(c, op, d, "initialValue");
    if (!init) return std::move(init).error();
    n->initial = std::move(*init);
  }
  if (const value* l = find_field(d, "limit")) {
    auto lim = c.compile(*l);
    if (!lim) return std::move(lim).error();
    n->limit = std::move(*lim);
  }
  std::string as = "this";
  if (const value* a = find_field(d, "as")) {
    if (!a->is_string()) return make_error(quoted(op) + ": `as` must be a string");
    as = a->as_string();
    if (auto st = variable_name(op, as); !st) return std::move(st).error();
  }
  std::size_t bound = 1;
  if (reduce) {
    n->value_slot = c.bind("value");
    ++bound;
  }
  n->this_slot = c.bind(as);
  auto body = required(c, op, d, op == "$filter" ? "cond" : "in");
  c.pop_scope(bound);
  if (!body) return std::move(body).error();
  n->body = std::move(*body);
  return node_ptr(std::move(n));
}

}  // namespace

result<node_ptr> compile_binding(compiler& c, const std::string& name, const value& arg, bool& handled) {
  handled = name == "$let" || name == "$map" || name == "$filter" || name == "$reduce" || name == "$switch";
  if (!handled) return node_ptr{};
  if (!arg.is_document()) return make_error(quoted(name) + " takes a document of named arguments");
  const document& d = arg.as_document();
  if (name == "$let") return compile_let(c, d);
  if (name == "$switch") return compile_switch(c, d);
  return compile_iterate(c, name, d);
}

}  // namespace omgdb::engine::expr_detail
