// $project, $addFields / $set and $unset. Projections without computed fields are the find
// projection (engine/query/projection.hpp), whose inclusion and exclusion rules are the
// same; computed fields are set after the included ones, in spec order, at their dotted path.
#include <algorithm>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/query/projection.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

// Each node carries its own name: a vector of pair<string, include_node> would need
// include_node complete inside its own definition (clang refuses it).
struct include_node {
  bool leaf = false;
  std::vector<include_node> children;
  std::string name;  // in the parent's `children`
  include_node& child(const std::string& field) {
    for (auto& c : children) {
      if (c.name == field) return c;
    }
    children.push_back(include_node{false, {}, field});
    return children.back();
  }
  const include_node* find(const std::string& field) const {
    for (const auto& c : children) {
      if (c.name == field) return &c;
    }
    return nullptr;
  }
};

void include_into(const value& v, const include_node& node, std::vector<value>& out);

document include(const document& d, const include_node& node) {
  document out;
  for (const field& f : d) {
    const include_node* c = node.find(f.name);
    if (c == nullptr) continue;
    if (c->leaf) {
      out.push_back(f);
      continue;
    }
    std::vector<value> got;
    include_into(f.val, *c, got);
    if (!got.empty()) out.push_back(field{f.name, std::move(got.front())});
  }
  return out;
}

// A value under an inner node: documents are projected, arrays element by element, scalars dropped.
void include_into(const value& v, const include_node& node, std::vector<value>& out) {
  if (v.is_document()) {
    out.emplace_back(include(v.as_document(), node));
  } else if (v.is_array()) {
    array elems;
    for (const value& e : v.as_array()) {
      std::vector<value> got;
      include_into(e, node, got);
      if (!got.empty()) elems.push_back(std::move(got.front()));
    }
    out.emplace_back(std::move(elems));
  }
}

void remove_path(document& d, std::string_view path) {
  const std::size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  if (dot == std::string_view::npos) {
    std::erase_if(d, [&](const field& f) { return f.name == head; });
    return;
  }
  value* v = find_field(d, head);
  if (v == nullptr) return;
  if (v->is_document()) remove_path(v->as_document(), path.substr(dot + 1));
  if (v->is_array()) {
    for (value& e : v->as_array()) {
      if (e.is_document()) remove_path(e.as_document(), path.substr(dot + 1));
    }
  }
}

struct computed {
  std::string path;
  expression expr;
  int levels = 1;  // the documents `path` goes through, the output's own included
};

struct project_stage final : stage {
  bool add_fields = false;             // $addFields: the document is kept, fields set on it
  std::shared_ptr<const projection> plain;  // no computed fields: the find projection
  include_node included;
  std::vector<computed> fields;

  // `held`: what the computed values hold, charged to the call until the stage's next
  // document (a document in flight counts like any value the call built); each value is
  // refused when the output would nest deeper than k_max_built_depth.
  document apply(document d, exec_ctx& ctx, call_hold& held) const {
    if (plain) {
      auto r = plain->apply(d);
      if (!r) fail(r.error().message);
      return std::move(*r);
    }
    std::vector<expr_value> values;
    values.reserve(fields.size());
    for (const computed& c : fields) {
      values.push_back(ctx.eval(c.expr, d));
      const expr_value& v = values.back();
      if (v && (v->is_array() || v->is_document() || v->is_string())) {
        const value_measure m = measure_value(*v, k_max_built_depth);
        call_budget::check_depth(m.depth + c.levels, add_fields ? "stage `$addFields`" : "stage `$project`");
        held.charge(m.bytes, add_fields ? "stage `$addFields`" : "stage `$project`");
      }
    }
    document out = add_fields ? std::move(d) : include(d, included);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (values[i]) {
        held.adopt(set_path(out, fields[i].path, std::move(*values[i])));
      } else if (add_fields) {
        remove_path(out, fields[i].path);
      }
    }
    return out;
  }

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    auto held = std::make_shared<call_hold>(*ctx.budget);
    return each(std::move(input), ctx, [this, &ctx, held](document& d) {
      held->reset();
      d = apply(std::move(d), ctx, *held);
      return true;
    });
  }
};

bool is_operator_doc(const value& v) {
  return v.is_document() && !v.as_document().empty() && !v.as_document().front().name.empty() &&
         v.as_document().front().name[0] == '$';
}

