#include "common/json.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

namespace omgdb::json {
namespace {

namespace bj = boost::json;

class handler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  // Small documents (every JSON-RPC envelope) are built in this buffer without touching
  // the heap; the value itself lives in the default storage as usual.
  unsigned char temp[2048];
  bj::value_stack st{bj::storage_ptr(), temp, sizeof temp};
  std::string violation;
  std::size_t violation_depth = 0;
  std::string number_text;
  // Keys of every open object, innermost last (flat: short keys stay in their std::string's
  // inline buffer, so no allocation per key); `key_starts` marks where each object's begin.
  std::vector<std::string> keys;
  std::vector<std::size_t> key_starts;
  std::string key_buf;

  handler() {
    keys.reserve(16);
    key_starts.reserve(8);
  }

  void note(std::string what) {
    if (!violation.empty()) return;
    violation = std::move(what);
    violation_depth = key_starts.size();
  }

  bool on_document_begin(bj::error_code&) { return true; }
  bool on_document_end(bj::error_code&) { return true; }
  bool on_object_begin(bj::error_code&) {
    key_starts.push_back(keys.size());
    return true;
  }
  bool on_object_end(std::size_t n, bj::error_code&) {
    keys.resize(key_starts.back());
    key_starts.pop_back();
    st.push_object(n);
    return true;
  }
  bool on_array_begin(bj::error_code&) { return true; }
  bool on_array_end(std::size_t n, bj::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    key_buf.append(s.data(), s.size());
    st.push_chars(s);
    return true;
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code&) {
    key_buf.append(s.data(), s.size());
    const std::size_t first = key_starts.back();
    for (std::size_t i = first; i < keys.size(); ++i) {
      if (keys[i] == key_buf) {
        note("duplicate key \"" + key_buf + "\" in an object");
        break;
      }
    }
    if (keys.size() - first < 4096) keys.push_back(key_buf);
    key_buf.clear();
    st.push_key(s);
    return true;
  }
  bool on_string_part(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(bj::string_view s, bj::error_code&) {
    number_text.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, bj::string_view, bj::error_code&) {
    number_text.clear();
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, bj::string_view s, bj::error_code&) {
    number_text.append(s.data(), s.size());
    note("integer " + number_text + " is outside the 64-bit signed range");
    number_text.clear();
    st.push_double(static_cast<double>(u));
    return true;
  }
  bool on_double(double d, bj::string_view s, bj::error_code&) {
    number_text.append(s.data(), s.size());
    // Boost.JSON 1.81 sometimes rounds the last digit wrongly (5.043497672979824e-118 reads
    // as …825e-118); std::from_chars is correctly rounded, so the text decides.
    double exact = 0;
    auto [end, ec] = std::from_chars(number_text.data(), number_text.data() + number_text.size(), exact);
    if (ec == std::errc() && end == number_text.data() + number_text.size()) d = exact;
    if (number_text.find_first_of(".eE") == std::string::npos) {
      note("integer " + number_text + " is outside the 64-bit signed range");
    } else if (!std::isfinite(d)) {
      note("number " + number_text + " is too large to represent (not finite)");
    }
    number_text.clear();
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, bj::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(bj::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }
};

using parser_type = bj::basic_parser<handler>;

bj::parse_options options_for(const parse_limits& limits) {
  bj::parse_options opts;
  opts.max_depth = limits.max_depth;
  return opts;
}

}  // namespace

result<parsed> parse(std::string_view text, const parse_limits& limits) {
  // One parser per thread for small texts and the usual limits, reused: its key lists and
  // scratch strings keep their storage from one message to the next instead of allocating
  // it every time. Large texts get a parser of their own, so no thread keeps what a 4 MiB
  // document needed.
  static const parse_limits usual;
  constexpr std::size_t small_text = 64 * 1024;
  thread_local parser_type reused(options_for(usual));
  std::optional<parser_type> own;
  bool reuse = limits.max_depth == usual.max_depth && text.size() <= small_text;
  parser_type& p = reuse ? reused : own.emplace(options_for(limits));
  p.reset();
  handler& h = p.handler();
  h.st.reset();
  h.violation.clear();
  h.violation_depth = 0;
  h.number_text.clear();
  h.key_buf.clear();
  h.key_starts.clear();
  if (h.keys.capacity() > 256) h.keys = std::vector<std::string>();  // after an unusually wide object
  h.keys.clear();
  bj::error_code ec;
  std::size_t n = p.write_some(false, text.data(), text.size(), ec);
  if (!ec && n < text.size()) ec = bj::error::extra_data;
  if (ec) {
    std::string msg = "invalid JSON at byte " + std::to_string(n) + ": " + ec.message();
    return make_error(std::move(msg));
  }
  parsed out;
  out.value = p.handler().st.release();
  out.violation = std::move(p.handler().violation);
  out.violation_depth = p.handler().violation_depth;
  return out;
}

result<bj::value> parse_strict(std::string_view text, const parse_limits& limits) {
  auto r = parse(text, limits);
  if (!r) return std::move(r).error();
  if (!r->violation.empty()) return make_error("invalid JSON: " + r->violation);
  return std::move(r->value);
}

namespace {

// How many bytes beyond itself each byte needs inside a JSON string: 1 for the two-character
// escapes, 5 for \u00XX, 0 for everything else (UTF-8 passes through as is).
constexpr std::array<unsigned char, 256> escape_extra = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 5;
  for (unsigned char c : {'"', '\\', '\n', '\r', '\t', '\b', '\f'}) t[c] = 1;
  return t;
}();

}  // namespace

void append_quoted(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  // Two passes: count what the escapes add, then write into storage sized exactly once.
  std::size_t extra = 0;
  for (unsigned char c : s) extra += escape_extra[c];
  std::size_t at = out.size();
  out.resize(at + s.size() + extra + 2);
  char* p = out.data() + at;
  *p++ = '"';
  if (extra == 0) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  } else {
    for (unsigned char c : s) {
      if (!escape_extra[c]) {
        *p++ = static_cast<char>(c);
        continue;
      }
      *p++ = '\\';
      switch (c) {
        case '"': *p++ = '"'; break;
        case '\\': *p++ = '\\'; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        default:
          *p++ = 'u';
          *p++ = '0';
          *p++ = '0';
          *p++ = hex[c >> 4];
          *p++ = hex[c & 15];
      }
    }
  }
  *p = '"';
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view s(buf, static_cast<std::size_t>(end - buf));
  out += s;
  if (s.find_first_of(".eEn") == std::string_view::npos) out += ".0";
}

void append(std::string& out, const bj::value& v) {
  switch (v.kind()) {
    case bj::kind::null: out += "null"; break;
    case bj::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case bj::kind::int64: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get_int64());
      out.append(buf, end);
      break;
    }
    case bj::kind::uint64: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get_uint64());
      out.append(buf, end);
      break;
    }
    case bj::kind::double_: append_double(out, v.get_double()); break;
    case bj::kind::string: {
      const auto& s = v.get_string();
      append_quoted(out, std::string_view(s.data(), s.size()));
      break;
    }
    case bj::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        append(out, e);
      }
      out.push_back(']');
      break;
    }
    case bj::kind::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& kv : v.get_object()) {
        if (!first) out.push_back(',');
        first = false;
        append_quoted(out, std::string_view(kv.key().data(), kv.key().size()));
        out.push_back(':');
        append(out, kv.value());
      }
      out.push_back('}');
      break;
    }
  }
}

std::string serialize(const bj::value& v) {
  std::string out;
  append(out, v);
  return out;
}

}  // namespace omgdb::json
