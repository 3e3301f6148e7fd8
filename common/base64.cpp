#include "common/base64.hpp"

#include <cstdint>

namespace omgdb {
namespace {

int digit(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view s) {
  if (s.size() % 4 != 0) return std::nullopt;
  std::size_t pad = 0;
  if (!s.empty() && s.back() == '=') pad = s.size() >= 2 && s[s.size() - 2] == '=' ? 2 : 1;
  const std::size_t body = s.size() - pad;
  std::string out;
  out.reserve(body * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t k = 0; k < body; ++k) {
    const int d = digit(s[k]);
    if (d < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace omgdb
