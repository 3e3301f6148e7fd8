// Find projections: compiling the specification into a tree of paths, and applying it.
#include "engine/query/projection.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace omgdb::engine {
namespace {

std::string quoted(std::string_view s) { return "`" + std::string(s) + "`"; }

enum class act { branch, include, exclude, slice, elem_match, positional };

struct pnode {
  act a = act::branch;
  std::string path;  // the dotted path as written, for messages
  std::vector<std::pair<std::string, std::unique_ptr<pnode>>> children;  // branch only
  std::int64_t skip = 0;                  // slice: [skip, limit], or n alone (has_skip false)
  std::int64_t limit = 0;
  bool has_skip = false;
  filter elem;                            // elem_match: {<field>: {$elemMatch: …}}

  pnode* child(std::string_view name) const {
    for (const auto& [n, c] : children) {
      if (n == name) return c.get();
    }
    return nullptr;
  }
};

array sliced(const array& arr, const pnode& n) {
  const auto size = static_cast<std::int64_t>(arr.size());
  std::int64_t start = 0, count = 0;
  if (!n.has_skip) {
    count = std::min(std::abs(n.limit), size);
    start = n.limit >= 0 ? 0 : size - count;
  } else {
    start = n.skip < 0 ? std::max<std::int64_t>(0, size + n.skip) : std::min(n.skip, size);
    count = std::min(n.limit, size - start);
  }
  return array(arr.begin() + start, arr.begin() + start + count);
}

}  // namespace

struct projection::impl {
  bool inclusion = false;
  bool include_id = true;
  bool id_in_tree = false;          // "_id.x" paths: the tree decides about `_id`
  pnode root;
  std::string positional;           // the array path of "arr.$", or ""
};

namespace {

using impl = projection::impl;

class applier {
 public:
  applier(const impl& p, const filter::match_details* d) : p_(p), details_(d) {}

  result<document> top(const document& doc) {
    document out = p_.inclusion ? include(doc, p_.root, true) : exclude(doc, p_.root, true);
    if (error_) return std::move(*error_);
    if (p_.inclusion) {
      for (const auto& [name, c] : p_.root.children) {
        if (c->a != act::elem_match) continue;
        filter::match_details d;
        if (!c->elem.matches(doc, d) || !d.array_index) continue;
        const value* arr = find_field(doc, name);
        out.push_back(field{name, array{arr->as_array()[*d.array_index]}});
      }
    }
    return out;
  }

 private:
  document include(const document& doc, const pnode& n, bool top) {
    document out;
    if (top && p_.include_id && !p_.id_in_tree) {
      if (const value* id = find_field(doc, "_id"); id != nullptr) out.push_back(field{"_id", *id});
    }
    for (const field& f : doc) {
      if (top && f.name == "_id" && !p_.id_in_tree) continue;
      const pnode* c = n.child(f.name);
      if (c == nullptr || c->a == act::elem_match) continue;
      if (auto v = include_value(f.val, *c); v) out.push_back(field{f.name, std::move(*v)});
    }
    return out;
  }

  std::optional<value> include_value(const value& v, const pnode& n) {
    switch (n.a) {
      case act::include: return v;
      case act::slice: return v.is_array() ? value(sliced(v.as_array(), n)) : v;
      case act::positional: return positional(v, n);
      case act::exclude:
      case act::elem_match: return std::nullopt;
      case act::branch: break;
    }
    if (v.is_document()) return value(include(v.as_document(), n, false));
    if (!v.is_array()) return std::nullopt;
    array out;
    for (const value& e : v.as_array()) {
      if (auto x = include_value(e, n); x) out.push_back(std::move(*x));  // scalars drop out
    }
    return value(std::move(out));
  }

  std::optional<value> positional(const value& v, const pnode& n) {
    if (!v.is_array()) {
      fail("positional projection " + quoted(n.path + ".$") + " found no array at " + quoted(n.path));
      return std::nullopt;
    }
    const std::size_t idx = *details_->array_index;
    if (idx >= v.as_array().size()) {
      fail("positional projection " + quoted(n.path + ".$") + ": the filter matched element " +
           std::to_string(idx) + " but the array has " + std::to_string(v.as_array().size()));
      return std::nullopt;
    }
    return value(array{v.as_array()[idx]});
  }

