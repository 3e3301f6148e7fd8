// omgdb engine — the op-log records of the write session's batch (write_session.hpp).
//
// Op-log keys are u64 big-endian sequence numbers in the `oplog` family; every mutating call
// gets one batch id and writes its records in the same atomic WriteBatch as the change.
// Records are assembled by hand (record_writer: the bytes libbson's appends would give) from
// the documents' stored bytes, so a record holding two documents of up to 16 MiB each is
// still written (the 16 MiB cap is a document limit).
#include <bson/bson.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_record.hpp"
#include "engine/store/oplog_patch.hpp"
#include "engine/bson/le_bytes.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

std::int64_t clock_millis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The bytes of the first `_id` element (type, name, value) of the BSON document `bytes` as
// stored; empty when the bytes hold none (the caller then encodes the `_id` value).
std::string_view stored_id_element(std::string_view bytes) {
  bson_iter_t it;
  if (bytes.size() < 5 ||
      !bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) ||
      !bson_iter_find_w_len(&it, "_id", 3)) {
    return {};
  }
  return bytes.substr(it.off, it.next_off - it.off);
}

// What bson_init_static accepts: a length header equal to the size, a trailing NUL.
bool whole_document(std::string_view bytes) {
  if (bytes.size() < 5 || bytes.back() != '\0') return false;
  return get_le32(bytes.data()) == bytes.size();
}

// An op-log record built by hand: the same bytes libbson's appends give, without their
// per-element overhead (the record of every document an update_many writes).
class record_writer {
 public:
  explicit record_writer(std::string& out) : b_(out) { b_.assign(4, '\0'); }
  void int64(std::string_view key, std::int64_t v) {
    name(BSON_TYPE_INT64, key);
    put_le64(b_, static_cast<std::uint64_t>(v));
  }
  void date(std::string_view key, std::int64_t millis) {
    name(BSON_TYPE_DATE_TIME, key);
    put_le64(b_, static_cast<std::uint64_t>(millis));
  }
  void utf8(std::string_view key, std::string_view text) {
    name(BSON_TYPE_UTF8, key);
    put_le32(b_, static_cast<std::uint32_t>(text.size() + 1));
    b_.append(text);
    b_.push_back('\0');
  }
  void embedded(std::string_view key, std::string_view doc) {
    name(BSON_TYPE_DOCUMENT, key);
    b_.append(doc);
  }
  // A binary of subtype 0.
  void binary(std::string_view key, std::string_view bytes) {
    name(BSON_TYPE_BINARY, key);
    put_le32(b_, static_cast<std::uint32_t>(bytes.size()));
    b_.push_back('\0');
    b_.append(bytes);
  }
  void boolean(std::string_view key, bool v) {
    name(BSON_TYPE_BOOL, key);
    b_.push_back(v ? '\1' : '\0');
  }
  void element(std::string_view bytes) { b_.append(bytes); }
  std::string_view finish() {
    b_.push_back('\0');
    set_le32(b_, 0, static_cast<std::uint32_t>(b_.size()));
    return b_;
  }

 private:
  void name(bson_type_t type, std::string_view key) {
    b_.push_back(static_cast<char>(type));
    b_.append(key);
    b_.push_back('\0');
  }
  std::string& b_;
};

// `afterPatch` (oplog_patch.hpp) instead of `after` when it saves bytes.
constexpr std::string_view k_after_patch = "afterPatch";

void append_after(record_writer& w, std::string_view before, std::string_view after) {
  // A binary element is 1 + 10 + 1 + 4 + 1 bytes plus the patch, an embedded one 1 + 5 + 1
  // plus the document: the patch must save the 10 bytes of difference, and a few more.
  if (auto patch = make_after_patch(before, after, 16)) {
    w.binary(k_after_patch, *patch);
    return;
  }
  w.embedded("after", after);
}

}  // namespace

bool oplog_after(std::string_view record, std::string& out) {
  out.clear();
  bson_iter_t it;
  if (record.size() < 5 ||
      !bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(record.data()), record.size())) {
    return false;
  }
  std::string_view before, patch;
  bool has_patch = false;
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if ((key == "after" || key == "before") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      const std::string_view doc(reinterpret_cast<const char*>(data), len);
      if (key == "after") {
        out.assign(doc);
        return true;
      }
      before = doc;
    } else if (key == k_after_patch && BSON_ITER_HOLDS_BINARY(&it)) {
      bson_subtype_t subtype;
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_binary(&it, &subtype, &len, &data);
      if (data == nullptr || len < 8) return false;
      patch = std::string_view(reinterpret_cast<const char*>(data), len);
      has_patch = true;
    }
  }
  if (it.err_off != 0) return false;
  if (!has_patch) return true;
  return apply_after_patch(before, patch, out) && !out.empty();
}

