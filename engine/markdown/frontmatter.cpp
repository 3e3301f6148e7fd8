// omgdb engine — frontmatter YAML: typed by the YAML 1.2 core schema (yaml-cpp parses, this
// file types the scalars), written back in block style, and merged by RFC 7386.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "engine/markdown/markdown.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::markdown {
namespace {

constexpr int k_max_depth = 64;

bool all_of(std::string_view s, std::size_t from, bool (*pred)(char)) {
  if (from >= s.size()) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (!pred(s[i])) return false;
  }
  return true;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::optional<value> integer(std::string_view s, int base, std::size_t skip, bool negative) {
  errno = 0;
  std::string digits(s.substr(skip));
  char* end = nullptr;
  const unsigned long long u = std::strtoull(digits.c_str(), &end, base);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  if (!negative && u <= static_cast<unsigned long long>(INT64_MAX)) return value(static_cast<std::int64_t>(u));
  if (negative && u <= static_cast<unsigned long long>(INT64_MAX) + 1ull) {
    return value(static_cast<std::int64_t>(0 - u));
  }
  return std::nullopt;  // out of int64: kept as the string
}

std::optional<value> date_of(std::string s) {
  static const std::regex shape(R"(\d{4}-\d{2}-\d{2}([Tt ]\d{1,2}:\d{2}:\d{2}(\.\d+)?\s*(Z|z|[+-]\d{1,2}(:?\d{2})?)?)?)");
  if (!std::regex_match(s, shape)) return std::nullopt;
  if (s.size() > 10) {
    s[10] = 'T';
    if (s[12] == ':') s.insert(11, "0");  // "1:02:03" → "01:02:03"
    // Drop the space before a zone, add Z when none, pad a one-digit hour offset.
    auto zone = s.find_first_of("Zz+-", 19);
    std::string head = s.substr(0, zone == std::string::npos ? s.size() : zone);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    std::string tail = zone == std::string::npos ? "Z" : s.substr(zone);
    if (tail.size() >= 2 && (tail[0] == '+' || tail[0] == '-') && (tail.size() == 2 || !is_digit(tail[2]))) {
      tail.insert(1, "0");
    }
    if (tail.size() == 3 && (tail[0] == '+' || tail[0] == '-')) tail += ":00";
    s = head + tail;
  }
  auto millis = parse_iso8601(s);
  if (!millis) return std::nullopt;
  return value(date_time{*millis});
}

// A plain scalar by the YAML 1.2 core schema (plus dates).
value resolve_plain(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return value();
  if (s == "true" || s == "True" || s == "TRUE") return value(true);
  if (s == "false" || s == "False" || s == "FALSE") return value(false);
  const bool sign = s[0] == '+' || s[0] == '-';
  const bool negative = s[0] == '-';
  if (all_of(s, sign ? 1 : 0, is_digit)) {
    if (auto v = integer(s, 10, sign ? 1 : 0, negative)) return *v;
    return value(s);
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && all_of(s, 2, is_oct)) {
    if (auto v = integer(s, 8, 2, false)) return *v;
    return value(s);
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && all_of(s, 2, is_hex)) {
    if (auto v = integer(s, 16, 2, false)) return *v;
    return value(s);
  }
  static const std::regex real(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, real)) return value(std::strtod(s.c_str(), nullptr));
  const std::string body = sign ? s.substr(1) : s;
  if (body == ".inf" || body == ".Inf" || body == ".INF") return value(negative ? -HUGE_VAL : HUGE_VAL);
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return value(std::nan(""));
  if (auto d = date_of(s)) return *d;
  return value(s);
}

result<value> convert(const YAML::Node& n, int depth) {
  if (depth > k_max_depth) return make_error("the frontmatter nests deeper than 64 levels", failure_kind::limit_exceeded);
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return value();
    case YAML::NodeType::Scalar: {
      const std::string& tag = n.Tag();
      const std::string& s = n.Scalar();
      if (tag == "?") return resolve_plain(s);
      if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" || tag == "tag:yaml.org,2002:bool" ||
          tag == "tag:yaml.org,2002:null" || tag == "tag:yaml.org,2002:timestamp") {
        return resolve_plain(s);
      }
      return value(s);  // quoted ("!"), !!str and unknown tags: the text
    }
    case YAML::NodeType::Sequence: {
      array out;
      for (const auto& item : n) {
        auto v = convert(item, depth + 1);
        if (!v) return std::move(v).error();
        out.push_back(std::move(*v));
      }
      return value(std::move(out));
    }
    case YAML::NodeType::Map: {
      document out;
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) return make_error("a frontmatter key is not a plain string");
        std::string key = kv.first.Scalar();
        if (find_field(out, key) != nullptr) return make_error("the frontmatter repeats the key `" + key + "`");
        if (key.empty() || key[0] == '$' || key.find('.') != std::string::npos) {
          return make_error("the frontmatter key `" + key + "` cannot be stored (empty, starts with '$' or holds '.')");
        }
        auto v = convert(kv.second, depth + 1);
        if (!v) return std::move(v).error();
        out.push_back({std::move(key), std::move(*v)});
      }
      return value(std::move(out));
    }
  }
  return value();
}

