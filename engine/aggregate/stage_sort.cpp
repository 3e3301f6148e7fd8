// $sort and $sample, the stages that order or pick from all their input.
// $sort: the order of engine/query/sort.hpp (ascending uses an array's smallest element,
// descending its largest; missing sorts as null; `_id` then arrival order break ties), through
// sort.hpp's bounded_sorter, the one find's unindexed sort uses. With a `$limit` right after
// it only the top k are held (a bounded heap); otherwise every document is held, within the
// stage's memory limit.
#include <algorithm>
#include <random>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

struct sort_stage final : stage {
  std::shared_ptr<const sort_spec> spec;
  std::optional<std::uint64_t> limit;

  // find's unindexed sort uses the same sorter (engine/query/sort.hpp): one comparator, one
  // top-k, one byte measure and one error past the limit.
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    bounded_sorter<document> sorter(*spec, limit.value_or(UINT64_MAX), ctx.options->max_stage_bytes);
    call_hold hold(*ctx.budget);  // what the sorter holds, charged to the call as it changes
    document d;
    while (input->next(d)) {
      ctx.poll();
      array key = spec->sort_key(d);
      const std::size_t bytes = held_bytes(d);
      if (!sorter.offer(std::move(key), std::move(d), bytes)) {
        fail_limit(sort_limit_message("stage `$sort`", sorter.size(), sorter.max_bytes(),
                                      "add a `$limit` right after the `$sort` (only the top k are then kept), or a "
                                      "`$match` or `$project` before it"));
      }
      hold.set(sorter.bytes(), "stage `$sort`");
      d = document{};
    }
    auto held = sorter.take_sorted();
    std::vector<document> out;
    out.reserve(held.size());
    for (auto& e : held) out.push_back(std::move(e.payload));
    held.clear();
    // The sorted documents stay charged until the cursor has handed them all on.
    auto budget = std::make_unique<memory_budget>("$sort", ctx);
    const std::uint64_t bytes = hold.bytes();
    hold.reset();
    budget->add(bytes);
    return vector_cursor(std::move(out), std::move(budget));
  }
};

// --- $sample -------------------------------------------------------------------------------

// Reservoir sampling (Algorithm R) with std::mt19937_64 seeded by pipeline_options::
// sample_seed: the same input in the same order and the same seed give the same sample.
struct sample_stage final : stage {
  std::uint64_t size = 0;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    std::mt19937_64 rng(ctx.options->sample_seed);
    std::vector<document> kept;
    std::vector<std::size_t> bytes;
    auto held = std::make_unique<memory_budget>("$sample", ctx);
    memory_budget& budget = *held;
    std::uint64_t seen = 0;
    document d;
    while (input->next(d)) {
      ctx.poll();
      ++seen;
      std::size_t slot = kept.size();
      if (kept.size() >= size) {
        slot = static_cast<std::size_t>(std::uniform_int_distribution<std::uint64_t>(0, seen - 1)(rng));
        if (slot >= size) continue;
        budget.release(bytes[slot]);
      }
      const std::size_t b = approx_bytes(d);
      budget.add(b);
      if (slot == kept.size()) {
        kept.push_back(std::move(d));
        bytes.push_back(b);
      } else {
        kept[slot] = std::move(d);
        bytes[slot] = b;
      }
      d = document{};
    }
    return vector_cursor(std::move(kept), std::move(held));
  }
};

}  // namespace

result<stage_ptr> compile_sort(const value& spec, const compile_ctx&) {
  if (!spec.is_document() || spec.as_document().empty()) return make_error("the sort specification must be a non-empty document");
  for (const field& f : spec.as_document()) {
    if (f.val.is_document()) return make_error("sort by " + quoted(f.name) + ": `$meta` sort keys are not supported (use 1 or -1)");
  }
  auto s = sort_spec::compile(spec.as_document());
  if (!s) return std::move(s).error();
  auto st = std::make_shared<sort_stage>();
  st->spec = std::make_shared<const sort_spec>(std::move(*s));
  return stage_ptr(st);
}

stage_ptr sort_with_limit(const stage_ptr& sort, std::uint64_t limit) {
  auto s = std::make_shared<sort_stage>(*dynamic_cast<const sort_stage*>(sort.get()));
  s->limit = limit;
  return s;
}

bool is_sort(const stage_ptr& s) { return dynamic_cast<const sort_stage*>(s.get()) != nullptr; }

result<stage_ptr> compile_sample(const value& spec, const compile_ctx&) {
  const value* size = spec.is_document() ? find_field(spec.as_document(), "size") : nullptr;
  if (size == nullptr || spec.as_document().size() != 1) return make_error("takes exactly one field, `size`");
  const double n = size->is_number() && !size->is_decimal() ? size->number_as_double() : -1;
  if (!(n >= 0) || n != static_cast<double>(static_cast<std::int64_t>(n)) || n > 9.2e18) {
    return make_error("`size` must be a non-negative integer");
  }
  auto s = std::make_shared<sample_stage>();
  s->size = static_cast<std::uint64_t>(n);
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