status write_session::log(std::string_view op, std::string_view collection, const value* id,
                          std::string_view before, std::string_view after,
                          std::optional<std::uint64_t> count) {
  std::uint64_t seq = seq_ + 1;
#ifdef OMGDB_BENCH_NO_OPLOG
  // Benchmark builds only (bench/bench_oplog.py measures what the op-log costs): the sequence
  // advances as usual but no record is written. Never defined in a build users run.
  seq_ = seq;
  return {};
#endif
  if ((!before.empty() && !whole_document(before)) || (!after.empty() && !whole_document(after))) {
    return make_error("cannot build the op-log record for " + std::string(op));
  }
  record_writer w(record_);
  w.int64("seq", static_cast<std::int64_t>(seq));
  w.utf8("op", op);
  w.utf8("collection", collection);
  if (id != nullptr) {
    // `id` is the `_id` of the document whose bytes are `before` (or, for an insert, `after`):
    // its stored element is copied rather than encoded again.
    const std::string_view stored = stored_id_element(!before.empty() ? before : after);
    if (!stored.empty()) {
      w.element(stored);
    } else {
      bson_builder one;
      if (auto a = append_id(&one.doc, *id); !a) return a;
      const std::string_view bytes = one.bytes();
      w.element(bytes.substr(4, bytes.size() - 5));
    }
  }
  if (!before.empty()) w.embedded("before", before);
  if (!after.empty()) {
    if (before.empty() || change_id_) {  // apply / rollback records hold the whole after image
      w.embedded("after", after);
    } else {
      append_after(w, before, after);
    }
  }
  if (count) w.int64("count", static_cast<std::int64_t>(*count));
  w.int64("batch", static_cast<std::int64_t>(batch_id_));
  if (change_id_) {  // apply / rollback (store_plan_apply.cpp)
    w.utf8("change", *change_id_);
    if (undo_) w.boolean("undo", true);
  }
  w.date("ts", clock_millis());
  const std::string_view record = w.finish();
  if (auto p = batch_.put(s_.oplog, oplog_key(seq), record); !p) return p;
  if (!s_.derived.empty()) {  // what derived hooks see at commit
    if (auto h = batch_.hold(record.size()); !h) return h;
    records_.push_back(oplog_entry{seq, std::string(record)});
  }
  seq_ = seq;
  return {};
}

}  // namespace detail

using namespace detail;

result<std::vector<document>> store::oplog(std::uint64_t after_seq, std::size_t limit) const {
  std::vector<document> out;
  if (after_seq == UINT64_MAX) return out;
  if (after_seq < impl_->trimmed_through.load()) {
    return trimmed_error(*impl_, after_seq + 1, "cannot read the op-log after seq " + std::to_string(after_seq));
  }
  snapshot_guard snap(impl_->db);
  auto ro = snap.read_options();
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(ro, impl_->oplog));
  for (it->Seek(oplog_key(after_seq + 1)); it->Valid(); it->Next()) {
    const std::string_view bytes = it->value().ToStringView();
    auto rec = from_bson(bytes);
    if (!rec) {
      return make_error("corrupt op-log record (key " + hex(it->key().ToStringView()) + "): " +
                        rec.error().message, failure_kind::corrupt);
    }
    // A patched after image is shown as the `after` it stands for.
    for (auto& f : *rec) {
      if (f.name != k_after_patch) continue;
      std::string after;
      auto image = oplog_after(bytes, after) ? from_bson(after) : result<document>(make_error("bad afterPatch"));
      if (!image) {
        return make_error("corrupt op-log record (key " + hex(it->key().ToStringView()) + "): " +
                          image.error().message, failure_kind::corrupt);
      }
      f = field{"after", value(std::move(*image))};
    }
    out.push_back(std::move(*rec));
    if (limit != 0 && out.size() >= limit) break;
  }
  if (!it->status().ok()) return storage_error(impl_->path, "read", it->status());
  return out;
}

}  // namespace omgdb::engine
