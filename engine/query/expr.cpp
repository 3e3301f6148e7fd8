// Aggregation expressions: compiling, field paths, literals, arrays and documents of
// expressions, comparison, boolean and conditional operators (arithmetic: expr_arith.cpp).
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine {
namespace expr_detail {
namespace {

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

struct literal_node final : expression::node {
  value v;
  explicit literal_node(value x) : v(std::move(x)) {}
  expr_value eval(const document&) const override { return v; }
};

// "$a.b" or "$$ROOT.a.b": fields by name; arrays map over their document elements.
struct field_path_node final : expression::node {
  std::vector<std::string> parts;  // empty: the root itself ($$ROOT)

  expr_value eval(const document& root) const override {
    if (parts.empty()) return value(root);
    return from(root, 0);
  }

 private:
  expr_value from(const document& doc, std::size_t i) const {
    const value* v = find_field(doc, parts[i]);
    if (v == nullptr) return std::nullopt;
    if (i + 1 == parts.size()) return *v;
    if (v->is_document()) return from(v->as_document(), i + 1);
    if (v->is_array()) return in_array(v->as_array(), i + 1);
    return std::nullopt;
  }

  expr_value in_array(const array& arr, std::size_t i) const {
    array out;
    for (const value& e : arr) {
      if (!e.is_document()) continue;
      expr_value nested = from(e.as_document(), i);
      if (nested) out.push_back(std::move(*nested));
    }
    return value(std::move(out));
  }
};

struct array_node final : expression::node {
  std::vector<node_ptr> items;
  expr_value eval(const document& root) const override {
    array out;
    out.reserve(items.size());
    for (const auto& e : items) {
      expr_value v = e->eval(root);
      out.push_back(v ? std::move(*v) : value());  // missing becomes null inside an array
    }
    return value(std::move(out));
  }
};

struct object_node final : expression::node {
  std::vector<std::pair<std::string, node_ptr>> fields;
  expr_value eval(const document& root) const override {
    document out;
    for (const auto& [name, e] : fields) {
      expr_value v = e->eval(root);
      if (v) out.push_back(field{name, std::move(*v)});  // a missing field is left out
    }
    return value(std::move(out));
  }
};

// --- comparison, boolean, conditional --------------------------------------------------

expr_value compare_op(const op_node& self, const document& root) {
  const int c = compare_expr(self.arg(0, root), self.arg(1, root));
  const std::string& n = self.name;
  if (n == "$cmp") return value(static_cast<std::int32_t>(c < 0 ? -1 : (c > 0 ? 1 : 0)));
  if (n == "$eq") return value(c == 0);
  if (n == "$ne") return value(c != 0);
  if (n == "$gt") return value(c > 0);
  if (n == "$gte") return value(c >= 0);
  if (n == "$lt") return value(c < 0);
  return value(c <= 0);  // $lte
}

expr_value and_op(const op_node& self, const document& root) {
  for (const auto& a : self.args) {
    if (!expr_truthy(a->eval(root))) return value(false);
  }
  return value(true);
}

expr_value or_op(const op_node& self, const document& root) {
  for (const auto& a : self.args) {
    if (expr_truthy(a->eval(root))) return value(true);
  }
  return value(false);
}

expr_value not_op(const op_node& self, const document& root) {
  return value(!expr_truthy(self.arg(0, root)));
}

expr_value cond_op(const op_node& self, const document& root) {
  return expr_truthy(self.arg(0, root)) ? self.arg(1, root) : self.arg(2, root);
}

// The first argument that is neither null nor missing; else the last one, as it is.
expr_value if_null_op(const op_node& self, const document& root) {
  for (std::size_t i = 0; i + 1 < self.args.size(); ++i) {
    expr_value v = self.arg(i, root);
    if (!nullish(v)) return v;
  }
  return self.arg(self.args.size() - 1, root);
}

constexpr op_info core_ops[] = {
    {"$eq", 2, 2, compare_op},   {"$ne", 2, 2, compare_op},     {"$gt", 2, 2, compare_op},
    {"$gte", 2, 2, compare_op},  {"$lt", 2, 2, compare_op},     {"$lte", 2, 2, compare_op},
    {"$cmp", 2, 2, compare_op},  {"$and", 0, -1, and_op},       {"$or", 0, -1, or_op},
    {"$not", 1, 1, not_op},      {"$cond", 3, 3, cond_op},      {"$ifNull", 2, -1, if_null_op},
};

const op_info* find_op(std::string_view name) {
  for (const op_info& op : core_ops) {
    if (op.name == name) return &op;
  }
  return find_arith_op(name);
}

std::string arguments(int n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

class compiler {
 public:
  result<node_ptr> compile(const value& spec) {
    if (++nodes_ > k_max_expression_nodes) {
      return make_error("the expression has more than " + std::to_string(k_max_expression_nodes) +
                        " operators and operands (field paths, literals and array items count too)");
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

 private:
  std::size_t nodes_ = 0;  // compile() calls so far, bounded by k_max_expression_nodes

  result<node_ptr> field_path(const std::string& text) {
    auto n = std::make_unique<field_path_node>();
    std::string_view rest(text);
    rest.remove_prefix(1);
    if (!rest.empty() && rest.front() == '$') {
      const std::string_view var = rest.substr(1, rest.find('.') - 1);
      if (var != "ROOT" && var != "CURRENT") {
        return make_error("unknown variable " + quoted("$$" + std::string(var)) +
                          " (only `$$ROOT` and `$$CURRENT` are available)");
      }
      const std::size_t dot = rest.find('.');
      if (dot == std::string_view::npos) return node_ptr(std::move(n));
      rest = rest.substr(dot + 1);
    }
    if (rest.empty()) return make_error("field path " + quoted(text) + " names no field");
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = rest.find('.', start);
      const std::string_view piece = rest.substr(start, dot == rest.npos ? rest.npos : dot - start);
      if (piece.empty()) return make_error("field path " + quoted(text) + " has an empty component");
      if (piece.front() == '$') {
        return make_error("field path " + quoted(text) + " has a component starting with '$'");
      }
      n->parts.emplace_back(piece);
      if (dot == rest.npos) break;
      start = dot + 1;
    }
    return node_ptr(std::move(n));
  }

  result<node_ptr> object(const document& d) {
    if (!d.empty() && !d.front().name.empty() && d.front().name.front() == '$') {
      if (d.size() != 1) {
        std::string names;
        for (const field& f : d) names += (names.empty() ? "" : ", ") + quoted(f.name);
        return make_error("an expression operator object must have exactly one field, got " +
                          names);
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
        return make_error("field name " + quoted(f.name) +
                          " in an expression object must not contain '.'");
      }
      auto c = compile(f.val);
      if (!c) return std::move(c).error();
      n->fields.emplace_back(f.name, std::move(*c));
    }
    return node_ptr(std::move(n));
  }

  result<node_ptr> operator_call(const std::string& name, const value& arg) {
    if (name == "$literal") return node_ptr(std::make_unique<literal_node>(arg));
    const op_info* info = find_op(name);
    if (info == nullptr) return make_error("unknown expression operator " + quoted(name));
    auto n = std::make_unique<op_node>();
    n->name = name;
    n->fn = info->fn;
    if (name == "$cond" && arg.is_document()) {
      if (auto st = cond_object(arg.as_document(), *n); !st) return std::move(st).error();
      return node_ptr(std::move(n));
    }
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
                        " operators and operands");
    }
    for (const value& a : args) {
      auto c = compile(a);
      if (!c) return std::move(c).error();
      n->args.push_back(std::move(*c));
    }
    return node_ptr(std::move(n));
  }

  status cond_object(const document& d, op_node& n) {
    static constexpr std::string_view keys[] = {"if", "then", "else"};
    for (const field& f : d) {
      if (std::find(std::begin(keys), std::end(keys), f.name) == std::end(keys)) {
        return make_error("`$cond` does not take " + quoted(f.name) +
                          " (it takes `if`, `then` and `else`)");
      }
    }
    for (std::string_view k : keys) {
      const value* v = find_field(d, k);
      if (v == nullptr) return make_error("`$cond` is missing " + quoted(k));
      auto c = compile(*v);
      if (!c) return std::move(c).error();
      n.args.push_back(std::move(*c));
    }
    return {};
  }
};

}  // namespace

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
    case kind::double_:
    case kind::decimal128: return v->number_as_double() != 0;  // NaN is true
    default: return true;
  }
}

expression::expression() = default;
expression::~expression() = default;

result<expression> expression::compile(const value& spec) {
  auto n = expr_detail::compiler{}.compile(spec);
  if (!n) return std::move(n).error();
  expression e;
  e.root_ = std::shared_ptr<const node>(std::move(*n));
  return e;
}

result<expr_value> expression::evaluate(const document& root) const {
  if (!root_) return expr_value{};
  try {
    return root_->eval(root);
  } catch (const expression_error& e) {
    return make_error(e.what());
  }
}

}  // namespace omgdb::engine