// Whether a string must be quoted to read back as the same string.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  if (!resolve_plain(s).is_string()) return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  static const std::string_view first_bad = "-?:,[]{}#&*!|>'\"%@`";
  if (first_bad.find(s.front()) != std::string_view::npos) return true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return true;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return true;
  }
  return false;
}

void quote(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

status scalar(std::string& out, const value& v, const std::string& key) {
  if (v.is_null()) out += "null";
  else if (v.is_bool()) out += v.as_bool() ? "true" : "false";
  else if (v.is_int32()) out += std::to_string(v.as_int32());
  else if (v.is_int64()) out += std::to_string(v.as_int64());
  else if (v.is_double()) {
    const double d = v.as_double();
    if (std::isnan(d)) out += ".nan";
    else if (std::isinf(d)) out += d < 0 ? "-.inf" : ".inf";
    else {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      std::string text = buf;
      // Shortest form that reads back as the same double.
      for (int p = 1; p <= 17; ++p) {
        std::snprintf(buf, sizeof buf, "%.*g", p, d);
        if (std::strtod(buf, nullptr) == d) {
          text = buf;
          break;
        }
      }
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
      out += text;
    }
  } else if (v.is_string()) {
    if (needs_quotes(v.as_string())) quote(out, v.as_string());
    else out += v.as_string();
  } else if (v.type() == kind::date_time) {
    const std::int64_t ms = std::get<date_time>(v.raw()).millis;
    std::string iso = format_iso8601(ms);
    if (ms % 86400000 == 0) iso.resize(iso.find('T'));
    out += iso;
  } else {
    return make_error("frontmatter value `" + key + "` is a " + std::string(bson_type_alias(v)) +
                      "; frontmatter holds null, booleans, numbers, strings, dates, arrays and objects");
  }
  return {};
}

status emit(std::string& out, const value& v, int indent, const std::string& key, int depth);

status emit_doc(std::string& out, const document& d, int indent, int depth) {
  for (const field& f : d) {
    out.append(static_cast<std::size_t>(indent), ' ');
    if (needs_quotes(f.name)) quote(out, f.name);
    else out += f.name;
    out += ':';
    OMGDB_CHECK(emit(out, f.val, indent, f.name, depth + 1));
  }
  return {};
}

// After "key:" or "-": the value, inline for scalars and empty containers, else on the next lines.
status emit(std::string& out, const value& v, int indent, const std::string& key, int depth) {
  if (depth > k_max_depth) return make_error("the frontmatter nests deeper than 64 levels", failure_kind::limit_exceeded);
  if (v.is_document() && !v.as_document().empty()) {
    out += '\n';
    return emit_doc(out, v.as_document(), indent + 2, depth);
  }
  if (v.is_array() && !v.as_array().empty()) {
    out += '\n';
    for (const value& item : v.as_array()) {
      out.append(static_cast<std::size_t>(indent + 2), ' ');
      out += '-';
      OMGDB_CHECK(emit(out, item, indent + 2, key, depth + 1));
    }
    return {};
  }
  if (v.is_document()) out += " {}\n";
  else if (v.is_array()) out += " []\n";
  else {
    out += ' ';
    OMGDB_CHECK(scalar(out, v, key));
    out += '\n';
  }
  return {};
}

}  // namespace

result<document> parse_frontmatter(std::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return make_error("the frontmatter is not valid YAML: " + std::string(e.what()));
  }
  if (root.IsNull()) return document{};
  if (!root.IsMap()) return make_error("the frontmatter is not a YAML mapping (key: value lines)");
  auto v = convert(root, 0);
  if (!v) return std::move(v).error();
  return std::move(v->as_document());
}

result<std::string> emit_frontmatter(const document& doc) {
  std::string out;
  OMGDB_CHECK(emit_doc(out, doc, 0, 0));
  return out;
}

void merge_patch(document& target, const document& patch) {
  for (const field& p : patch) {
    value* existing = find_field(target, p.name);
    if (p.val.is_null()) {
      if (existing) {
        for (auto it = target.begin(); it != target.end(); ++it) {
          if (it->name == p.name) {
            target.erase(it);
            break;
          }
        }
      }
      continue;
    }
    if (p.val.is_document()) {
      if (!existing || !existing->is_document()) {
        document fresh;
        merge_patch(fresh, p.val.as_document());  // nulls inside a new object are dropped
        if (existing) *existing = value(std::move(fresh));
        else target.push_back({p.name, value(std::move(fresh))});
      } else {
        merge_patch(existing->as_document(), p.val.as_document());
      }
      continue;
    }
    if (existing) *existing = p.val;
    else target.push_back({p.name, p.val});
  }
}

}  // namespace omgdb::engine::markdown
