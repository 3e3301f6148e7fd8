// omgdb engine — the compiled stages of an aggregation pipeline (private to engine/aggregate).
//
// A pipeline compiles into a list of `stage`s; running it opens one `cursor` per stage, each
// pulling from the previous one. Failures inside the loops (an expression error, a memory
// limit, cancellation) are thrown as expression_error and turned into the call's error by
// run_pipeline.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/aggregate/pipeline.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::aggregate_detail {

[[noreturn]] inline void fail(const std::string& message) { throw expression_error(message); }
// A bound was reached (a stage's memory, the call's budget): kind limit_exceeded.
[[noreturn]] inline void fail_limit(const std::string& message) {
  throw expression_error(message, failure_kind::limit_exceeded);
}
std::string quoted(std::string_view s);

inline bool is_date(const value& v) noexcept { return std::holds_alternative<date_time>(v.raw()); }
inline std::int64_t date_millis(const value& v) { return std::get<date_time>(v.raw()).millis; }

// What a running pipeline shares: the provider, the options, the variables in scope
// ($lookup's `let`), a poll counter for cancellation, the call's budget (common/
// call_budget.hpp: the thread's current one when the pipeline started), which every stage
// charges with what it holds and what it hands on.
struct exec_ctx {
  const collection_provider* provider = nullptr;
  const pipeline_options* options = nullptr;
  std::vector<value> variables;  // values of compile_ctx::expr.variables, same order
  eval_env env;                  // points at `variables`
  std::uint64_t* ticks = nullptr;
  int depth = 0;
  call_budget* budget = &current_budget();

  // Throws "cancelled" (kind cancelled) when the pipeline's flag or the call's is set; now
  // and then (every 256th call).
  void poll() const;
  expr_value eval(const expression& e, const document& doc) const { return e.eval_or_throw(doc, env); }
};

class cursor {
 public:
  virtual ~cursor() = default;
  virtual bool next(document& out) = 0;
};
using cursor_ptr = std::unique_ptr<cursor>;

class stage {
 public:
  virtual ~stage() = default;
  virtual cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const = 0;
};
using stage_ptr = std::shared_ptr<const stage>;

// What stage compilers need: expression options (variables in scope, system variables)
// and the nesting depth.
struct compile_ctx {
  expression_options expr;
  int depth = 0;
  int max_depth = 20;
  result<expression> compile(const value& spec) const { return expression::compile(spec, expr); }
};

using stage_list = std::vector<stage_ptr>;
result<stage_list> compile_pipeline(const array& spec, const compile_ctx& ctx);

// A cursor passing each input document through `step(doc)`: true hands it on, false drops
// it. Polls for cancellation per document.
template <class Step>
cursor_ptr each(cursor_ptr input, exec_ctx& ctx, Step step) {
  struct each_cursor final : cursor {
    cursor_ptr in;
    exec_ctx& ctx;
    Step step;
    each_cursor(cursor_ptr i, exec_ctx& x, Step s) : in(std::move(i)), ctx(x), step(std::move(s)) {}
    bool next(document& out) override {
      while (in->next(out)) {
        ctx.poll();
        if (step(out)) return true;
      }
      return false;
    }
  };
  return std::make_unique<each_cursor>(std::move(input), ctx, std::move(step));
}

// The most stages one pipeline (or sub-pipeline) may have: MongoDB's bound. docs/limits.md.
inline constexpr std::size_t k_max_pipeline_stages = 1000;

// Opens a compiled pipeline over `input`.
cursor_ptr open_pipeline(const stage_list& stages, cursor_ptr input, exec_ctx& ctx);
class memory_budget;
// A cursor over documents in memory (moved out as they are read). `held`, when given, is what
// the stage charged for them: it is given back when the cursor has handed on its last
// document or is destroyed.
cursor_ptr vector_cursor(std::vector<document> docs, std::unique_ptr<memory_budget> held = nullptr);
// A cursor over a collection of the provider; with `fields`, documents may hold only those
// top-level fields (source_fields).
cursor_ptr collection_cursor(exec_ctx& ctx, std::string_view collection, const document& filter,
                             const std::vector<std::string>* fields = nullptr);
// The top-level fields of the source documents that the stages pipeline[first…] can read
// (sorted, with `_id`), or nullopt when they may read the whole document (pipeline_deps.cpp).
std::optional<std::vector<std::string>> source_fields(const array& pipeline, std::size_t first);

