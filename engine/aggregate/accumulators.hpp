// omgdb engine — the accumulators of $group, $bucket, $bucketAuto and $setWindowFields
// (private to engine/aggregate).
//
// An accumulator is compiled once from {$op: argument}; each group gets its own state, fed
// the group's documents in order. add() returns the bytes the state grew by (for the
// stage's memory budget). Semantics are MongoDB's: $sum ignores non-numbers and widens
// int → long → double, $avg and $stdDev* ignore non-numbers and give null without any,
// $min / $max ignore null and missing, $push / $addToSet skip missing values, $first /
// $last give null for missing.
#pragma once

#include <memory>
#include <string>

#include "engine/aggregate/stage.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::aggregate_detail {

class accumulator_state {
 public:
  virtual ~accumulator_state() = default;
  virtual std::size_t add(const document& doc, exec_ctx& ctx) = 0;
  virtual expr_value finish(exec_ctx& ctx) = 0;  // missing: the field is left out
  // Undo one add() of the same document (sliding windows); false: not supported, recompute.
  virtual bool remove(const document&, exec_ctx&) { return false; }
};

struct accumulator {
  std::string op;            // "$sum", …
  expression input;          // the argument (or `output` for $top / $bottom)
  expression n;              // $firstN … $bottomN
  std::vector<double> percentiles;  // $percentile `p` ($median: 0.5)
  bool continuous = false;          // method "continuous": interpolated
  std::shared_ptr<const sort_spec> sort_by;  // $top / $bottom families
  std::unique_ptr<accumulator_state> start() const;
};

// Compiles {$op: argument}. `where` names the output field in errors.
result<accumulator> compile_accumulator(const value& spec, const std::string& where, const compile_ctx& ctx);

// One accumulated output field of $group / $bucket: {name: {$op: …}}.
struct output_field {
  std::string name;
  accumulator acc;
};
// Compiles the output fields of a `$group` (skipping `_id`) or a bucket's `output`. An
// empty field name is an error (MongoDB 9.0), as is a dotted one.
result<std::vector<output_field>> compile_outputs(const document& spec, bool skip_id, const compile_ctx& ctx);

}  // namespace omgdb::engine::aggregate_detail
