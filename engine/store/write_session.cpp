// omgdb engine — the write session's lock, collections, budget and its one commit
// (write_session.hpp). Document reads and writes are in store_update_session.cpp, the op-log
// record in store_oplog.cpp, index upkeep in engine/index/index_upkeep.cpp.
#include <chrono>
#include <cstdio>
#include <exception>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/index.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

constexpr std::uint64_t k_min_write_bytes = std::uint64_t{1} << 20;

std::string bytes_text(std::uint64_t n) {
  if (n % (std::uint64_t{1} << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n % (std::uint64_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}

std::int64_t system_millis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void warn(const std::string& path, const char* what) {
  std::fprintf(stderr, "omgdb: warning: store `%s`: the write was committed, but %s afterwards\n",
               path.c_str(), what);
}

}  // namespace

// --- staged_batch ---

failure staged_batch::over_budget() const {
  return make_error("the write needs more than the write budget of " + bytes_text(budget_) +
                    " (store option max_write_bytes = " + std::to_string(budget_) +
                    " bytes); nothing was written. Split it into smaller writes (a narrower filter, "
                    "maxMutations, fewer documents or steps per call)", failure_kind::limit_exceeded);
}

failure staged_batch::refused(const rocksdb::Status& st) {
  return make_error("cannot add to the write batch: " + st.ToString());
}

status staged_batch::del_range(rocksdb::ColumnFamilyHandle* cf, std::string_view from, std::string_view to) {
  auto st = batch_.DeleteRange(cf, slice(from), slice(to));
  if (!st.ok()) return refused(st);
  return within_budget();
}

void add_derived_hook(store::impl& s, std::shared_ptr<derived_hook> hook) {
  write_session w(s);  // for its lock: no commit runs while the list changes
  s.derived.push_back(std::move(hook));
}

// --- the session ---

write_session::write_session(store::impl& s, const scan_control& control)
    : s_(s),
      lock_(s.write_lock),
      control_(control),
      batch_(s.max_write_bytes.load(std::memory_order_relaxed)),
      rules_(s),
      base_seq_(s.last_seq),
      seq_(s.last_seq),
      batch_id_(s.last_batch + 1),
      now_millis_(system_millis()) {}

write_session::~write_session() = default;

result<catalog_entry*> write_session::collection(std::string_view name, bool create) {
  if (auto it = collections_.find(name); it != collections_.end()) return &it->second;
  if (auto n = check_collection_name(name); !n) return std::move(n).error();
  if (!vectors_ok_ && name.ends_with(".__vectors")) {
    return make_error("collection " + quoted_name(name) +
                      " holds the embeddings vsync maintains and is written only by vsync (docs/vectors.md)");
  }
  auto found = s_.lookup(rocksdb::ReadOptions(), name);
  if (!found) return std::move(found).error();
  catalog_entry entry;
  if (found->has_value()) {
    entry = std::move(**found);
  } else if (!create) {
    return static_cast<catalog_entry*>(nullptr);
  } else {
    // Cataloged under a fresh id with a zero counter; logged as create_collection.
    if (!next_collection_id_) {
      auto next = s_.read_next_collection_id(rocksdb::ReadOptions());
      if (!next) return std::move(next).error();
      next_collection_id_ = *next;
    }
    const std::uint32_t id = *next_collection_id_;
    if (id >= 0xfffffffeU) return make_error("store `" + s_.path + "` has run out of collection ids");
    auto bytes = to_bson(document{field{"id", value(static_cast<std::int64_t>(id))}});
    if (!bytes) return std::move(bytes).error();
    if (auto p = batch_.put(s_.meta, catalog_key(name), *bytes); !p) return std::move(p).error();
    next_collection_id_ = id + 1;
    std::string next_bytes;
    put_u32(next_bytes, id + 1);
    if (auto p = batch_.put(s_.meta, k_meta_next_collection, next_bytes); !p) return std::move(p).error();
    if (auto l = log("create_collection", name); !l) return std::move(l).error();
    entry = catalog_entry{std::string(name), id, 0};
    created_.insert(id);
    base_counts_.emplace(std::string(name), UINT64_MAX);  // the counter is written at commit
    auto [it, inserted] = collections_.emplace(std::string(name), std::move(entry));
    return &it->second;
  }
  base_counts_.emplace(std::string(name), entry.documents);
  auto [it, inserted] = collections_.emplace(std::string(name), std::move(entry));
  return &it->second;
}

result<catalog_entry*> write_session::existing(std::string_view name) {
  auto c = collection(name, false);
  if (!c) return c;
  if (*c == nullptr) return s_.unknown_collection(name);
  return c;
}

status write_session::drop(const catalog_entry& c) {
  // Collection ids are never reused, so the range [id, id + 1) holds exactly its documents.
  if (auto d = batch_.del_range(s_.docs, docs_prefix(c.id), docs_prefix(c.id + 1)); !d) return d;
  if (auto d = batch_.del(s_.meta, catalog_key(c.name)); !d) return d;
  if (auto d = batch_.del(s_.meta, count_key(c.id)); !d) return d;
  if (auto d = batch_.del(s_.meta, rules_key(c.id)); !d) return d;  // validation rules
  if (auto d = drop_indexes_of(s_, batch_, c.id); !d) return d;
  // One record for the whole drop (not one per document), holding the count.
  if (auto l = log("drop_collection", c.name, nullptr, {}, {}, c.documents); !l) return l;
  const std::string name = c.name;  // `c` may be the entry erased below
  base_counts_.erase(name);
  collections_.erase(name);
  return {};
}

void write_session::mark_change(std::string change_id, bool undo) {
  change_id_ = std::move(change_id);
  undo_ = undo;
  reserve_batch_ = true;
}

status write_session::stage_derived() {
  if (s_.derived.empty() || records_.empty()) return {};
  for (const auto& hook : s_.derived) {
    if (auto st = hook->stage(s_, records_, batch_); !st) return st;
  }
  return {};
}

bool write_session::landed() const noexcept {
  try {
    std::string bytes;
    auto st = s_.db->Get(rocksdb::ReadOptions(), s_.meta, slice(k_meta_last_batch), &bytes);
    auto batch = st.ok() ? get_u64(bytes) : std::nullopt;
    return batch && *batch == batch_id_;
  } catch (...) {
    return false;
  }
}

status write_session::commit() {
  if (committed_) return make_error("internal error: a write session commits once");
  committed_ = true;
  // Document counters of the collections this call changed (or cataloged).
  for (const auto& [name, entry] : collections_) {
    auto base = base_counts_.find(name);
    if (base != base_counts_.end() && base->second == entry.documents) continue;
    std::string bytes;
    put_u64(bytes, entry.documents);
    if (auto p = batch_.put(s_.meta, count_key(entry.id), bytes); !p) return p;
  }
  if (auto d = stage_derived(); !d) return d;
  const bool advances = seq_ != base_seq_ || reserve_batch_;
  if (batch_.count() == 0 && !advances) return {};
  if (advances) {
    std::string seq_bytes, batch_bytes;
    put_u64(seq_bytes, seq_);
    put_u64(batch_bytes, batch_id_);
    if (auto p = batch_.put(s_.meta, k_meta_last_seq, seq_bytes); !p) return p;
    if (auto p = batch_.put(s_.meta, k_meta_last_batch, batch_bytes); !p) return p;
  }
  // The last moment a call may still be abandoned: a call cancelled (or past its deadline,
  // or whose client went away) before this point commits nothing. After the Write, the
  // batch is committed and the call never reports failure.
  if ((control_.cancelled != nullptr && control_.cancelled->load(std::memory_order_relaxed)) ||
      control_.call().stop_requested()) {
    return make_error("cancelled", failure_kind::cancelled);
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;  // the call returns only once the batch is in the fsynced WAL
  rocksdb::Status st;
  try {
    st = s_.db->Write(wo, &batch_.raw());
    if (st.ok() && s_.fault) s_.fault("write");
  } catch (const std::exception& e) {
    // Whether the batch is in the database decides, not the exception: a batch that landed
    // is a committed write. (A batch that does not advance the sequence leaves no mark to
    // tell by.)
    if (!advances || !landed()) return make_error(std::string("the write failed: ") + e.what());
    warn(s_.path, e.what());
  }
  if (!st.ok()) return storage_error(s_.path, "write", st);
  // Committed. From here on nothing may fail the call: what follows cannot throw, or is
  // caught and logged.
  if (advances) {
    s_.last_seq = seq_;
    s_.last_batch = batch_id_;
  }
  const std::uint64_t written = batch_.raw().GetDataSize();
  if (written > s_.flush_after_bytes.load(std::memory_order_relaxed)) {
    // A large batch sits whole in a memtable and in the write-ahead log; flushing it now
    // (the call waits, as it waited for the write) means no later open, after a clean exit
    // or a crash, replays it (docs/limits.md, "Recovery after a large write").
    rocksdb::FlushOptions fo;
    fo.wait = true;
    s_.db->Flush(fo, s_.handles).PermitUncheckedError();
  }
  note_committed(s_, written);
  try {
    if (s_.fault) s_.fault("after_commit");
  } catch (const std::exception& e) {
    warn(s_.path, e.what());
  } catch (...) {
    warn(s_.path, "an unknown exception was thrown");
  }
  return {};
}

}  // namespace detail

using namespace detail;

result<std::shared_ptr<store>> store::open(const std::string& path, const store_options& options) {
  auto s = open(path);
  if (!s) return s;
  if (auto c = (*s)->configure(options); !c) return std::move(c).error();
  return s;
}

status store::configure(const store_options& options) {
  if (options.max_write_bytes < k_min_write_bytes) {
    return make_error("max_write_bytes " + std::to_string(options.max_write_bytes) + " is too small (at least " +
                      std::to_string(k_min_write_bytes) + ")");
  }
  impl_->max_write_bytes.store(options.max_write_bytes, std::memory_order_relaxed);
  return {};
}

store_options store::options() const {
  store_options out;
  out.max_write_bytes = impl_->max_write_bytes.load(std::memory_order_relaxed);
  return out;
}

}  // namespace omgdb::engine
