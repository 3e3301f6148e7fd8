// omgdb sql — deadlines and JSON values shared by the adapters.
#include "sql/exec_support.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace omgdb::sql::detail {

namespace json = boost::json;

std::chrono::milliseconds deadline::remaining() const noexcept {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - std::chrono::steady_clock::now());
  return left.count() > 0 ? left : std::chrono::milliseconds(0);
}

double deadline::elapsed_ms() const noexcept {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

std::string deadline::stop_message(std::string_view committed_note) const {
  std::string m;
  if (cancelled()) {
    m = "the statement was cancelled";
  } else {
    m = "the statement exceeded the statement timeout of " + std::to_string(timeout_.count()) +
        " ms and was stopped";
  }
  m += "; ";
  m += committed_note;
  return m;
}

namespace {
constexpr std::int64_t max_exact = std::int64_t{1} << 53;
}

json::value exact_int(std::int64_t v) {
  if (v >= -max_exact && v <= max_exact) return json::value(v);
  return json::value(json::string(std::to_string(v)));
}

json::value exact_uint(std::uint64_t v) {
  if (v <= static_cast<std::uint64_t>(max_exact)) return json::value(static_cast<std::int64_t>(v));
  return json::value(json::string(std::to_string(v)));
}

json::value int_from_text(std::string_view text) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size()) return exact_int(v);
  std::uint64_t u = 0;
  auto [pu, ecu] = std::from_chars(text.data(), text.data() + text.size(), u);
  if (ecu == std::errc() && pu == text.data() + text.size()) return exact_uint(u);
  return text_value(text);
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

json::value double_value(double v) {
  if (std::isfinite(v)) return json::value(v);
  if (std::isnan(v)) return json::value("NaN");
  return json::value(v > 0 ? "Infinity" : "-Infinity");
}

json::value double_from_text(std::string_view text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size() && std::isfinite(v)) return json::value(v);
  return text_value(text);
}

json::value binary_value(const unsigned char* data, std::size_t size) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < size; i += 3) {
    unsigned n = (unsigned(data[i]) << 16) | (unsigned(data[i + 1]) << 8) | data[i + 2];
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (i < size) {
    unsigned n = unsigned(data[i]) << 16;
    if (i + 1 < size) n |= unsigned(data[i + 1]) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < size ? alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  json::object inner{{"base64", out}, {"subType", "00"}};
  return json::value(json::object{{"$binary", std::move(inner)}});
}

json::value text_value(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t n = utf8_sequence(text, i);
    if (n == 0) break;
    i += n;
  }
  if (i == text.size()) return json::value(json::string(text));
  std::string fixed(text.substr(0, i));
  while (i < text.size()) {
    std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      fixed += "\xEF\xBF\xBD";
      ++i;
    } else {
      fixed.append(text.substr(i, n));
      i += n;
    }
  }
  return json::value(json::string(fixed));
}

std::string clean_message(std::string_view message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ' || message.back() == '\r'))
    message.remove_suffix(1);
  while (!message.empty() && (message.front() == '\n' || message.front() == ' ')) message.remove_prefix(1);
  if (message.size() > 2000) message = message.substr(0, 2000);
  json::value v = text_value(message);
  std::string out(v.as_string().data(), v.as_string().size());
  return out.empty() ? std::string("unknown error from the database client library") : out;
}

}  // namespace omgdb::sql::detail
