// omgdb engine — the compiled form of an aggregation expression (private to engine/query/expr*.cpp).
//
// Nodes evaluate against an eval_ctx (the document, the variable slots, the clock) to an
// expr_value and signal run-time errors by throwing expression_error; expression::evaluate
// converts them into a failure at the module's edge. Variables are resolved at compile time
// to slot numbers: the caller's variables first, then one slot per $let / $map / $filter /
// $reduce binding.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/query/expr.hpp"

namespace omgdb::engine {
namespace expr_detail {

// `budget`: the call's budget (common/call_budget.hpp). Every node's result is settled
// against it (settle below): what the node's evaluation charged is given back and what its
// result holds is charged, so the charge follows the values alive in the evaluation; an
// operator that builds in a loop charges as it goes (charge_built), so nothing it builds can
// pass the bound before it is refused. Every settle also polls the call's stop flag.
struct eval_ctx {
  const document& root;
  std::vector<expr_value> slots;
  std::int64_t now_millis = 0;
  call_budget& budget;
};

// Gives back what was charged since `at` and charges what `r` holds (its depth checked
// against k_max_built_depth); `what` names the operator in the error. Scalars cost nothing
// but the poll.
void settle_slow(eval_ctx& ctx, std::uint64_t at, const value& r, std::string_view what);
inline void settle(eval_ctx& ctx, std::uint64_t at, const expr_value& r, std::string_view what) {
  if (ctx.budget.used() > at) ctx.budget.release(ctx.budget.used() - at);
  if (r && (r->is_array() || r->is_document() || r->is_string() || r->type() == kind::binary)) {
    settle_slow(ctx, at, *r, what);
  } else {
    ctx.budget.poll();
  }
}
// Charges `bytes` an operator is about to build (or has just appended) in a loop.
inline void charge_built(eval_ctx& ctx, std::uint64_t bytes, std::string_view what) {
  ctx.budget.charge(bytes, what);
}

// Building a result in a loop (expr_build.cpp). Each helper charges the call's budget before
// the memory is taken — the growth of the array's or string's buffer, and what an element
// holds beyond its slot — and polls the call's stop flag, so an operator whose arguments ask
// for more than the bound is refused before it has built it. The op_node's settle gives
// these charges back and charges the finished result.
//
// What `v` holds beyond its slot in an array (a string's buffer, a container's contents);
// measured without recursion.
std::uint64_t held_extra(const value& v);
// Makes room for `more` elements in `out`, charging the buffer's growth (it grows by
// doubling, as push_back would).
void reserve_built(eval_ctx& ctx, array& out, std::size_t more, std::string_view what);
// Appends `v` (already built and charged by its maker: only the slot is charged).
void push_built(eval_ctx& ctx, array& out, value v, std::string_view what);
// Appends a copy of `v` (the copy is charged).
void push_copy(eval_ctx& ctx, array& out, const value& v, std::string_view what);
// Appends `piece` to `out`, charging the buffer's growth.
void append_built(eval_ctx& ctx, std::string& out, std::string_view piece, std::string_view what);
// A loop step: polls the call's stop flag every 1024 steps (`i` counts the steps).
inline void poll_step(eval_ctx& ctx, std::size_t i) {
  if ((i & 1023) == 0) ctx.budget.poll();
}
// The longest string an operator builds (a BSON document holds no longer one): past it,
// $concat, $replaceOne / $replaceAll … fail with limit_exceeded naming the bound.
inline constexpr std::size_t k_max_string_bytes = std::size_t{16} << 20;
[[noreturn]] void fail_string_bound(std::string_view op);

}  // namespace expr_detail

struct expression::node {
  virtual ~node() = default;
  virtual expr_value eval(expr_detail::eval_ctx& ctx) const = 0;
};

namespace expr_detail {

using node_ptr = std::unique_ptr<const expression::node>;

struct op_node;
using op_fn = expr_value (*)(const op_node& self, eval_ctx& ctx);

// An operator applied to its argument expressions ({$add: [a, b]}). For operators taking
// named arguments ({$trim: {input, chars}}) args follow op_info::params; an optional
// argument left out is nullptr.
struct op_node final : expression::node {
  std::string name;
  std::vector<node_ptr> args;
  op_fn fn = nullptr;
  expr_value eval(eval_ctx& ctx) const override {
    const std::uint64_t at = ctx.budget.used();
    expr_value r = fn(*this, ctx);
    settle(ctx, at, r, name);
    return r;
  }
  expr_value arg(std::size_t i, eval_ctx& ctx) const {
    return args[i] ? args[i]->eval(ctx) : expr_value{};
  }
  bool has(std::size_t i) const { return i < args.size() && args[i] != nullptr; }
};

// What the compiler needs to know about one operator: its argument count range (-1: no
// upper bound) and its evaluator. `params` non-empty: the operator takes one document of
// named arguments, listed comma-separated, an optional one ending in '?' ("input,chars?");
// `check`, when set, vets that document at compile time (arguments that exclude each other).
struct op_info {
  std::string_view name;
  int min_args;
  int max_args;
  op_fn fn;
  std::string_view params = {};
  status (*check)(const document& args) = nullptr;
};

struct op_table {
  const op_info* begin;
  const op_info* end;
};
template <std::size_t N>
constexpr op_table table_of(const op_info (&ops)[N]) {
  return {ops, ops + N};
}

// One table per file.
op_table core_ops();    // expr_logic.cpp: comparison, boolean, conditional
op_table arith_ops();   // expr_arith.cpp
op_table math_ops();    // expr_math.cpp: $sqrt $pow $exp $ln $log $log10
op_table string_ops();  // expr_string.cpp
op_table regex_ops();   // expr_regex.cpp
op_table array_ops();   // expr_array.cpp
op_table set_ops();     // expr_set.cpp
op_table object_ops();  // expr_object.cpp
op_table type_ops();    // expr_type.cpp
op_table date_ops();    // expr_date.cpp
op_table accum_ops();   // expr_accum.cpp: $sum $avg $min $max $stdDev* over arrays
op_table trig_ops();    // expr_trig.cpp: $sin … $tanh, $atan2, $degreesToRadians, $radiansToDegrees
op_table bits_ops();    // expr_bits.cpp: $bitAnd $bitOr $bitXor $bitNot
op_table misc_ops();    // expr_misc.cpp: $binarySize $bsonSize $rand $tsSecond $tsIncrement $toUUID
op_table hash_ops();    // expr_hash.cpp: $toHashedIndexKey
op_table percentile_ops();  // expr_percentile.cpp: $median $percentile over an array

// Compile-time checks of operators whose argument must have a fixed shape (expr_misc.cpp):
// $rand takes {}, $meta is refused (omgdb keeps no search metadata), $median/$percentile
// need a literal `method` (expr_percentile.cpp's check_percentile_arguments).
status check_special_operator(const std::string& name, const value& arg);
status check_percentile_arguments(const std::string& name, const value& arg);

// The compiler, shared with the binding operators of expr_bind.cpp.
class compiler {
 public:
  explicit compiler(const expression_options& options);
  result<node_ptr> compile(const value& spec);
  // Binds `name` in a new innermost scope and returns its slot; pop_scope() ends it.
  int bind(const std::string& name);
  void pop_scope(std::size_t count);
  int slot_count() const noexcept { return slots_; }

