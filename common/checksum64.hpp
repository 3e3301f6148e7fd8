// omgdb — a fast 64-bit checksum for derived files (the vector cache files, the pages of
// search generations): proves that bytes read back are the bytes written. Not a MAC: it
// finds damage, not a forger who recomputes it.
//
// Four independent lanes each take one 8-byte little-endian word of every 32 bytes through
// h = rotl(h ^ w, 29) · P, a bijection in h and in w, so any change confined to one word
// always changes the result, and changes to several words collide with probability ~2^-64.
// The length is mixed into the digest, so a truncated or extended input differs too.
// Throughput is memory-bound (several GB/s); the function of the bytes never changes
// (stored checksums depend on it).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace omgdb {

class checksum64 {
 public:
  void update(const void* data, std::size_t n) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += n;
    if (held_ > 0) {
      const std::size_t take = n < 32 - held_ ? n : 32 - held_;
      std::memcpy(buf_ + held_, p, take);
      held_ += take;
      p += take;
      n -= take;
      if (held_ < 32) return;
      block(buf_);
      held_ = 0;
    }
    for (; n >= 32; p += 32, n -= 32) block(p);
    if (n > 0) {
      std::memcpy(buf_, p, n);
      held_ = n;
    }
  }
  void update(std::string_view bytes) noexcept { update(bytes.data(), bytes.size()); }

  std::uint64_t digest() const noexcept {
    std::uint64_t lane[4] = {lane_[0], lane_[1], lane_[2], lane_[3]};
    if (held_ > 0) {
      unsigned char last[32] = {};
      std::memcpy(last, buf_, held_);
      for (int i = 0; i < 4; ++i) lane[i] = step(lane[i], word(last + 8 * i));
    }
    std::uint64_t h = total_ * k_p2;
    for (auto l : lane) h = step(h ^ l, k_p2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }

  // The checksum of one byte string.
  static std::uint64_t of(const void* data, std::size_t n) noexcept {
    checksum64 c;
    c.update(data, n);
    return c.digest();
  }

 private:
  static constexpr std::uint64_t k_p1 = 0x9e3779b97f4a7c15ULL;
  static constexpr std::uint64_t k_p2 = 0xc2b2ae3d27d4eb4fULL;
  static std::uint64_t rotl(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }
  static std::uint64_t step(std::uint64_t h, std::uint64_t w) noexcept { return rotl(h ^ w, 29) * k_p1; }
  static std::uint64_t word(const unsigned char* p) noexcept {  // little-endian on every host
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w;
  }
  void block(const unsigned char* p) noexcept {
    lane_[0] = step(lane_[0], word(p));
    lane_[1] = step(lane_[1], word(p + 8));
    lane_[2] = step(lane_[2], word(p + 16));
    lane_[3] = step(lane_[3], word(p + 24));
  }

  std::uint64_t lane_[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL};
  unsigned char buf_[32] = {};
  std::size_t held_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace omgdb
