// omgdb engine — validation rules: compiling the spec subset of engine/query/validation.hpp and
// checking documents against it. Patterns reuse the filter's PCRE2 matcher.
#include "engine/query/validation.hpp"

#include <algorithm>

#include "engine/value/ejson.hpp"
#include "engine/query/filter_detail.hpp"

namespace omgdb::engine::validation {

struct rules::node {
  std::vector<kind> types;  // empty: any type
  std::string type_text;    // "int or long", for messages
  std::optional<array> enum_values;
  std::optional<value> minimum;
  std::optional<value> maximum;
  std::optional<std::uint64_t> min_length;
  std::optional<std::uint64_t> max_length;
  std::optional<filter_detail::regex_matcher> pattern;
  std::string pattern_text;
  std::vector<std::string> required;
  struct property;  // a pair<string, node> here would need node complete (clang refuses it)
  std::vector<property> properties;
};

struct rules::node::property {
  std::string name;
  node child;
};

namespace {

using node = rules::node;

struct type_name {
  std::string_view name;
  kind k;
};

constexpr type_name k_type_names[] = {
    {"double", kind::double_},     {"string", kind::string},         {"object", kind::document},
    {"array", kind::array},        {"binData", kind::binary},        {"objectId", kind::object_id},
    {"bool", kind::boolean},       {"date", kind::date_time},        {"null", kind::null_},
    {"regex", kind::regex},        {"int", kind::int32},             {"timestamp", kind::timestamp},
    {"long", kind::int64},         {"decimal", kind::decimal128},    {"minKey", kind::min_key},
    {"maxKey", kind::max_key},
};

std::string_view name_of(kind k) {
  for (const auto& t : k_type_names) {
    if (t.k == k) return t.name;
  }
  return "unknown";
}

std::string all_type_names() {
  std::string out;
  for (const auto& t : k_type_names) out += std::string(t.name) + ", ";
  return out + "number";
}

status add_type(node& n, const value& v, const std::string& where) {
  if (!v.is_string()) return make_error(where + " must be a type name string");
  const std::string& name = v.as_string();
  std::vector<kind> adds;
  if (name == "number") {
    adds = {kind::int32, kind::int64, kind::double_, kind::decimal128};
  } else {
    for (const auto& t : k_type_names) {
      if (t.name == name) adds.push_back(t.k);
    }
  }
  if (adds.empty()) {
    return make_error(where + ": unknown bsonType \"" + name + "\" (known: " + all_type_names() + ")");
  }
  for (kind k : adds) {
    if (std::find(n.types.begin(), n.types.end(), k) == n.types.end()) n.types.push_back(k);
  }
  n.type_text += (n.type_text.empty() ? "" : " or ") + name;
  return {};
}

result<std::uint64_t> length_arg(const value& v, const std::string& where) {
  const bool integral = v.is_int32() || v.is_int64() ||
                        (v.is_double() && v.as_double() == static_cast<double>(static_cast<std::int64_t>(v.as_double())));
  if (!integral || v.number_as_double() < 0) return make_error(where + " must be a non-negative integer");
  return static_cast<std::uint64_t>(v.number_as_double());
}

result<node> compile_node(const document& spec, const std::string& where, bool root) {
  node n;
  for (const auto& f : spec) {
    const std::string at = where + "." + f.name;
    const value& v = f.val;
    if (f.name == "bsonType") {
      if (v.is_array()) {
        if (v.as_array().empty()) return make_error(at + " must not be an empty array");
        for (std::size_t i = 0; i < v.as_array().size(); ++i) {
          if (auto s = add_type(n, v.as_array()[i], at + "." + std::to_string(i)); !s) return std::move(s).error();
        }
      } else if (auto s = add_type(n, v, at); !s) {
        return std::move(s).error();
      }
      if (root && (n.types.size() != 1 || n.types[0] != kind::document)) {
        return make_error(at + " must be \"object\" at the root: the rules describe whole documents");
      }
    } else if (f.name == "enum") {
      if (!v.is_array() || v.as_array().empty()) return make_error(at + " must be a non-empty array");
      n.enum_values = v.as_array();
    } else if (f.name == "minimum" || f.name == "maximum") {
      if (!v.is_number()) return make_error(at + " must be a number");
      (f.name == "minimum" ? n.minimum : n.maximum) = v;
    } else if (f.name == "minLength" || f.name == "maxLength") {
      auto len = length_arg(v, at);
      if (!len) return std::move(len).error();
      (f.name == "minLength" ? n.min_length : n.max_length) = *len;
    } else if (f.name == "pattern") {
      if (!v.is_string()) return make_error(at + " must be a string (a PCRE2 regular expression)");
      auto re = filter_detail::regex_matcher::compile(v.as_string(), "", at);
      if (!re) return std::move(re).error();
      n.pattern = std::move(*re);
      n.pattern_text = v.as_string();
    } else if (f.name == "required") {
      if (!v.is_array()) return make_error(at + " must be an array of field names");
      for (const auto& r : v.as_array()) {
        if (!r.is_string() || r.as_string().empty()) return make_error(at + " must hold non-empty field name strings");
        n.required.push_back(r.as_string());
      }
    } else if (f.name == "properties") {
      if (!v.is_document()) return make_error(at + " must be an object of field name → schema");
      for (const auto& p : v.as_document()) {
        if (!p.val.is_document()) return make_error(at + "." + p.name + " must be an object (a schema)");
        auto child = compile_node(p.val.as_document(), at + "." + p.name, false);
        if (!child) return std::move(child).error();
        n.properties.push_back(node::property{p.name, std::move(*child)});
      }
    } else if (f.name == "title" || f.name == "description") {
      // annotations only
    } else if (f.name == "unique" && root) {
      // Unique indexes (store_validate.cpp creates them): field names or arrays of them.
      bool ok = v.is_array() && !v.as_array().empty();
      for (const auto& u : ok ? v.as_array() : array{}) {
        if (u.is_string() && !u.as_string().empty()) continue;
        ok = ok && u.is_array() && !u.as_array().empty();
        for (const auto& p : ok ? u.as_array() : array{}) ok = ok && p.is_string() && !p.as_string().empty();
      }
      if (!ok) {
        return make_error(at + " must be a non-empty array of field names (or arrays of field names for a "
                          "compound unique index)");
      }
    } else if (f.name == "type") {
      return make_error(at + ": use `bsonType` (BSON type names such as \"int\", \"string\", \"object\")");
    } else {
      return make_error(at + ": unsupported keyword `" + f.name + "` (supported: bsonType, enum, minimum, "
                        "maximum, minLength, maxLength, pattern, required, properties, title, description)");
    }
  }
  return n;
}

std::string shown(const value& v) {
  std::string s = to_json(v);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::uint64_t code_points(const std::string& s) {
  return static_cast<std::uint64_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

struct checker {
  std::vector<violation>& out;
  std::size_t max;

  bool full() const { return out.size() >= max; }
  void add(const std::string& path, std::string rule, std::string text) {
    if (!full()) out.push_back({path, std::move(rule), "field `" + path + "` " + std::move(text)});
  }

  void object(const node& n, const document& doc, const std::string& prefix) {
    for (const auto& name : n.required) {
      if (find_field(doc, name) == nullptr) add(prefix + name, "required", "is missing (required)");
    }
    for (const auto& [name, child] : n.properties) {
      if (full()) return;
      if (const value* v = find_field(doc, name)) field(child, *v, prefix + name);
    }
  }

  void field(const node& n, const value& v, const std::string& path) {
    if (!n.types.empty() && std::find(n.types.begin(), n.types.end(), v.type()) == n.types.end()) {
      add(path, "bsonType", "must be of bsonType " + n.type_text + ", got " + std::string(name_of(v.type())));
      return;  // the other keywords would only repeat the point
    }
    if (n.enum_values && std::none_of(n.enum_values->begin(), n.enum_values->end(),
                                      [&](const value& e) { return equal(e, v); })) {
      add(path, "enum", "must be one of " + shown(value(*n.enum_values)) + " (enum), got " + shown(v));
    }
    if (v.is_number()) {
      if (n.minimum && compare(v, *n.minimum) < 0) {
        add(path, "minimum", "must be at least " + shown(*n.minimum) + " (minimum), got " + shown(v));
      }
      if (n.maximum && compare(v, *n.maximum) > 0) {
        add(path, "maximum", "must be at most " + shown(*n.maximum) + " (maximum), got " + shown(v));
      }
    }
    if (v.is_string()) {
      const std::uint64_t len = code_points(v.as_string());
      if (n.min_length && len < *n.min_length) {
        add(path, "minLength", "must be at least " + std::to_string(*n.min_length) +
                                   " characters long (minLength), got " + std::to_string(len));
      }
      if (n.max_length && len > *n.max_length) {
        add(path, "maxLength", "must be at most " + std::to_string(*n.max_length) +
                                   " characters long (maxLength), got " + std::to_string(len));
      }
      if (n.pattern && !n.pattern->matches(v)) {
        add(path, "pattern", "must match the pattern " + shown(value(n.pattern_text)) + " (pattern), got " + shown(v));
      }
    }
    if (v.is_document()) object(n, v.as_document(), path + ".");
  }
};

}  // namespace

result<rules> rules::compile(const document& spec) {
  const document* schema = &spec;
  if (spec.size() == 1 && spec[0].name == "$jsonSchema") {
    if (!spec[0].val.is_document()) return make_error("spec.$jsonSchema must be an object");
    schema = &spec[0].val.as_document();
  }
  auto root = compile_node(*schema, "spec", true);
  if (!root) return std::move(root).error();
  rules r;
  r.root_ = std::make_shared<const node>(std::move(*root));
  return r;
}

result<std::vector<violation>> rules::check(const document& doc, std::size_t max) const {
  return guard_match([&]() -> result<std::vector<violation>> {
    std::vector<violation> out;
    if (root_ && max > 0) checker{out, max}.object(*root_, doc, "");
    return out;
  });
}

result<std::optional<violation>> rules::first_violation(const document& doc) const {
  auto all = check(doc, 1);
  if (!all) return std::move(all).error();
  if (all->empty()) return std::optional<violation>();
  return std::optional<violation>(std::move(all->front()));
}

}  // namespace omgdb::engine::validation
