// Aggregation expressions: the node kinds every expression is built of (literals, field
// paths, variables, arrays and documents of expressions), the compiler, and the public API.
// Operators live in expr_logic.cpp, expr_arith.cpp, expr_string.cpp, … (see expr_detail.hpp).
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine {
namespace expr_detail {
namespace {

struct literal_node final : expression::node {
  expr_value v;
  bool container = false;  // a copy costs memory (an array, document or string literal)
  explicit literal_node(expr_value x) : v(std::move(x)) {
    container = v && (v->is_array() || v->is_document() || v->is_string());
  }
  expr_value eval(eval_ctx& ctx) const override {
    if (!container) return v;
    const std::uint64_t at = ctx.budget.used();
    expr_value r = v;
    settle(ctx, at, r, "a literal");
    return r;
  }
};

// "$a.b" or "$$ROOT.a.b": fields by name; arrays map over their document elements.
struct field_path_node final : expression::node {
  std::vector<std::string> parts;  // empty: the root itself ($$ROOT)
  expr_value eval(eval_ctx& ctx) const override {
    const std::uint64_t at = ctx.budget.used();
    expr_value r;
    if (parts.empty()) {
      r = value(ctx.root);
    } else if (const value* v = find_field(ctx.root, parts[0])) {
      r = walk_fields(*v, parts, 1);
    }
    settle(ctx, at, r, "a field path");
    return r;
  }
};

// "$$name" or "$$name.a.b": a variable bound by $let, $map, … or by the caller.
struct variable_node final : expression::node {
  int slot = 0;
  std::vector<std::string> parts;
  expr_value eval(eval_ctx& ctx) const override {
    const expr_value& v = ctx.slots[static_cast<std::size_t>(slot)];
    const std::uint64_t at = ctx.budget.used();
    expr_value r = !v || parts.empty() ? v : walk_fields(*v, parts, 0);
    settle(ctx, at, r, "a variable");
    return r;
  }
};

struct now_node final : expression::node {
  expr_value eval(eval_ctx& ctx) const override { return value(date_time{ctx.now_millis}); }
};

struct array_node final : expression::node {
  std::vector<node_ptr> items;
  expr_value eval(eval_ctx& ctx) const override {
    const std::uint64_t at = ctx.budget.used();
    array out;
    out.reserve(items.size());
    for (const auto& e : items) {
      expr_value v = e->eval(ctx);
      out.push_back(v ? std::move(*v) : value());  // missing becomes null inside an array
    }
    expr_value r = value(std::move(out));
    settle(ctx, at, r, "an array expression");
    return r;
  }
};

struct object_node final : expression::node {
  std::vector<std::pair<std::string, node_ptr>> fields;
  expr_value eval(eval_ctx& ctx) const override {
    const std::uint64_t at = ctx.budget.used();
    document out;
    for (const auto& [name, e] : fields) {
      expr_value v = e->eval(ctx);
      if (v) out.push_back(field{name, std::move(*v)});  // a missing field is left out
    }
    expr_value r = value(std::move(out));
    settle(ctx, at, r, "a document expression");
    return r;
  }
};

std::string arguments(int n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

const op_info* find_op(std::string_view name) {
  static const op_table tables[] = {core_ops(),  arith_ops(), string_ops(), regex_ops(), array_ops(),
                                    set_ops(),   object_ops(), type_ops(),  date_ops(),  accum_ops(),
                                    math_ops(),  trig_ops(),  bits_ops(),   misc_ops(),  hash_ops(),
                                    percentile_ops()};
  for (const op_table& t : tables) {
    for (const op_info* op = t.begin; op != t.end; ++op) {
      if (op->name == name) return op;
    }
  }
  return nullptr;
}

// Splits "a.b.c" into field names; empty pieces and pieces starting with '$' are errors.
status split_path(std::string_view rest, const std::string& text, std::vector<std::string>& out) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = rest.find('.', start);
    const std::string_view piece = rest.substr(start, dot == rest.npos ? rest.npos : dot - start);
    if (piece.empty()) return make_error("field path " + quoted(text) + " has an empty component");
    if (piece.front() == '$') {
      return make_error("field path " + quoted(text) + " has a component starting with '$'");
    }
    out.emplace_back(piece);
    if (dot == rest.npos) return {};
    start = dot + 1;
  }
}

}  // namespace

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

void settle_slow(eval_ctx& ctx, std::uint64_t, const value& r, std::string_view what) {
  const value_measure m = measure_value(r, k_max_built_depth);
  call_budget::check_depth(m.depth, what);
  ctx.budget.charge(m.bytes, what);
}

expr_value walk_fields(const value& start, const std::vector<std::string>& parts, std::size_t i) {
  const value* v = &start;
  for (; i < parts.size(); ++i) {
    if (v->is_array()) {
      array out;
      for (const value& e : v->as_array()) {
        if (!e.is_document()) continue;
        const value* f = find_field(e.as_document(), parts[i]);
        if (f == nullptr) continue;
        expr_value nested = walk_fields(*f, parts, i + 1);
        if (nested) out.push_back(std::move(*nested));
      }
      return value(std::move(out));
    }
    if (!v->is_document()) return std::nullopt;
    v = find_field(v->as_document(), parts[i]);
    if (v == nullptr) return std::nullopt;
  }
  return *v;
}

compiler::compiler(const expression_options& options) : options_(options) {
  for (const std::string& name : options.variables) bind(name);
}

int compiler::bind(const std::string& name) {
  scope_.emplace_back(name, slots_);
  return slots_++;
}

void compiler::pop_scope(std::size_t count) { scope_.resize(scope_.size() - count); }

result<node_ptr> compiler::compile(const value& spec) {
  if (++nodes_ > k_max_expression_nodes) {
    return make_error("the expression has more than " + std::to_string(k_max_expression_nodes) +
                      " operators and operands (field paths, literals and array items count too)", failure_kind::limit_exceeded);
  }
  if (spec.is_string() && !spec.as_string().empty() && spec.as_string().front() == '$') {
    return field_path(spec.as_string());
  }
  if (spec.is_array()) {
    auto n = std::make_unique<array_node>();
    for (const value& e : spec.as_array()) {
      auto c = compile(e);
      if (!c) return std::move(c).error();
      n->items.push_back(std::move(*c));
    }
    return node_ptr(std::move(n));
  }
  if (spec.is_document()) return object(spec.as_document());
  return node_ptr(std::make_unique<literal_node>(spec));
}

result<node_ptr> compiler::field_path(const std::string& text) {
  std::string_view rest(text);
  rest.remove_prefix(1);
  if (!rest.empty() && rest.front() == '$') return variable(rest.substr(1), text);
  if (rest.empty()) return make_error("field path " + quoted(text) + " names no field");
  auto n = std::make_unique<field_path_node>();
  if (auto st = split_path(rest, text, n->parts); !st) return std::move(st).error();
  return node_ptr(std::move(n));
}

result<node_ptr> compiler::variable(std::string_view rest, std::string_view full) {
  const std::size_t dot = rest.find('.');
  const std::string var(rest.substr(0, dot));
  std::vector<std::string> parts;
  if (dot != std::string_view::npos) {
    if (auto st = split_path(rest.substr(dot + 1), std::string(full), parts); !st) {
      return std::move(st).error();
    }
  }
  if (var == "ROOT" || var == "CURRENT") {
    auto n = std::make_unique<field_path_node>();
    n->parts = std::move(parts);
    return node_ptr(std::move(n));
  }
  for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
    if (it->first != var) continue;
    auto n = std::make_unique<variable_node>();
    n->slot = it->second;
    n->parts = std::move(parts);
    return node_ptr(std::move(n));
  }
  if (options_.system_variables) {
    if (var == "NOW" && parts.empty()) return node_ptr(std::make_unique<now_node>());
    if (var == "REMOVE" && parts.empty()) return node_ptr(std::make_unique<literal_node>(std::nullopt));
    if ((var == "DESCEND" || var == "PRUNE" || var == "KEEP") && parts.empty()) {
      return node_ptr(std::make_unique<literal_node>(value("$$" + var)));
    }
    return make_error("unknown variable " + quoted("$$" + var) +
                      " (system variables: `$$ROOT`, `$$CURRENT`, `$$NOW`, `$$REMOVE`; others "
                      "are bound by `$let`, `$map`, `$filter`, `$reduce` or `$lookup`'s `let`)");
  }
  return make_error("unknown variable " + quoted("$$" + var) +
                    " (only `$$ROOT` and `$$CURRENT` are available)");
}

