// omgdb engine — the windows of $setWindowFields and its window-only operators (private to
// engine/aggregate/stage_window.cpp, window_range.cpp, window_ops.cpp, window_math.cpp).
//
// stage_window.cpp holds the stage's input (within its memory budget), sorts it into
// partitions and hands each partition to the outputs as a window_partition. A window is
// either a span of documents around the current one ({documents: [lower, upper]}) or a span
// of sort values around the current document's ({range: [lower, upper], unit?}); for each row
// it resolves to an extent of row indexes. Accumulators ($sum …) fold their extent; the
// window-only operators ($shift, $derivative, $integral, $expMovingAvg, $covariancePop,
// $covarianceSamp, $locf, $linearFill) compute their own outputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/aggregate/stage.hpp"
#include "engine/query/date_math.hpp"

namespace omgdb::engine::aggregate_detail {

inline constexpr std::int64_t k_unbounded = INT64_MIN;  // a `documents` lower bound
inline constexpr std::int64_t k_unbounded_above = INT64_MAX;

struct window_spec {
  enum class edge { unbounded, current, delta };
  bool range = false;
  // documents: offsets from the current row (k_unbounded / k_unbounded_above when open).
  std::int64_t lower = k_unbounded, upper = k_unbounded_above;
  // range: each bound open, the current document itself, or the current sort value plus a
  // number (with `unit`: that many units of time added to a date sort value, in UTC).
  edge lo_edge = edge::unbounded, hi_edge = edge::unbounded;
  value lo_delta, hi_delta;
  std::optional<date_unit> unit;

  bool whole() const noexcept { return !range && lower == k_unbounded && upper == k_unbounded_above; }
};

// One partition in sort order: its documents and, when an output needs them, the value of
// the single sortBy field of each (missing: nullopt).
struct window_partition {
  std::vector<const document*> docs;
  std::vector<const expr_value*> sort_values;
  std::size_t size() const noexcept { return docs.size(); }
};

// The rows [lo, hi] of one row's window; empty when hi < lo.
struct extent {
  std::int64_t lo = 0, hi = -1;
  bool operator==(const extent&) const = default;
};

// Compiles a `window` document under MongoDB's rules (documents windows need a sortBy
// unless unbounded; range windows a sortBy on one ascending field).
result<window_spec> compile_window(const value& window, const sort_spec* sort_by);
// The extent of each row of `p` (range windows check the sort values: numbers, or dates
// with a unit).
void window_extents(const window_spec& w, const window_partition& p, std::vector<extent>& out, exec_ctx& ctx);
// An accumulator folded over each row's extent (missing results become null).
void accumulate_windows(const accumulator& acc, const window_partition& p, const std::vector<extent>& extents,
                        std::vector<expr_value>& out, exec_ctx& ctx);

// A window-only operator compiled for one output field.
class window_function {
 public:
  virtual ~window_function() = default;
  // The output of every row of `p` into `out` (missing: the field is left out); `extents`
  // holds each row's window when takes_window. Each value that is not a scalar computed by
  // the function itself is charged as it is added (charge_output).
  virtual void fill(const window_partition& p, const std::vector<extent>& extents, std::vector<expr_value>& out,
                    exec_ctx& ctx) const = 0;
  bool takes_window = false;       // the output's `window` (or the default whole partition) applies
  bool needs_sort_values = false;  // reads window_partition::sort_values
};
using window_function_ptr = std::shared_ptr<const window_function>;

// What compiling one window-only operator sees: its argument, the output's `window` (or
// nullptr), the stage's sortBy (or nullptr) and the output field's name for messages.
struct window_call {
  const std::string& name;
  const value& arg;
  const value* window;
  const sort_spec* sort_by;
  const std::string& where;
  const compile_ctx& ctx;
};

// Whether `name` is one of the window-only operators.
bool is_window_function(std::string_view name);
// Compiles one; `w` receives its window. window_ops.cpp.
result<window_function_ptr> compile_window_function(const window_call& call, window_spec& w);
// window_math.cpp: $derivative, $integral, $covariancePop, $covarianceSamp.
result<window_function_ptr> compile_window_math(const window_call& call, window_spec& w);

// Charges one output value to the call's budget as it is made (measured; refused when it
// nests deeper than k_max_built_depth): window outputs can number n² values (a `$push` over
// the whole partition for each of its n documents), so each is charged before the next is
// built. The stage takes these charges over (memory_budget::adopt) until it has handed its
// documents on. window_ops.cpp.
void charge_output(exec_ctx& ctx, const expr_value& v);

// Shared argument helpers (window_ops.cpp).
inline bool nullish(const expr_value& v) noexcept { return !v || v->is_null(); }
std::string type_of(const expr_value& v);  // "double", "string", "missing", …
// The value as a double for the window arithmetic; nullopt for non-numbers. Decimal128
// values are refused with an error naming `op` (as elsewhere in the engine).
std::optional<double> window_number(const std::string& op, const value& v);

}  // namespace omgdb::engine::aggregate_detail
