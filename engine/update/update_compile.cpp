// Compiling update documents: operators, paths, arguments, array filters, static conflicts.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/value/ejson.hpp"
#include "engine/update/update_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace update_detail;

std::string q(std::string_view s) { return "`" + std::string(s) + "`"; }

const std::map<std::string, op_kind, std::less<>>& operators() {
  static const std::map<std::string, op_kind, std::less<>> table{
      {"$set", op_kind::set},          {"$unset", op_kind::unset},
      {"$inc", op_kind::inc},          {"$mul", op_kind::mul},
      {"$min", op_kind::min},          {"$max", op_kind::max},
      {"$rename", op_kind::rename},    {"$currentDate", op_kind::current_date},
      {"$setOnInsert", op_kind::set_on_insert}, {"$bit", op_kind::bit},
      {"$push", op_kind::push},        {"$addToSet", op_kind::add_to_set},
      {"$pop", op_kind::pop},          {"$pull", op_kind::pull},
      {"$pullAll", op_kind::pull_all},
  };
  return table;
}

bool valid_identifier(std::string_view id) {
  if (id.empty() || id.front() < 'a' || id.front() > 'z') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

struct compiler {
  update_spec::impl& out;
  std::map<std::string, std::size_t> filter_ids;  // identifier -> filters index
  std::set<std::size_t> used_filters;

  result<parts> parse_path(std::string_view text, std::string_view op, bool allow_positional) {
    if (text.empty()) return make_error("an empty update path is not valid (in " + q(op) + ")");
    parts out_parts;
    int dollars = 0;
    for (const auto& c : path::split(text)) {
      part p;
      p.name = c.name;
      p.index = c.index;
      if (c.name.empty()) {
        return make_error("the update path " + q(text) + " contains an empty field name");
      }
      if (c.name.front() == '$') {
        if (c.name == "$") {
          p.k = part::kind::positional;
          ++dollars;
        } else if (c.name == "$[]") {
          p.k = part::kind::all;
        } else if (c.name.size() > 3 && c.name[1] == '[' && c.name.back() == ']') {
          std::string id = c.name.substr(2, c.name.size() - 3);
          if (!valid_identifier(id)) {
            return make_error("the array filter identifier " + q(id) + " in " + q(text) +
                              " must begin with a lowercase letter and contain only letters "
                              "and digits");
          }
          auto it = filter_ids.find(id);
          if (it == filter_ids.end()) {
            return make_error("no array filter found for identifier " + q(id) + " in path " +
                              q(text));
          }
          p.k = part::kind::filtered;
          p.filter = it->second;
          used_filters.insert(it->second);
        } else {
          return make_error("the dollar ($) prefixed field " + q(c.name) + " in " + q(text) +
                            " is not valid in an update path");
        }
        if (!allow_positional) {
          return make_error(q(op) + " cannot use positional paths: " + q(text));
        }
        if (out_parts.empty()) {
          return make_error("cannot have a positional element in the first position in path " +
                            q(text));
        }
      }
      out_parts.push_back(std::move(p));
    }
    if (dollars > 1) {
      return make_error("too many positional (i.e. '$') elements found in path " + q(text));
    }
    if (dollars > 0) out.positional = true;
    return out_parts;
  }

  static std::optional<std::int64_t> integral(const value& v) {
    if (v.is_int32()) return v.as_int32();
    if (v.is_int64()) return v.as_int64();
    if (v.is_double() && std::isfinite(v.as_double()) && std::trunc(v.as_double()) == v.as_double() &&
        std::abs(v.as_double()) < 9.2e18) {
      return static_cast<std::int64_t>(v.as_double());
    }
    return std::nullopt;
  }

  status push_args(update_op& op) {
    const bool add_to_set = op.kind == op_kind::add_to_set;
    const std::string where = q(op.op_name) + " at " + q(op.text);
    if (!op.arg.is_document() || find_field(op.arg.as_document(), "$each") == nullptr) {
      op.push.each = array{op.arg};
      return {};
    }
    for (const auto& f : op.arg.as_document()) {
      if (f.name == "$each") {
        if (!f.val.is_array()) return make_error(where + ": `$each` needs an array, not " + show(f.val));
        op.push.each = f.val.as_array();
      } else if (add_to_set) {
        return make_error(where + ": unexpected field " + q(f.name) + " next to `$each`");
      } else if (f.name == "$slice" || f.name == "$position") {
        auto n = integral(f.val);
        if (!n) return make_error(where + ": " + q(f.name) + " needs an integer, not " + show(f.val));
        (f.name == "$slice" ? op.push.slice : op.push.position) = *n;
      } else if (f.name == "$sort") {
        if (auto s = sort_args(op, f.val, where); !s) return s;
      } else {
        return make_error(where + ": unrecognized clause in `$push`: " + q(f.name));
      }
    }
    return {};
  }

  static status sort_args(update_op& op, const value& v, const std::string& where) {
    auto dir = [](const value& d) -> std::optional<bool> {
      auto n = integral(d);
      if (n && (*n == 1 || *n == -1)) return *n == -1;
      return std::nullopt;
    };
    if (auto d = dir(v)) {
      op.push.sort = push_modifiers::sort_kind::whole;
      op.push.sort_descending = *d;
      return {};
    }
    if (!v.is_document() || v.as_document().empty()) {
      return make_error(where + ": `$sort` needs 1, -1 or a non-empty document of fields, not " + show(v));
    }
    for (const auto& f : v.as_document()) {
      auto d = dir(f.val);
      if (!d) return make_error(where + ": `$sort` directions must be 1 or -1, not " + show(f.val));
      if (f.name.empty() || f.name.front() == '$' || f.name.front() == '.' || f.name.back() == '.' ||
          f.name.find("..") != std::string::npos) {
        return make_error(where + ": `$sort` field " + q(f.name) + " is not a valid path");
      }
      op.push.sort_by.emplace_back(f.name, *d);
    }
    op.push.sort = push_modifiers::sort_kind::by_fields;
    return {};
  }

  static bool is_query_operator(std::string_view name) {
    return !name.empty() && name.front() == '$' && name != "$and" && name != "$or" &&
           name != "$nor" && name != "$expr";
  }

  status pull_args(update_op& op) {
    pull_condition c;
    const value& v = op.arg;
    if (v.is_document() && !v.as_document().empty() &&
        is_query_operator(v.as_document().front().name)) {
      c.m = pull_condition::mode::wrapped;  // {$gt: 1}: a condition on each element
      auto f = filter::compile(document{field{"v", v}});
      if (!f) return make_error("`$pull` at " + q(op.text) + ": " + f.error().message, f.error().kind);
      c.matcher = std::move(*f);
    } else if (v.is_document()) {
      c.m = pull_condition::mode::object;  // {b: 1}: a query on document elements
      auto f = filter::compile(v.as_document());
      if (!f) return make_error("`$pull` at " + q(op.text) + ": " + f.error().message, f.error().kind);
      c.matcher = std::move(*f);
    } else {
      c.literal = v;
    }
    op.pull.push_back(std::move(c));
    return {};
  }

  status bit_args(update_op& op) {
    const std::string where = "`$bit` at " + q(op.text);
    if (!op.arg.is_document() || op.arg.as_document().empty()) {
      return make_error(where + " needs a document like {and: 5}, not " + show(op.arg));
    }
    for (const auto& f : op.arg.as_document()) {
      bit_step b;
      if (f.name == "and") b.k = bit_step::kind::and_;
      else if (f.name == "or") b.k = bit_step::kind::or_;
      else if (f.name == "xor") b.k = bit_step::kind::xor_;
      else return make_error(where + ": unknown bitwise operation " + q(f.name) + " (use and, or, xor)");
      if (!f.val.is_int32() && !f.val.is_int64()) {
        return make_error(where + ": the " + f.name + " operand must be an integer, not " + show(f.val));
      }
      b.operand = f.val;
      op.bits.push_back(std::move(b));
    }
    return {};
  }

  status arguments(update_op& op) {
    const std::string where = q(op.op_name) + " at " + q(op.text);
    switch (op.kind) {
      case op_kind::inc:
      case op_kind::mul:
        if (!op.arg.is_number()) return make_error(where + " needs a number, not " + show(op.arg));
        return {};
      case op_kind::current_date: {
        if (op.arg.is_bool()) return {};
        const value* t = op.arg.is_document() && op.arg.as_document().size() == 1
                             ? find_field(op.arg.as_document(), "$type") : nullptr;
        if (t != nullptr && t->is_string() && (t->as_string() == "date" || t->as_string() == "timestamp")) {
          op.timestamp = t->as_string() == "timestamp";
          return {};
        }
        return make_error(where + " needs true or {$type: \"date\" | \"timestamp\"}, not " + show(op.arg));
      }
      case op_kind::pop: {
        auto n = op.arg.is_number() ? integral(op.arg) : std::nullopt;
        if (!n || (*n != 1 && *n != -1)) return make_error("`$pop` expects 1 or -1, found " + show(op.arg) + " at " + q(op.text));
        op.pop_from_front = static_cast<int>(*n);
        return {};
      }
      case op_kind::pull_all:
        if (!op.arg.is_array()) return make_error(where + " needs an array, not " + show(op.arg));
        return {};
      case op_kind::push:
      case op_kind::add_to_set: return push_args(op);
      case op_kind::pull: return pull_args(op);
      case op_kind::bit: return bit_args(op);
      default: return {};
    }
  }

  status rename(update_op& op, const field& f) {
    if (!f.val.is_string() || f.val.as_string().empty()) {
      return make_error("the target of `$rename` for " + q(f.name) + " must be a non-empty string, not " + show(f.val));
    }
    op.from_text = f.name;
    op.text = f.val.as_string();
    auto from = parse_path(op.from_text, "$rename", false);
    if (!from) return std::move(from).error();
    auto to = parse_path(op.text, "$rename", false);
    if (!to) return std::move(to).error();
    op.from = std::move(*from);
    op.path = std::move(*to);
    if (op.from_text == op.text) {
      return make_error("the source and target field for `$rename` must differ: " + q(op.text));
    }
    auto prefix = [](const parts& a, const parts& b) {
      return a.size() <= b.size() &&
             std::equal(a.begin(), a.end(), b.begin(), [](const part& x, const part& y) { return x.name == y.name; });
    };
    if (prefix(op.from, op.path) || prefix(op.path, op.from)) {
      return make_error("the source and target field for `$rename` must not be on the same path: " +
                        q(op.from_text) + " and " + q(op.text));
    }
    return {};
  }

  status add_filters(const array& filters) {
    for (std::size_t i = 0; i < filters.size(); ++i) {
      const std::string where = "arrayFilters[" + std::to_string(i) + "]";
      if (!filters[i].is_document() || filters[i].as_document().empty()) {
        return make_error(where + " must be a non-empty document like {\"x.a\": {\"$gt\": 1}}");
      }
      std::string id;
      if (auto s = identifier(filters[i].as_document(), id, where); !s) return s;
      if (!valid_identifier(id)) {
        return make_error(where + ": the identifier " + q(id) +
                          " must begin with a lowercase letter and contain only letters and digits");
      }
      if (filter_ids.count(id) != 0) {
        return make_error("found multiple array filters with the same identifier " + q(id));
      }
      auto f = filter::compile(filters[i].as_document());
      if (!f) return make_error(where + ": " + f.error().message, f.error().kind);
      filter_ids.emplace(id, out.filters.size());
      out.filters.push_back(array_filter{id, std::move(*f)});
    }
    return {};
  }

  // The one top-level name of an array filter (inside $and/$or/$nor too).
  static status identifier(const document& d, std::string& id, const std::string& where) {
    for (const auto& f : d) {
      if (f.name == "$and" || f.name == "$or" || f.name == "$nor") {
        if (!f.val.is_array()) continue;  // filter::compile reports it
        for (const auto& e : f.val.as_array()) {
          if (!e.is_document()) continue;
          if (auto s = identifier(e.as_document(), id, where); !s) return s;
        }
        continue;
      }
      if (!f.name.empty() && f.name.front() == '$') {
        return make_error(where + ": " + q(f.name) + " cannot be used without a top-level field name");
      }
      std::string name = f.name.substr(0, f.name.find('.'));
      if (!id.empty() && id != name) {
        return make_error(where + ": expected a single top-level field name, found " + q(id) +
                          " and " + q(name));
      }
      id = name;
    }
    if (id.empty()) return make_error(where + " has no top-level field name");
    return {};
  }
};

// Two written paths conflict when one is a prefix of (or equal to) the other.
status static_conflicts(const update_spec::impl& spec) {
  std::vector<std::pair<concrete, const std::string*>> paths;
  auto add = [&](const parts& p, const std::string& text) {
    concrete c;
    for (const auto& x : p) c.push_back(path::component{x.name, x.index});
    paths.emplace_back(std::move(c), &text);
  };
  for (const auto& op : spec.ops) {
    add(op.path, op.text);
    if (op.kind == op_kind::rename) add(op.from, op.from_text);
  }
  std::sort(paths.begin(), paths.end(),
            [](const auto& a, const auto& b) { return compare_paths(a.first, b.first) < 0; });
  for (std::size_t i = 1; i < paths.size(); ++i) {
    if (is_prefix(paths[i - 1].first, paths[i].first)) {
      return make_error("updating the path " + q(*paths[i].second) + " would create a conflict at " +
                        q(*paths[i - 1].second));
    }
  }
  return {};
}

}  // namespace