result<node_ptr> compiler::object(const document& d) {
  if (!d.empty() && !d.front().name.empty() && d.front().name.front() == '$') {
    if (d.size() != 1) {
      std::string names;
      for (const field& f : d) names += (names.empty() ? "" : ", ") + quoted(f.name);
      return make_error("an expression operator object must have exactly one field, got " + names);
    }
    return operator_call(d.front().name, d.front().val);
  }
  auto n = std::make_unique<object_node>();
  for (const field& f : d) {
    if (f.name.empty() || f.name.front() == '$') {
      return make_error("field name " + quoted(f.name) +
                        " in an expression object must not be empty or start with '$'");
    }
    if (f.name.find('.') != std::string::npos) {
      return make_error("field name " + quoted(f.name) + " in an expression object must not contain '.'");
    }
    auto c = compile(f.val);
    if (!c) return std::move(c).error();
    n->fields.emplace_back(f.name, std::move(*c));
  }
  return node_ptr(std::move(n));
}

result<node_ptr> compiler::operator_call(const std::string& name, const value& arg) {
  if (name == "$literal") return node_ptr(std::make_unique<literal_node>(arg));
  if (name == "$function" || name == "$accumulator" || name == "$where") {
    return make_error(quoted(name) + " is not supported: omgdb runs no JavaScript");
  }
  if (auto st = check_special_operator(name, arg); !st) return std::move(st).error();
  bool handled = false;
  auto bound = compile_binding(*this, name, arg, handled);
  if (handled) return bound;
  const op_info* info = find_op(name);
  if (info == nullptr) return make_error("unknown expression operator " + quoted(name));
  const bool operator_doc = arg.is_document() && !arg.as_document().empty() &&
                            !arg.as_document().front().name.empty() && arg.as_document().front().name[0] == '$';
  if (!info->params.empty() && ((arg.is_document() && !operator_doc) || info->min_args < 0)) {
    return named_call(*info, arg);
  }
  if (info->min_args < 0) {
    return make_error(quoted(name) + " takes a document of named arguments (" +
                      std::string(info->params) + ")");
  }
  auto n = std::make_unique<op_node>();
  n->name = name;
  n->fn = info->fn;
  const array args = arg.is_array() ? arg.as_array() : array{arg};
  const int count = static_cast<int>(args.size());
  if (count < info->min_args || (info->max_args >= 0 && count > info->max_args)) {
    std::string want = info->min_args == info->max_args
                           ? "exactly " + arguments(info->min_args)
                           : (info->max_args < 0 ? "at least " + arguments(info->min_args)
                                                 : std::to_string(info->min_args) + " to " +
                                                       arguments(info->max_args));
    return make_error(quoted(name) + " takes " + want + ", got " + std::to_string(count));
  }
  if (args.size() > k_max_expression_nodes) {
    return make_error(quoted(name) + " has " + std::to_string(args.size()) +
                      " operands; an expression may hold at most " + std::to_string(k_max_expression_nodes) +
                      " operators and operands", failure_kind::limit_exceeded);
  }
  for (const value& a : args) {
    auto c = compile(a);
    if (!c) return std::move(c).error();
    n->args.push_back(std::move(*c));
  }
  return node_ptr(std::move(n));
}