// The approximate bytes a value or document holds in memory (for the stage limits):
// held_bytes of engine/query/sort.hpp, the measure the sorts use too.
std::size_t approx_bytes(const value& v);
std::size_t approx_bytes(const document& d);

// Bytes charged to the call's budget and given back when the hold is reset or destroyed: what
// a stage holds or has handed on, for as long as it does.
class call_hold {
 public:
  explicit call_hold(call_budget& b) noexcept : budget_(&b) {}
  ~call_hold() { reset(); }
  call_hold(const call_hold&) = delete;
  call_hold& operator=(const call_hold&) = delete;
  // Charges `bytes` more (throws call_error past the call's bound; nothing is kept then).
  void charge(std::uint64_t bytes, std::string_view what) {
    budget_->charge(bytes, what);
    bytes_ += bytes;
  }
  // Takes over `bytes` already charged to the budget (by code the stage called).
  void adopt(std::uint64_t bytes) noexcept { bytes_ += bytes; }
  void release(std::uint64_t bytes) noexcept {
    bytes = bytes > bytes_ ? bytes_ : bytes;
    budget_->release(bytes);
    bytes_ -= bytes;
  }
  // Holds exactly `bytes` (charging or giving back the difference).
  void set(std::uint64_t bytes, std::string_view what) {
    if (bytes > bytes_) charge(bytes - bytes_, what);
    else release(bytes_ - bytes);
  }
  void reset() noexcept { release(bytes_); }
  std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  call_budget* budget_;
  std::uint64_t bytes_ = 0;
};

// Tracks the bytes one stage instance holds: add() fails past the stage's limit
// (pipeline_options::max_stage_bytes) and charges the call's budget too, so several holding
// stages (a `$facet` of many sorts) cannot together pass the call's bound. What it holds is
// given back to the call by release() and when the budget is destroyed: keep it alive as long
// as the documents it counts (vector_cursor takes it over).
class memory_budget {
 public:
  memory_budget(std::string_view stage, const exec_ctx& ctx)
      : stage_(stage), what_("stage " + quoted(stage)), limit_(ctx.options->max_stage_bytes), call_(*ctx.budget) {}
  void add(std::size_t bytes);
  // add() of bytes the stage's own calls have already charged to the call's budget (window
  // outputs): counted against the stage's limit (unless `check` is false: on the way out of
  // a failure) and given back with the rest.
  void adopt(std::size_t bytes, bool check = true);
  void release(std::size_t bytes) {
    bytes = bytes > used_ ? used_ : bytes;
    used_ -= bytes;
    call_.release(bytes);
  }
  std::size_t used() const noexcept { return used_; }
  const std::string& stage() const noexcept { return stage_; }

 private:
  [[noreturn]] void over() const;
  std::string stage_;
  std::string what_;  // "stage `$group`", in the call's limit error
  std::size_t limit_;
  std::size_t used_ = 0;
  call_hold call_;
};

// The nesting and size of a document a stage hands on (held for as long as it is the stage's
// latest output): hold() measures `d` once, refuses it (limit_exceeded, naming `what`) when
// it nests deeper than k_max_built_depth, and charges its bytes until the next hold() or
// reset() — a document in flight is bounded like any value a call builds.
class output_hold {
 public:
  explicit output_hold(const exec_ctx& ctx) noexcept : hold_(*ctx.budget) {}
  void hold(const document& d, std::string_view what);
  // Only the nesting check of hold() (the bytes are held elsewhere).
  static void check_depth(const document& d, std::string_view what);
  void reset() noexcept { hold_.reset(); }

 private:
  call_hold hold_;
};

// The foreign documents of an equality `$lookup` without an index on the foreign field
// (lookup_table.cpp): read once and kept as BSON, keyed by every value an equality on the
// foreign path can match (array elements too; null where the path is missing), each key
// listing its documents in scan order.
class lookup_table {
 public:
  // Whether the table can serve `path` (no numeric components such as `a.0`).
  static bool usable_path(std::string_view path);
  // Reads `foreign` to its end; false (and nothing kept) once the table would hold more than
  // `limit` bytes.
  bool build(cursor& foreign, const std::string& foreign_field, const exec_ctx& ctx, std::size_t limit);
  // The documents `exact` ({foreignField: {$in: values}}) matches among those keyed by one
  // of `values`, in scan order.
  std::vector<document> matches(const array& values, const filter& exact) const;
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  struct value_less {
    bool operator()(const value& a, const value& b) const { return compare(a, b) < 0; }
  };
  std::vector<std::string> docs_;  // BSON
  std::map<value, std::vector<std::uint32_t>, value_less> keys_;
  std::size_t bytes_ = 0;
};