  document exclude(const document& doc, const pnode& n, bool top) {
    document out;
    for (const field& f : doc) {
      if (top && f.name == "_id" && !p_.include_id && !p_.id_in_tree) continue;
      const pnode* c = n.child(f.name);
      if (c == nullptr) {
        out.push_back(f);
      } else if (auto v = exclude_value(f.val, *c); v) {
        out.push_back(field{f.name, std::move(*v)});
      }
    }
    return out;
  }

  std::optional<value> exclude_value(const value& v, const pnode& n) {
    if (n.a == act::exclude) return std::nullopt;
    if (n.a == act::slice) return v.is_array() ? value(sliced(v.as_array(), n)) : v;
    if (v.is_document()) return value(exclude(v.as_document(), n, false));
    if (!v.is_array()) return v;
    array out;
    for (const value& e : v.as_array()) {
      if (auto x = exclude_value(e, n); x) out.push_back(std::move(*x));
    }
    return value(std::move(out));
  }

  void fail(std::string message) {
    if (!error_) error_ = make_error(std::move(message));
  }

  const impl& p_;
  const filter::match_details* details_;
  std::optional<failure> error_;
};

}  // namespace

projection::projection() = default;
projection::~projection() = default;

bool projection::needs_match_details() const noexcept {
  return impl_ != nullptr && !impl_->positional.empty();
}

result<document> projection::apply(const document& doc, const filter::match_details* details) const {
  if (!impl_) return doc;
  if (!impl_->positional.empty()) {
    const std::string& p = impl_->positional;
    if (details == nullptr || !details->array_index || details->array_path != p) {
      return make_error("positional projection " + quoted(p + ".$") +
                        " needs the filter to match an element of the array " + quoted(p) +
                        (details != nullptr && details->array_index
                             ? " (it matched an element of " + quoted(details->array_path) + ")"
                             : " (add a condition on " + quoted(p) + " to the filter)"));
    }
  }
  return applier(*impl_, details).top(doc);
}

namespace {

bool is_flag(const value& v) { return v.is_bool() || (v.is_number() && !v.is_decimal()); }
bool flag_set(const value& v) { return v.is_bool() ? v.as_bool() : v.number_as_double() != 0; }

result<std::int64_t> whole(const value& v, std::string_view path) {
  const double d = v.is_number() ? v.number_as_double() : NAN;
  if (v.is_decimal() || !(d == std::trunc(d)) || std::fabs(d) > 9.0e18) {
    return make_error("`$slice` needs an integer or an array [skip, limit] of integers at " +
                      quoted(path));
  }
  return v.is_int64() ? v.as_int64() : static_cast<std::int64_t>(d);
}

class compiler {
 public:
  projection::impl out;
  bool any = false;
  std::string included, excluded;  // the first path of each kind, for the mixing error

  status add_spec(const document& spec, const std::string& prefix) {
    for (const field& f : spec) {
      const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
      any = true;
      if (f.val.is_document()) {
        const document& d = f.val.as_document();
        if (d.empty()) return make_error("projection " + quoted(path) + " is an empty document");
        if (d.front().name.empty() || d.front().name.front() != '$') {
          if (auto st = add_spec(d, path); !st) return st;  // {a: {b: 1}} means "a.b": 1
          continue;
        }
      }
      if (auto st = add(path, f.val); !st) return st;
    }
    return {};
  }

 private:
  status add(const std::string& path, const value& v) {
    if (path == "_id" && is_flag(v)) {
      out.include_id = flag_set(v);
      return {};
    }
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t dot = path.find('.', start);
      parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    const bool positional = parts.size() > 1 && parts.back() == "$";
    if (positional) parts.pop_back();
    for (const std::string& p : parts) {
      if (p.empty()) return make_error("projection path " + quoted(path) + " has an empty component");
      if (p.front() == '$') {
        return make_error("projection path " + quoted(path) +
                          " has a component starting with '$' (only a final `.$` is allowed)");
      }
    }
    auto leaf = std::make_unique<pnode>();
    leaf->path = path.substr(0, positional ? path.size() - 2 : path.size());
    if (auto st = action(path, v, positional, *leaf); !st) return st;
    if (leaf->a == act::include || leaf->a == act::elem_match || leaf->a == act::positional) {
      if (included.empty()) included = path;
    } else if (leaf->a == act::exclude && excluded.empty()) {
      excluded = path;
    }
    if (!included.empty() && !excluded.empty()) {
      return make_error("projection cannot mix inclusion (" + quoted(included) + ") and exclusion (" +
                        quoted(excluded) + "), except for `_id`");
    }
    if (positional) {
      if (!out.positional.empty()) return make_error("a projection can have only one positional `.$` path");
      out.positional = leaf->path;
    }
    if (parts.front() == "_id") out.id_in_tree = true;
    return insert(parts, std::move(leaf));
  }

