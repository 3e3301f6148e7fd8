#include "mcp/structured.hpp"

#include "common/json.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

namespace {

constexpr json::parse_limits deep{512};  // documents nest as deep as the store allows

std::optional<bj::value> parse_block(std::string_view text) {
  auto p = json::parse(text, deep);
  if (!p) return std::nullopt;
  return std::move(p->value);
}

bj::object wrapped(std::string_view key, bj::object inner) {
  return bj::object{{"type", "object"}, {"properties", bj::object{{key, std::move(inner)}}},
                    {"required", bj::array{key}}};
}

std::optional<bj::value> ndjson_content(const tool_result& r) {
  bj::array docs;
  std::string_view text = r.texts.front();
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto doc = parse_block(line);
    if (!doc) return std::nullopt;
    docs.push_back(std::move(*doc));
  }
  bj::object out{{"documents", std::move(docs)}};
  for (std::size_t i = 1; i < r.texts.size(); ++i) {
    const std::string& t = r.texts[i];
    if (t.empty() || t.front() != '{') continue;  // a note in prose
    auto extra = parse_block(t);
    if (!extra || !extra->is_object()) continue;
    for (auto& kv : extra->get_object()) {
      if (!out.contains(kv.key())) out[kv.key()] = std::move(kv.value());
    }
  }
  return bj::value(std::move(out));
}

}  // namespace

bool has_structured_results(std::string_view version) noexcept {
  // Revisions are dates: every one from 2025-06-18 on has structured results.
  return version.size() == 10 && version >= "2025-06-18";
}

std::optional<bj::object> output_schema(result_shape shape) {
  switch (shape) {
    case result_shape::text: return std::nullopt;
    case result_shape::json_object: return bj::object{{"type", "object"}};
    case result_shape::json_array: return wrapped("items", bj::object{{"type", "array"}});
    case result_shape::json_value: return wrapped("document", bj::object{{"type", bj::array{"object", "null"}}});
    case result_shape::ndjson:
      return wrapped("documents", bj::object{{"type", "array"}, {"items", bj::object{{"type", "object"}}}});
  }
  return std::nullopt;
}

bj::object describe_for(const tool& t, bool structured) {
  bj::object d = describe(t);
  if (!structured) return d;
  if (auto schema = output_schema(t.shape)) d["outputSchema"] = std::move(*schema);
  d["_meta"] = bj::object{{"requiredScope", std::string(auth::to_string(t.required_scope))}};
  return d;
}

namespace {

// What the shape's schema requires when the first block does not parse because the result
// was cut (r.structured_extra has "truncated"): the required member, empty.
std::optional<bj::value> cut_content(const tool_result& r, result_shape shape) {
  bj::object out;
  switch (shape) {
    case result_shape::json_object: break;
    case result_shape::json_array: out["items"] = bj::array(); break;
    case result_shape::json_value: out["document"] = nullptr; break;
    default: return std::nullopt;
  }
  for (const auto& kv : r.structured_extra) out[kv.key()] = kv.value();
  return bj::value(std::move(out));
}

std::optional<bj::value> with_extra(std::optional<bj::value> v, const tool_result& r) {
  if (!v || !v->is_object() || r.structured_extra.empty()) return v;
  for (const auto& kv : r.structured_extra) v->get_object()[kv.key()] = kv.value();
  return v;
}

std::optional<bj::value> shaped_content(const tool_result& r, result_shape shape) {
  if (shape == result_shape::ndjson) return ndjson_content(r);
  auto v = parse_block(r.texts.front());
  if (!v) return r.structured_extra.contains("truncated") ? cut_content(r, shape) : std::nullopt;
  switch (shape) {
    case result_shape::json_object:
      if (!v->is_object()) return std::nullopt;
      return v;
    case result_shape::json_array:
      if (!v->is_array()) return std::nullopt;
      return bj::value(bj::object{{"items", std::move(*v)}});
    case result_shape::json_value:
      if (!v->is_object() && !v->is_null()) return std::nullopt;
      return bj::value(bj::object{{"document", std::move(*v)}});
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<bj::value> structured_content(const tool_result& r, result_shape shape) {
  if (r.is_error || r.texts.empty() || shape == result_shape::text) return std::nullopt;
  return with_extra(shaped_content(r, shape), r);
}

// Written directly rather than through a json::value: the texts (often large) are escaped
// once into the output instead of copied into a value first.
std::string call_result_envelope(const bj::value& id, const tool_result& r, result_shape shape,
                                 result_style style) {
  std::optional<bj::value> structured;
  if (style.structured) structured = structured_content(r, shape);
  std::size_t size = 128;
  for (const auto& t : r.texts) size += t.size() + t.size() / 8 + 32;
  if (structured) size *= 2;
  std::string out;
  out.reserve(size);
  out += R"({"jsonrpc":"2.0","id":)";
  json::append(out, id);
  out += R"(,"result":{"content":[)";
  bool first = true;
  for (const auto& t : r.texts) {
    if (!first) out.push_back(',');
    first = false;
    out += R"({"type":"text","text":)";
    json::append_quoted(out, t);
    out.push_back('}');
  }
  out += "],";
  if (structured) {
    out += R"("structuredContent":)";
    json::append(out, *structured);
    out.push_back(',');
  }
  out += r.is_error ? R"("isError":true)" : R"("isError":false)";
  if (style.modern) out += R"(,"resultType":"complete")";
  out += "}}";
  return out;
}

}  // namespace omgdb::mcp
