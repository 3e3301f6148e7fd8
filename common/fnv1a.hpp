// omgdb — FNV-1a 64 of a byte string as 16 lower-case hex digits: the stored content hash of
// Markdown sections (engine/markdown) and of embedded text (engine/vector). Changing it makes
// every stored hash stale.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace omgdb {

inline std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 0xf];
  return out;
}

}  // namespace omgdb
