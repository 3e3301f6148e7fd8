// omgdb auth — path confinement under the configured store roots.
#include "auth/paths.hpp"

#include <system_error>

namespace omgdb::auth {
namespace fs = std::filesystem;

namespace {

// True when `p` is `root` or lies below it (component-wise, both absolute and normal).
bool inside(const fs::path& p, const fs::path& root) {
  auto r = root.begin(), re = root.end();
  auto i = p.begin(), ie = p.end();
  for (; r != re; ++r, ++i) {
    if (r->empty()) continue;  // a trailing separator gives an empty last element
    if (i == ie || *i != *r) return false;
  }
  return true;
}

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : out;
}

std::string list_of(const std::vector<fs::path>& roots) {
  std::string out;
  for (const auto& r : roots) out += (out.empty() ? "" : ", ") + r.string();
  return out;
}

}  // namespace

result<std::string> confine_path(std::string_view requested, const std::vector<fs::path>& roots, path_role role) {
  if (roots.empty()) return std::string(requested);
  const bool store = role == path_role::store;
  const std::string argument = store ? "path" : "file";
  const std::string noun = store ? "store path" : "file";
  const std::string live = store ? "; stores live under " : "; files are read only from under ";
  if (requested.empty()) return make_error("argument `" + argument + "` must not be empty");
  if (requested.find('\0') != std::string_view::npos) {
    return make_error("argument `" + argument + "` must not contain a NUL byte");
  }
  fs::path asked{std::string(requested)};
  for (const auto& part : asked) {
    if (part == "..") {
      return make_error(noun + " `" + std::string(requested) + "` must not contain `..`" + live + list_of(roots), failure_kind::permission_denied);
    }
  }
  fs::path candidate = asked.is_absolute() ? asked : roots.front() / asked;
  fs::path real = resolved(candidate);
  for (const auto& root : roots) {
    if (inside(real, resolved(root))) return real.string();
  }
  return make_error(noun + " `" + std::string(requested) + "` is outside the store roots" +
                    (real != candidate.lexically_normal() ? " (after following symlinks)" : std::string()) + live +
                    list_of(roots) + " (a relative path is taken from " + roots.front().string() + ")", failure_kind::permission_denied);
}

void path_policy::replace(std::vector<fs::path> roots) {
  std::lock_guard lock(mu_);
  roots_ = std::move(roots);
}

std::vector<fs::path> path_policy::roots() const {
  std::lock_guard lock(mu_);
  return roots_;
}

result<std::string> path_policy::confine(std::string_view requested, path_role role) const {
  return confine_path(requested, roots(), role);
}

}  // namespace omgdb::auth
