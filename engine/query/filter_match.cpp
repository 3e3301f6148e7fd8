// Matching a compiled filter against documents, and the public `filter` class.
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/query/filter_detail.hpp"
#include "engine/value/decimal_math.hpp"

namespace omgdb::engine {
namespace filter_detail {
namespace {

const value& null_value() {
  static const value null;
  return null;
}

bool less(const value& a, const value& b) { return compare(a, b) < 0; }

int type_code(const value& v) {
  return v.type() == kind::min_key ? -1 : static_cast<int>(v.type());
}

}  // namespace

bool logical_node::matches(const path::object_view& obj) const {
  switch (op) {
    case logic::and_:
      return std::all_of(children.begin(), children.end(),
                         [&](const node_ptr& c) { return c->matches(obj); });
    case logic::or_:
      return std::any_of(children.begin(), children.end(),
                         [&](const node_ptr& c) { return c->matches(obj); });
    case logic::nor:
      return std::none_of(children.begin(), children.end(),
                          [&](const node_ptr& c) { return c->matches(obj); });
  }
  return false;
}

bool logical_node::matches_value(const value* v) const {
  switch (op) {
    case logic::and_:
      return std::all_of(children.begin(), children.end(),
                         [&](const node_ptr& c) { return c->matches_value(v); });
    case logic::or_:
      return std::any_of(children.begin(), children.end(),
                         [&](const node_ptr& c) { return c->matches_value(v); });
    case logic::nor:
      return std::none_of(children.begin(), children.end(),
                          [&](const node_ptr& c) { return c->matches_value(v); });
  }
  return false;
}

bool logical_node::matches_detailed(const path::object_view& obj, filter::match_details& details) const {
  if (op != logic::and_) return matches(obj);  // MongoDB's $or and $nor record nothing
  for (const node_ptr& c : children) {
    if (!c->matches_detailed(obj, details)) return false;
  }
  return true;
}

bool not_node::matches(const path::object_view& obj) const { return !child->matches(obj); }

bool expr_node::matches(const path::object_view& obj) const {
  if (obj.doc == nullptr) return false;
  auto v = expr.evaluate(*obj.doc);
  if (!v) throw expression_error(v.error().message, v.error().kind);  // a bound or a cancellation keeps its kind
  return expr_truthy(*v);
}
bool not_node::matches_value(const value* v) const { return !child->matches_value(v); }

bool path_node::matches(const path::object_view& obj) const {
  return path::walk(obj, parts, leaf, [this](const value* v) { return matches_value(v); });
}

namespace {

std::string joined(const path::components& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += parts[i].name;
  }
  return out;
}

}  // namespace

bool path_node::matches_detailed(const path::object_view& obj, filter::match_details& details) const {
  auto visit = [&](const value* v, const path::array_position& p) {
    std::int64_t element = -1;
    if (!matches_value_keyed(v, element)) return false;
    // The outer expansion wins over the element $elemMatch found (MongoDB overwrites the
    // elemMatchKey with the iterator's array offset).
    if (p.index >= 0) {
      details.array_index = static_cast<std::size_t>(p.index);
      details.array_path = joined(parts, p.depth);
    } else if (element >= 0) {
      details.array_index = static_cast<std::size_t>(element);
      details.array_path = joined(parts, parts.size());
    }
    return true;
  };
  return path::walk_positional(obj, parts, leaf, visit);
}

bool compare_node::across_brackets() const noexcept {
  // Type bracketing: only MinKey and MaxKey compare across types.
  if (operand.type() == kind::max_key) return op == cmp_op::lt || op == cmp_op::lte;
  if (operand.type() == kind::min_key) return op == cmp_op::gt || op == cmp_op::gte;
  return false;
}

bool compare_node::holds(int c) const noexcept {
  switch (op) {
    case cmp_op::eq: return c == 0;
    case cmp_op::lt: return c < 0;
    case cmp_op::lte: return c <= 0;
    case cmp_op::gt: return c > 0;
    case cmp_op::gte: return c >= 0;
  }
  return false;
}

bool compare_node::matches_value(const value* v) const {
  const value& lhs = v != nullptr ? *v : null_value();  // missing compares as null
  if (type_rank(lhs) != type_rank(operand)) return across_brackets();
  if (op != cmp_op::eq) {
    // NaN equals NaN but is neither below nor above anything.
    const bool lnan = is_nan(lhs), rnan = is_nan(operand);
    if (lnan || rnan) return lnan && rnan && (op == cmp_op::lte || op == cmp_op::gte);
  }
  return holds(compare(lhs, operand));
}

bool in_node::matches_value(const value* v) const {
  const value& lhs = v != nullptr ? *v : null_value();
  if (v != nullptr) {
    for (const auto& re : regexes) {
      if (re.matches(*v)) return true;
    }
  }
  return std::binary_search(values.begin(), values.end(), lhs, less);
}

bool type_node::matches_value(const value* v) const {
  if (v == nullptr) return false;
  if (any_number && v->is_number()) return true;
  return std::binary_search(codes.begin(), codes.end(), type_code(*v));
}

bool mod_node::matches_value(const value* v) const {
  if (v == nullptr || !v->is_number()) return false;
  std::int64_t dividend = 0;
  if (v->is_int32()) {
    dividend = v->as_int32();
  } else if (v->is_int64()) {
    dividend = v->as_int64();
  } else if (v->is_decimal()) {  // truncated exactly; NaN, infinities and beyond int64 never match
    auto n = decimal_math::to_int64_trunc(std::get<decimal128>(v->raw()));
    if (!n) return false;
    dividend = *n;
  } else {
    const double d = std::trunc(v->number_as_double());  // NaN and infinities never match
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
    dividend = static_cast<std::int64_t>(d);
  }
  const std::int64_t r = divisor == -1 ? 0 : dividend % divisor;  // INT64_MIN % -1 traps
  return r == remainder;
}

bool size_node::matches_value(const value* v) const {
  return v != nullptr && v->is_array() && v->as_array().size() == size;
}

bool elem_match_object_node::matches_value(const value* v) const {
  std::int64_t element = -1;
  return matches_value_keyed(v, element);
}

bool elem_match_object_node::matches_value_keyed(const value* v, std::int64_t& element) const {
  if (v == nullptr || !v->is_array()) return false;
  const array& elems = v->as_array();
  for (std::size_t idx = 0; idx < elems.size(); ++idx) {
    const value& e = elems[idx];
    path::object_view view;
    if (e.is_document()) {
      view.doc = &e.as_document();
    } else if (e.is_array()) {
      view.arr = &e.as_array();
    } else {
      continue;
    }
    if (!sub || sub->matches(view)) {
      element = static_cast<std::int64_t>(idx);
      return true;
    }
  }
  return false;
}

bool elem_match_value_node::matches_value(const value* v) const {
  std::int64_t element = -1;
  return matches_value_keyed(v, element);
}

bool elem_match_value_node::matches_value_keyed(const value* v, std::int64_t& element) const {
  if (v == nullptr || !v->is_array()) return false;
  const array& elems = v->as_array();
  for (std::size_t idx = 0; idx < elems.size(); ++idx) {
    const value& e = elems[idx];
    const bool all = std::all_of(conditions.begin(), conditions.end(),
                                 [&](const node_ptr& c) { return c->matches_value(&e); });
    if (all) {
      element = static_cast<std::int64_t>(idx);
      return true;
    }
  }
  return false;
}

namespace {

// {_id: v} or {_id: {$eq: v}} among the top-level conjuncts (including a top-level $and).
const value* find_id_equality(const filter::node* n) {
  if (const auto* l = dynamic_cast<const logical_node*>(n); l != nullptr) {
    if (l->op != logic::and_) return nullptr;
    for (const auto& c : l->children) {
      if (const value* v = find_id_equality(c.get()); v != nullptr) return v;
    }
    return nullptr;
  }
  if (const auto* c = dynamic_cast<const compare_node*>(n); c != nullptr) {
    if (c->op == cmp_op::eq && c->parts.size() == 1 && c->parts[0].name == "_id") {
      return &c->operand;
    }
  }
  return nullptr;
}

}  // namespace
}  // namespace filter_detail

