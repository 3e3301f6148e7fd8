#include "mcp/envelope.hpp"

#include <cstddef>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "common/json.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

envelope read_envelope(const bj::value& msg, std::string_view envelope_violation) {
  envelope e;
  if (!msg.is_object()) {
    e.ignored_because = "not a JSON object";
    return e;
  }
  const bj::object& obj = msg.get_object();
  if (auto it = obj.find("id"); it != obj.end()) e.id = &it->value();
  auto mit = obj.find("method");
  if (mit == obj.end() || !mit->value().is_string()) {
    if (mit == obj.end() && e.id && (obj.contains("result") || obj.contains("error"))) {
      e.kind = inbound_kind::response;
      e.key = json::serialize(*e.id);
    } else {
      e.ignored_because = mit == obj.end() ? "no `method`" : "`method` is not a string";
    }
    return e;
  }
  const bj::string& method = mit->value().get_string();
  e.method = std::string_view(method.data(), method.size());
  e.kind = e.id ? inbound_kind::request : inbound_kind::notification;
  if (e.id) e.key = json::serialize(*e.id);
  if (auto pit = obj.find("params"); pit != obj.end() && !pit->value().is_null()) {
    if (pit->value().is_object()) {
      e.params = &pit->value().get_object();
    } else {
      e.params_not_object = true;
    }
  }
  e.opens_session = e.kind == inbound_kind::request && e.method == "initialize";
  auto refuse = [&](std::string message) {
    e.error_code = -32600;
    e.error = std::move(message);
  };
  auto jit = obj.find("jsonrpc");
  if (e.id && !e.id->is_string() && !e.id->is_number()) {
    // MCP ids are strings or numbers, never null; such a message cannot be answered normally.
    refuse("invalid request: `id` must be a string or a number");
  } else if (jit == obj.end()) {
    refuse(R"(invalid request: `jsonrpc` is missing; it must be "2.0")");
  } else if (!jit->value().is_string() || jit->value().get_string() != "2.0") {
    refuse(R"(invalid request: `jsonrpc` must be "2.0")");
  } else if (!envelope_violation.empty()) {
    refuse("invalid request: " + std::string(envelope_violation));
  }
  return e;
}

namespace {

// A cursor over a prefix of JSON text; every step reports false when the text runs out.
struct cursor {
  std::string_view s;
  std::size_t i = 0;

  bool more() const { return i < s.size(); }
  void skip_ws() {
    while (more() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  }
  // At a '"': past the closing quote.
  bool skip_string() {
    for (++i; more(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '"') {
        ++i;
        return true;
      }
    }
    return false;
  }
  // Past one value (string, number, literal, or a nested object or array). Nesting is
  // counted without a stack: brackets inside strings are skipped with the strings.
  bool skip_value() {
    skip_ws();
    if (!more()) return false;
    if (s[i] == '"') return skip_string();
    if (s[i] == '{' || s[i] == '[') {
      std::size_t depth = 0;
      while (more()) {
        char c = s[i];
        if (c == '"') {
          if (!skip_string()) return false;
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') {
          if (--depth == 0) {
            ++i;
            return true;
          }
        }
        ++i;
      }
      return false;
    }
    while (more() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
           s[i] != '\r' && s[i] != '\n') {
      ++i;
    }
    return more();  // a scalar is whole only once something follows it
  }
};

}  // namespace

std::optional<bj::value> recover_id(std::string_view prefix) {
  cursor c{prefix};
  c.skip_ws();
  if (!c.more() || prefix[c.i] != '{') return std::nullopt;
  ++c.i;
  // Bounded: each member moves the cursor forward, and the prefix is finite.
  for (;;) {
    c.skip_ws();
    if (!c.more() || prefix[c.i] != '"') return std::nullopt;
    std::size_t key_start = c.i;
    if (!c.skip_string()) return std::nullopt;
    std::string_view key = prefix.substr(key_start, c.i - key_start);
    c.skip_ws();
    if (!c.more() || prefix[c.i] != ':') return std::nullopt;
    ++c.i;
    c.skip_ws();
    std::size_t value_start = c.i;
    if (!c.skip_value()) return std::nullopt;
    if (key == R"("id")") {
      auto id = json::parse_strict(prefix.substr(value_start, c.i - value_start));
      if (!id || !(id->is_string() || id->is_number())) return std::nullopt;
      return std::move(*id);
    }
    c.skip_ws();
    if (!c.more() || prefix[c.i] != ',') return std::nullopt;
    ++c.i;
  }
}

}  // namespace omgdb::mcp
