// String expression operators. Positions and lengths of the *CP operators count Unicode code
// points of the UTF-8 text; the *Bytes ones count bytes. Case mapping is ASCII-only, as
// MongoDB's ($toLower, $toUpper, $strcasecmp).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/query/expr_detail.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using i64 = std::int64_t;

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Byte offset of code point `cp` in `s` (s.size() when past the end).
std::size_t byte_of_cp(const std::string& s, i64 cp) {
  std::size_t i = 0;
  for (i64 n = 0; i < s.size() && n < cp; ++n) {
    ++i;
    while (i < s.size() && continuation(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i;
}

i64 cp_length(std::string_view s) {
  i64 n = 0;
  for (unsigned char c : s) n += continuation(c) ? 0 : 1;
  return n;
}

std::vector<std::string> code_points(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 1;
    while (j < s.size() && continuation(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Numbers and dates become text in the string operators that accept them, as in MongoDB.
std::string coerce(const std::string& op, const expr_value& v) {
  if (nullish(v)) return "";
  if (v->is_string()) return v->as_string();
  if (v->is_int32()) return std::to_string(v->as_int32());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_double()) {
    std::string s = std::to_string(v->as_double());
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  if (v->type() == kind::date_time) return format_iso8601(std::get<date_time>(v->raw()).millis);
  fail(op + " can't convert " + type_name(*v) + " to a string");
}

i64 nonnegative(const std::string& op, const expr_value& v, const char* what) {
  if (!v || !v->is_number()) fail(op + ": " + what + " must be a number, not " + type_name(v));
  const i64 n = integral_arg(op, *v);
  if (n < 0) fail(op + ": " + what + " must not be negative, got " + std::to_string(n));
  return n;
}

expr_value concat_op(const op_node& self, eval_ctx& ctx) {
  std::string out;
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) return value();
    if (!v->is_string()) fail("$concat only supports strings, not " + type_name(*v));
    out += v->as_string();
    if (out.size() > (16u << 20)) fail("$concat: result exceeds 16 MiB");
  }
  return value(std::move(out));
}

expr_value substr_cp_op(const op_node& self, eval_ctx& ctx) {
  const std::string s = coerce(self.name, self.arg(0, ctx));
  const i64 start = nonnegative(self.name, self.arg(1, ctx), "starting index");
  const i64 count = nonnegative(self.name, self.arg(2, ctx), "length");
  const std::size_t b = byte_of_cp(s, start);
  const std::size_t e = byte_of_cp(s, start + std::min<i64>(count, INT32_MAX));
  return value(s.substr(b, e - b));
}

expr_value substr_bytes_op(const op_node& self, eval_ctx& ctx) {
  const std::string s = coerce(self.name, self.arg(0, ctx));
  expr_value st = self.arg(1, ctx), ct = self.arg(2, ctx);
  const i64 start = nonnegative(self.name, st, "starting index");
  if (!ct || !ct->is_number()) fail(self.name + ": length must be a number, not " + type_name(ct));
  const i64 count = integral_arg(self.name, *ct);  // negative: to the end
  if (static_cast<std::size_t>(start) > s.size()) return value(std::string());
  if (start < static_cast<i64>(s.size()) && continuation(static_cast<unsigned char>(s[static_cast<std::size_t>(start)]))) {
    fail(self.name + ": Invalid range, starting index is a UTF-8 continuation byte.");
  }
  const std::size_t len = count < 0 ? std::string::npos : static_cast<std::size_t>(count);
  std::string out = s.substr(static_cast<std::size_t>(start), len);
  const std::size_t end = static_cast<std::size_t>(start) + out.size();
  if (end < s.size() && continuation(static_cast<unsigned char>(s[end]))) {
    fail(self.name + ": Invalid range, ending index is in the middle of a UTF-8 character.");
  }
  return value(std::move(out));
}

expr_value case_op(const op_node& self, eval_ctx& ctx) {
  std::string s = coerce(self.name, self.arg(0, ctx));
  const bool lower = self.name == "$toLower";
  for (char& c : s) {
    if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!lower && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return value(std::move(s));
}

expr_value strcasecmp_op(const op_node& self, eval_ctx& ctx) {
  std::string a = coerce(self.name, self.arg(0, ctx)), b = coerce(self.name, self.arg(1, ctx));
  for (std::string* s : {&a, &b}) {
    for (char& c : *s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  const int c = a.compare(b);
  return value(static_cast<std::int32_t>(c < 0 ? -1 : (c > 0 ? 1 : 0)));
}

expr_value split_op(const op_node& self, eval_ctx& ctx) {
  expr_value s = self.arg(0, ctx), d = self.arg(1, ctx);
  if (nullish(s)) return value();
  if (!s->is_string()) fail("$split requires an expression that evaluates to a string as a first argument, found: " + type_name(*s));
  if (!d || !d->is_string()) fail("$split requires an expression that evaluates to a string as a second argument, found: " + type_name(d));
  const std::string& text = s->as_string();
  const std::string& delim = d->as_string();
  if (delim.empty()) fail("$split requires a non-empty separator");
  array out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(delim, start);
    out.emplace_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + delim.size();
  }
  return value(std::move(out));
}

bool default_space(const std::string& cp) {
  static const char* const spaces[] = {"\0", " ", "\t", "\n", "\v", "\f", "\r", "\xC2\xA0", "\xE1\x9A\x80",
                                       "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83",
                                       "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87",
                                       "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8",
                                       "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
  if (cp.size() == 1 && cp[0] == '\0') return true;
  return std::any_of(std::begin(spaces) + 1, std::end(spaces), [&](const char* s) { return cp == s; });
}

expr_value trim_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx);
  if (nullish(in)) return value();
  if (!in->is_string()) fail(self.name + " requires its input to be a string, got " + type_name(*in));
  std::vector<std::string> set;
  const bool custom = self.has(1);
  if (custom) {
    expr_value chars = self.arg(1, ctx);
    if (nullish(chars)) return value();
    if (!chars->is_string()) fail(self.name + " requires 'chars' to be a string, got " + type_name(*chars));
    set = code_points(chars->as_string());
  }
  auto trimmed = [&](const std::string& cp) {
    return custom ? std::find(set.begin(), set.end(), cp) != set.end() : default_space(cp);
  };
  std::vector<std::string> cps = code_points(in->as_string());
  std::size_t b = 0, e = cps.size();
  if (self.name != "$rtrim") while (b < e && trimmed(cps[b])) ++b;
  if (self.name != "$ltrim") while (e > b && trimmed(cps[e - 1])) --e;
  std::string out;
  for (std::size_t i = b; i < e; ++i) out += cps[i];
  return value(std::move(out));
}

expr_value strlen_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (!v || !v->is_string()) fail(self.name + " requires a string argument, found: " + type_name(v));
  const i64 n = self.name == "$strLenCP" ? cp_length(v->as_string()) : static_cast<i64>(v->as_string().size());
  return int_or_long(n);
}

expr_value index_of_op(const op_node& self, eval_ctx& ctx) {
  const bool cp = self.name == "$indexOfCP";
  expr_value s = self.arg(0, ctx), sub = self.arg(1, ctx);
  if (nullish(s)) return value();
  if (!s->is_string()) fail(self.name + " requires a string as the first argument, found: " + type_name(*s));
  if (!sub || !sub->is_string()) fail(self.name + " requires a string as the second argument, found: " + type_name(sub));
  const std::string& text = s->as_string();
  const i64 start = self.args.size() > 2 ? nonnegative(self.name, self.arg(2, ctx), "starting index") : 0;
  const i64 total = cp ? cp_length(text) : static_cast<i64>(text.size());
  const i64 end = self.args.size() > 3 ? nonnegative(self.name, self.arg(3, ctx), "ending index") : total;
  if (start > end || start > total) return value(std::int32_t{-1});
  const std::size_t b = cp ? byte_of_cp(text, start) : static_cast<std::size_t>(start);
  const std::size_t e = cp ? byte_of_cp(text, end) : static_cast<std::size_t>(std::min(end, total));
  const std::string hay = text.substr(0, e);
  const std::size_t at = hay.find(sub->as_string(), b);
  if (at == std::string::npos || at + sub->as_string().size() > e) return value(std::int32_t{-1});
  return int_or_long(cp ? cp_length(std::string_view(text).substr(0, at)) : static_cast<i64>(at));
}

expr_value replace_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx), find = self.arg(1, ctx), rep = self.arg(2, ctx);
  for (const expr_value* v : {&in, &find, &rep}) {
    if (nullish(*v)) return value();
    if (!(*v)->is_string()) fail(self.name + " requires that 'input', 'find' and 'replacement' be strings, found: " + type_name(**v));
  }
  std::string s = in->as_string();
  const std::string& f = find->as_string();
  const std::string& r = rep->as_string();
  const bool all = self.name == "$replaceAll";
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(f, start);
    if (at == std::string::npos) break;
    out.append(s, start, at - start).append(r);
    start = at + f.size();
    if (f.empty()) {  // an empty `find` matches before every code point
      if (start >= s.size()) { start = s.size(); break; }
      std::size_t next = start + 1;
      while (next < s.size() && continuation(static_cast<unsigned char>(s[next]))) ++next;
      out.append(s, start, next - start);
      start = next;
    }
    if (!all || out.size() > (16u << 20)) break;
  }
  out.append(s, start, std::string::npos);
  return value(std::move(out));
}

constexpr op_info ops[] = {
    {"$concat", 0, -1, concat_op},
    {"$substrCP", 3, 3, substr_cp_op},
    {"$substrBytes", 3, 3, substr_bytes_op},
    {"$substr", 3, 3, substr_bytes_op},
    {"$toLower", 1, 1, case_op},
    {"$toUpper", 1, 1, case_op},
    {"$strcasecmp", 2, 2, strcasecmp_op},
    {"$split", 2, 2, split_op},
    {"$trim", -1, -1, trim_op, "input,chars?"},
    {"$ltrim", -1, -1, trim_op, "input,chars?"},
    {"$rtrim", -1, -1, trim_op, "input,chars?"},
    {"$strLenCP", 1, 1, strlen_op},
    {"$strLenBytes", 1, 1, strlen_op},
    {"$indexOfCP", 2, 4, index_of_op},
    {"$indexOfBytes", 2, 4, index_of_op},
    {"$replaceOne", -1, -1, replace_op, "input,find,replacement"},
    {"$replaceAll", -1, -1, replace_op, "input,find,replacement"},
};

}  // namespace

op_table string_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