// Flattens {a: {b: 1}} into ("a.b", 1); operator documents and other values are leaves.
status flatten(const document& spec, const std::string& prefix, std::vector<std::pair<std::string, const value*>>& out) {
  for (const field& f : spec) {
    if (f.name.empty() || f.name.front() == '$') {
      return make_error("field name " + quoted(f.name) + " must not be empty or start with '$'");
    }
    const std::string path = prefix + f.name;
    if (auto parts = field_path_parts(path, "field path"); !parts) return std::move(parts).error();
    if (f.val.is_document() && !is_operator_doc(f.val)) {
      if (f.val.as_document().empty()) return make_error("an empty specification for " + quoted(path) + " is not allowed");
      if (auto st = flatten(f.val.as_document(), path + ".", out); !st) return st;
      continue;
    }
    out.emplace_back(path, &f.val);
  }
  return {};
}

status check_collisions(const std::vector<std::pair<std::string, const value*>>& paths) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = 0; j < paths.size(); ++j) {
      const std::string& a = paths[i].first;
      const std::string& b = paths[j].first;
      if (i != j && (a == b || (b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '.'))) {
        return make_error("paths " + quoted(a) + " and " + quoted(b) + " collide");
      }
    }
  }
  return {};
}

}  // namespace

result<stage_ptr> compile_project(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document() || spec.as_document().empty()) {
    return make_error("the specification must be a non-empty document");
  }
  std::vector<std::pair<std::string, const value*>> paths;
  if (auto st = flatten(spec.as_document(), "", paths); !st) return std::move(st).error();
  if (auto st = check_collisions(paths); !st) return std::move(st).error();
  auto s = std::make_shared<project_stage>();
  bool exclusion = false, inclusion = false, id_excluded = false, id_set = false;
  for (const auto& [path, v] : paths) {
    const bool flag = v->is_bool() || (v->is_number() && !v->is_decimal());
    if (flag) {
      const bool on = v->is_bool() ? v->as_bool() : v->number_as_double() != 0;
      if (path == "_id") {
        id_excluded = !on;
        id_set = true;
      } else {
        (on ? inclusion : exclusion) = true;
      }
      if (on) {
        include_node* n = &s->included;
        auto parts = field_path_parts(path, "field path");
        for (const std::string& p : *parts) n = &n->child(p);
        n->leaf = true;
      }
      continue;
    }
    auto e = ctx.compile(*v);
    if (!e) return make_error(quoted(path) + ": " + e.error().message, e.error().kind);
    s->fields.push_back(computed{path, std::move(*e), 1 + static_cast<int>(std::count(path.begin(), path.end(), '.'))});
    if (path == "_id") id_set = true;
    inclusion = true;
  }
  if (exclusion && inclusion) {
    return make_error("cannot mix exclusion with inclusion or computed fields (except `_id: 0`)");
  }
  if (s->fields.empty()) {
    auto p = projection::compile(spec.as_document());
    if (!p) return std::move(p).error();
    s->plain = std::make_shared<const projection>(std::move(*p));
    return stage_ptr(s);
  }
  if (!id_set && !id_excluded) {
    s->included.children.insert(s->included.children.begin(), include_node{true, {}, "_id"});
  }
  return stage_ptr(s);
}

result<stage_ptr> compile_add_fields(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  std::vector<std::pair<std::string, const value*>> paths;
  if (auto st = flatten(spec.as_document(), "", paths); !st) return std::move(st).error();
  if (auto st = check_collisions(paths); !st) return std::move(st).error();
  auto s = std::make_shared<project_stage>();
  s->add_fields = true;
  for (const auto& [path, v] : paths) {
    auto e = ctx.compile(*v);
    if (!e) return make_error(quoted(path) + ": " + e.error().message, e.error().kind);
    s->fields.push_back(computed{path, std::move(*e), 1 + static_cast<int>(std::count(path.begin(), path.end(), '.'))});
  }
  return stage_ptr(s);
}

result<stage_ptr> compile_unset(const value& spec, const compile_ctx&) {
  array names = spec.is_array() ? spec.as_array() : array{spec};
  if (names.empty()) return make_error("takes a field name or a non-empty array of field names");
  document excl;
  for (const value& n : names) {
    if (!n.is_string()) return make_error("takes a field name or an array of field names, not " + std::string(bson_type_alias(n)));
    if (auto parts = field_path_parts(n.as_string(), "field path"); !parts) return std::move(parts).error();
    excl.push_back(field{n.as_string(), value(std::int32_t{0})});
  }
  auto p = projection::compile(excl);
  if (!p) return std::move(p).error();
  auto s = std::make_shared<project_stage>();
  s->plain = std::make_shared<const projection>(std::move(*p));
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
