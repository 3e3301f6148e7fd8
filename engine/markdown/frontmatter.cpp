// omgdb engine — frontmatter YAML: typed by the YAML 1.2 core schema (yaml-cpp parses, this
// file types the scalars), written back in block style, and merged by RFC 7386.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "common/call_budget.hpp"

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
  // std::regex recurses per character: only short strings are matched (a date is short).
  if (s.size() > 64) return std::nullopt;
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

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? — by hand: std::regex recurses per
// character and a long scalar would overflow the stack.
bool is_real(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
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
  if (is_real(s)) return value(std::strtod(s.c_str(), nullptr));
  const std::string body = sign ? s.substr(1) : s;
  if (body == ".inf" || body == ".Inf" || body == ".INF") return value(negative ? -HUGE_VAL : HUGE_VAL);
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return value(std::nan(""));
  if (auto d = date_of(s)) return *d;
  return value(s);
}

// Builds the frontmatter's values from yaml-cpp's parse events, iteratively (an explicit
// stack, never recursion), so that everything it builds is counted: each value is charged to
// the call's budget as it is made, the values (aliases expanded) are counted against
// k_max_frontmatter_values, and nesting is checked against k_max_depth. An alias is the
// anchored value copied: "billion laughs" stops at the count, with nothing else built.
// Duplicate keys are found with one hash set per mapping (O(n), not O(n²)).
class builder final : public YAML::EventHandler {
 public:
  explicit builder(call_budget& budget) : budget_(budget) {}

  std::optional<value> root;
  bool root_is_map = false;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { add(value(), anchor, 1, 1, k_value_cost); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw call_error("the frontmatter has an alias to a value that contains it");
    // The copy is what an alias costs: count its values before making it.
    const anchored& a = it->second;
    if (expects_key() && a.text) {  // an alias of a scalar as a key: the scalar's text
      budget_.charge(k_value_cost + a.text->size(), "the frontmatter's YAML (an alias)");
      key(*a.text);
      return;
    }
    count(a.values);
    budget_.charge(a.bytes, "the frontmatter's YAML (an alias)");
    add(a.v, YAML::NullAnchor, 0, a.values, a.bytes);
  }
  void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor, const std::string& s) override {
    budget_.charge(k_value_cost + s.size(), "the frontmatter's YAML");
    auto typed = [&] {
      if (tag == "?" || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
          tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null" || tag == "tag:yaml.org,2002:timestamp") {
        return resolve_plain(s);
      }
      return value(s);  // quoted ("!"), !!str and unknown tags: the text
    };
    if (expects_key()) {
      key(s);  // a key is its text; an alias of it is the typed value, as for any scalar
      if (anchor != YAML::NullAnchor) anchors_[anchor] = {typed(), 1, k_value_cost + s.size(), s};
      return;
    }
    value v = typed();
    add(std::move(v), anchor, 1, 1, k_value_cost + s.size(),
        anchor != YAML::NullAnchor ? std::optional<std::string>(s) : std::nullopt);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(true, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static constexpr std::uint64_t k_value_cost = sizeof(value) + sizeof(field);
  struct anchored {
    value v;
    std::uint64_t values = 0, bytes = 0;  // what a copy holds
    std::optional<std::string> text;       // a scalar's text (for an alias used as a key)
  };
  struct frame {
    bool is_map = false;
    YAML::anchor_t anchor = YAML::NullAnchor;
    std::uint64_t values = 1;  // this collection and what it holds (for an alias's copy)
    std::uint64_t bytes = k_value_cost;
    array items;
    document fields;
    std::unordered_set<std::string> keys;
    std::optional<std::string> key;
  };

  bool expects_key() const { return !stack_.empty() && stack_.back().is_map && !stack_.back().key; }

  void count(std::uint64_t n) {
    values_ += n;
    if (values_ > k_max_frontmatter_values) {
      throw call_error("the frontmatter holds more than " + std::to_string(k_max_frontmatter_values) +
                           " values (aliases counted as the values they repeat); it cannot be stored",
                       failure_kind::limit_exceeded);
    }
  }

  void key(const std::string& k) {
    frame& f = stack_.back();
    if (!f.keys.insert(k).second) throw call_error("the frontmatter repeats the key `" + k + "`");
    if (k.empty() || k[0] == '$' || k.find('.') != std::string::npos) {
      throw call_error("the frontmatter key `" + k + "` cannot be stored (empty, starts with '$' or holds '.')");
    }
    f.key = k;
  }

  void open(bool is_map, YAML::anchor_t anchor) {
    if (expects_key()) throw call_error("a frontmatter key is not a plain string");
    if (static_cast<int>(stack_.size()) >= k_max_depth) {
      throw call_error("the frontmatter nests deeper than " + std::to_string(k_max_depth) + " levels",
                       failure_kind::limit_exceeded);
    }
    budget_.charge(k_value_cost, "the frontmatter's YAML");
    count(1);
    frame f;
    f.is_map = is_map;
    f.anchor = anchor;
    stack_.push_back(std::move(f));
  }

  void close() {
    frame f = std::move(stack_.back());
    stack_.pop_back();
    value v = f.is_map ? value(std::move(f.fields)) : value(std::move(f.items));
    if (stack_.empty()) root_is_map = f.is_map;
    add(std::move(v), f.anchor, 0, f.values, f.bytes);
  }

  // Adds a finished value to the open collection (or makes it the root). `fresh`: values
  // not counted yet; `size`: the values it holds, itself included.
  void add(value v, YAML::anchor_t anchor, std::uint64_t fresh, std::uint64_t size, std::uint64_t bytes,
           std::optional<std::string> text = std::nullopt) {
    if (fresh > 0) count(fresh);
    if (anchor != YAML::NullAnchor) {
      budget_.charge(bytes, "the frontmatter's YAML (an anchor)");
      anchors_[anchor] = {v, size, bytes, std::move(text)};
    }
    if (stack_.empty()) {
      root = std::move(v);
      return;
    }
    frame& f = stack_.back();
    f.values += size;
    f.bytes += bytes;
    if (!f.is_map) {
      f.items.push_back(std::move(v));
      return;
    }
    if (!f.key) {  // a key that is not a scalar (null, or an alias of a collection)
      if (!v.is_string()) throw call_error("a frontmatter key is not a plain string");
      key(v.as_string());
      return;
    }
    f.fields.push_back({std::move(*f.key), std::move(v)});
    f.key.reset();
  }

  call_budget& budget_;
  std::vector<frame> stack_;
  std::uint64_t values_ = 0;
  std::unordered_map<YAML::anchor_t, anchored> anchors_;
};

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
  if (yaml.size() > k_max_frontmatter_bytes) {
    return make_error("the frontmatter is " + byte_size_text(yaml.size()) + ", more than the " +
                          byte_size_text(k_max_frontmatter_bytes) + " a frontmatter may hold",
                      failure_kind::limit_exceeded);
  }
  call_budget& budget = current_budget();
  // What the parse holds while it runs: yaml-cpp's copy of the text and its tokens.
  const budget_mark transient(budget);
  OMGDB_CHECK(budget.try_charge(2 * yaml.size(), "the frontmatter's YAML"));
  builder b(budget);
  try {
    std::istringstream in{std::string(yaml)};
    YAML::Parser parser(in);
    parser.HandleNextDocument(b);
  } catch (const YAML::Exception& e) {
    return make_error("the frontmatter is not valid YAML: " + std::string(e.what()));
  } catch (const call_error& e) {
    return e.to_failure();
  }
  if (!b.root || b.root->is_null()) return document{};
  if (!b.root_is_map || !b.root->is_document()) {
    return make_error("the frontmatter is not a YAML mapping (key: value lines)");
  }
  return std::move(b.root->as_document());
}

