// omgdb engine — from a filter to index bounds: the top-level predicates, the keystring
// intervals each indexable operator allows, and partial-filter implication (index_plan.hpp).
#include <cmath>
#include <limits>

#include "engine/value/ejson.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::detail {
namespace {

bool is_operator_doc(const value& v) {
  return v.is_document() && !v.as_document().empty() && !v.as_document().front().name.empty() &&
         v.as_document().front().name.front() == '$';
}

// The type bracket of `v` as [lo, hi] tag bytes and names; false when ranges over it are
// not indexed (null, arrays, regexes, MinKey / MaxKey).
bool bracket_of(const value& v, interval& b, std::string& name) {
  switch (v.type()) {
    case kind::int32:
    case kind::int64:
    case kind::double_:
    case kind::decimal128:
      b.lo = encode_key(value(std::numeric_limits<double>::quiet_NaN()));
      b.hi = encode_key(value(0.0)).substr(0, 1);
      name = "number";
      return true;
    case kind::boolean:
      b.lo = encode_key(value(false));
      b.hi = encode_key(value(true));
      name = "bool";
      return true;
    case kind::string: name = "string"; break;
    case kind::document: name = "object"; break;
    case kind::binary: name = "binData"; break;
    case kind::object_id: name = "objectId"; break;
    case kind::date_time: name = "date"; break;
    case kind::timestamp: name = "timestamp"; break;
    default: return false;
  }
  b.lo = b.hi = encode_key(v).substr(0, 1);
  return true;
}

interval point(const value& v) {
  const std::string k = encode_key(v);
  return interval{k, k, "[" + to_json(v) + ", " + to_json(v) + "]"};
}

// Intervals of a regex match: strings with the pattern's literal prefix (or every string),
// plus an equal regex value (a regex operand also matches a stored equal regex).
std::vector<interval> regex_intervals(const std::string& pattern, const std::string& options, std::string& kind) {
  std::string prefix;
  const bool plain = options.find_first_of("imx") == std::string::npos;
  if (plain && !pattern.empty() && pattern.front() == '^') {
    static const std::string meta = ".*+?()[]{}|\\^$";
    std::size_t i = 1;
    while (i < pattern.size() && meta.find(pattern[i]) == std::string::npos) ++i;
    prefix = pattern.substr(1, i - 1);
    if (i < pattern.size() && (pattern[i] == '*' || pattern[i] == '?' || pattern[i] == '{') && !prefix.empty()) {
      prefix.pop_back();  // the quantifier makes the last literal optional
    }
  }
  std::vector<interval> out;
  const std::string tag = encode_key(value("")).substr(0, 1);
  if (prefix.empty()) {
    out.push_back(interval{tag, tag, "[every string]"});
    kind = "regex";
  } else {
    std::string lo = tag;
    for (char c : prefix) {
      lo.push_back(c);
      if (c == '\0') lo.push_back(static_cast<char>(0xFF));
    }
    out.push_back(interval{lo, lo, "[strings starting with " + to_json(value(prefix)) + "]"});
    kind = "prefix regex";
  }
  value re(regex{pattern, options});
  out.push_back(point(re));
  return out;
}

// The intervals of one equality operand; false when equality to it is not indexed.
bool equality_intervals(const value& v, std::vector<interval>& out, std::string& why) {
  if (v.is_null()) {
    why = "equality with null also matches missing fields and is not answered from an index";
    return false;
  }
  if (v.is_array()) {
    why = "equality with an array matches the array whole or as an element and is not answered from an index";
    return false;
  }
  if (v.type() == kind::min_key || v.type() == kind::max_key) {
    why = "MinKey / MaxKey operands are not answered from an index";
    return false;
  }
  if (v.type() == kind::regex) {
    std::string k;
    const auto& r = std::get<regex>(v.raw());
    for (auto& i : regex_intervals(r.pattern, r.options, k)) out.push_back(std::move(i));
    return true;
  }
  out.push_back(point(v));
  return true;
}

// Equality with `v` matches exactly the values whose key is v's key.
bool exact_point(const value& v) {
  switch (v.type()) {
    case kind::int32:
    case kind::int64:
    case kind::string:
    case kind::boolean:
    case kind::date_time:
    case kind::object_id:
      return true;
    case kind::double_: return !std::isnan(v.as_double());
    default: return false;
  }
}

void add_condition(predicate& p, const value& cond) {
  p.point = true;
  if (!is_operator_doc(cond)) {
    std::vector<interval> iv;
    if (!equality_intervals(cond, iv, p.reason)) return;
    p.point = cond.type() != kind::regex;
    p.kind = p.point ? "equality" : "regex";
    p.exact = p.point && exact_point(cond);
    p.ops.push_back(std::move(iv));
    p.indexable = true;
    return;
  }
  const document& ops = cond.as_document();
  const value* options = find_field(ops, "$options");
  bool all_exact = true, has_lower_number = false, upper_number = false;
  for (const auto& op : ops) {
    std::vector<interval> iv;
    std::string why;
    bool ok = false;
    bool is_point = false;
    std::string kind;
    bool exact_op = false;
    if (op.name == "$eq") {
      ok = equality_intervals(op.val, iv, why);
      is_point = ok && op.val.type() != kind::regex;
      exact_op = is_point && exact_point(op.val);
      kind = "equality";
    } else if (op.name == "$in" && op.val.is_array()) {
      ok = true;
      is_point = true;
      exact_op = true;
      kind = "$in";
      for (const auto& e : op.val.as_array()) {
        if (!equality_intervals(e, iv, why)) {
          ok = false;
          break;
        }
        if (e.type() == kind::regex) is_point = false;
        exact_op = exact_op && exact_point(e);
      }
    } else if (op.name == "$gt" || op.name == "$gte" || op.name == "$lt" || op.name == "$lte") {
      interval b;
      std::string bname;
      ok = bracket_of(op.val, b, bname);
      if (!ok) why = "`" + op.name + "` with a " + std::string(bson_type_alias(op.val)) + " operand is not answered from an index";
      const bool lower = op.name[1] == 'g';
      const bool incl = op.name.size() == 4;
      const std::string v = to_json(op.val);
      if (ok && lower) {
        iv.push_back(interval{encode_key(op.val), b.hi, (incl ? "[" : "(") + v + ", max " + bname + "]", !incl, false});
        if (op.val.is_number()) has_lower_number = true;
      } else if (ok) {
        iv.push_back(interval{b.lo, encode_key(op.val), "[min " + bname + ", " + v + (incl ? "]" : ")"), false, !incl});
        if (op.val.is_number()) upper_number = true;
      }
      exact_op = ok && !op.val.is_decimal() && !(op.val.is_double() && std::isnan(op.val.as_double()));
      kind = "range";
    } else if (op.name == "$regex" && (op.val.is_string() || op.val.type() == kind::regex)) {
      std::string pattern = op.val.is_string() ? op.val.as_string() : std::get<regex>(op.val.raw()).pattern;
      std::string opts = op.val.is_string() ? "" : std::get<regex>(op.val.raw()).options;
      if (options != nullptr && options->is_string()) opts += options->as_string();
      iv = regex_intervals(pattern, opts, kind);
      ok = true;
    } else {
      if (op.name != "$options") {
        why = "`" + op.name + "` is not answered from an index";
        all_exact = false;
      }
      if (p.reason.empty()) p.reason = why;
      continue;
    }
    if (!ok) {
      all_exact = false;
      if (p.reason.empty()) p.reason = why;
      continue;
    }
    all_exact = all_exact && exact_op;
    if (!is_point) p.point = false;
    if (p.kind.empty()) p.kind = kind;
    p.ops.push_back(std::move(iv));
  }
  p.indexable = !p.ops.empty();
  if (!p.indexable) p.point = false;
  // A lone upper bound over numbers starts at the bracket's NaN, which the filter may not match.
  p.exact = p.indexable && all_exact && (!upper_number || has_lower_number);
}

void collect(const document& filter, std::vector<predicate>& out) {
  for (const auto& f : filter) {
    if (f.name == "$and" && f.val.is_array()) {
      for (const auto& e : f.val.as_array()) {
        if (e.is_document()) collect(e.as_document(), out);
      }
      continue;
    }
    predicate p;
    p.condition = document{f};
    if (!f.name.empty() && f.name.front() == '$') {
      p.reason = "`" + f.name + "` is not answered from an index (it is re-checked on every document)";
      out.push_back(std::move(p));
      continue;
    }
    p.path = f.name;
    add_condition(p, f.val);
    out.push_back(std::move(p));
  }
}

// Does condition `q` on a path imply partial-filter condition `c` on the same path?
bool implies_condition(const value& q, const value& c) {
  if (compare(q, c) == 0) return true;
  if (!is_operator_doc(c)) return false;
  // q's equality operand, when q is an equality.
  const value* eq = nullptr;
  if (!is_operator_doc(q)) {
    eq = &q;
  } else if (q.as_document().size() == 1 && q.as_document().front().name == "$eq") {
    eq = &q.as_document().front().val;
  }
  for (const auto& op : c.as_document()) {
    bool ok = false;
    if (op.name == "$exists") {
      ok = (eq != nullptr && !eq->is_null()) ||
           (is_operator_doc(q) && (find_field(q.as_document(), "$gt") || find_field(q.as_document(), "$gte") ||
                                   find_field(q.as_document(), "$lt") || find_field(q.as_document(), "$lte")));
    } else if (op.name == "$eq") {
      ok = eq != nullptr && compare(*eq, op.val) == 0;
    } else if (op.name == "$gt" || op.name == "$gte" || op.name == "$lt" || op.name == "$lte") {
      const bool lower = op.name[1] == 'g';
      const bool strict = op.name.size() == 3;
      auto satisfies = [&](const value& v, bool v_strict) {
        if (type_rank(v) != type_rank(op.val)) return false;
        const int cmp = compare(v, op.val);
        if (lower) return cmp > 0 || (cmp == 0 && (!strict || v_strict));
        return cmp < 0 || (cmp == 0 && (!strict || v_strict));
      };
      if (eq != nullptr) {
        ok = !eq->is_array() && satisfies(*eq, false);
      } else if (is_operator_doc(q)) {
        for (const auto& qo : q.as_document()) {
          const bool q_lower = qo.name == "$gt" || qo.name == "$gte";
          const bool q_upper = qo.name == "$lt" || qo.name == "$lte";
          if ((lower && q_lower) || (!lower && q_upper)) ok = ok || satisfies(qo.val, qo.name.size() == 3);
        }
      }
    }
    if (!ok) return false;
  }
  return true;
}

void partial_conditions(const document& f, std::vector<const field*>& out) {
  for (const auto& fld : f) {
    if (fld.name == "$and" && fld.val.is_array()) {
      for (const auto& e : fld.val.as_array()) {
        if (e.is_document()) partial_conditions(e.as_document(), out);
      }
    } else {
      out.push_back(&fld);
    }
  }
}

}  // namespace

std::vector<predicate> extract_predicates(const document& filter) {
  std::vector<predicate> out;
  collect(filter, out);
  return out;
}

std::string successor(std::string s) {
  while (!s.empty() && static_cast<unsigned char>(s.back()) == 0xFF) s.pop_back();
  if (!s.empty()) s.back() = static_cast<char>(static_cast<unsigned char>(s.back()) + 1);
  return s;
}

bool implies(const std::vector<predicate>& query, const document& partial) {
  std::vector<const field*> needed;
  partial_conditions(partial, needed);
  for (const field* c : needed) {
    bool ok = false;
    for (const auto& p : query) {
      if (p.path.empty() || p.path != c->name) continue;
      if (implies_condition(p.condition.front().val, c->val)) {
        ok = true;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace omgdb::engine::detail
