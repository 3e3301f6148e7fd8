// Applying a compiled update: positional paths are resolved against the original document,
// every (operator, concrete path) pair is ordered MongoDB's way and checked for conflicts,
// then applied to a copy of the document.
#include <algorithm>

#include "engine/query/expr.hpp"
#include "engine/update/update_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace update_detail;

std::string q(std::string_view s) { return "`" + std::string(s) + "`"; }

const value* element(const value& v, const path::component& c);

// The value below `v` (or below the root document when `v` is nullptr) at component `c`.
const value* child(const value* v, const document& root, const path::component& c) {
  if (v == nullptr) return find_field(root, c.name);
  if (v->is_document()) return find_field(v->as_document(), c.name);
  return element(*v, c);
}

const value* element(const value& v, const path::component& c) {
  if (v.is_array() && c.index >= 0 && static_cast<std::size_t>(c.index) < v.as_array().size()) {
    return &v.as_array()[static_cast<std::size_t>(c.index)];
  }
  return nullptr;
}

struct resolver {
  const update_spec::impl& spec;
  const update_apply_options& options;
  const document& root;  // the original document

  // Expands `p` from component i on, with `prefix` already resolved and `here` the value it
  // reaches (nullptr at the root, and when missing). Appends every concrete path to `out`.
  status expand(const update_op& op, const parts& p, std::size_t i, concrete& prefix,
                const value* here, std::vector<concrete>& out) const {
    if (i == p.size()) {
      out.push_back(prefix);
      return {};
    }
    const part& c = p[i];
    if (c.k == part::kind::field || c.k == part::kind::positional) {
      path::component next{c.name, c.index};
      if (c.k == part::kind::positional) {
        if (options.inserting || options.positional == nullptr || !options.positional->array_index) {
          return make_error("the positional operator did not find the match needed from the query (" +
                            op.op_name + " at " + q(op.text) + ")");
        }
        const auto idx = static_cast<std::int64_t>(*options.positional->array_index);
        next = path::component{std::to_string(idx), idx};
      }
      prefix.push_back(next);
      const value* below = (here != nullptr || i == 0) ? child(here, root, next) : nullptr;
      auto s = expand(op, p, i + 1, prefix, below, out);
      prefix.pop_back();
      return s;
    }
    // $[] or $[id]: the array must exist.
    if (here == nullptr) {
      return make_error("the path " + q(join(prefix)) + " must exist in the document in order to apply "
                        "array updates (" + op.op_name + " at " + q(op.text) + ")");
    }
    if (!here->is_array()) {
      return make_error("cannot apply array updates to non-array element " + q(join(prefix)) + ": " +
                        show(*here) + " (" + op.op_name + " at " + q(op.text) + ")");
    }
    const array& items = here->as_array();
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (c.k == part::kind::filtered) {
        const array_filter& f = spec.filters[c.filter];
        if (!f.matcher.matches(document{field{f.identifier, items[k]}})) continue;
      }
      const auto idx = static_cast<std::int64_t>(k);
      prefix.push_back(path::component{std::to_string(k), idx});
      auto s = expand(op, p, i + 1, prefix, &items[k], out);
      prefix.pop_back();
      if (!s) return s;
    }
    return {};
  }
};

struct planned {
  concrete at;
  const update_op* op = nullptr;
  const concrete* from = nullptr;  // $rename: the source path (owned by `sources`)
  bool is_source = false;          // a $rename source entry, only for the conflict check
};

status check_conflicts(std::vector<planned>& plan) {
  std::sort(plan.begin(), plan.end(), [](const planned& a, const planned& b) {
    const int c = compare_paths(a.at, b.at);
    return c != 0 ? c < 0 : a.is_source < b.is_source;
  });
  for (std::size_t i = 1; i < plan.size(); ++i) {
    if (is_prefix(plan[i - 1].at, plan[i].at)) {
      return make_error("update created a conflict at " + q(join(plan[i - 1].at)) + " (" +
                        plan[i - 1].op->op_name + " at " + q(plan[i - 1].op->text) + " and " +
                        plan[i].op->op_name + " at " + q(plan[i].op->text) + ")");
    }
  }
  return {};
}

}  // namespace

result<update_outcome> update_spec::apply(const document& doc, const update_apply_options& options) const {
  // A $pull condition's run-time error (a regex at the match limit) is a failure of the update.
  return guard_match([&] { return apply_unguarded(doc, options); });
}

result<update_outcome> update_spec::apply_unguarded(const document& doc, const update_apply_options& options) const {
  resolver r{*impl_, options, doc};
  std::vector<planned> plan;
  std::vector<concrete> sources;  // $rename sources, indexed like `plan` entries refer to
  sources.reserve(impl_->ops.size());
  for (const auto& op : impl_->ops) {
    if (op.kind == op_kind::set_on_insert && !options.inserting) continue;
    std::vector<concrete> targets;
    concrete prefix;
    if (auto s = r.expand(op, op.path, 0, prefix, nullptr, targets); !s) return std::move(s).error();
    const concrete* from = nullptr;
    if (op.kind == op_kind::rename) {
      concrete src;
      for (const auto& x : op.from) src.push_back(path::component{x.name, x.index});
      sources.push_back(std::move(src));
      from = &sources.back();
      plan.push_back(planned{*from, &op, from, true});
    }
    for (auto& t : targets) plan.push_back(planned{std::move(t), &op, from, false});
  }
  if (auto s = check_conflicts(plan); !s) return std::move(s).error();

  update_outcome out{doc, false};
  // MongoDB's no-op rule is per operator, not a comparison of the results: a $push that
  // inserts elements is never a no-op, even when its $slice trims them away again.
  bool pushed = false;
  for (const auto& step : plan) {
    if (step.is_source) continue;
    status s;
    switch (step.op->kind) {
      case op_kind::rename: s = apply_rename(*step.op, *step.from, step.at, out.doc); break;
      case op_kind::push:
        pushed = pushed || !step.op->push.each.empty();
        s = apply_array_op(*step.op, step.at, out.doc);
        break;
      case op_kind::add_to_set:
      case op_kind::pop:
      case op_kind::pull:
      case op_kind::pull_all: s = apply_array_op(*step.op, step.at, out.doc); break;
      default: s = apply_field_op(*step.op, step.at, out.doc, options); break;
    }
    if (!s) return std::move(s).error();
  }

  const value* id_before = find_field(doc, "_id");
  const value* id_after = find_field(out.doc, "_id");
  if (id_before != nullptr && (id_after == nullptr || !identical(*id_before, *id_after))) {
    return make_error("performing an update on the path `_id` would modify the immutable field `_id`");
  }
  out.changed = pushed || !identical(doc, out.doc);
  return out;
}

std::optional<std::vector<std::string>> update_spec::root_fields() const {
  std::vector<std::string> out;
  auto add = [&](const parts& p) {
    if (p.empty() || p.front().k != part::kind::field) return false;
    if (std::find(out.begin(), out.end(), p.front().name) == out.end()) out.push_back(p.front().name);
    return true;
  };
  for (const auto& op : impl_->ops) {
    if (!add(op.path)) return std::nullopt;
    if (op.kind == op_kind::rename && !add(op.from)) return std::nullopt;
  }
  return out;
}

}  // namespace omgdb::engine
