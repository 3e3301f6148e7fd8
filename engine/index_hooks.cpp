// omgdb engine — the index upkeep hooks of write_txn and change_batch: every write path
// reports each document it writes, so index entries go into the same atomic batch.
#include "engine/index.hpp"

namespace omgdb::engine::detail {

status write_txn::index(const catalog_entry& c, const document* before, const document* after) {
  if (!indexes_) indexes_ = std::make_shared<index_upkeep>(s_);
  return indexes_->update(batch_, c, before, after);
}

status change_batch::index(const catalog_entry& c, std::string_view before, std::string_view after) {
  if (!indexes_) indexes_ = std::make_shared<index_upkeep>(s_);
  return indexes_->update_bytes(batch_, c, before, after);
}

}  // namespace omgdb::engine::detail
