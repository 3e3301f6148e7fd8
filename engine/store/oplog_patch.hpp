// omgdb engine — the op-log's `afterPatch`: an update's after image written as a byte patch
// of its before image when that is smaller (store_oplog.cpp writes it; oplog_after in
// store_oplog.cpp is the one reader that expands it). Not public.
//
// Patch bytes: u32 LE prefix length p, u32 LE suffix length s, then the middle bytes m, with
// 4 <= p and p + s <= before.size(). after = before[0, p) + m + before[size - s, size), whose
// first 4 bytes are then set to its own size: the BSON length header is never compared, so
// an update that changes the document's size still shares everything but the header and
// the changed bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace omgdb::engine::detail {

// The patch from `before` to `after` (both whole BSON documents), when it saves at least
// `min_saving` bytes over `after` itself; nullopt otherwise.
std::optional<std::string> make_after_patch(std::string_view before, std::string_view after, std::size_t min_saving);

// `before` with `patch` applied, into `out`; false when the patch does not fit `before`.
bool apply_after_patch(std::string_view before, std::string_view patch, std::string& out);

}  // namespace omgdb::engine::detail
