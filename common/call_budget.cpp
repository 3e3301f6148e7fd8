#include "common/call_budget.hpp"

#include <cstdio>

namespace omgdb {

namespace {
thread_local call_budget* installed = nullptr;

call_budget& thread_default() noexcept {
  thread_local call_budget fallback;
  return fallback;
}
}  // namespace

std::string byte_size_text(std::uint64_t bytes) {
  constexpr std::uint64_t kib = 1024, mib = kib * 1024, gib = mib * 1024;
  auto unit = [&](std::uint64_t u, const char* name) {
    char buf[48];
    if (bytes % u == 0) {
      std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(bytes / u), name);
    } else {
      std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(u), name);
    }
    return std::string(buf);
  };
  if (bytes >= gib) return unit(gib, "GiB");
  if (bytes >= mib) return unit(mib, "MiB");
  if (bytes >= kib && bytes % kib == 0) return unit(kib, "KiB");
  return std::to_string(bytes) + " bytes";
}

std::string call_budget::limit_message(std::uint64_t bytes, std::string_view what) const {
  std::string m = "the call exceeded its memory limit of " + byte_size_text(max_);
  if (!what.empty()) m += " building " + std::string(what);
  m += " (it held " + byte_size_text(used_) + " and needed " + byte_size_text(bytes) +
       " more; values built by expressions, windows, `$unwind`, stages that hold documents, context packs and "
       "Markdown parsing count against it): build smaller values, add a `$match` or `$limit` earlier, or raise "
       "--call-memory / [limits] call_memory_bytes";
  return m;
}

void call_budget::over(std::uint64_t bytes, std::string_view what) const {
  throw call_error(limit_message(bytes, what), failure_kind::limit_exceeded);
}

void call_budget::stop() { throw call_error("cancelled", failure_kind::cancelled); }

status call_budget::try_charge(std::uint64_t bytes, std::string_view what) {
  if (stop_requested()) return make_error("cancelled", failure_kind::cancelled);
  if (bytes > max_ - used_) return make_error(limit_message(bytes, what), failure_kind::limit_exceeded);
  used_ += bytes;
  return {};
}

status call_budget::check() const {
  if (stop_requested()) return make_error("cancelled", failure_kind::cancelled);
  return {};
}

void call_budget::check_depth(int depth, std::string_view what) {
  if (depth <= k_max_built_depth) return;
  std::string m = "a value built";
  if (!what.empty()) m += " by " + std::string(what);
  m += " would nest deeper than " + std::to_string(k_max_built_depth) +
       " levels, the bound of stored documents (each array or document is one level)";
  throw call_error(m, failure_kind::limit_exceeded);
}

call_budget& current_budget() noexcept { return installed != nullptr ? *installed : thread_default(); }

budget_scope::budget_scope(call_budget* b) noexcept : previous_(installed), installed_(b != nullptr) {
  if (installed_) installed = b;
}

budget_scope::~budget_scope() {
  if (installed_) installed = previous_;
}

}  // namespace omgdb
