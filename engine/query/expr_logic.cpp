// Comparison, boolean and conditional expression operators ($switch included), and the argument checks the
// other operator files share.
#include <cmath>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine::expr_detail {
namespace {

expr_value compare_op(const op_node& self, eval_ctx& ctx) {
  const int c = compare_expr(self.arg(0, ctx), self.arg(1, ctx));
  const std::string& n = self.name;
  if (n == "$cmp") return value(static_cast<std::int32_t>(c < 0 ? -1 : (c > 0 ? 1 : 0)));
  if (n == "$eq") return value(c == 0);
  if (n == "$ne") return value(c != 0);
  if (n == "$gt") return value(c > 0);
  if (n == "$gte") return value(c >= 0);
  if (n == "$lt") return value(c < 0);
  return value(c <= 0);  // $lte
}

expr_value and_op(const op_node& self, eval_ctx& ctx) {
  for (const auto& a : self.args) {
    if (!expr_truthy(a->eval(ctx))) return value(false);
  }
  return value(true);
}

expr_value or_op(const op_node& self, eval_ctx& ctx) {
  for (const auto& a : self.args) {
    if (expr_truthy(a->eval(ctx))) return value(true);
  }
  return value(false);
}

expr_value not_op(const op_node& self, eval_ctx& ctx) { return value(!expr_truthy(self.arg(0, ctx))); }

expr_value cond_op(const op_node& self, eval_ctx& ctx) {
  return expr_truthy(self.arg(0, ctx)) ? self.arg(1, ctx) : self.arg(2, ctx);
}

// The first argument that is neither null nor missing; else the last one, as it is.
expr_value if_null_op(const op_node& self, eval_ctx& ctx) {
  for (std::size_t i = 0; i + 1 < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (!nullish(v)) return v;
  }
  return self.arg(self.args.size() - 1, ctx);
}

struct switch_node final : expression::node {
  std::vector<std::pair<node_ptr, node_ptr>> branches;
  node_ptr otherwise;
  expr_value eval(eval_ctx& ctx) const override {
    for (const auto& [c, then] : branches) {
      if (expr_truthy(c->eval(ctx))) return then->eval(ctx);
    }
    if (!otherwise) {
      fail("$switch could not find a matching branch for an input, and no default was specified.");
    }
    return otherwise->eval(ctx);
  }
};

constexpr op_info ops[] = {
    {"$eq", 2, 2, compare_op},  {"$ne", 2, 2, compare_op},  {"$gt", 2, 2, compare_op},
    {"$gte", 2, 2, compare_op}, {"$lt", 2, 2, compare_op},  {"$lte", 2, 2, compare_op},
    {"$cmp", 2, 2, compare_op}, {"$and", 0, -1, and_op},    {"$or", 0, -1, or_op},
    {"$not", 1, 1, not_op},     {"$cond", 3, 3, cond_op, "if,then,else"},
    {"$ifNull", 2, -1, if_null_op},
};

}  // namespace

op_table core_ops() { return table_of(ops); }

result<node_ptr> compile_switch(compiler& c, const document& d) {
  if (auto st = only_keys("$switch", d, {"branches", "default"}); !st) return std::move(st).error();
  const value* b = find_field(d, "branches");
  if (b == nullptr || !b->is_array()) return make_error("`$switch` needs `branches`, an array");
  auto n = std::make_unique<switch_node>();
  for (const value& br : b->as_array()) {
    if (!br.is_document()) return make_error("`$switch`: each branch must be a document with `case` and `then`");
    if (auto st = only_keys("$switch branch", br.as_document(), {"case", "then"}); !st) return std::move(st).error();
    auto cs = required(c, "$switch branch", br.as_document(), "case");
    if (!cs) return std::move(cs).error();
    auto th = required(c, "$switch branch", br.as_document(), "then");
    if (!th) return std::move(th).error();
    n->branches.emplace_back(std::move(*cs), std::move(*th));
  }
  if (const value* def = find_field(d, "default")) {
    auto e = c.compile(*def);
    if (!e) return std::move(e).error();
    n->otherwise = std::move(*e);
  }
  return node_ptr(std::move(n));
}


const array& array_arg(const std::string& op, const value& v) {
  if (!v.is_array()) fail(op + " requires an array, not " + type_name(v));
  return v.as_array();
}

const std::string& string_arg(const std::string& op, const value& v) {
  if (!v.is_string()) fail(op + " requires a string, not " + type_name(v));
  return v.as_string();
}

std::int64_t integral_arg(const std::string& op, const value& v) {
  if (v.is_int32()) return v.as_int32();
  if (v.is_int64()) return v.as_int64();
  if (v.is_double() && std::isfinite(v.as_double()) && v.as_double() == std::trunc(v.as_double()) &&
      std::fabs(v.as_double()) < 9.2e18) {
    return static_cast<std::int64_t>(v.as_double());
  }
  if (v.is_decimal()) {  // an integral decimal within int64 counts, as in MongoDB (2.0 → 2)
    if (auto n = decimal_math::exact_int64(std::get<decimal128>(v.raw()))) return *n;
  }
  fail(op + " requires an integral number, not " + type_name(v));
}

value int_or_long(std::int64_t n) {
  if (n >= INT32_MIN && n <= INT32_MAX) return value(static_cast<std::int32_t>(n));
  return value(n);
}

}  // namespace omgdb::engine::expr_detail
