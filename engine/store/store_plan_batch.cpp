// omgdb engine — fingerprints and random ids of plans and changes (store_plan*.cpp).
//
// (An apply or rollback is one write session: its op-log records carry `change` and, for a
// rollback, `undo: true` — write_session::mark_change — and verify replays them like any
// other "update" record.)
#include <random>

#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {

std::uint64_t content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // Finalizer (xor-shift-multiply) so that nearby inputs spread over all 64 bits.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string random_hex128() {
  std::random_device rd;
  std::string bytes;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t r = rd();
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((r >> (8 * b)) & 0xff));
  }
  return hex(bytes);
}

}  // namespace omgdb::engine::detail
