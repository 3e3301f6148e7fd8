// omgdb engine — the atomic batch of apply and rollback, fingerprints and random ids.
//
// An apply or rollback writes its documents, its op-log records and its meta records (the
// used plan, the change record) in one WriteBatch with sync = true. Its op-log records have
// the shape write_txn writes ({seq, op, collection, _id, before, after, batch, ts}) plus
// `change` (the change id) and, for a rollback, `undo: true`; verify replays them like any
// other "update" record.
#include <bson/bson.h>

#include <chrono>
#include <random>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_record.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {
namespace {

bool append_text(bson_t* out, const char* key, std::string_view text) {
  return bson_append_utf8(out, key, -1, text.data(), static_cast<int>(text.size()));
}

}  // namespace

std::uint64_t content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // Finalizer (xor-shift-multiply) so that nearby inputs spread over all 64 bits.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string random_hex128() {
  std::random_device rd;
  std::string bytes;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t r = rd();
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((r >> (8 * b)) & 0xff));
  }
  return hex(bytes);
}

change_batch::change_batch(store::impl& s, std::string change_id)
    : s_(s),
      change_id_(std::move(change_id)),
      s_last_seq_(s.last_seq),
      seq_(s.last_seq),
      batch_id_(s.last_batch + 1) {}

status change_batch::log_update(std::string_view collection, const value& id,
                                std::string_view before, std::string_view after, bool undo) {
  const std::uint64_t seq = seq_ + 1;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  bson_builder rec;
  bool ok = bson_append_int64(&rec.doc, "seq", 3, static_cast<std::int64_t>(seq)) &&
            append_text(&rec.doc, "op", "update") && append_text(&rec.doc, "collection", collection) &&
            append_id(&rec.doc, id).ok() && append_embedded(&rec.doc, "before", before) &&
            append_embedded(&rec.doc, "after", after) &&
            bson_append_int64(&rec.doc, "batch", 5, static_cast<std::int64_t>(batch_id_)) &&
            append_text(&rec.doc, "change", change_id_) &&
            (!undo || bson_append_bool(&rec.doc, "undo", 4, true)) &&
            bson_append_date_time(&rec.doc, "ts", 2, now);
  if (!ok) return make_error("cannot build the op-log record of change `" + change_id_ + "`");
  seq_ = seq;
  batch_.Put(s_.oplog, oplog_key(seq), slice(rec.bytes()));
  return {};
}

status change_batch::commit() {
  std::string seq_bytes, batch_bytes;
  put_u64(seq_bytes, seq_);
  put_u64(batch_bytes, batch_id_);
  batch_.Put(s_.meta, slice(k_meta_last_seq), seq_bytes);
  batch_.Put(s_.meta, slice(k_meta_last_batch), batch_bytes);
  rocksdb::WriteOptions wo;
  wo.sync = true;  // the call returns only once the batch is in the fsynced WAL
  auto st = s_.db->Write(wo, &batch_);
  if (!st.ok()) return storage_error(s_.path, "write", st);
  s_.last_seq = seq_;
  s_.last_batch = batch_id_;
  return {};
}

}  // namespace omgdb::engine::detail
