// Compiling a filter document into the node tree of filter_detail.hpp, following MongoDB's
// parser: a field whose value is a non-empty document starting with a '$' key is an
// operator document (every key must then be an operator); any other value is an equality
// (a regex value is a regex match).
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/filter_detail.hpp"

namespace omgdb::engine::filter_detail {
namespace {

bool starts_with_dollar(std::string_view s) { return !s.empty() && s.front() == '$'; }

// {$ref, $id[, $db]} is a DBRef, compared as a value. Under $elemMatch any one of the three
// keys is enough (MongoDB allows incomplete DBRefs there).
bool is_dbref(const document& d, bool allow_incomplete) {
  const bool ref = find_field(d, "$ref") != nullptr;
  const bool id = find_field(d, "$id") != nullptr;
  const bool db = find_field(d, "$db") != nullptr;
  return allow_incomplete ? (ref || id || db) : (ref && id);
}

bool is_operator_document(const value& v, bool allow_incomplete_dbref = false) {
  if (!v.is_document()) return false;
  const document& d = v.as_document();
  return !d.empty() && starts_with_dollar(d.front().name) && !is_dbref(d, allow_incomplete_dbref);
}

// Operators that apply to the whole document rather than to a path ($elemMatch uses this to
// tell {$elemMatch: {$and: […]}} (a sub-filter) from {$elemMatch: {$gt: 1}} (conditions).
bool is_top_level_operator(std::string_view name) {
  static constexpr std::string_view names[] = {
      "$and", "$or", "$nor", "$comment", "$expr", "$where", "$text", "$jsonSchema",
      "$alwaysTrue", "$alwaysFalse", "$sampleRate"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Every operator MongoDB accepts on a path, implemented or not ($all refuses them).
bool is_path_operator(std::string_view name) {
  static constexpr std::string_view names[] = {
      "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists",
      "$type", "$size", "$all", "$elemMatch", "$not", "$regex", "$options", "$mod",
      "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear", "$geoWithin",
      "$geoIntersects", "$near", "$nearSphere", "$within", "$maxDistance"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

template <class T>
std::unique_ptr<T> at(const path::components& parts) {
  auto n = std::make_unique<T>();
  n->parts = parts;
  return n;
}

node_ptr compare_at(const path::components& parts, cmp_op op, const value& operand) {
  auto n = at<compare_node>(parts);
  n->op = op;
  n->operand = operand;
  return n;
}

node_ptr negate(node_ptr child) {
  auto n = std::make_unique<not_node>();
  n->child = std::move(child);
  return n;
}

// The conjunction of `nodes`; a single node stands for itself.
node_ptr conjunction(std::vector<node_ptr> nodes) {
  if (nodes.size() == 1) return std::move(nodes.front());
  auto n = std::make_unique<logical_node>();
  n->children = std::move(nodes);
  return n;
}

result<node_ptr> regex_at(const path::components& parts, std::string_view pattern,
                          std::string_view options, std::string_view where) {
  auto re = regex_matcher::compile(pattern, options, where);
  if (!re) return std::move(re).error();
  auto n = std::make_unique<regex_node>(std::move(*re));
  n->parts = parts;
  return node_ptr(std::move(n));
}

// The error past k_max_filter_clauses.
failure too_many_clauses() {
  return make_error("the filter has more than " + std::to_string(k_max_filter_clauses) +
                    " clauses (each field condition, operator, $and/$or/$nor branch, $all item and "
                    "$in regex counts one): split the query, or use $in for many values of one field", failure_kind::limit_exceeded);
}

class parser {
 public:
  // A filter document: the conjunction of its fields (an empty AND matches everything).
  result<node_ptr> query(const document& spec) {
    std::vector<node_ptr> nodes;
    for (const field& f : spec) {
      if (auto st = add_field(f, nodes); !st) return std::move(st).error();
    }
    if (nodes.empty()) return node_ptr(std::make_unique<logical_node>());
    return conjunction(std::move(nodes));
  }

 private:
  // Counts one clause; false past the limit.
  bool count_clause() { return ++clauses_ <= k_max_filter_clauses; }
  std::size_t clauses_ = 0;

  status add_field(const field& f, std::vector<node_ptr>& out) {
    if (!count_clause()) return too_many_clauses();
    const bool dbref_field = f.name == "$ref" || f.name == "$id" || f.name == "$db";
    if (starts_with_dollar(f.name) && !dbref_field) {
      if (f.name == "$and" || f.name == "$or" || f.name == "$nor") {
        auto n = logical(f.name, f.val);
        if (!n) return std::move(n).error();
        out.push_back(std::move(*n));
        return {};
      }
      if (f.name == "$comment") return {};
      if (f.name == "$expr") {
        if (elem_match_depth_ > 0) {
          return make_error("`$expr` can only be used at the top level of a filter, not inside `$elemMatch`");
        }
        auto e = expression::compile(f.val);
        if (!e) return make_error("`$expr`: " + e.error().message, e.error().kind);
        auto n = std::make_unique<expr_node>();
        n->expr = std::move(*e);
        out.push_back(std::move(n));
        return {};
      }
      if (f.name == "$sampleRate") {
        if (elem_match_depth_ > 0) return make_error("`$sampleRate` can only be used at the top level of a filter");
        auto n = parse_sample_rate(f.val);
        if (!n) return std::move(n).error();
        out.push_back(std::move(*n));
        return {};
      }
      return make_error("unknown top-level operator " + quoted(f.name));
    }
    const path::components parts = path::split(f.name);
    if (is_operator_document(f.val)) return add_operators(f.name, parts, f.val.as_document(), out);
    if (f.val.type() == kind::regex) {
      const auto& r = std::get<regex>(f.val.raw());
      auto n = regex_at(parts, r.pattern, r.options, f.name);
      if (!n) return std::move(n).error();
      out.push_back(std::move(*n));
      return {};
    }
    out.push_back(compare_at(parts, cmp_op::eq, f.val));
    return {};
  }

  result<node_ptr> logical(const std::string& op, const value& arg) {
    const std::string error = quoted(op) + " needs a non-empty array of objects";
    if (!arg.is_array() || arg.as_array().empty()) return make_error(error);
    auto n = std::make_unique<logical_node>();
    n->op = op == "$and" ? logic::and_ : (op == "$or" ? logic::or_ : logic::nor);
    for (const value& e : arg.as_array()) {
      if (!e.is_document()) return make_error(error);
      if (!count_clause()) return too_many_clauses();
      auto sub = query(e.as_document());
      if (!sub) return std::move(sub).error();
      n->children.push_back(std::move(*sub));
    }
    return node_ptr(std::move(n));
  }

  status add_operators(std::string_view where, const path::components& parts,
                       const document& ops, std::vector<node_ptr>& out) {
    for (const field& op : ops) {
      if (auto st = add_operator(where, parts, ops, op, out); !st) return st;
    }
    return {};
  }

  status add_operator(std::string_view where, const path::components& parts,
                      const document& ops, const field& op, std::vector<node_ptr>& out) {
    const std::string& name = op.name;
    const value& arg = op.val;
    if (!count_clause()) return too_many_clauses();
    auto push = [&](result<node_ptr> n) -> status {
      if (!n) return std::move(n).error();
      out.push_back(std::move(*n));
      return {};
    };
    if (name == "$eq") return push(compare_at(parts, cmp_op::eq, arg));
    if (name == "$ne" || name == "$gt" || name == "$gte" || name == "$lt" || name == "$lte") {
      if (arg.type() == kind::regex) {
        return make_error(quoted(name) + " cannot take a regex at " + quoted(where));
      }
      if (name == "$ne") return push(negate(compare_at(parts, cmp_op::eq, arg)));
      const cmp_op c = name == "$gt"    ? cmp_op::gt
                       : name == "$gte" ? cmp_op::gte
                       : name == "$lt"  ? cmp_op::lt
                                        : cmp_op::lte;
      return push(compare_at(parts, c, arg));
    }
    if (name == "$in") return push(in(name, where, parts, arg));
    if (name == "$nin") {
      auto n = in(name, where, parts, arg);
      if (!n) return std::move(n).error();
      return push(negate(std::move(*n)));
    }
    if (name == "$exists") {
      node_ptr n = at<exists_node>(parts);
      return push(truthy(arg) ? std::move(n) : negate(std::move(n)));
    }
    if (name == "$not") return push(not_operator(where, parts, arg));
    if (name == "$all") return push(all(where, parts, arg));
    if (name == "$elemMatch") return push(elem_match(where, parts, arg));
    if (name == "$size") {
      auto size = parse_size(arg, where);
      if (!size) return std::move(size).error();
      auto n = at<size_node>(parts);
      n->leaf = path::leaf_arrays::array_only;
      n->size = *size;
      return push(node_ptr(std::move(n)));
    }
    if (name == "$type") {
      auto n = at<type_node>(parts);
      if (auto st = parse_type(arg, where, *n); !st) return st;
      return push(node_ptr(std::move(n)));
    }
    if (name == "$mod") {
      auto n = at<mod_node>(parts);
      if (auto st = parse_mod(arg, where, *n); !st) return st;
      return push(node_ptr(std::move(n)));
    }
    if (name == "$regex") return push(regex_document(where, parts, ops));
    if (name == "$options") {
      if (find_field(ops, "$regex") == nullptr) {
        return make_error("`$options` needs a `$regex` at " + quoted(where));
      }
      return {};  // read by $regex
    }
    if (starts_with_dollar(name)) {
      return make_error("unknown operator " + quoted(name) + " at " + quoted(where));
    }
    return make_error("unknown operator " + quoted(name) + " at " + quoted(where) +
                      ": a document of operators cannot also hold plain fields");
  }

  result<node_ptr> in(const std::string& op, std::string_view where,
                      const path::components& parts, const value& arg) {
    if (!arg.is_array()) return make_error(quoted(op) + " needs an array at " + quoted(where));
    auto n = at<in_node>(parts);
    for (const value& e : arg.as_array()) {
      if (is_operator_document(e)) {
        return make_error(quoted(op) + " cannot contain an operator document at " +
                          quoted(where));
      }
      if (e.type() == kind::regex) {
        if (!count_clause()) return too_many_clauses();
        const auto& r = std::get<regex>(e.raw());
        auto re = regex_matcher::compile(r.pattern, r.options, where);
        if (!re) return std::move(re).error();
        n->regexes.push_back(std::move(*re));
      } else {
        n->values.push_back(e);
      }
    }
    std::sort(n->values.begin(), n->values.end(),
              [](const value& a, const value& b) { return compare(a, b) < 0; });
    return node_ptr(std::move(n));
  }

  result<node_ptr> not_operator(std::string_view where, const path::components& parts,
                                const value& arg) {
    if (arg.type() == kind::regex) {
      const auto& r = std::get<regex>(arg.raw());
      auto re = regex_at(parts, r.pattern, r.options, where);
      if (!re) return std::move(re).error();
      return negate(std::move(*re));
    }
    if (!arg.is_document()) {
      return make_error("`$not` needs a regex or a document of operators at " + quoted(where));
    }
    if (arg.as_document().empty()) return make_error("`$not` cannot be empty at " + quoted(where));
    std::vector<node_ptr> nodes;
    if (auto st = add_operators(where, parts, arg.as_document(), nodes); !st) {
      return std::move(st).error();
    }
    return negate(conjunction(std::move(nodes)));
  }

  result<node_ptr> regex_document(std::string_view where, const path::components& parts,
                                  const document& ops) {
    const value* re = find_field(ops, "$regex");
    const value* options = find_field(ops, "$options");
    if (options != nullptr && !options->is_string()) {
      return make_error("`$options` needs a string at " + quoted(where));
    }
    std::string pattern;
    std::string flags = options != nullptr ? options->as_string() : std::string();
    if (re->is_string()) {
      pattern = re->as_string();
    } else if (re->type() == kind::regex) {
      const auto& r = std::get<regex>(re->raw());
      pattern = r.pattern;
      if (!r.options.empty()) {
        if (options != nullptr) {
          return make_error("regex options set in both `$regex` and `$options` at " +
                            quoted(where));
        }
        flags = r.options;
      }
    } else {
      return make_error("`$regex` needs a string or a regex at " + quoted(where));
    }
    return regex_at(parts, pattern, flags, where);
  }

  result<node_ptr> all(std::string_view where, const path::components& parts, const value& arg) {
    if (!arg.is_array()) return make_error("`$all` needs an array at " + quoted(where));
    const array& items = arg.as_array();
    if (items.empty()) return node_ptr(std::make_unique<false_node>());
    auto is_elem_match = [](const value& v) {
      return v.is_document() && !v.as_document().empty() &&
             v.as_document().front().name == "$elemMatch";
    };
    std::vector<node_ptr> nodes;
    if (is_elem_match(items.front())) {
      for (const value& e : items) {
        if (!is_elem_match(e)) {
          return make_error("`$all` cannot mix `$elemMatch` with other values at " +
                            quoted(where));
        }
        if (!count_clause()) return too_many_clauses();
        auto n = elem_match(where, parts, e.as_document().front().val);
        if (!n) return std::move(n).error();
        nodes.push_back(std::move(*n));
      }
      return conjunction(std::move(nodes));
    }
    for (const value& e : items) {
      if (!count_clause()) return too_many_clauses();
      if (e.type() == kind::regex) {
        const auto& r = std::get<regex>(e.raw());
        auto n = regex_at(parts, r.pattern, r.options, where);
        if (!n) return std::move(n).error();
        nodes.push_back(std::move(*n));
      } else if (e.is_document() && !e.as_document().empty() &&
                 is_path_operator(e.as_document().front().name)) {
        return make_error("`$all` cannot contain operators (other than `$elemMatch`) at " +
                          quoted(where));
      } else {
        nodes.push_back(compare_at(parts, cmp_op::eq, e));
      }
    }
    return conjunction(std::move(nodes));
  }

  int elem_match_depth_ = 0;  // > 0 while parsing an $elemMatch sub-filter ($expr is refused)

  result<node_ptr> elem_match(std::string_view where, const path::components& parts,
                              const value& arg) {
    if (!arg.is_document()) {
      return make_error("`$elemMatch` needs a document at " + quoted(where));
    }
    const document& spec = arg.as_document();
    if (is_operator_document(arg, true) && !is_top_level_operator(spec.front().name)) {
      // Conditions on each element itself: {$elemMatch: {$gte: 80, $lt: 85}}.
      auto n = at<elem_match_value_node>(parts);
      n->leaf = path::leaf_arrays::array_only;
      if (auto st = add_operators(where, {}, spec, n->conditions); !st) {
        return std::move(st).error();
      }
      return node_ptr(std::move(n));
    }
    // A filter on each element that is a document (or an array): {$elemMatch: {b: 1}}.
    auto n = at<elem_match_object_node>(parts);
    n->leaf = path::leaf_arrays::array_only;
    if (!spec.empty()) {
      ++elem_match_depth_;
      auto sub = query(spec);
      --elem_match_depth_;
      if (!sub) return std::move(sub).error();
      n->sub = std::move(*sub);
    }
    return node_ptr(std::move(n));
  }
};

}  // namespace

result<node_ptr> parse_query(const document& spec) {
  auto root = parser{}.query(spec);
  if (!root) return root;
  if (const auto* l = dynamic_cast<const logical_node*>(root->get());
      l != nullptr && l->op == logic::and_ && l->children.empty()) {
    return node_ptr();  // no conditions: matches everything
  }
  return root;
}

}  // namespace omgdb::engine::filter_detail
