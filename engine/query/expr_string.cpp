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

// Byte offset of code point `cp` in `s` (s.size() when past the end), from byte `from`,
// which is code point `from_cp`.
std::size_t byte_of_cp(std::string_view s, i64 cp, std::size_t from = 0, i64 from_cp = 0) {
  std::size_t i = from;
  for (i64 n = from_cp; i < s.size() && n < cp; ++n) {
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

// The code point starting at byte `i` of `s` as a number (its UTF-8 bytes, big-endian), and
// where the next one starts.
std::uint32_t cp_at(std::string_view s, std::size_t i, std::size_t& next) {
  std::uint32_t c = static_cast<unsigned char>(s[i]);
  next = i + 1;
  while (next < s.size() && continuation(static_cast<unsigned char>(s[next]))) {
    c = (c << 8) | static_cast<unsigned char>(s[next]);
    ++next;
  }
  return c;
}
// The start of the code point that ends just before byte `e` of `s` (e > 0).
std::size_t cp_before(std::string_view s, std::size_t e) {
  std::size_t b = e - 1;
  while (b > 0 && continuation(static_cast<unsigned char>(s[b]))) --b;
  return b;
}

// Numbers and dates become text in the string operators that accept them, as in MongoDB.
// A string is read where it is (the returned view lives as long as `v`); other values are
// written into `scratch`.
std::string coerce(const std::string& op, const expr_value& v);
std::string_view text_of(const std::string& op, const expr_value& v, std::string& scratch) {
  if (v && v->is_string()) return v->as_string();
  scratch = coerce(op, v);
  return scratch;
}

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
    if (out.size() + v->as_string().size() > k_max_string_bytes) fail_string_bound("$concat");
    append_built(ctx, out, v->as_string(), self.name);
  }
  return value(std::move(out));
}

expr_value substr_cp_op(const op_node& self, eval_ctx& ctx) {
  const expr_value in = self.arg(0, ctx);
  std::string scratch;
  const std::string_view s = text_of(self.name, in, scratch);
  const i64 start = nonnegative(self.name, self.arg(1, ctx), "starting index");
  const i64 count = nonnegative(self.name, self.arg(2, ctx), "length");
  const std::size_t b = byte_of_cp(s, start);
  const std::size_t e = byte_of_cp(s, start + std::min<i64>(count, INT32_MAX), b, start);
  charge_built(ctx, e - b, self.name);
  return value(std::string(s.substr(b, e - b)));
}

expr_value substr_bytes_op(const op_node& self, eval_ctx& ctx) {
  const expr_value in = self.arg(0, ctx);
  std::string scratch;
  const std::string_view s = text_of(self.name, in, scratch);
  expr_value st = self.arg(1, ctx), ct = self.arg(2, ctx);
  const i64 start = nonnegative(self.name, st, "starting index");
  if (!ct || !ct->is_number()) fail(self.name + ": length must be a number, not " + type_name(ct));
  const i64 count = integral_arg(self.name, *ct);  // negative: to the end
  if (static_cast<std::size_t>(start) > s.size()) return value(std::string());
  if (start < static_cast<i64>(s.size()) && continuation(static_cast<unsigned char>(s[static_cast<std::size_t>(start)]))) {
    fail(self.name + ": Invalid range, starting index is a UTF-8 continuation byte.");
  }
  const std::size_t len = count < 0 ? std::string::npos : static_cast<std::size_t>(count);
  const std::string_view piece = s.substr(static_cast<std::size_t>(start), len);
  const std::size_t end = static_cast<std::size_t>(start) + piece.size();
  if (end < s.size() && continuation(static_cast<unsigned char>(s[end]))) {
    fail(self.name + ": Invalid range, ending index is in the middle of a UTF-8 character.");
  }
  charge_built(ctx, piece.size(), self.name);
  return value(std::string(piece));
}

