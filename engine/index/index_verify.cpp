// omgdb engine — verify's index check: the entries each index should hold, derived from the
// documents, against the entries it holds (count and an order-independent hash), and idx
// entries of indexes that have no definition (engine/index/index.hpp).
#include <functional>
#include <set>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/index.hpp"

namespace omgdb::engine::detail {
namespace {

struct tally {
  std::uint64_t entries = 0;
  std::uint64_t hash = 0;  // sum of entry hashes: independent of order
  void add(std::string_view key, std::string_view val) {
    ++entries;
    std::string both(key);
    both.push_back('\0');
    both.append(val);
    hash += content_hash(both);
  }
};

}  // namespace

status verify_indexes(const store::impl& s, const rocksdb::ReadOptions& ro, const scan_control& control,
                      const std::function<void(std::string)>& mismatch) {
  auto catalog = s.list(ro);
  if (!catalog) return std::move(catalog).error();
  std::set<std::uint32_t> known;
  for (const auto& c : *catalog) {
    auto defs = read_index_defs(s, ro, c.id);
    if (!defs) return std::move(defs).error();
    if (defs->empty()) continue;
    std::vector<tally> want(defs->size()), have(defs->size());
    std::vector<std::set<std::string>> unique_keys(defs->size());
    for (const auto& d : *defs) known.insert(d.id);
    const std::string where = "collection " + quoted_name(c.name) + ", index ";
    const std::string upper = docs_prefix(c.id + 1);
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions scan = ro;
    scan.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(scan, s.docs));
    std::uint64_t seen = 0;
    for (it->Seek(docs_prefix(c.id)); it->Valid(); it->Next()) {
      if (seen++ % k_poll_every == 0) {
        if (auto p = poll(control, seen, c.documents); !p) return p;
      }
      auto doc = from_bson(it->value().ToStringView());
      if (!doc) continue;  // the document check reports corrupt documents
      const std::string id_key(it->key().ToStringView().substr(4));
      for (std::size_t i = 0; i < defs->size(); ++i) {
        bool multikey = false;
        auto keys = index_keys((*defs)[i], *doc, multikey);
        if (!keys) {
          mismatch(where + quoted_name((*defs)[i].spec.name) + ": " + keys.error().message);
          continue;
        }
        for (const auto& k : *keys) {
          if ((*defs)[i].spec.unique && !unique_keys[i].insert(k).second) {
            mismatch(where + quoted_name((*defs)[i].spec.name) + ": two documents share a unique key");
          }
          want[i].add(entry_key((*defs)[i], k, id_key), id_key);
        }
      }
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
    it.reset();
    for (std::size_t i = 0; i < defs->size(); ++i) {
      const auto& d = (*defs)[i];
      const std::string lo = idx_prefix(d.id), hi = idx_prefix(d.id + 1);
      rocksdb::Slice hi_slice(hi);
      rocksdb::ReadOptions r = ro;
      r.iterate_upper_bound = &hi_slice;
      std::unique_ptr<rocksdb::Iterator> e(s.db->NewIterator(r, s.idx));
      for (e->Seek(lo); e->Valid(); e->Next()) have[i].add(e->key().ToStringView(), e->value().ToStringView());
      if (!e->status().ok()) return storage_error(s.path, "read", e->status());
      if (want[i].entries != have[i].entries || want[i].hash != have[i].hash) {
        mismatch(where + quoted_name(d.spec.name) + ": holds " + std::to_string(have[i].entries) + " entries, the "
                 "documents give " + std::to_string(want[i].entries) +
                 (want[i].entries == have[i].entries ? " (same count, different entries)" : ""));
      }
    }
  }
  // Entries of index ids without a definition: a half-built or half-dropped index.
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.idx));
  for (it->SeekToFirst(); it->Valid();) {
    auto id = get_u32(it->key().ToStringView().substr(0, 4));
    if (!id) {
      mismatch("index entries: a key shorter than an index id");
      it->Next();
      continue;
    }
    if (known.count(*id) == 0) {
      std::uint64_t n = 0;
      const std::string end = idx_prefix(*id + 1);
      for (; it->Valid() && it->key().ToStringView() < std::string_view(end); it->Next()) ++n;
      mismatch("index entries: " + std::to_string(n) + " entries of index id " + std::to_string(*id) +
               ", which has no definition (a half-built or dropped index)");
      continue;
    }
    if (*id == 0xffffffffU) break;
    it->Seek(idx_prefix(*id + 1));
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return {};
}

}  // namespace omgdb::engine::detail