update_spec::update_spec() : impl_(std::make_unique<impl>()) {}
update_spec::~update_spec() = default;
update_spec::update_spec(update_spec&&) noexcept = default;
update_spec& update_spec::operator=(update_spec&&) noexcept = default;

bool update_spec::uses_positional() const noexcept { return impl_->positional; }

result<update_spec> update_spec::compile(const document& update, const array& array_filters) {
  update_spec spec;
  compiler c{*spec.impl_, {}, {}};
  const bool any_plain = std::any_of(update.begin(), update.end(), [](const field& f) {
    return f.name.empty() || f.name.front() != '$';
  });
  if (update.empty() || any_plain) {
    return make_error("update document requires update operators; use `replace` to replace a document");
  }
  if (auto s = c.add_filters(array_filters); !s) return std::move(s).error();
  for (const auto& top : update) {
    auto kind = operators().find(top.name);
    if (kind == operators().end()) return make_error("unknown update operator " + q(top.name));
    if (!top.val.is_document()) {
      return make_error(q(top.name) + " takes a document of fields, e.g. {\"" + top.name +
                        "\": {\"a\": …}}, not " + show(top.val));
    }
    for (const auto& f : top.val.as_document()) {
      update_op op;
      op.kind = kind->second;
      op.op_name = top.name;
      op.arg = f.val;
      if (op.kind == op_kind::rename) {
        if (auto s = c.rename(op, f); !s) return std::move(s).error();
      } else {
        op.text = f.name;
        auto p = c.parse_path(f.name, top.name, true);
        if (!p) return std::move(p).error();
        op.path = std::move(*p);
        if (auto s = c.arguments(op); !s) return std::move(s).error();
      }
      spec.impl_->ops.push_back(std::move(op));
    }
  }
  for (const auto& [id, index] : c.filter_ids) {
    if (c.used_filters.count(index) == 0) {
      return make_error("the array filter for identifier " + q(id) + " was not used in the update");
    }
  }
  if (auto s = static_conflicts(*spec.impl_); !s) return std::move(s).error();
  return spec;
}

}  // namespace omgdb::engine