result<std::string> emit_frontmatter(const document& doc) {
  std::string out;
  OMGDB_CHECK(emit_doc(out, doc, 0, 0));
  return out;
}

// One hash lookup per patch key (a frontmatter may hold many keys: no scan per key).
void merge_patch(document& target, const document& patch) {
  std::unordered_map<std::string, std::size_t> at;  // name -> index in target (first one)
  at.reserve(target.size());
  for (std::size_t i = 0; i < target.size(); ++i) at.emplace(target[i].name, i);
  std::vector<bool> erased(target.size(), false);
  bool any_erased = false;
  auto append = [&](const std::string& name, value v) {
    at.emplace(name, target.size());
    target.push_back({name, std::move(v)});
    erased.push_back(false);
  };
  for (const field& p : patch) {
    const auto it = at.find(p.name);
    value* existing = it == at.end() ? nullptr : &target[it->second].val;
    if (p.val.is_null()) {
      if (existing) {
        erased[it->second] = true;
        any_erased = true;
        at.erase(it);
      }
      continue;
    }
    if (p.val.is_document()) {
      if (!existing || !existing->is_document()) {
        document fresh;
        merge_patch(fresh, p.val.as_document());  // nulls inside a new object are dropped
        if (existing) *existing = value(std::move(fresh));
        else append(p.name, value(std::move(fresh)));
      } else {
        merge_patch(existing->as_document(), p.val.as_document());
      }
      continue;
    }
    if (existing) *existing = p.val;
    else append(p.name, p.val);
  }
  if (!any_erased) return;
  document kept;
  kept.reserve(target.size());
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (!erased[i]) kept.push_back(std::move(target[i]));
  }
  target = std::move(kept);
}

}  // namespace omgdb::engine::markdown
