// omgdb engine — a store's disk use by part (omgdb doctor STORE), flush and compact.
//
// Sizes come from RocksDB: the table files of each family plus its memtables, and for the
// `C.__vectors` collections the approximate size of their key ranges in the docs family
// (moved from "documents" to "vectors"). Search generations and vector caches are files
// beside the database (`search/`, `caches/`).
#include <filesystem>

#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

namespace fs = std::filesystem;
using namespace detail;

std::uint64_t family_bytes(const store::impl& s, rocksdb::ColumnFamilyHandle* cf) {
  std::uint64_t sst = 0, mem = 0;
  s.db->GetIntProperty(cf, "rocksdb.total-sst-files-size", &sst);
  s.db->GetIntProperty(cf, "rocksdb.cur-size-all-mem-tables", &mem);
  return sst + mem;
}

std::uint64_t tree_bytes(const fs::path& dir, const std::function<bool(const fs::path&)>& take = {}) {
  std::error_code ec;
  std::uint64_t total = 0;
  if (!fs::exists(dir, ec)) return 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (take && !take(it->path())) continue;
    total += it->file_size(ec);
  }
  return total;
}

}  // namespace

result<store::size_report> store::sizes() const {
  const auto& s = *impl_;
  size_report out;
  out.total_bytes = tree_bytes(fs::path(s.path));
  out.documents = family_bytes(s, s.docs);
  out.indexes = family_bytes(s, s.idx);
  out.oplog = family_bytes(s, s.oplog);
  out.meta = family_bytes(s, s.meta);
  out.search = tree_bytes(fs::path(s.path) / "search");
  out.vectors = tree_bytes(fs::path(s.path) / "caches");
  out.wal = tree_bytes(fs::path(s.path), [](const fs::path& p) { return p.extension() == ".log" && p.filename().string() != "LOG"; });
  read_view view(s);
  auto listed = view.catalog();
  if (!listed) return std::move(listed).error();
  for (const auto& e : listed->collections) {
    if (!e.name.ends_with(".__vectors")) continue;
    const std::string lo = docs_prefix(e.id), hi = docs_prefix(e.id + 1);
    rocksdb::Range range(lo, hi);
    std::uint64_t size = 0;
    rocksdb::SizeApproximationOptions o;
    o.include_memtables = true;
    o.include_files = true;
    s.db->GetApproximateSizes(o, s.docs, &range, 1, &size).PermitUncheckedError();
    size = std::min(size, out.documents);
    out.documents -= size;
    out.vectors += size;
  }
  std::uint64_t records = 0;
  s.db->GetIntProperty(s.oplog, "rocksdb.estimate-num-keys", &records);
  out.oplog_records = records;
  out.trimmed_through = s.trimmed_through.load();
  auto trim = const_cast<store*>(this)->trim_oplog(true);
  if (!trim) return std::move(trim).error();
  out.trimmable_bytes = trim->bytes;
  return out;
}

status store::flush() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  auto st = impl_->db->Flush(fo, impl_->handles);
  if (!st.ok()) return storage_error(impl_->path, "flush", st);
  return {};
}

status store::compact() {
  if (auto f = flush(); !f) return f;
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (auto* h : impl_->handles) {
    auto st = impl_->db->CompactRange(co, h, nullptr, nullptr);
    if (!st.ok()) return storage_error(impl_->path, "compact", st);
  }
  return {};
}

}  // namespace omgdb::engine
