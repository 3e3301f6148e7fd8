#include "common/json.hpp"

#include <charconv>
#include <cmath>
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
    if (violation.empty()) violation = std::move(what);
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

}  // namespace

result<parsed> parse(std::string_view text, const parse_limits& limits) {
  bj::parse_options opts;
  opts.max_depth = limits.max_depth;
  bj::basic_parser<handler> p(opts);
  p.handler().st.reset();
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
  return out;
}

result<bj::value> parse_strict(std::string_view text, const parse_limits& limits) {
  auto r = parse(text, limits);
  if (!r) return std::move(r).error();
  if (!r->violation.empty()) return make_error("invalid JSON: " + r->violation);
  return std::move(r->value);
}

void append_quoted(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of characters that need no escape
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: {
        const char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        out.append(u, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
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
