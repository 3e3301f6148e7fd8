// omgdb sql — result rows written straight into JSON text.
#include "sql/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "common/json.hpp"
#include "sql/exec_support.hpp"

namespace omgdb::sql::detail {

namespace {

constexpr std::int64_t max_exact = std::int64_t{1} << 53;

template <class Int>
void put_digits(std::string& out, Int v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

template <class Int>
void put_quoted_digits(std::string& out, Int v) {
  out.push_back('"');
  put_digits(out, v);
  out.push_back('"');
}

// Bytes that end a run of plain characters: controls, '"', '\\' and every non-ASCII byte
// (checked as UTF-8).
struct stop_table {
  bool stop[256] = {};
  constexpr stop_table() {
    for (int c = 0; c < 0x20; ++c) stop[c] = true;
    stop[static_cast<unsigned char>('"')] = true;
    stop[static_cast<unsigned char>('\\')] = true;
    for (int c = 0x80; c < 0x100; ++c) stop[c] = true;
  }
};
constexpr stop_table k_stop;

// True when none of the 8 bytes at `p` is a stop byte (may say false for a plain block: the
// byte loop then decides; never says true for a block holding a stop byte).
inline bool plain_block(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
  std::uint64_t stops = (v & highs)                          // non-ASCII
                        | ((v - 0x20 * ones) & ~v & highs)   // below 0x20
                        | has_zero(v ^ ('"' * ones))         // '"'
                        | has_zero(v ^ ('\\' * ones));       // '\\'
  return stops == 0;
}

}  // namespace

void put_null(std::string& out) { out += "null"; }

void put_bool(std::string& out, bool v) { out += v ? "true" : "false"; }

void put_int(std::string& out, std::int64_t v) {
  if (v >= -max_exact && v <= max_exact) put_digits(out, v);
  else put_quoted_digits(out, v);
}

void put_uint(std::string& out, std::uint64_t v) {
  if (v <= static_cast<std::uint64_t>(max_exact)) put_digits(out, v);
  else put_quoted_digits(out, v);
}

void put_int_text(std::string& out, std::string_view text) {
  // Canonical decimal text of at most 15 digits ("0", "-12", never "+1", "007" or "-0") is
  // below 2^53 and prints exactly as written: copy it.
  std::size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  std::size_t digits = text.size() - sign;
  if (digits >= 1 && digits <= 15 && text[sign] >= '0' && text[sign] <= '9' &&
      (text[sign] != '0' || (digits == 1 && sign == 0))) {
    bool plain = true;
    for (std::size_t i = sign + 1; i < text.size(); ++i) plain = plain && text[i] >= '0' && text[i] <= '9';
    if (plain) {
      out.append(text);
      return;
    }
  }
  const char* first = text.data();
  const char* last = first + text.size();
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && p == last) return put_int(out, v);
  std::uint64_t u = 0;
  auto [pu, ecu] = std::from_chars(first, last, u);
  if (ecu == std::errc() && pu == last) return put_uint(out, u);
  put_text(out, text);
}

void put_double(std::string& out, double v) {
  if (std::isfinite(v)) omgdb::json::append_double(out, v);
  else if (std::isnan(v)) out += "\"NaN\"";
  else out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
}

void put_double_text(std::string& out, std::string_view text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size() && std::isfinite(v)) omgdb::json::append_double(out, v);
  else put_text(out, text);
}

void put_shortest_double_text(std::string& out, std::string_view t) {
  // -?(0|[1-9][0-9]*)\.[0-9]*[1-9], and after "0." a nonzero digit: a fixed-notation number
  // whose shortest form to_chars also writes in fixed notation (the exponential form would be
  // longer), digit for digit the same when the text is the shortest that reads back exactly.
  std::size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  std::size_t int_start = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  std::size_t int_digits = i - int_start;
  bool ok = int_digits >= 1 && (t[int_start] != '0' || int_digits == 1) && i < t.size() && t[i] == '.' &&
            i + 1 < t.size() && t.back() != '0' && !(int_digits == 1 && t[int_start] == '0' && t[i + 1] == '0') &&
            t.size() <= 32;
  for (std::size_t k = i + 1; ok && k < t.size(); ++k) ok = t[k] >= '0' && t[k] <= '9';
  if (ok) out.append(t);
  else put_double_text(out, t);
}

void put_text(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run that is copied as is
  std::size_t i = 0;
  for (;;) {
    while (i + 8 <= n && plain_block(b + i)) i += 8;  // plain ASCII, 8 bytes at a time
    while (i < n && !k_stop.stop[b[i]]) ++i;          // then up to the next stop byte
    if (i == n) break;
    unsigned char c = b[i];
    if (c >= 0x80) {
      if (std::size_t len = utf8_sequence(s, i)) {
        i += len;
        continue;
      }
      out.append(s.data() + run, i - run);
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that starts no valid sequence
      run = ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    run = ++i;
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
  out.append(s.data() + run, n - run);
  out.push_back('"');
}

void put_binary(std::string& out, const unsigned char* data, std::size_t size) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out += R"({"$binary":{"base64":")";
  std::size_t at = out.size();
  out.resize(at + (size + 2) / 3 * 4);
  char* o = out.data() + at;
  std::size_t i = 0;
  for (; i + 2 < size; i += 3) {
    unsigned v = (unsigned(data[i]) << 16) | (unsigned(data[i + 1]) << 8) | data[i + 2];
    *o++ = alphabet[(v >> 18) & 63];
    *o++ = alphabet[(v >> 12) & 63];
    *o++ = alphabet[(v >> 6) & 63];
    *o++ = alphabet[v & 63];
  }
  if (i < size) {
    unsigned v = unsigned(data[i]) << 16;
    if (i + 1 < size) v |= unsigned(data[i + 1]) << 8;
    *o++ = alphabet[(v >> 18) & 63];
    *o++ = alphabet[(v >> 12) & 63];
    *o++ = i + 1 < size ? alphabet[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  out += R"(","subType":"00"}})";
}

row_writer::row_writer(exec_outcome& out, const exec_options& opts)
    : out_(out), max_rows_(opts.max_rows), max_bytes_(opts.max_bytes) {
  // About 128 bytes a row up to the byte budget; a result with wider rows grows by doubling.
  out_.rows_text.reserve(std::min(max_bytes_, std::max<std::size_t>(max_rows_, 8) * 128));
}

bool row_writer::begin_row() {
  if (full_) return false;
  if (out_.row_count >= max_rows_) {
    out_.rows_more_available = true;
    full_ = true;
    return false;
  }
  row_start_ = out_.rows_text.size();
  if (out_.row_count > 0) out_.rows_text.push_back(',');
  out_.rows_text.push_back('[');
  in_row_ = true;
  return true;
}

bool row_writer::end_row() {
  in_row_ = false;
  out_.rows_text.push_back(']');
  if (out_.rows_text.size() + 2 > max_bytes_) {  // + the enclosing brackets
    out_.rows_text.resize(row_start_);
    out_.truncated = true;
    out_.rows_more_available = true;
    full_ = true;
    return false;
  }
  ++out_.row_count;
  return true;
}

void row_writer::oversized() noexcept {
  if (full_) return;
  if (in_row_) out_.rows_text.resize(row_start_);  // the part of the row already written
  in_row_ = false;
  if (out_.row_count < max_rows_) out_.truncated = true;
  out_.rows_more_available = true;
  full_ = true;
}

}  // namespace omgdb::sql::detail
