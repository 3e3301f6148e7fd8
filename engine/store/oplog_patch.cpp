// omgdb engine — op-log after images as byte patches (oplog_patch.hpp has the format).
#include "engine/store/oplog_patch.hpp"
#include "engine/bson/le_bytes.hpp"

#include <cstdint>
#include <algorithm>
#include <cstring>

namespace omgdb::engine::detail {
namespace {

std::uint64_t word(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

}  // namespace

std::optional<std::string> make_after_patch(std::string_view before, std::string_view after, std::size_t min_saving) {
  if (before.size() < 5 || after.size() < 5) return std::nullopt;
  const std::size_t most = std::min(before.size(), after.size());
  std::size_t p = 4;
  while (p + 8 <= most && word(before.data() + p) == word(after.data() + p)) p += 8;
  while (p < most && before[p] == after[p]) ++p;
  const char* b_end = before.data() + before.size();
  const char* a_end = after.data() + after.size();
  std::size_t s = 0;
  while (s + 8 <= most - p && word(b_end - s - 8) == word(a_end - s - 8)) s += 8;
  while (s < most - p && *(b_end - s - 1) == *(a_end - s - 1)) ++s;
  const std::size_t middle = after.size() - p - s;
  if (8 + middle + min_saving > after.size()) return std::nullopt;
  std::string out;
  out.reserve(8 + middle);
  put_le32(out, static_cast<std::uint32_t>(p));
  put_le32(out, static_cast<std::uint32_t>(s));
  out.append(after.substr(p, middle));
  return out;
}

bool apply_after_patch(std::string_view before, std::string_view patch, std::string& out) {
  out.clear();
  if (patch.size() < 8) return false;
  const std::size_t p = get_le32(patch.data());
  const std::size_t s = get_le32(patch.data() + 4);
  if (p < 4 || p > before.size() || s > before.size() - p) return false;
  const std::size_t size = p + (patch.size() - 8) + s;
  if (size > UINT32_MAX) return false;
  out.reserve(size);
  out.append(before.substr(0, p));
  out.append(patch.substr(8));
  out.append(before.substr(before.size() - s));
  set_le32(out, 0, static_cast<std::uint32_t>(size));
  return true;
}

}  // namespace omgdb::engine::detail
