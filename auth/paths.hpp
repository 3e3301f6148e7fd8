// omgdb auth — store path confinement: over HTTP a tool's `path` resolves only under the
// configured store roots (`[stores] roots`).
//
// Rules (`confine_path`): with no roots every path is accepted unchanged. Otherwise the path
// must not contain a `..` component; a relative path is taken relative to the first root; the
// result, with every symlink that exists resolved, must lie inside one of the roots (roots
// resolved the same way). The returned path is that resolved form, so the store that is
// opened is the one that was checked (a symlink swapped in afterwards is the caller's filesystem
// race to lose: keep the roots writable only by the daemon's user).
// Thread-safe: the process-wide roots are guarded by a mutex and replaced whole on reload.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace omgdb::auth {

// What a confined argument names, for its errors: a tool's store `path`, or a `file` it reads
// (import_jsonl), which the errors must not call a store path.
enum class confined_argument { store_path, file };

result<std::string> confine_path(std::string_view requested, const std::vector<std::filesystem::path>& roots,
                                 confined_argument what = confined_argument::store_path);

// The roots `open_store` applies (set by `omgdb serve`; empty, the default, confines nothing).
void set_store_roots(std::vector<std::filesystem::path> roots);
std::vector<std::filesystem::path> store_roots();

// confine_path with the process-wide roots.
result<std::string> confine_store_path(std::string_view requested,
                                       confined_argument what = confined_argument::store_path);

}  // namespace omgdb::auth