filter::filter() = default;
filter::~filter() = default;

filter::filter(filter&& other) noexcept
    : root_(std::move(other.root_)),
      id_eq_(std::exchange(other.id_eq_, nullptr)),
      raw_(std::exchange(other.raw_, false)) {}

filter& filter::operator=(filter&& other) noexcept {
  if (this != &other) {
    root_ = std::move(other.root_);
    id_eq_ = std::exchange(other.id_eq_, nullptr);
    raw_ = std::exchange(other.raw_, false);
  }
  return *this;
}

result<filter> filter::compile(const document& spec) {
  auto root = filter_detail::parse_query(spec);
  if (!root) return std::move(root).error();
  filter f;
  f.root_ = std::move(*root);
  f.id_eq_ = filter_detail::find_id_equality(f.root_.get());
  f.raw_ = f.root_ != nullptr && f.root_->raw_capable();
  return f;
}

bool filter::matches(const document& doc) const {
  return !root_ || root_->matches(path::object_view{&doc, nullptr});
}

bool filter::matches(const document& doc, match_details& details) const {
  details = match_details{};
  return !root_ || root_->matches_detailed(path::object_view{&doc, nullptr}, details);
}

bool filter::matches_everything() const noexcept { return !root_; }

const value* filter::id_equality() const noexcept { return id_eq_; }

}  // namespace omgdb::engine
