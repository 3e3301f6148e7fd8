// omgdb auth — path confinement: over HTTP a tool's store path (`path`) and file path
// (`file`) resolve only under the configured store roots (`[stores] roots`).
//
// Rules (`confine_path`): with no roots every path is accepted unchanged. Otherwise the path
// must not contain a `..` component; a relative path is taken relative to the first root; the
// result, with every symlink that exists resolved, must lie inside one of the roots (roots
// resolved the same way). The returned path is that resolved form, so the store that is
// opened is the one that was checked (a symlink swapped in afterwards is the caller's filesystem
// race to lose: keep the roots writable only by the daemon's user).
//
// A `path_policy` is what one session is confined by: the transport that creates a session
// hands it one (HTTP sessions get the daemon's; a stdio session gets none and opens any path).
// There is no process-wide policy.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace omgdb::auth {



// What a confined path names (the argument's declared role); errors name it: a store `path`
// is a "store path", an `import_jsonl` `file` a "file", never a store path.
enum class path_role { store, file };

result<std::string> confine_path(std::string_view requested, const std::vector<std::filesystem::path>& roots,
                                 path_role role = path_role::store);

// The roots one or more sessions are confined to. Thread-safe: `replace` (SIGHUP) swaps the
// roots whole while calls confine paths.
class path_policy {
 public:
  explicit path_policy(std::vector<std::filesystem::path> roots = {}) : roots_(std::move(roots)) {}

  void replace(std::vector<std::filesystem::path> roots);
  std::vector<std::filesystem::path> roots() const;
  // confine_path with the current roots.
  result<std::string> confine(std::string_view requested, path_role role = path_role::store) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::filesystem::path> roots_;
};

}  // namespace omgdb::auth
