// omgdb engine — aggregation expressions (the language of `$expr`, later of `$project`,
// `$addFields`, `$group` …).
//
// An expression is compiled once from its value and evaluated against many documents.
// Semantics are MongoDB's aggregation semantics, which differ from query filters:
//  - comparisons do NOT bracket by type: values of different types compare in BSON order
//    ({$gt: ["x", 1]} is true), and a missing field is a value of its own that is equal only
//    to another missing field and sorts below null (above MinKey): {$eq: ["$x", null]} is
//    false when x is missing, {$lt: ["$x", 5]} is true;
//  - a field path "$a.b" reads fields by name (numeric components are field names, never
//    array indexes); through an array it maps over the array's document elements and
//    collects what each yields (an array; elements without the field are skipped);
//  - truthiness: false, null, missing and numeric zero are false; everything else (including
//    "", [] and {}) is true;
//  - arithmetic promotes like MongoDB: int op int gives int, or long when it overflows;
//    a long overflow gives double; any double gives double; $divide always gives double; an
//    operand that is null or missing makes the result null. Decimal128 operands are refused
//    (an error, not a wrong answer).
// Supported: literals, "$path", "$$ROOT" / "$$CURRENT" (optionally followed by ".path"),
// {$literal}, arrays and documents of expressions, comparison, boolean, conditional,
// arithmetic, string, array, set, object, type and date operators, $let and the variables
// bound by $let / $map / $filter / $reduce. With expression_options::system_variables (the
// aggregation pipeline) also $$NOW and $$REMOVE. The list with examples is
// docs/aggregation.md; the `$expr` subset in docs/query-language.md.
//
// Thread safety: a compiled expression is immutable; evaluate it from any number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/call_budget.hpp"
#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

// The outcome of evaluating an expression: a value, or nullopt for "missing" (a field path
// that leads nowhere), which is distinct from null.
using expr_value = std::optional<value>;

// An expression failing at run time ("can't $divide by zero"). filter::matches throws it for
// `$expr`; callers that match filters from user input catch it at their boundary and report
// `what()` as the error.
// It is common/call_budget.hpp's call_error: a failure with its kind (a call's memory bound,
// its cancellation), so that every boundary converting it keeps the kind.
using expression_error = call_error;

// Runs `f` (returning a result<…> or a status) and turns an expression_error thrown inside
// it into a failure with the same message. The store's scan loops wrap each document's visit
// in it, so that a run-time error stops the scan and is returned: nothing is matched, written
// or deleted on a wrong answer.
template <class F>
auto guard_match(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const expression_error& e) {
    return e.to_failure();
  }
}

// The most nodes one expression may hold: operators, operands, field paths, literals and
// array items each count one ({$add: ["$a", 1]} is three). A larger expression is a compile
// error naming the limit (an `$add` of 100,000 operands would otherwise cost that much per
// document). docs/limits.md.
inline constexpr std::size_t k_max_expression_nodes = 10'000;

// What an expression may refer to besides the document.
struct expression_options {
  // Names of variables the caller binds at evaluation time (`$lookup`'s `let`), in the order
  // of eval_env::variables. Each must start with a lower-case letter.
  std::vector<std::string> variables;
  // $$NOW and $$REMOVE (the aggregation pipeline). Off for `$expr` in find filters, where
  // only $$ROOT and $$CURRENT exist.
  bool system_variables = false;
};

// Per-evaluation inputs: the values of expression_options::variables (same order; a shorter
// list leaves the rest missing) and the clock for $$NOW.
struct eval_env {
  const std::vector<value>* variables = nullptr;
  std::int64_t now_millis = 0;
};

class expression {
 public:
  expression();  // evaluates to missing
  ~expression();
  expression(const expression&) = default;
  expression& operator=(const expression&) = default;
  expression(expression&&) noexcept = default;
  expression& operator=(expression&&) noexcept = default;

  // Errors name the operator: "unknown expression operator `$foo`", "`$eq` takes exactly 2
  // arguments, got 3", "unknown variable `$$NOW` …", "field path `$a..b` has an empty
  // component", "an operator object must have exactly one field, got `$add`, `x`", "`$add`
  // has 100000 operands; an expression may hold at most 10000 operators and operands".
  static result<expression> compile(const value& spec);
  static result<expression> compile(const value& spec, const expression_options& options);

  // Evaluates against `root` ($$ROOT and $$CURRENT); run-time errors come back as failures.
  result<expr_value> evaluate(const document& root) const;
  result<expr_value> evaluate(const document& root, const eval_env& env) const;
  // As evaluate, but a run-time error is thrown as expression_error (inner loops of the
  // pipeline, which convert at their edge).
  expr_value eval_or_throw(const document& root, const eval_env& env) const;

  struct node;

 private:
  std::shared_ptr<const node> root_;
  int slots_ = 0;  // variables: the caller's first, then $let / $map / … bindings
};

// Aggregation comparison of two expression values: BSON order across types, missing below
// null (and above MinKey), missing equal to missing. Returns <0, 0 or >0.
int compare_expr(const expr_value& a, const expr_value& b);

// MongoDB's sum of numbers, shared by the $sum / $avg expressions and accumulators:
// int + int stays int, or becomes long when it overflows; a long overflow continues in
// double; any double makes the sum a double. Any decimal128 makes it a decimal, as MongoDB
// does: decimals add up exactly (34 digits) apart from the other numbers, whose sum joins
// at the end (integers exactly, a double sum at 34 digits). Non-numbers are ignored.
class numeric_sum {
 public:
  void add(const value& v);
  value total() const;
  // $avg: null without numbers, a decimal when any input was one, else a double.
  value average() const;
  double as_double() const;
  std::uint64_t count() const noexcept { return count_; }  // numbers added

 private:
  int width_ = 0;  // 0 int, 1 long, 2 double
  std::int64_t long_ = 0;
  long double double_ = 0;
  std::uint64_t count_ = 0;
  bool has_decimal_ = false;
  decimal128 decimal_{};  // the decimal inputs' sum, when has_decimal_
  decimal128 decimal_total() const;
};

// Aggregation truthiness (false, null, missing and numeric zero are false).
bool expr_truthy(const expr_value& v);

}  // namespace omgdb::engine
