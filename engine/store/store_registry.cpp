// omgdb engine — store_registry: one open store per canonical path, shared across threads.
#include <filesystem>
#include <map>
#include <mutex>

#include "engine/store/store.hpp"

namespace omgdb::engine {

namespace {
constexpr std::uint64_t k_auto_trim_every_bytes = std::uint64_t{16} << 20;
}  // namespace

struct store_registry::impl {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<store>> open;  // weakly_canonical path → store
  // The path as callers spelled it → the store it resolved to, so that a repeated call skips
  // resolving symlinks again (a store stays where it was opened while it is open).
  std::map<std::string, std::shared_ptr<store>, std::less<>> by_spelling;
};

store_registry::store_registry() : impl_(std::make_unique<impl>()) {}
store_registry::~store_registry() = default;

result<std::shared_ptr<store>> store_registry::open(const std::string& path) {
  {
    std::lock_guard lock(impl_->mutex);
    if (auto it = impl_->by_spelling.find(path); it != impl_->by_spelling.end()) return it->second;
  }
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(std::filesystem::path(path), ec);
  // When the path cannot be resolved, open() below reports the real problem.
  std::string key = ec ? path : canonical.string();
  // Opening under the mutex serializes first opens; a store held by this registry is never
  // opened twice (which its own lock file would refuse anyway).
  std::lock_guard lock(impl_->mutex);
  if (auto it = impl_->open.find(key); it != impl_->open.end()) {
    if (impl_->by_spelling.size() < 4096) impl_->by_spelling.emplace(path, it->second);
    return it->second;
  }
  auto opened = store::open(path);
  if (!opened) return std::move(opened).error();
  // The daemon's stores apply their op-log retention in the background (docs/backup.md).
  (*opened)->auto_trim(k_auto_trim_every_bytes);
  impl_->open.emplace(key, *opened);
  if (impl_->by_spelling.size() < 4096) impl_->by_spelling.emplace(path, *opened);
  return std::move(*opened);
}

void store_registry::close_all() {
  std::map<std::string, std::shared_ptr<store>> closing;
  {
    std::lock_guard lock(impl_->mutex);
    closing.swap(impl_->open);
    impl_->by_spelling.clear();
  }
  // Stores close here, outside the mutex (or later, when the last user drops its pointer).
}

}  // namespace omgdb::engine
