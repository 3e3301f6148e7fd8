// The array operators: $push (with $each $position $sort $slice), $addToSet, $pop, $pull,
// $pullAll.
#include <algorithm>

#include "engine/query/sort.hpp"
#include "engine/update/update_detail.hpp"

namespace omgdb::engine::update_detail {
namespace {

std::string q(std::string_view s) { return "`" + std::string(s) + "`"; }

failure not_an_array(const update_op& op, const concrete& at, const value& v) {
  return make_error("the field " + q(join(at)) + " must be an array but is of type " + type_name(v) +
                    " (" + op.op_name + ")");
}

// The value an element sorts by for one `$sort` field: the smallest (ascending) or largest
// (descending) value at the path, null when it is missing; non-documents have no fields.
value sort_value(const value& element, const std::string& field_path, bool descending) {
  if (!element.is_document()) return value();
  std::vector<const value*> found;
  bool missing = false;
  values_at_path(element.as_document(), field_path, found, missing);
  if (found.empty()) return value();
  const value* best = found.front();
  for (const value* v : found) {
    const int c = compare(*v, *best);
    if (descending ? c > 0 : c < 0) best = v;
  }
  return *best;
}

void sort_elements(array& items, const push_modifiers& m) {
  if (m.sort == push_modifiers::sort_kind::whole) {
    std::stable_sort(items.begin(), items.end(), [&](const value& a, const value& b) {
      const int c = compare(a, b);
      return m.sort_descending ? c > 0 : c < 0;
    });
    return;
  }
  std::stable_sort(items.begin(), items.end(), [&](const value& a, const value& b) {
    for (const auto& [field_path, descending] : m.sort_by) {
      const int c = compare(sort_value(a, field_path, descending), sort_value(b, field_path, descending));
      if (c != 0) return descending ? c > 0 : c < 0;
    }
    return false;
  });
}

void push(array& items, const push_modifiers& m) {
  // Insert at $position (negative counts from the end), then sort, then slice — whatever
  // order the modifiers were written in.
  const auto size = static_cast<std::int64_t>(items.size());
  std::int64_t at = size;
  if (m.position) {
    at = *m.position >= 0 ? std::min(*m.position, size) : std::max<std::int64_t>(0, size + *m.position);
  }
  items.insert(items.begin() + at, m.each.begin(), m.each.end());
  if (m.sort != push_modifiers::sort_kind::none) sort_elements(items, m);
  if (m.slice) {
    const auto n = static_cast<std::int64_t>(items.size());
    if (*m.slice >= 0) {
      if (*m.slice < n) items.erase(items.begin() + *m.slice, items.end());
    } else if (-*m.slice < n) {
      items.erase(items.begin(), items.end() + *m.slice);
    }
  }
}

void add_to_set(array& items, const array& each) {
  for (const value& v : each) {
    const bool present = std::any_of(items.begin(), items.end(), [&](const value& x) { return equal(x, v); });
    if (!present) items.push_back(v);
  }
}

bool pulled(const pull_condition& c, const value& element) {
  switch (c.m) {
    case pull_condition::mode::equality: return equal(element, c.literal);
    case pull_condition::mode::wrapped: return c.matcher.matches(document{field{"v", element}});
    case pull_condition::mode::object:
      return element.is_document() && c.matcher.matches(element.as_document());
  }
  return false;
}

}  // namespace

status apply_array_op(const update_op& op, const concrete& at, document& root) {
  if (op.kind == op_kind::push || op.kind == op_kind::add_to_set) {
    bool created = false;
    auto slot = find_or_create(root, at, op.op_name, created);
    if (!slot) return std::move(slot).error();
    value& target = **slot;
    if (created) target = value(array{});
    if (!target.is_array()) return not_an_array(op, at, target);
    if (op.kind == op_kind::push) {
      push(target.as_array(), op.push);
    } else {
      add_to_set(target.as_array(), op.push.each);
    }
    return {};
  }
  auto s = find_existing(root, at);
  if (!s) return {};  // $pop / $pull / $pullAll of a missing field change nothing
  value& target = *s->val;
  if (!target.is_array()) return not_an_array(op, at, target);
  array& items = target.as_array();
  switch (op.kind) {
    case op_kind::pop:
      if (items.empty()) return {};
      if (op.pop_from_front < 0) {
        items.erase(items.begin());
      } else {
        items.pop_back();
      }
      return {};
    case op_kind::pull:
      std::erase_if(items, [&](const value& e) { return pulled(op.pull.front(), e); });
      return {};
    case op_kind::pull_all: {
      const array& gone = op.arg.as_array();
      std::erase_if(items, [&](const value& e) {
        return std::any_of(gone.begin(), gone.end(), [&](const value& g) { return equal(e, g); });
      });
      return {};
    }
    default:
      return make_error("internal error: " + op.op_name + " is not an array operator");
  }
}

}  // namespace omgdb::engine::update_detail