expr_value case_op(const op_node& self, eval_ctx& ctx) {
  const expr_value in = self.arg(0, ctx);
  if (in && in->is_string()) charge_built(ctx, in->as_string().size(), self.name);
  std::string s = coerce(self.name, in);
  const bool lower = self.name == "$toLower";
  for (char& c : s) {
    if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!lower && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return value(std::move(s));
}

expr_value strcasecmp_op(const op_node& self, eval_ctx& ctx) {
  const expr_value x = self.arg(0, ctx), y = self.arg(1, ctx);
  std::string sx, sy;
  const std::string_view a = text_of(self.name, x, sx), b = text_of(self.name, y, sy);
  auto lower = [](char c) { return static_cast<unsigned char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c); };
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char ca = lower(a[i]), cb = lower(b[i]);
    if (ca != cb) return value(static_cast<std::int32_t>(ca < cb ? -1 : 1));
  }
  return value(static_cast<std::int32_t>(a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0)));
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
    const std::size_t len = at == std::string::npos ? text.size() - start : at - start;
    if (len > 15) charge_built(ctx, len + 1, self.name);  // the piece's own buffer (longer than the inline 15)
    push_built(ctx, out, value(text.substr(start, len)), self.name);
    if (at == std::string::npos) break;
    start = at + delim.size();
  }
  return value(std::move(out));
}

// The code point (as cp_at numbers it) is one of those $trim removes by default.
bool default_space(std::uint32_t cp) {
  static constexpr std::uint32_t spaces[] = {0x00, 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0xC2A0, 0xE19A80,
                                             0xE28080, 0xE28081, 0xE28082, 0xE28083, 0xE28084, 0xE28085,
                                             0xE28086, 0xE28087, 0xE28088, 0xE28089, 0xE2808A, 0xE280A8,
                                             0xE280A9, 0xE280AF, 0xE2819F, 0xE38080};
  return std::find(std::begin(spaces), std::end(spaces), cp) != std::end(spaces);
}

// Walks code points from each end without materializing them; a custom `chars` set is
// sorted once and searched (O((n + m) log m), not n × m).
expr_value trim_op(const op_node& self, eval_ctx& ctx) {
  expr_value in = self.arg(0, ctx);
  if (nullish(in)) return value();
  if (!in->is_string()) fail(self.name + " requires its input to be a string, got " + type_name(*in));
  std::vector<std::uint32_t> set;
  const bool custom = self.has(1);
  if (custom) {
    expr_value chars = self.arg(1, ctx);
    if (nullish(chars)) return value();
    if (!chars->is_string()) fail(self.name + " requires 'chars' to be a string, got " + type_name(*chars));
    const std::string& c = chars->as_string();
    charge_built(ctx, c.size() * sizeof(std::uint32_t), self.name);
    for (std::size_t i = 0, next = 0; i < c.size(); i = next) set.push_back(cp_at(c, i, next));
    std::sort(set.begin(), set.end());
  }
  auto trimmed = [&](std::uint32_t cp) { return custom ? std::binary_search(set.begin(), set.end(), cp) : default_space(cp); };
  const std::string_view text = in->as_string();
  std::size_t b = 0, e = text.size(), next = 0, steps = 0;
  if (self.name != "$rtrim") {
    while (b < e && trimmed(cp_at(text, b, next))) {
      poll_step(ctx, steps++);
      b = next;
    }
  }
  if (self.name != "$ltrim") {
    while (e > b) {
      poll_step(ctx, steps++);
      const std::size_t at = cp_before(text, e);
      if (!trimmed(cp_at(text, at, next))) break;
      e = at;
    }
  }
  charge_built(ctx, e - b, self.name);
  return value(std::string(text.substr(b, e - b)));
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
  const std::size_t e = cp ? byte_of_cp(text, end, b, start) : static_cast<std::size_t>(std::min(end, total));
  const std::string_view hay = std::string_view(text).substr(0, e);
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
  const std::string& s = in->as_string();
  const std::string& f = find->as_string();
  const std::string& r = rep->as_string();
  const bool all = self.name == "$replaceAll";
  // Every occurrence is replaced (or the first, $replaceOne), charged as the result grows;
  // a result longer than k_max_string_bytes is an error naming that bound, never a partly
  // replaced string.
  std::string out;
  std::size_t start = 0;
  auto add = [&](std::string_view piece) {
    if (out.size() + piece.size() > k_max_string_bytes) fail_string_bound(self.name);
    append_built(ctx, out, piece, self.name);
  };
  while (true) {
    const std::size_t at = s.find(f, start);
    if (at == std::string::npos) break;
    add(std::string_view(s).substr(start, at - start));
    add(r);
    start = at + f.size();
    if (f.empty()) {  // an empty `find` matches before every code point
      if (start >= s.size()) {
        start = s.size();
        break;
      }
      std::size_t next = start + 1;
      while (next < s.size() && continuation(static_cast<unsigned char>(s[next]))) ++next;
      add(std::string_view(s).substr(start, next - start));
      start = next;
    }
    if (!all) break;
  }
  add(std::string_view(s).substr(start));
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