// {$op: {name: expr, …}}: the arguments in the order of op_info::params.
result<node_ptr> compiler::named_call(const op_info& info, const value& arg) {
  const std::string name(info.name);
  if (!arg.is_document()) {
    return make_error(quoted(name) + " takes a document of named arguments (" +
                      std::string(info.params) + ")");
  }
  std::vector<std::pair<std::string, bool>> params;  // name, optional
  std::string_view rest = info.params;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string p(rest.substr(0, comma));
    const bool optional = !p.empty() && p.back() == '?';
    if (optional) p.pop_back();
    params.emplace_back(std::move(p), optional);
    rest = comma == rest.npos ? std::string_view{} : rest.substr(comma + 1);
  }
  const document& d = arg.as_document();
  for (const field& f : d) {
    const bool known = std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == f.name; });
    if (!known) {
      std::string list;
      for (std::size_t i = 0; i < params.size(); ++i) {
        list += (i == 0 ? "" : (i + 1 == params.size() ? " and " : ", ")) + quoted(params[i].first);
      }
      return make_error(quoted(name) + " does not take " + quoted(f.name) + " (it takes " + list + ")");
    }
  }
  if (info.check != nullptr) {
    if (status st = info.check(d); !st) return std::move(st).error();
  }
  auto n = std::make_unique<op_node>();
  n->name = name;
  n->fn = info.fn;
  for (const auto& [p, optional] : params) {
    const value* v = find_field(d, p);
    if (v == nullptr) {
      if (!optional) return make_error(quoted(name) + " is missing " + quoted(p));
      n->args.push_back(nullptr);
      continue;
    }
    auto c = compile(*v);
    if (!c) return std::move(c).error();
    n->args.push_back(std::move(*c));
  }
  return node_ptr(std::move(n));
}

