// omgdb search — definitions: parse, store, compare (definition.hpp).
#include "engine/search/definition.hpp"

#include <libstemmer.h>

#include <algorithm>
#include <cmath>

#include "engine/bson/bson_codec.hpp"

namespace omgdb::engine::search {
namespace {

const value* get(const document& d, std::string_view name) {
  for (const auto& f : d) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}

status check_path(std::string_view path, std::string_view where) {
  if (path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string_view::npos ||
      path.front() == '$' || path.size() > 256) {
    return make_error(std::string(where) + ": `" + std::string(path) +
                      "` is not a field path (dotted names, not empty, not starting with `$`, at most 256 bytes)");
  }
  return {};
}

status check_name(std::string_view name) {
  const bool ok = !name.empty() && name.size() <= 64 &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           c == '-';
                  });
  if (!ok) return make_error("definition `name`: 1 to 64 letters, digits, `_` or `-`, got `" + std::string(name) + "`");
  return {};
}

result<std::vector<std::string>> path_list(const value& v, std::string_view where) {
  std::vector<std::string> out;
  if (v.is_string()) {
    OMGDB_CHECK(check_path(v.as_string(), where));
    out.push_back(v.as_string());
    return out;
  }
  if (!v.is_array() || v.as_array().empty()) return make_error(std::string(where) + " must be a path or an array of paths");
  for (const auto& p : v.as_array()) {
    if (!p.is_string()) return make_error(std::string(where) + " must hold path strings");
    OMGDB_CHECK(check_path(p.as_string(), where));
    out.push_back(p.as_string());
  }
  return out;
}

status parse_fields(const value& v, definition& d) {
  if (!v.is_array() || v.as_array().empty()) {
    return make_error("definition `fields` must be a non-empty array of paths or {path, weight} objects");
  }
  for (const auto& f : v.as_array()) {
    field_spec spec;
    if (f.is_string()) {
      spec.path = f.as_string();
    } else if (f.is_document()) {
      const value* p = get(f.as_document(), "path");
      if (p == nullptr || !p->is_string()) return make_error("definition `fields`: each object needs a string `path`");
      spec.path = p->as_string();
      for (const auto& k : f.as_document()) {
        if (k.name != "path" && k.name != "weight") {
          return make_error("definition `fields`: unknown key `" + k.name + "` (a field is {path, weight?})");
        }
      }
      if (const value* w = get(f.as_document(), "weight")) {
        const double x = w->number_as_double();
        if (!w->is_number() || !std::isfinite(x) || x <= 0 || x > 1000) {
          return make_error("definition `fields`: `weight` of `" + spec.path + "` must be a number above 0 and at most 1000");
        }
        spec.weight = x;
      }
    } else {
      return make_error("definition `fields`: each entry is a path string or a {path, weight} object");
    }
    OMGDB_CHECK(check_path(spec.path, "definition `fields`"));
    for (const auto& other : d.fields) {
      if (other.path == spec.path) return make_error("definition `fields`: `" + spec.path + "` is listed twice");
    }
    d.fields.push_back(std::move(spec));
  }
  if (d.fields.size() > k_max_fields) {
    return make_error("definition `fields`: at most " + std::to_string(k_max_fields) + " fields, got " +
                      std::to_string(d.fields.size()));
  }
  return {};
}

status parse_semantic(const value& v, definition& d) {
  if (!v.is_document()) return make_error("definition `semantic` must be an object {fields, model}");
  semantic_spec s;
  const value* f = get(v.as_document(), "fields");
  const value* m = get(v.as_document(), "model");
  if (f == nullptr) return make_error("definition `semantic` needs `fields` (the paths whose text is embedded)");
  if (m == nullptr || !m->is_string() || m->as_string().empty()) {
    return make_error("definition `semantic` needs `model`: the name of an installed model (`omgdb model list`)");
  }
  for (const auto& k : v.as_document()) {
    if (k.name != "fields" && k.name != "model") {
      return make_error("definition `semantic`: unknown key `" + k.name + "` (expected fields, model)");
    }
  }
  OMGDB_TRY(paths, path_list(*f, "definition `semantic.fields`"));
  if (paths.size() != 1) {
    return make_error("definition `semantic.fields`: one field (vectors are kept per field, docs/vectors.md), got " +
                      std::to_string(paths.size()));
  }
  s.fields = std::move(paths);
  s.model = m->as_string();
  d.semantic = std::move(s);
  return {};
}

void collect(const value& v, std::string_view rest, std::string& out);

void collect_in(const document& d, std::string_view rest, std::string& out) {
  const std::size_t dot = rest.find('.');
  const std::string_view head = rest.substr(0, dot);
  const std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  for (const auto& f : d) {
    if (f.name == head) {
      collect(f.val, tail, out);
      break;
    }
  }
}

