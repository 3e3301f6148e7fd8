// omgdb engine — the token estimate, fitting a prefix into a budget, and which counter a pack
// uses.
#include <cstdlib>
#include <mutex>
#include <vector>

#include "engine/context/tokens.hpp"

namespace omgdb::engine::context {
namespace {

class estimate final : public token_counter {
 public:
  std::uint64_t count(std::string_view text) const override { return estimate_tokens(text); }
  std::string_view name() const noexcept override { return "estimate"; }
};

std::mutex& setting_mutex() {
  static std::mutex m;
  return m;
}
std::string& setting() {
  static std::string path;
  return path;
}

}  // namespace

std::uint64_t estimate_tokens(std::string_view text) noexcept {
  if (text.empty()) return 0;
  std::uint64_t weight = 0;
  for (unsigned char ch : text) weight += ch < 0x80 ? 1 : 2;
  return (weight + 2) / 3 + 1;
}

std::size_t token_counter::fit(std::string_view text, std::uint64_t budget) const {
  if (count(text) <= budget) return text.size();
  // The UTF-8 character boundaries; the largest one whose prefix fits, by binary search
  // (counts grow with the prefix, nearly: the guard below makes sure it is never over).
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
  }
  std::size_t lo = 0, hi = cuts.size() - 1;  // cuts[0] == 0 always fits (0 tokens)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (count(text.substr(0, cuts[mid])) <= budget) lo = mid;
    else hi = mid - 1;
  }
  while (lo > 0 && count(text.substr(0, cuts[lo])) > budget) --lo;
  return cuts[lo];
}

std::shared_ptr<const token_counter> estimate_counter() {
  static const auto e = std::make_shared<const estimate>();
  return e;
}

void set_o200k_file(std::string path) {
  std::lock_guard<std::mutex> lock(setting_mutex());
  setting() = std::move(path);
}

std::shared_ptr<const token_counter> default_counter(std::string* problem) {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(setting_mutex());
    path = setting();
  }
  if (path.empty()) {
    if (const char* env = std::getenv("OMGDB_O200K_FILE")) path = env;
  }
  if (path.empty()) return estimate_counter();
  auto loaded = load_o200k(path);
  if (!loaded) {
    if (problem) *problem = loaded.error().message;
    return estimate_counter();
  }
  return *loaded;
}

}  // namespace omgdb::engine::context