std::string type_name(const value& v) { return std::string(bson_type_alias(v)); }

}  // namespace expr_detail

int compare_expr(const expr_value& a, const expr_value& b) {
  // Missing ranks 0: above MinKey (-1), below null (5), as MongoDB's canonical type order.
  const int ra = a ? type_rank(*a) : 0;
  const int rb = b ? type_rank(*b) : 0;
  if (ra != rb) return ra < rb ? -1 : 1;
  if (!a) return 0;
  const int c = compare(*a, *b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool expr_truthy(const expr_value& v) {
  if (!v) return false;
  switch (v->type()) {
    case kind::null_: return false;
    case kind::boolean: return v->as_bool();
    case kind::int32: return v->as_int32() != 0;
    case kind::int64: return v->as_int64() != 0;
    case kind::double_: return v->as_double() != 0;  // NaN is true
    case kind::decimal128: return !decimal_math::is_zero(std::get<decimal128>(v->raw()));  // NaN is true
    default: return true;
  }
}

expression::expression() = default;
expression::~expression() = default;

result<expression> expression::compile(const value& spec) { return compile(spec, expression_options{}); }

result<expression> expression::compile(const value& spec, const expression_options& options) {
  expr_detail::compiler c(options);
  auto n = c.compile(spec);
  if (!n) return std::move(n).error();
  expression e;
  e.root_ = std::shared_ptr<const node>(std::move(*n));
  e.slots_ = c.slot_count();
  return e;
}

result<expr_value> expression::evaluate(const document& root) const { return evaluate(root, eval_env{}); }

result<expr_value> expression::evaluate(const document& root, const eval_env& env) const {
  try {
    return eval_or_throw(root, env);
  } catch (const expression_error& e) {
    return e.to_failure();
  }
}

expr_value expression::eval_or_throw(const document& root, const eval_env& env) const {
  if (!root_) return expr_value{};
  // What the evaluation charges is given back when it returns: the caller decides what it
  // keeps (a stage that holds documents charges them itself).
  call_budget& budget = current_budget();
  budget_mark mark(budget);
  expr_detail::eval_ctx ctx{root, std::vector<expr_value>(static_cast<std::size_t>(slots_)), env.now_millis, budget};
  if (env.variables != nullptr) {
    const std::size_t n = std::min(env.variables->size(), ctx.slots.size());
    for (std::size_t i = 0; i < n; ++i) ctx.slots[i] = (*env.variables)[i];
  }
  return root_->eval(ctx);
}

}  // namespace omgdb::engine