  status action(const std::string& path, const value& v, bool positional, pnode& n) {
    if (is_flag(v)) {
      n.a = flag_set(v) ? (positional ? act::positional : act::include) : act::exclude;
      if (positional && n.a != act::positional) {
        return make_error("positional projection " + quoted(path) + " must be 1 or true");
      }
      return {};
    }
    const bool op_doc = v.is_document() && v.as_document().size() == 1 && !positional;
    const std::string op = op_doc ? v.as_document().front().name : "";
    if (op == "$slice") return slice(path, v.as_document().front().val, n);
    if (op == "$elemMatch") {
      if (path.find('.') != std::string::npos) {
        return make_error("`$elemMatch` projection works on top-level fields only, not " + quoted(path));
      }
      const value& spec = v.as_document().front().val;
      if (!spec.is_document()) return make_error("`$elemMatch` projection needs a document at " + quoted(path));
      auto f = filter::compile(document{field{path, document{field{"$elemMatch", spec}}}});
      if (!f) return make_error("projection " + quoted(path) + ": " + f.error().message, f.error().kind);
      n.a = act::elem_match;
      n.elem = std::move(*f);
      return {};
    }
    return make_error("projection expressions are not supported: " + quoted(path) +
                      " must be 1 or 0 (true or false), {$slice: …}, {$elemMatch: …}, or a positional `.$`");
  }

  status slice(const std::string& path, const value& arg, pnode& n) {
    n.a = act::slice;
    if (arg.is_array()) {
      if (arg.as_array().size() != 2) {
        return make_error("`$slice` needs an integer or an array [skip, limit] of integers at " + quoted(path));
      }
      auto skip = whole(arg.as_array()[0], path);
      if (!skip) return std::move(skip).error();
      auto limit = whole(arg.as_array()[1], path);
      if (!limit) return std::move(limit).error();
      if (*limit <= 0) return make_error("`$slice` limit must be positive at " + quoted(path));
      n.has_skip = true;
      n.skip = *skip;
      n.limit = *limit;
      return {};
    }
    auto count = whole(arg, path);
    if (!count) return std::move(count).error();
    n.limit = *count;
    return {};
  }

  static const std::string& some_path(const pnode& n) {
    return n.a == act::branch && !n.children.empty() ? some_path(*n.children.front().second) : n.path;
  }

  status insert(const std::vector<std::string>& parts, std::unique_ptr<pnode> leaf) {
    pnode* cur = &out.root;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      pnode* c = cur->child(parts[i]);
      const bool last = i + 1 == parts.size();
      if (c != nullptr && (last || c->a != act::branch)) {
        return make_error("projection paths " + quoted(some_path(*c)) + " and " + quoted(leaf->path) +
                          " collide");
      }
      if (last) {
        cur->children.emplace_back(parts[i], std::move(leaf));
        return {};
      }
      if (c == nullptr) {
        auto b = std::make_unique<pnode>();
        c = b.get();
        cur->children.emplace_back(parts[i], std::move(b));
      }
      cur = c;
    }
    return {};
  }
};

}  // namespace

result<projection> projection::compile(const document& spec) {
  compiler c;
  if (auto st = c.add_spec(spec, ""); !st) return std::move(st).error();
  projection p;
  if (!c.any) return p;  // {}: the identity
  // Inclusion when something is included; else an exclusion, except {_id: 1} alone.
  c.out.inclusion = !c.included.empty() ||
                    (c.excluded.empty() && c.out.root.children.empty() && c.out.include_id);
  p.impl_ = std::make_shared<const impl>(std::move(c.out));
  return p;
}

}  // namespace omgdb::engine
