// $group and $sortByCount. Groups are keyed by the keystring of `_id` (engine/index/
// keystring.hpp), so keys equal by value (1, 1.0, NumberLong(1)) share a group while
// document keys stay field-order sensitive; a missing `_id` expression groups as null.
// Groups come out in the order their first document arrived.
#include <unordered_map>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

struct group_stage final : stage {
  expression id;
  std::vector<output_field> outputs;

  struct group {
    value key;
    std::vector<std::unique_ptr<accumulator_state>> states;
  };

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    // The groups stay charged (`budget`) until the last is handed on; each output document
    // is measured, depth-checked and held while it is the latest (its accumulators' values
    // are copied into it).
    struct c final : cursor {
      std::unique_ptr<memory_budget> budget;
      std::vector<group> groups;
      std::size_t pos = 0;
      exec_ctx& ctx;
      const group_stage& s;
      output_hold held;
      c(exec_ctx& x, const group_stage& st) : budget(std::make_unique<memory_budget>("$group", x)), ctx(x), s(st), held(x) {}
      bool next(document& out) override {
        held.reset();
        if (pos >= groups.size()) {
          groups.clear();
          budget.reset();
          return false;
        }
        ctx.poll();
        group& g = groups[pos++];
        out.clear();
        out.push_back(field{"_id", std::move(g.key)});
        for (std::size_t i = 0; i < s.outputs.size(); ++i) {
          expr_value v = g.states[i]->finish(ctx);
          if (v) out.push_back(field{s.outputs[i].name, std::move(*v)});
        }
        g.states.clear();
        held.hold(out, "stage `$group`");
        return true;
      }
    };
    auto cur = std::make_unique<c>(ctx, *this);
    cur->groups = collect(*input, ctx, *cur->budget);
    return cur;
  }

  std::vector<group> collect(cursor& input, exec_ctx& ctx, memory_budget& budget) const {
    std::unordered_map<std::string, std::size_t> index;
    std::vector<group> groups;
    document d;
    std::string k;  // the key's keystring, its buffer reused from document to document
    while (input.next(d)) {
      ctx.poll();
      value key = ctx.eval(id, d).value_or(value());
      k.clear();
      append_key(k, key);
      auto it = index.find(k);
      if (it == index.end()) {
        budget.add(approx_bytes(key) + 2 * k.size() + 96 + outputs.size() * 64);
        group g{std::move(key), {}};
        for (const output_field& o : outputs) g.states.push_back(o.acc.start());
        groups.push_back(std::move(g));
        it = index.emplace(k, groups.size() - 1).first;
      }
      group& g = groups[it->second];
      for (auto& st : g.states) budget.add(st->add(d, ctx));
    }
    return groups;
  }
};

// Stages run one after the other as one ($sortByCount is $group then $sort).
struct sequence_stage final : stage {
  stage_list parts;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override { return open_pipeline(parts, std::move(input), ctx); }
};

}  // namespace

result<stage_ptr> compile_group(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  const document& d = spec.as_document();
  const value* id = find_field(d, "_id");
  if (id == nullptr) return make_error("a group specification must include an `_id`");
  auto s = std::make_shared<group_stage>();
  auto e = ctx.compile(*id);
  if (!e) return make_error("`_id`: " + e.error().message, e.error().kind);
  s->id = std::move(*e);
  auto outs = compile_outputs(d, true, ctx);
  if (!outs) return std::move(outs).error();
  s->outputs = std::move(*outs);
  return stage_ptr(s);
}

result<stage_ptr> compile_sort_by_count(const value& spec, const compile_ctx& ctx) {
  if (!(spec.is_string() && !spec.as_string().empty() && spec.as_string()[0] == '$') &&
      !(spec.is_document() && !spec.as_document().empty() && spec.as_document().front().name[0] == '$')) {
    return make_error("the argument must be a field path (\"$field\") or an operator expression");
  }
  auto group = compile_group(value(document{{"_id", spec}, {"count", value(document{{"$sum", value(std::int32_t{1})}})}}), ctx);
  if (!group) return std::move(group).error();
  auto sort = compile_sort(value(document{{"count", value(std::int32_t{-1})}}), ctx);
  if (!sort) return std::move(sort).error();
  auto s = std::make_shared<sequence_stage>();
  s->parts = {std::move(*group), std::move(*sort)};
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