// Stage compilers, one per file group. Each returns the stage or an error without the
// "stage N (`$x`): " prefix, which compile_pipeline adds.
using stage_compiler = result<stage_ptr> (*)(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_match(const value& spec, const compile_ctx& ctx);         // stage_basic.cpp
result<stage_ptr> compile_limit(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_skip(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_count(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_replace_root(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_replace_with(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_redact(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_sample(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_project(const value& spec, const compile_ctx& ctx);       // stage_project.cpp
result<stage_ptr> compile_add_fields(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_unset(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_group(const value& spec, const compile_ctx& ctx);         // stage_group.cpp
result<stage_ptr> compile_sort_by_count(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_bucket(const value& spec, const compile_ctx& ctx);        // stage_bucket.cpp
result<stage_ptr> compile_bucket_auto(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_sort(const value& spec, const compile_ctx& ctx);          // stage_sort.cpp
result<stage_ptr> compile_unwind(const value& spec, const compile_ctx& ctx);        // stage_unwind.cpp
result<stage_ptr> compile_lookup(const value& spec, const compile_ctx& ctx);        // stage_lookup.cpp
result<stage_ptr> compile_union_with(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_facet(const value& spec, const compile_ctx& ctx);
result<stage_ptr> compile_set_window_fields(const value& spec, const compile_ctx& ctx);  // stage_window.cpp
result<stage_ptr> compile_densify(const value& spec, const compile_ctx& ctx);       // stage_densify.cpp
result<stage_ptr> compile_fill(const value& spec, const compile_ctx& ctx);          // stage_fill.cpp

// A `$setWindowFields` stage from its specification whose memory limit error names
// `stage_name` (`$fill` compiles into one).
result<stage_ptr> compile_window_stage(const value& spec, const compile_ctx& ctx, std::string_view stage_name);
// The window operators `$locf` and `$linearFill` over one partition in sort order
// (stage_fill.cpp): `ys` is the operator's argument per document, `xs` the sortBy field per
// document ($linearFill). Null and missing inputs are filled; those without a value to carry
// (or, for $linearFill, without non-null neighbours on both sides) become null.
std::vector<value> locf_values(const std::vector<expr_value>& ys);
std::vector<value> linear_fill_values(const std::vector<expr_value>& ys, const std::vector<expr_value>& xs);

// A sort stage that keeps only the first `limit` documents (set when `$limit` follows).
stage_ptr sort_with_limit(const stage_ptr& sort, std::uint64_t limit);
// Whether `s` is a `$sort` stage / the limit of a `$limit` stage.
bool is_sort(const stage_ptr& s);
std::optional<std::uint64_t> limit_of(const stage_ptr& s);
// The filter of a `$match` stage that a collection scan can apply itself (no `$expr`), or
// nullptr.
const document* pushable_filter(const stage_ptr& s);

// Sets `v` at dotted `path` in `doc`, creating documents on the way; through an array it
// sets the field in every element ($addFields semantics). Each such copy is charged to the
// thread's current call budget before it is made; returns the bytes charged, which the
// caller holds (call_hold::adopt, memory_budget::adopt) for as long as the document lives.
std::uint64_t set_path(document& doc, std::string_view path, value v);
// Splits a dotted field path; errors on empty components or a leading '$'.
result<std::vector<std::string>> field_path_parts(std::string_view path, std::string_view what);
std::string quoted(std::string_view s);

// --- accumulators (accumulators.cpp, accumulators_n.cpp) ---------------------------------
// An accumulator of $group, $bucket and $bucketAuto is compiled once from {$op: argument};
// each group gets its own state, fed the group's documents in order. add() returns the bytes
// the state grew by (for the stage's memory budget). Semantics are MongoDB's: $sum ignores
// non-numbers and widens int → long → double, $avg and $stdDev* ignore non-numbers and give
// null without any, $min / $max ignore null and missing, $push / $addToSet skip missing
// values, $first / $last give null for missing.

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