void collect(const value& v, std::string_view rest, std::string& out) {
  if (rest.empty()) {
    if (v.is_string()) {
      if (!out.empty()) out.push_back('\n');
      out += v.as_string();
    } else if (v.is_array()) {
      for (const auto& e : v.as_array()) {
        if (e.is_string()) collect(e, {}, out);
      }
    }
    return;
  }
  if (v.is_array()) {
    for (const auto& e : v.as_array()) {
      if (e.is_document()) collect(e, rest, out);
    }
    return;
  }
  if (v.is_document()) collect_in(v.as_document(), rest, out);
}

}  // namespace

std::vector<std::string> languages() {
  std::vector<std::string> out{"none"};
  for (const char** l = sb_stemmer_list(); *l != nullptr; ++l) out.emplace_back(*l);
  return out;
}

result<definition> parse_definition(const document& spec) {
  definition d;
  for (const auto& f : spec) {
    static const std::vector<std::string_view> known{"collection", "name", "fields", "language", "semantic"};
    if (std::find(known.begin(), known.end(), f.name) == known.end()) {
      return make_error("definition: unknown key `" + f.name + "` (expected collection, name, fields, language, semantic)");
    }
  }
  const value* c = get(spec, "collection");
  if (c == nullptr || !c->is_string() || c->as_string().empty()) return make_error("definition needs `collection` (a string)");
  d.collection = c->as_string();
  const value* n = get(spec, "name");
  if (n == nullptr || !n->is_string()) return make_error("definition needs `name` (a string)");
  d.name = n->as_string();
  OMGDB_CHECK(check_name(d.name));
  const value* f = get(spec, "fields");
  if (f == nullptr) return make_error("definition needs `fields`: the paths to index, e.g. [\"title\", {\"path\": \"body\", \"weight\": 1}]");
  OMGDB_CHECK(parse_fields(*f, d));
  if (const value* l = get(spec, "language")) {
    if (!l->is_string()) return make_error("definition `language` must be a string");
    const auto all = languages();
    if (std::find(all.begin(), all.end(), l->as_string()) == all.end()) {
      std::string list;
      for (const auto& x : all) list += (list.empty() ? "" : ", ") + x;
      return make_error("definition `language`: no stemmer `" + l->as_string() + "`; one of " + list);
    }
    d.language = l->as_string();
  }
  if (const value* s = get(spec, "semantic")) OMGDB_CHECK(parse_semantic(*s, d));
  return d;
}

document to_document(const definition& d) {
  array fields;
  for (const auto& f : d.fields) fields.emplace_back(document{{"path", f.path}, {"weight", f.weight}});
  document out{{"collection", d.collection}, {"name", d.name}, {"fields", std::move(fields)},
               {"language", d.language}};
  if (d.semantic) {
    array sf;
    for (const auto& p : d.semantic->fields) sf.emplace_back(p);
    out.push_back({"semantic", document{{"fields", std::move(sf)}, {"model", d.semantic->model}}});
  }
  out.push_back({"version", static_cast<std::int64_t>(d.version)});
  out.push_back({"seq", static_cast<std::int64_t>(d.seq)});
  return out;
}

std::string encode(const definition& d) {
  auto bytes = to_bson(to_document(d));
  return bytes ? std::move(*bytes) : std::string();
}

result<definition> decode_definition(std::string_view bytes) {
  auto doc = from_bson(bytes);
  if (!doc) return make_error("a stored search definition is corrupt: " + doc.error().message, failure_kind::corrupt);
  document spec;
  std::uint64_t version = 0, seq = 0;
  for (auto& f : *doc) {
    if (f.name == "version") {
      version = static_cast<std::uint64_t>(f.val.number_as_double());
    } else if (f.name == "seq") {
      seq = static_cast<std::uint64_t>(f.val.number_as_double());
    } else {
      spec.push_back(std::move(f));
    }
  }
  OMGDB_TRY(d, parse_definition(spec));
  d.version = version;
  d.seq = seq;
  return d;
}

bool same_shape(const definition& a, const definition& b) {
  auto strip = [](definition d) {
    d.version = 0;
    d.seq = 0;
    return encode(d);
  };
  return strip(a) == strip(b);
}

std::string meta_key(std::string_view collection, std::string_view name) {
  std::string k(k_meta_prefix);
  k += collection;
  k.push_back('\0');
  k += name;
  return k;
}

std::string field_text(const document& doc, std::string_view path) {
  std::string out;
  collect_in(doc, path, out);
  return out;
}

}  // namespace omgdb::engine::search
