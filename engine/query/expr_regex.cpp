// $regexMatch, $regexFind and $regexFindAll on PCRE2 (UTF mode), as MongoDB. Results of the
// find operators are {match, idx, captures}, idx counting code points.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>

#include "engine/query/expr_detail.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine::expr_detail {
namespace {

using code_ptr = std::shared_ptr<pcre2_code>;

// The last pattern compiled on this thread (a pipeline evaluates the same one per document).
code_ptr compiled(const std::string& op, const std::string& pattern, const std::string& options) {
  thread_local std::string last_pattern, last_options;
  thread_local code_ptr last;
  if (last && last_pattern == pattern && last_options == options) return last;
  std::uint32_t flags = PCRE2_UTF;
  for (char c : options) {
    switch (c) {
      case 'i': flags |= PCRE2_CASELESS; break;
      case 'm': flags |= PCRE2_MULTILINE; break;
      case 's': flags |= PCRE2_DOTALL; break;
      case 'x': flags |= PCRE2_EXTENDED; break;
      case 'u': break;
      default: fail(op + ": invalid flag in regex options: " + std::string(1, c));
    }
  }
  int err = 0;
  PCRE2_SIZE at = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), flags, &err, &at, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(err, buf, sizeof buf);
    fail(op + ": invalid regular expression: " + reinterpret_cast<const char*>(buf));
  }
  last = code_ptr(code, pcre2_code_free);
  last_pattern = pattern;
  last_options = options;
  return last;
}

struct regex_call {
  std::string name;  // the operator, for messages
  expr_value held;   // the input value, read in place (not copied)
  std::string_view input;
  code_ptr code;
  bool null_input = false;
  // Where the last match ended, in bytes and in code points: $regexFindAll counts each
  // match's code-point index from the one before, not from the start (which was O(n²)).
  std::size_t counted_bytes = 0;
  std::int64_t counted_cps = 0;
  // PCRE2 checks the whole subject's UTF-8 on every match unless told not to: once is enough
  // (checking it for each of $regexFindAll's matches was O(n²) as well).
  bool utf_checked = false;
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md{nullptr, pcre2_match_data_free};
};

regex_call prepare(const op_node& self, eval_ctx& ctx) {
  regex_call call;
  call.name = self.name;
  expr_value in = self.arg(0, ctx), re = self.arg(1, ctx);
  std::string pattern, options;
  if (re && re->type() == kind::regex) {
    pattern = std::get<regex>(re->raw()).pattern;
    options = std::get<regex>(re->raw()).options;
  } else if (re && re->is_string()) {
    pattern = re->as_string();
  } else if (!nullish(re)) {
    fail(self.name + " needs 'regex' to be of type string or regex, not " + type_name(re));
  }
  if (self.has(2)) {
    expr_value o = self.arg(2, ctx);
    if (!nullish(o)) {
      if (!o->is_string()) fail(self.name + " needs 'options' to be of type string, not " + type_name(*o));
      if (!options.empty()) fail(self.name + ": options set in both 'regex' and 'options'");
      options = o->as_string();
    }
  }
  if (nullish(in) || nullish(re)) {
    call.null_input = true;
    return call;
  }
  if (!in->is_string()) fail(self.name + " needs 'input' to be of type string, not " + type_name(*in));
  call.held = std::move(in);
  call.input = call.held->as_string();
  call.code = compiled(self.name, pattern, options);
  call.md.reset(pcre2_match_data_create_from_pattern(call.code.get(), nullptr));
  if (!call.md) fail(self.name + ": out of memory");
  return call;
}