 private:
  result<node_ptr> field_path(const std::string& text);
  result<node_ptr> variable(std::string_view text, std::string_view full);
  result<node_ptr> object(const document& d);
  result<node_ptr> operator_call(const std::string& name, const value& arg);
  result<node_ptr> named_call(const op_info& info, const value& arg);

  const expression_options& options_;
  std::vector<std::pair<std::string, int>> scope_;
  int slots_ = 0;
  std::size_t nodes_ = 0;  // compile() calls so far, bounded by k_max_expression_nodes
};

// expr_bind.cpp: $let $map $filter $reduce (they bind variables), or nullptr when `name`
// is not one of them.
result<node_ptr> compile_binding(compiler& c, const std::string& name, const value& arg,
                                 bool& handled);

// A time zone (expr_tz.cpp): a fixed UTC offset, or an Olson zone's transitions.
struct time_zone {
  std::vector<std::int64_t> times;     // transition instants, seconds since the epoch
  std::vector<std::uint8_t> types;     // per transition: index into offsets
  std::vector<std::int32_t> offsets;   // seconds east of UTC
  std::int32_t fixed = 0;              // the offset before any transition (or always)
  std::int32_t offset_at(std::int64_t utc_millis) const;  // seconds east of UTC
  std::int64_t to_utc(std::int64_t local_millis) const;   // a wall-clock time to an instant
};
// "UTC", "+05:30", "Europe/Paris", …; an unknown zone throws expression_error.
const time_zone& find_zone(const std::string& name);

// A local (wall-clock) instant broken into calendar fields (expr_tz.cpp).
constexpr std::int64_t k_day = 86'400'000;
std::int64_t floor_div(std::int64_t a, std::int64_t b);
struct parts {
  std::int64_t year;
  unsigned month, day;
  int hour, minute, second, millis;
  int wday;           // 0 Sunday … 6 Saturday
  int yday;           // 1 … 366
  std::int64_t days;  // local days since the epoch
};
parts breakdown(std::int64_t local_millis);
// Local millis of a calendar date whose fields may overflow (month 14, day 0, hour 25 …).
std::int64_t local_from_fields(std::int64_t year, std::int64_t month, std::int64_t day, std::int64_t hour,
                               std::int64_t minute, std::int64_t second, std::int64_t millis);

// $switch (expr_logic.cpp) and the argument helpers it shares with expr_bind.cpp.
result<node_ptr> compile_switch(compiler& c, const document& d);
status only_keys(const std::string& op, const document& d, std::initializer_list<std::string_view> keys);
result<node_ptr> required(compiler& c, const std::string& op, const document& d, std::string_view key);

// MongoDB's name of a value's type in messages ("string", "int", "double", "date", …).
std::string type_name(const value& v);
inline std::string type_name(const expr_value& v) { return v ? type_name(*v) : "missing"; }

[[noreturn]] inline void fail(const std::string& message) { throw expression_error(message); }

inline bool nullish(const expr_value& v) { return !v || v->is_null(); }
std::string quoted(std::string_view s);

// Reads `parts` by field name from `v`; arrays map over their document elements.
expr_value walk_fields(const value& v, const std::vector<std::string>& parts, std::size_t i);

// Common argument checks (expr_logic.cpp). `what` names the operator in the message.
const array& array_arg(const std::string& op, const value& v);
const std::string& string_arg(const std::string& op, const value& v);
std::int64_t integral_arg(const std::string& op, const value& v);  // int, long or integral double
value int_or_long(std::int64_t n);

}  // namespace expr_detail
}  // namespace omgdb::engine
