#include "mcp/tool.hpp"

#include <cmath>

#include "mcp/did_you_mean.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

namespace {

bj::object type_schema(param_type t) {
  switch (t) {
    case param_type::string: return {{"type", "string"}};
    case param_type::integer: return {{"type", "integer"}};
    case param_type::number: return {{"type", "number"}};
    case param_type::boolean: return {{"type", "boolean"}};
    case param_type::object: return {{"type", "object"}};
    case param_type::array: return {{"type", "array"}};
    case param_type::array_of_objects:
      return {{"type", "array"}, {"items", bj::object{{"type", "object"}}}};
    case param_type::any: return {};
  }
  return {};
}

std::string_view type_name(param_type t) {
  switch (t) {
    case param_type::string: return "a string";
    case param_type::integer: return "an integer";
    case param_type::number: return "a number";
    case param_type::boolean: return "a boolean";
    case param_type::object: return "an object";
    case param_type::array: return "an array";
    case param_type::array_of_objects: return "an array of objects";
    case param_type::any: return "any value";
  }
  return "";
}

std::string_view json_kind(const bj::value& v) {
  switch (v.kind()) {
    case bj::kind::null: return "null";
    case bj::kind::bool_: return "a boolean";
    case bj::kind::int64:
    case bj::kind::uint64: return "an integer";
    case bj::kind::double_: return "a number";
    case bj::kind::string: return "a string";
    case bj::kind::array: return "an array";
    case bj::kind::object: return "an object";
  }
  return "a value";
}

bool is_integral(const bj::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  if (v.is_double()) {
    double d = v.get_double();
    return std::isfinite(d) && std::floor(d) == d;
  }
  return false;
}

bool matches(param_type t, const bj::value& v) {
  switch (t) {
    case param_type::string: return v.is_string();
    case param_type::integer: return is_integral(v);
    case param_type::number: return v.is_number();
    case param_type::boolean: return v.is_bool();
    case param_type::object: return v.is_object();
    case param_type::array: return v.is_array();
    case param_type::array_of_objects: return v.is_array();  // elements checked below
    case param_type::any: return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> type_error(std::string_view name, param_type t, const bj::value& v) {
  if (!matches(t, v)) {
    return "argument `" + std::string(name) + "` must be " + std::string(type_name(t)) + ", not " +
           std::string(json_kind(v));
  }
  if (t != param_type::array_of_objects) return std::nullopt;
  const auto& arr = v.get_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_object()) {
      return "argument `" + std::string(name) + "` must be an array of objects, but element " + std::to_string(i) +
             " is " + std::string(json_kind(arr[i]));
    }
  }
  return std::nullopt;
}

bj::object input_schema(const tool& t) {
  bj::object props;
  bj::array required;
  for (const auto& p : t.params) {
    bj::object prop = type_schema(p.type);
    if (!p.description.empty()) prop["description"] = p.description;
    props[p.name] = std::move(prop);
    if (p.required) required.emplace_back(p.name);
  }
  bj::object schema{{"type", "object"}, {"properties", std::move(props)}};
  schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

bj::object describe(const tool& t) {
  bj::object a{{"readOnlyHint", t.hints.read_only},
               {"idempotentHint", t.hints.idempotent},
               {"destructiveHint", t.hints.destructive},
               {"requiredScope", std::string(auth::to_string(t.required_scope))}};
  return bj::object{{"name", t.name},
                    {"description", t.description},
                    {"inputSchema", input_schema(t)},
                    {"annotations", std::move(a)}};
}

std::optional<std::string> check_arguments(const tool& t, const bj::object& args) {
  for (const auto& p : t.params) {
    if (p.required && !args.contains(p.name)) return "missing argument `" + p.name + "`";
  }
  for (const auto& p : t.params) {
    auto it = args.find(p.name);
    if (it == args.end()) continue;
    if (auto bad = type_error(p.name, p.type, it->value())) return bad;
  }
  for (const auto& kv : args) {
    std::string_view key(kv.key().data(), kv.key().size());
    bool known = false;
    for (const auto& p : t.params) known = known || p.name == key;
    if (known) continue;
    std::vector<std::string> names;
    std::string list;
    for (const auto& p : t.params) {
      names.push_back(p.name);
      if (!list.empty()) list += ", ";
      list += p.name;
    }
    std::string msg = "unknown argument `" + std::string(key) + "` for tool `" + t.name + "`";
    std::string hint = closest(key, names);
    if (!hint.empty()) msg += " (did you mean `" + hint + "`?)";
    msg += "; it takes: " + list;
    return msg;
  }
  return std::nullopt;
}

}  // namespace omgdb::mcp
