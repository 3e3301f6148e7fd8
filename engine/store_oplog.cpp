// omgdb engine — the per-call WriteBatch and the op-log records written inside it.
//
// Op-log keys are u64 big-endian sequence numbers in the `oplog` family; every mutating call
// gets one batch id and writes its records in the same atomic WriteBatch as the change.
// Records are assembled with libbson from the documents' stored bytes, so a record holding
// two documents of up to 16 MiB each is still written (the 16 MiB cap is a document limit).
#include <bson/bson.h>

#include <chrono>

#include "engine/bson_codec.hpp"
#include "engine/bson_record.hpp"
#include "engine/store_detail.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

std::int64_t now_millis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Appends the first `_id` element of the BSON document `bytes` as it is stored; false when
// the bytes hold none (the caller then encodes the `_id` value).
bool copy_stored_id(bson_t* out, std::string_view bytes) {
  bson_iter_t it;
  return bytes.size() >= 5 &&
         bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) &&
         bson_iter_find_w_len(&it, "_id", 3) && bson_append_iter(out, "_id", 3, &it);
}

}  // namespace

write_txn::write_txn(store::impl& s) : s_(s), seq_(s.last_seq), batch_id_(s.last_batch + 1) {}

status write_txn::log(std::string_view op, std::string_view collection, const value* id,
                      std::string_view before, std::string_view after,
                      std::optional<std::uint64_t> count) {
  std::uint64_t seq = seq_ + 1;
#ifdef OMGDB_BENCH_NO_OPLOG
  // Benchmark builds only (bench/bench_oplog.py measures what the op-log costs): the sequence
  // advances as usual but no record is written. Never defined in a build users run.
  seq_ = seq;
  return {};
#endif
  bson_builder rec;
  bool ok = bson_append_int64(&rec.doc, "seq", 3, static_cast<std::int64_t>(seq)) &&
            bson_append_utf8(&rec.doc, "op", 2, op.data(), static_cast<int>(op.size())) &&
            bson_append_utf8(&rec.doc, "collection", 10, collection.data(),
                             static_cast<int>(collection.size()));
  if (ok && id != nullptr) {
    // `id` is the `_id` of the document whose bytes are `before` (or, for an insert, `after`):
    // its stored element is copied rather than encoded again.
    if (!copy_stored_id(&rec.doc, !before.empty() ? before : after)) {
      if (auto a = append_id(&rec.doc, *id); !a) return a;
    }
  }
  if (ok && !before.empty()) ok = append_embedded(&rec.doc, "before", before);
  if (ok && !after.empty()) ok = append_embedded(&rec.doc, "after", after);
  if (ok && count) ok = bson_append_int64(&rec.doc, "count", 5, static_cast<std::int64_t>(*count));
  ok = ok && bson_append_int64(&rec.doc, "batch", 5, static_cast<std::int64_t>(batch_id_)) &&
       bson_append_date_time(&rec.doc, "ts", 2, now_millis());
  if (!ok) return make_error("cannot build the op-log record for " + std::string(op));
  seq_ = seq;
  batch_.Put(s_.oplog, oplog_key(seq), slice(rec.bytes()));
  return {};
}

result<catalog_entry> write_txn::create_collection(std::string_view name) {
  if (!next_collection_id_) {
    auto next = s_.read_next_collection_id(rocksdb::ReadOptions());
    if (!next) return std::move(next).error();
    next_collection_id_ = *next;
  }
  std::uint32_t id = *next_collection_id_;
  if (id >= 0xfffffffeU) return make_error("store `" + s_.path + "` has run out of collection ids");
  auto entry = to_bson(document{field{"id", value(static_cast<std::int64_t>(id))}});
  if (!entry) return std::move(entry).error();
  batch_.Put(s_.meta, catalog_key(name), *entry);
  next_collection_id_ = id + 1;
  std::string next_bytes;
  put_u32(next_bytes, id + 1);
  batch_.Put(s_.meta, slice(k_meta_next_collection), next_bytes);
  put_count(id, 0);
  if (auto l = log("create_collection", name); !l) return std::move(l).error();
  return catalog_entry{std::string(name), id, 0};
}

void write_txn::put_count(std::uint32_t collection_id, std::uint64_t documents) {
  std::string bytes;
  put_u64(bytes, documents);
  batch_.Put(s_.meta, count_key(collection_id), bytes);
}

status write_txn::commit() {
  if (batch_.Count() == 0) return {};
  if (seq_ != s_.last_seq) {
    std::string seq_bytes, batch_bytes;
    put_u64(seq_bytes, seq_);
    put_u64(batch_bytes, batch_id_);
    batch_.Put(s_.meta, slice(k_meta_last_seq), seq_bytes);
    batch_.Put(s_.meta, slice(k_meta_last_batch), batch_bytes);
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;  // the call returns only once the batch is in the fsynced WAL
  auto st = s_.db->Write(wo, &batch_);
  if (!st.ok()) return storage_error(s_.path, "write", st);
  if (seq_ != s_.last_seq) {
    s_.last_seq = seq_;
    s_.last_batch = batch_id_;
  }
  return {};
}

}  // namespace detail

using namespace detail;

result<std::vector<document>> store::oplog(std::uint64_t after_seq, std::size_t limit) const {
  std::vector<document> out;
  if (after_seq == UINT64_MAX) return out;
  snapshot_guard snap(impl_->db);
  auto ro = snap.read_options();
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(ro, impl_->oplog));
  for (it->Seek(oplog_key(after_seq + 1)); it->Valid(); it->Next()) {
    auto rec = from_bson(std::string_view(it->value().data(), it->value().size()));
    if (!rec) {
      return make_error("corrupt op-log record (key " + hex(it->key().ToStringView()) + "): " +
                        rec.error().message);
    }
    out.push_back(std::move(*rec));
    if (limit != 0 && out.size() >= limit) break;
  }
  if (!it->status().ok()) return storage_error(impl_->path, "read", it->status());
  return out;
}

}  // namespace omgdb::engine
