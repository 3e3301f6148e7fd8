// omgdb engine — index upkeep: the entries one document write adds and removes, in the
// caller's atomic WriteBatch, with unique keys checked against the database plus the
// batch's own earlier changes (engine/index/index.hpp).
#include <algorithm>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/index.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::detail {

result<std::vector<index_def>*> index_upkeep::defs(const catalog_entry& c) {
  if (auto it = defs_.find(c.id); it != defs_.end()) return &it->second;
  auto d = read_index_defs(s_, rocksdb::ReadOptions(), c.id);
  if (!d) return std::move(d).error();
  return &defs_.emplace(c.id, std::move(*d)).first->second;
}

status index_upkeep::update(staged_batch& batch, const catalog_entry& c, const document* before,
                            const document* after) {
  auto all = defs(c);
  if (!all) return std::move(all).error();
  if ((*all)->empty()) return {};
  const document* any = after != nullptr ? after : before;
  if (any == nullptr) return {};
  const value* id = find_field(*any, "_id");
  if (id == nullptr) return make_error("a document without _id cannot be indexed");
  const std::string id_key = encode_key(*id);
  for (auto& def : **all) {
    bool multikey = false;
    std::vector<std::string> old_keys, new_keys;
    if (before != nullptr) {
      auto k = index_keys(def, *before, multikey);
      if (!k) return std::move(k).error();
      old_keys = std::move(*k);
    }
    multikey = false;
    if (after != nullptr) {
      auto k = index_keys(def, *after, multikey);
      if (!k) return std::move(k).error();
      new_keys = std::move(*k);
    }
    std::vector<std::string> gone, added;
    std::set_difference(old_keys.begin(), old_keys.end(), new_keys.begin(), new_keys.end(), std::back_inserter(gone));
    std::set_difference(new_keys.begin(), new_keys.end(), old_keys.begin(), old_keys.end(), std::back_inserter(added));
    for (const auto& k : gone) {
      const std::string full = entry_key(def, k, id_key);
      if (auto d = batch.del(s_.idx, full); !d) return d;
      if (def.spec.unique) unique_[full] = std::nullopt;
    }
    for (const auto& k : added) {
      const std::string full = entry_key(def, k, id_key);
      if (def.spec.unique) {
        std::optional<std::string> owner;
        if (auto it = unique_.find(full); it != unique_.end()) {
          owner = it->second;
        } else {
          std::string got;
          auto st = s_.db->Get(rocksdb::ReadOptions(), s_.idx, full, &got);
          if (!st.ok() && !st.IsNotFound()) return storage_error(s_.path, "read", st);
          if (st.ok()) owner = std::move(got);
        }
        if (owner && *owner != id_key) return duplicate_key(def, c.name, *after);
        unique_[full] = id_key;
      }
      if (auto p = batch.put(s_.idx, full, id_key); !p) return p;
    }
    if (multikey && !def.multikey) {
      def.multikey = true;
      auto bytes = encode_index_def(def);
      if (!bytes) return std::move(bytes).error();
      if (auto p = batch.put(s_.meta, index_def_key(c.id, def.spec.name), *bytes); !p) return p;
    }
  }
  return {};
}

status index_upkeep::update_bytes(staged_batch& batch, const catalog_entry& c, std::string_view before,
                                  std::string_view after) {
  auto all = defs(c);
  if (!all) return std::move(all).error();
  if ((*all)->empty()) return {};
  std::optional<document> b, a;
  if (!before.empty()) {
    auto d = from_bson(before);
    if (!d) return std::move(d).error();
    b = std::move(*d);
  }
  if (!after.empty()) {
    auto d = from_bson(after);
    if (!d) return std::move(d).error();
    a = std::move(*d);
  }
  return update(batch, c, b ? &*b : nullptr, a ? &*a : nullptr);
}

// The write session's index hooks: every write path reports each document it writes, so
// index entries go into the same atomic batch.
status write_session::index(const catalog_entry& c, const document* before, const document* after) {
  if (!indexes_) indexes_ = std::make_shared<index_upkeep>(s_);
  return indexes_->update(batch_, c, before, after);
}

status write_session::index_bytes(const catalog_entry& c, std::string_view before, std::string_view after) {
  if (!indexes_) indexes_ = std::make_shared<index_upkeep>(s_);
  return indexes_->update_bytes(batch_, c, before, after);
}

}  // namespace omgdb::engine::detail
