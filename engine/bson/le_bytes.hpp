// omgdb engine — little-endian integers as BSON lays them out (lengths, int32/int64, dates),
// shared by the hand-written BSON paths (bson_writer, update_raw, the op-log record and its
// patches). Not public.
#pragma once

#include <cstdint>
#include <string>

namespace omgdb::engine::detail {

inline void put_le32(std::string& out, std::uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.append(b, 4);
}

inline void put_le64(std::string& out, std::uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.append(b, 8);
}

// Overwrites the 4 bytes at `at` (a length header written as a placeholder) with `v`.
inline void set_le32(std::string& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

inline std::uint32_t get_le32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace omgdb::engine::detail