// The code points before byte `bytes` (at or after the last count).
std::int64_t cps_before(regex_call& call, std::size_t bytes) {
  if (bytes < call.counted_bytes) {  // not expected (matches move forward): count afresh
    call.counted_bytes = 0;
    call.counted_cps = 0;
  }
  const std::string_view s = call.input;
  std::int64_t n = call.counted_cps;
  for (std::size_t i = call.counted_bytes; i < bytes && i < s.size(); ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  call.counted_bytes = bytes;
  call.counted_cps = n;
  return n;
}

// One match context per thread with the filters' match limit (k_regex_match_limit), so a
// `$regexMatch` / `$regexFind` cannot hold a thread longer than a `$regex` can.
pcre2_match_context* limited_context() {
  struct holder {
    pcre2_match_context* ctx = pcre2_match_context_create(nullptr);
    holder() {
      if (ctx != nullptr) {
        pcre2_set_match_limit(ctx, k_regex_match_limit);
        pcre2_set_depth_limit(ctx, k_regex_match_limit);
      }
    }
    ~holder() { pcre2_match_context_free(ctx); }
  };
  thread_local holder h;
  return h.ctx;
}

// Matches from `start`; fills `out` with {match, idx, captures}. False when nothing matched.
bool match_at(regex_call& call, std::size_t start, document& out, std::size_t& end) {
  pcre2_match_data* md = call.md.get();
  const int rc = pcre2_match(call.code.get(), reinterpret_cast<PCRE2_SPTR>(call.input.data()), call.input.size(), start,
                             call.utf_checked ? PCRE2_NO_UTF_CHECK : 0, md, limited_context());
  call.utf_checked = call.utf_checked || rc >= 0 || rc == PCRE2_ERROR_NOMATCH;  // the subject was checked
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
    fail(quoted(call.name) + " reached the regex match limit (" + std::to_string(k_regex_match_limit) +
         " backtracking steps) on one value; the pattern backtracks too much: simplify it or anchor it");
  }
  if (rc < 0) fail("regular expression match failed (PCRE2 error " + std::to_string(rc) + ")");
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  std::uint32_t groups = 0;
  pcre2_pattern_info(call.code.get(), PCRE2_INFO_CAPTURECOUNT, &groups);
  array captures;
  for (std::uint32_t g = 1; g <= groups; ++g) {
    if (static_cast<int>(g) >= rc || ov[2 * g] == PCRE2_UNSET) {
      captures.emplace_back();
    } else {
      captures.emplace_back(std::string(call.input.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g])));
    }
  }
  out = document{{"match", value(std::string(call.input.substr(ov[0], ov[1] - ov[0])))},
                 {"idx", int_or_long(cps_before(call, ov[0]))},
                 {"captures", value(std::move(captures))}};
  end = ov[1] == ov[0] ? ov[1] + 1 : ov[1];
  while (end < call.input.size() && (static_cast<unsigned char>(call.input[end]) & 0xC0) == 0x80) ++end;
  return true;
}

expr_value regex_match_op(const op_node& self, eval_ctx& ctx) {
  regex_call call = prepare(self, ctx);
  if (call.null_input) return value(false);
  document d;
  std::size_t end = 0;
  return value(match_at(call, 0, d, end));
}

expr_value regex_find_op(const op_node& self, eval_ctx& ctx) {
  regex_call call = prepare(self, ctx);
  if (call.null_input) return value();
  document d;
  std::size_t end = 0;
  if (!match_at(call, 0, d, end)) return value();
  return value(std::move(d));
}

expr_value regex_find_all_op(const op_node& self, eval_ctx& ctx) {
  regex_call call = prepare(self, ctx);
  array out;
  if (call.null_input) return value(std::move(out));
  std::size_t start = 0;
  document d;
  // Each match is charged as it is added (which also polls the call's flag).
  while (start <= call.input.size() && match_at(call, start, d, start)) {
    const std::uint64_t bytes = measure_document(d).bytes;
    charge_built(ctx, bytes, self.name);
    push_built(ctx, out, value(std::move(d)), self.name);
    if (out.size() > 1000000) {
      throw expression_error(self.name + ": more than 1000000 matches, its bound", failure_kind::limit_exceeded);
    }
  }
  return value(std::move(out));
}

constexpr op_info ops[] = {
    {"$regexMatch", -1, -1, regex_match_op, "input,regex,options?"},
    {"$regexFind", -1, -1, regex_find_op, "input,regex,options?"},
    {"$regexFindAll", -1, -1, regex_find_all_op, "input,regex,options?"},
};

}  // namespace

op_table regex_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
