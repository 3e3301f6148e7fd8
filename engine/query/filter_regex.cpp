// $regex and regex values in filters, on PCRE2 (the library MongoDB itself uses since 6.1).
//
// Every match runs under PCRE2's match limit (k_regex_match_limit backtracking steps) and a
// bounded JIT stack, so that one value cannot hold a thread for long; a match that reaches
// a limit is an error (expression_error naming the pattern, the path and the limit), never a
// silent "no match" — under `$not` or `$nin` that would turn into a match.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <string>

#include "engine/query/filter_detail.hpp"

namespace omgdb::engine::filter_detail {
namespace {

constexpr PCRE2_SIZE k_jit_stack_start = 32 * 1024;
constexpr PCRE2_SIZE k_jit_stack_max = 1024 * 1024;

// One reusable match block, match context and JIT stack per thread: a match only needs to
// know whether it matched, so one ovector pair is enough (pcre2_match returns 0 rather than
// failing when it is short).
class thread_match_state {
 public:
  thread_match_state()
      : md_(pcre2_match_data_create(1, nullptr)),
        ctx_(pcre2_match_context_create(nullptr)),
        stack_(pcre2_jit_stack_create(k_jit_stack_start, k_jit_stack_max, nullptr)) {
    if (ctx_ != nullptr) {
      pcre2_set_match_limit(ctx_, k_regex_match_limit);
      pcre2_set_depth_limit(ctx_, k_regex_match_limit);
      if (stack_ != nullptr) pcre2_jit_stack_assign(ctx_, nullptr, stack_);
    }
  }
  ~thread_match_state() {
    pcre2_jit_stack_free(stack_);
    pcre2_match_context_free(ctx_);
    pcre2_match_data_free(md_);
  }
  thread_match_state(const thread_match_state&) = delete;
  thread_match_state& operator=(const thread_match_state&) = delete;
  pcre2_match_data* data() const { return md_; }
  pcre2_match_context* context() const { return ctx_; }

 private:
  pcre2_match_data* md_;
  pcre2_match_context* ctx_;
  pcre2_jit_stack* stack_;
};

const thread_match_state& match_state() {
  thread_local thread_match_state state;
  return state;
}

// The error for a match that ended with PCRE2 error `rc` (not "no match").
std::string match_failure(int rc, const std::string& pattern, const std::string& where) {
  const std::string head = "regex " + quoted(pattern) + " at " + quoted(where);
  switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT:
      return head + " reached the regex match limit (" + std::to_string(k_regex_match_limit) +
             " backtracking steps) on one value; the pattern backtracks too much (nested quantifiers "
             "such as (a+)+ take exponential time): simplify it or anchor it";
    case PCRE2_ERROR_DEPTHLIMIT:
      return head + " reached the regex depth limit (" + std::to_string(k_regex_match_limit) +
             ") on one value: simplify the pattern";
    case PCRE2_ERROR_HEAPLIMIT:
      return head + " reached PCRE2's heap limit on one value: simplify the pattern";
    case PCRE2_ERROR_JIT_STACKLIMIT:
      return head + " reached the regex stack limit (" + std::to_string(k_jit_stack_max / 1024) +
             " KiB) on one value: simplify the pattern (repeated groups over a long string nest deeply)";
    default: break;
  }
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(rc, message, sizeof message);
  return head + " could not be matched against a value: " + reinterpret_cast<const char*>(message);
}

}  // namespace

result<regex_matcher> regex_matcher::compile(std::string_view pattern, std::string_view options,
                                             std::string_view where) {
  if (pattern.find('\0') != std::string_view::npos) {
    return make_error("regex at " + quoted(where) + " cannot contain a null byte");
  }
  std::uint32_t flags = PCRE2_UTF;
  std::string opts;
  for (char c : options) {
    switch (c) {
      case 'i': flags |= PCRE2_CASELESS; break;
      case 'm': flags |= PCRE2_MULTILINE; break;
      case 's': flags |= PCRE2_DOTALL; break;
      case 'x': flags |= PCRE2_EXTENDED; break;
      case 'u': break;  // UTF is always on
      default:
        return make_error("invalid regex option " + quoted(std::string(1, c)) + " at " +
                          quoted(where) + " (valid options: i, m, s, x)");
    }
    if (opts.find(c) == std::string::npos) opts += c;
  }
  std::sort(opts.begin(), opts.end());

  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 flags, &code, &offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(code, message, sizeof message);
    return make_error("invalid regex " + quoted(pattern) + " at " + quoted(where) + ": " +
                      reinterpret_cast<const char*>(message) + " (at offset " +
                      std::to_string(offset) + ")");
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // best effort: the interpreter is the fallback

  regex_matcher m;
  m.code_ = std::shared_ptr<void>(
      re, [](void* p) { pcre2_code_free(static_cast<pcre2_code*>(p)); });
  m.pattern_ = std::string(pattern);
  m.options_ = std::move(opts);
  m.where_ = std::string(where);
  return m;
}

bool regex_matcher::matches(const value& v) const {
  if (v.is_string()) {
    const std::string& s = v.as_string();
    const thread_match_state& state = match_state();
    const int rc = pcre2_match(static_cast<const pcre2_code*>(code_.get()),
                               reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0,
                               state.data(), state.context());
    if (rc >= 0) return true;
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    throw expression_error(match_failure(rc, pattern_, where_));
  }
  if (v.type() == kind::regex) {
    const auto& r = std::get<regex>(v.raw());
    return r.pattern == pattern_ && r.options == options_;
  }
  return false;
}

}  // namespace omgdb::engine::filter_detail
