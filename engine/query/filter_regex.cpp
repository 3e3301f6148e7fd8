// $regex and regex values in filters, on PCRE2 (the library MongoDB itself uses since 6.1).
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <string>

#include "engine/query/filter_detail.hpp"

namespace omgdb::engine::filter_detail {
namespace {

// One reusable match block per thread: a match only needs to know whether it matched, so
// one ovector pair is enough (pcre2_match returns 0 rather than failing when it is short).
class thread_match_data {
 public:
  thread_match_data() : md_(pcre2_match_data_create(1, nullptr)) {}
  ~thread_match_data() { pcre2_match_data_free(md_); }
  thread_match_data(const thread_match_data&) = delete;
  thread_match_data& operator=(const thread_match_data&) = delete;
  pcre2_match_data* get() const { return md_; }

 private:
  pcre2_match_data* md_;
};

pcre2_match_data* match_data() {
  thread_local thread_match_data data;
  return data.get();
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
  return m;
}

bool regex_matcher::matches(const value& v) const {
  if (v.is_string()) {
    const std::string& s = v.as_string();
    const int rc = pcre2_match(static_cast<const pcre2_code*>(code_.get()),
                               reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0,
                               match_data(), nullptr);
    return rc >= 0;
  }
  if (v.type() == kind::regex) {
    const auto& r = std::get<regex>(v.raw());
    return r.pattern == pattern_ && r.options == options_;
  }
  return false;
}

}  // namespace omgdb::engine::filter_detail
