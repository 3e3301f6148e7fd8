// omgdb engine — op-log retention: trimming with a checkpoint that verify replays from.
//
// A trim keeps the records inside the retention (the newest max_bytes of records, none older
// than max_age_seconds) and deletes the rest in one batch together with a checkpoint of the
// state at the trim seq T (meta `oplog_trim`): per collection its document count and a digest
// (the sum of a hash of each document's key and stored bytes). That state is computed without
// stopping writers: under one snapshot at seq L, the live documents are walked back through
// the records L … T+1 ("unreplayed": an update's after image must be live and its before
// image becomes the document, an insert's after image must be live and goes, a delete's
// before image comes back). A trim whose walk finds any inconsistency trims nothing, so a
// trim never destroys the evidence verify would report.
//
// verify of a trimmed store makes the same walk from its own snapshot and compares the state
// it reaches at T with the checkpoint: the live data equals the checkpointed state with every
// kept record applied. A collection dropped after T has no state at T in the op-log (a drop
// records its count, not its documents): it is left out of both sides and verify says so.
#include <bson/bson.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "engine/value/ejson.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

// The per-collection state of the backward walk.
struct walk_collection {
  std::unordered_map<std::string, std::uint64_t> docs;  // keystring(_id) -> content_hash
  bool unknown = false;  // dropped after T: its state before the drop is not in the op-log
  bool absent = false;   // created after T: it did not exist at T
};
using walk_state = std::map<std::string, walk_collection, std::less<>>;

struct record_parts {
  std::string op, collection;
  std::string_view before;
  std::string after;  // oplog_after
  bool has_id = false;
  value id;
  std::int64_t ts = 0;
};

bool parse_parts(std::string_view bytes, record_parts& out) {
  bson_t rec;
  bson_iter_t it;
  if (!bson_init_static(&rec, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) ||
      !bson_iter_init(&it, &rec)) {
    return false;
  }
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if ((key == "op" || key == "collection") && BSON_ITER_HOLDS_UTF8(&it)) {
      std::uint32_t len = 0;
      const char* text = bson_iter_utf8(&it, &len);
      (key == "op" ? out.op : out.collection).assign(text, len);
    } else if (key == "before" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      out.before = std::string_view(reinterpret_cast<const char*>(data), len);
    } else if (key == "ts" && BSON_ITER_HOLDS_DATE_TIME(&it)) {
      out.ts = bson_iter_date_time(&it);
    }
  }
  if (!oplog_after(bytes, out.after)) return false;
  out.has_id = bson_get_field(bytes, "_id", out.id);
  return !out.op.empty();
}

std::uint64_t entry_hash(const std::string& key, std::uint64_t doc_hash) {
  std::string buf = key;
  for (int i = 0; i < 8; ++i) buf.push_back(static_cast<char>(doc_hash >> (8 * i)));
  return content_hash(buf);
}

struct digest {
  std::uint64_t documents = 0;
  std::uint64_t sum = 0;
  bool operator==(const digest&) const = default;
};

// The walk: live documents under `ro`, then every record newer than `through` backwards.
// `mismatch` gets each inconsistency; returns the number of records walked.
class backward_walk {
 public:
  backward_walk(const store::impl& s, const rocksdb::ReadOptions& ro, const scan_control& control,
                const std::function<void(std::string)>& mismatch)
      : s_(s), ro_(ro), control_(control), mismatch_(mismatch) {}

  walk_state state;
  std::uint64_t records = 0;
  std::uint64_t newest = 0;        // newest record's seq (0: none)
  std::uint64_t oldest_kept = 0;   // oldest record walked (0: none)

  status load_live(std::map<std::string, std::uint64_t>* live_counts = nullptr) {
    auto catalog = s_.list(ro_);
    if (!catalog) return std::move(catalog).error();
    std::uint64_t seen = 0;
    for (const auto& e : *catalog) {
      auto& c = state[e.name];
      std::string upper = docs_prefix(e.id + 1);
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions scan = ro_;
      scan.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(scan, s_.docs));
      for (it->Seek(docs_prefix(e.id)); it->Valid(); it->Next()) {
        if (++seen % k_poll_every == 0) {
          if (auto p = poll(control_, seen, 0); !p) return p;
        }
        c.docs.emplace(it->key().ToString().substr(4), content_hash(it->value().ToStringView()));
      }
      if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
      if (live_counts) (*live_counts)[e.name] = c.docs.size();
    }
    return {};
  }

  status walk(std::uint64_t through) {
    std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(ro_, s_.oplog));
    std::uint64_t expected = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      auto seq = get_u64(it->key().ToStringView());
      if (!seq) {
        mismatch_("op-log key " + hex(it->key().ToStringView()) + " is not a sequence number");
        continue;
      }
      if (*seq <= through) break;
      if (records % k_poll_every == 0) {
        if (auto p = poll(control_, records, 0); !p) return p;
      }
      ++records;
      if (newest == 0) newest = *seq;
      if (expected != 0 && *seq != expected) {
        mismatch_("op-log seq " + std::to_string(*seq) + " precedes seq " + std::to_string(expected + 1) +
                  " (records are missing)");
      }
      expected = *seq - 1;
      oldest_kept = *seq;
      unapply(*seq, it->value().ToStringView());
    }
    if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
    return {};
  }

  // Per collection known at the trim point: its count and digest.
  std::map<std::string, digest> digests() const {
    std::map<std::string, digest> out;
    for (const auto& [name, c] : state) {
      if (c.unknown || c.absent) continue;
      digest d;
      d.documents = c.docs.size();
      for (const auto& [key, h] : c.docs) d.sum += entry_hash(key, h);
      out.emplace(name, d);
    }
    return out;
  }

 private:
  void unapply(std::uint64_t seq, std::string_view bytes) {
    const std::string at = " (op-log seq " + std::to_string(seq) + ")";
    record_parts r;
    if (!parse_parts(bytes, r)) return mismatch_("op-log record" + at + " is corrupt");
    auto& c = state[r.collection];
    const std::string where = "collection " + quoted_name(r.collection);
    if (r.op == "drop_collection") {
      c.unknown = true;
      c.absent = false;
      c.docs.clear();
      return;
    }
    if (c.unknown) return;  // older history of a dropped collection: not checkable
    if (r.op == "create_collection") {
      if (!c.docs.empty()) mismatch_(where + ": created" + at + " while documents written later are missing");
      c.absent = true;
      c.docs.clear();
      return;
    }
    if (r.op == "define_collection" || r.op == "create_index" || r.op == "drop_index" ||
        r.op == "define_search_index" || r.op == "drop_search_index") {
      return;
    }
    if (c.absent) return mismatch_(where + ": written before it was created" + at);
    if (!r.has_id) return mismatch_(where + ": op-log record without `_id`" + at);
    const std::string key = encode_key(r.id);
    const std::string name = where + ", _id " + to_json(r.id);
    auto pos = c.docs.find(key);
    if (r.op == "delete") {
      if (pos != c.docs.end()) return mismatch_(name + ": deleted, yet present later" + at);
      if (r.before.empty()) return mismatch_(name + ": delete without a before image" + at);
      c.docs.emplace(key, content_hash(r.before));
      return;
    }
    if (r.op != "insert" && r.op != "replace" && r.op != "update") {
      return mismatch_(where + ": unknown op-log operation `" + r.op + "`" + at);
    }
    if (r.after.empty()) return mismatch_(name + ": `" + r.op + "` without an after image" + at);
    if (pos == c.docs.end()) return mismatch_(name + ": written" + at + " but missing from the live data");
    if (pos->second != content_hash(r.after)) {
      return mismatch_(name + ": live document differs from its op-log image" + at);
    }
    if (r.op == "insert") {
      c.docs.erase(pos);
      return;
    }
    if (r.before.empty()) return mismatch_(name + ": `" + r.op + "` without a before image" + at);
    pos->second = content_hash(r.before);
  }

  const store::impl& s_;
  const rocksdb::ReadOptions& ro_;
  const scan_control& control_;
  const std::function<void(std::string)>& mismatch_;
};

// The checkpoint as stored: {through, millis, collections: [{name, documents, digest}]}.
struct checkpoint {
  std::uint64_t through = 0;
  std::int64_t millis = 0;
  std::map<std::string, digest> collections;
};

std::string encode_checkpoint(const checkpoint& c) {
  document d;
  d.push_back(field{"through", value(static_cast<std::int64_t>(c.through))});
  d.push_back(field{"millis", value(date_time{c.millis})});
  array list;
  for (const auto& [name, dg] : c.collections) {
    document one;
    one.push_back(field{"name", value(name)});
    one.push_back(field{"documents", value(static_cast<std::int64_t>(dg.documents))});
    one.push_back(field{"digest", value(static_cast<std::int64_t>(dg.sum))});
    list.push_back(value(std::move(one)));
  }
  d.push_back(field{"collections", value(std::move(list))});
  auto bytes = to_bson(d);
  return bytes ? std::move(*bytes) : std::string();
}

std::int64_t int_of(const document& d, std::string_view name) {
  for (const auto& f : d) {
    if (f.name != name) continue;
    if (f.val.is_int64()) return f.val.as_int64();
    if (f.val.is_int32()) return f.val.as_int32();
    if (f.val.type() == kind::date_time) return std::get<date_time>(f.val.raw()).millis;
  }
  return 0;
}

result<std::optional<checkpoint>> read_checkpoint(const store::impl& s, const rocksdb::ReadOptions& ro) {
  std::string bytes;
  auto st = s.db->Get(ro, s.meta, slice(k_meta_trim), &bytes);
  if (st.IsNotFound()) return std::optional<checkpoint>();
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto d = from_bson(bytes);
  if (!d) return make_error("store `" + s.path + "` has a corrupt `oplog_trim` checkpoint", failure_kind::corrupt);
  checkpoint c;
  c.through = static_cast<std::uint64_t>(int_of(*d, "through"));
  c.millis = int_of(*d, "millis");
  for (const auto& f : *d) {
    if (f.name != "collections" || !f.val.is_array()) continue;
    for (const auto& e : f.val.as_array()) {
      if (!e.is_document()) continue;
      std::string name;
      for (const auto& g : e.as_document()) {
        if (g.name == "name" && g.val.is_string()) name = g.val.as_string();
      }
      c.collections[name] = digest{static_cast<std::uint64_t>(int_of(e.as_document(), "documents")),
                                   static_cast<std::uint64_t>(int_of(e.as_document(), "digest"))};
    }
  }
  return std::optional<checkpoint>(std::move(c));
}

std::int64_t now_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string bytes_text(std::uint64_t n) {
  if (n >= (std::uint64_t{1} << 20)) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

std::string describe(const store::retention& r) {
  std::string out = r.max_bytes == 0 ? "the newest records up to twice the live data (at least " +
                                           bytes_text(store::retention::k_retention_floor_bytes) + ")"
                                     : "the newest " + bytes_text(r.max_bytes) + " of records";
  if (r.max_age_seconds != 0) out += ", none older than " + std::to_string(r.max_age_seconds / 3600) + " h";
  return out;
}

result<store::retention> read_retention(const store::impl& s) {
  store::retention r;
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.meta, slice(k_meta_retention), &bytes);
  if (st.IsNotFound()) return r;
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto d = from_bson(bytes);
  if (!d) return make_error("store `" + s.path + "` has a corrupt `oplog_retention`", failure_kind::corrupt);
  r.max_bytes = static_cast<std::uint64_t>(int_of(*d, "maxBytes"));
  r.max_age_seconds = static_cast<std::uint64_t>(int_of(*d, "maxAgeSeconds"));
  return r;
}

std::uint64_t family_bytes(const store::impl& s, rocksdb::ColumnFamilyHandle* cf) {
  std::uint64_t sst = 0, mem = 0;
  s.db->GetIntProperty(cf, "rocksdb.total-sst-files-size", &sst);
  s.db->GetIntProperty(cf, "rocksdb.cur-size-all-mem-tables", &mem);
  return sst + mem;
}

}  // namespace

failure trimmed_error(const store::impl& s, std::uint64_t seq, std::string_view what) {
  auto r = read_retention(s);
  const std::string kept = r ? describe(*r) : std::string("its retention");
  return make_error(std::string(what) + ": op-log seq " + std::to_string(seq) + " was trimmed (the op-log of store `" +
                    s.path + "` keeps records after seq " + std::to_string(s.trimmed_through.load()) +
                    ": its retention keeps " + kept + "; `omgdb oplog retention` changes it)");
}

status load_trim_state(store::impl& s) {
  auto c = read_checkpoint(s, rocksdb::ReadOptions());
  if (!c) return std::move(c).error();
  s.trimmed_through.store(*c ? (**c).through : 0);
  return {};
}

result<store::trim_result> trim(store::impl& s, bool dry_run, const scan_control& control) {
  std::lock_guard<std::mutex> one_at_a_time(s.trim_lock);
  store::trim_result out;
  auto r = read_retention(s);
  if (!r) return std::move(r).error();
  snapshot_guard snap(s.db);
  const auto ro = snap.read_options();
  auto previous = read_checkpoint(s, ro);
  if (!previous) return std::move(previous).error();
  const std::uint64_t before = *previous ? (**previous).through : 0;
  out.trimmed_through = before;
  std::uint64_t limit = r->max_bytes;
  if (limit == 0) {
    limit = std::max(2 * (family_bytes(s, s.docs) + family_bytes(s, s.idx)), store::retention::k_retention_floor_bytes);
  }
  out.limit_bytes = limit;
  // The cut: walking back from the newest record, the first one past either bound.
  const std::int64_t oldest_ms =
      r->max_age_seconds == 0 ? INT64_MIN : now_millis() - static_cast<std::int64_t>(r->max_age_seconds) * 1000;
  // Once the records pass the limit they are cut back to three quarters of it, so that trims
  // (each walks the live data) come once per quarter of the limit written, not after every write.
  const std::uint64_t keep_to = limit - limit / 4;
  std::uint64_t cut = 0, soft_cut = 0, soft_kept = 0, soft_records = 0;
  {
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.oplog));
    std::uint64_t kept = 0, n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      auto seq = get_u64(it->key().ToStringView());
      if (!seq || *seq <= before) break;
      if (++n % k_poll_every == 0) {
        if (auto p = poll(control, n, 0); !p) return std::move(p).error();
      }
      const std::uint64_t size = it->key().size() + it->value().size();
      if (soft_cut == 0 && kept + size > keep_to) {
        soft_cut = *seq;
        soft_kept = kept;
        soft_records = n - 1;
      }
      value ts;
      const bool too_old = oldest_ms != INT64_MIN && bson_get_field(it->value().ToStringView(), "ts", ts) &&
                           ts.type() == kind::date_time && std::get<date_time>(ts.raw()).millis < oldest_ms;
      if (kept + size > limit) {
        cut = soft_cut;  // past the limit: back to three quarters of it
        kept = soft_kept;
        out.kept_records = soft_records;
        break;
      }
      if (too_old) {
        cut = *seq;
        break;
      }
      kept += size;
      ++out.kept_records;
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
    out.kept_bytes = kept;
    // What goes: every record from the cut back to the previous trim.
    if (cut != 0) {
      for (it->Seek(oplog_key(cut)); it->Valid(); it->Prev()) {
        auto seq = get_u64(it->key().ToStringView());
        if (!seq || *seq <= before) break;
        out.bytes += it->key().size() + it->value().size();
        ++out.records;
      }
      if (!it->status().ok()) return storage_error(s.path, "read", it->status());
    }
  }
  if (cut == 0 || dry_run) {
    if (dry_run && cut != 0) out.trimmed_through = cut;
    return out;
  }
  // The state at `cut`, walked back from the snapshot.
  std::vector<std::string> problems;
  std::function<void(std::string)> note = [&](std::string m) {
    if (problems.size() < 5) problems.push_back(std::move(m));
  };
  backward_walk w(s, ro, control, note);
  if (auto l = w.load_live(); !l) return std::move(l).error();
  if (auto x = w.walk(cut); !x) return std::move(x).error();
  if (!problems.empty()) {
    std::string text;
    for (const auto& p : problems) text += (text.empty() ? "" : "; ") + p;
    return make_error("the op-log of store `" + s.path + "` does not match its documents, so nothing was trimmed "
                      "(run verify): " + text, failure_kind::corrupt);
  }
  checkpoint c;
  c.through = cut;
  c.millis = now_millis();
  c.collections = w.digests();
  rocksdb::WriteBatch batch;
  const std::string from = oplog_key(0), to = oplog_key(cut + 1);
  auto st = batch.DeleteRange(s.oplog, from, to);
  if (st.ok()) st = batch.Put(s.meta, slice(k_meta_trim), encode_checkpoint(c));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (st.ok()) st = s.db->Write(wo, &batch);
  if (!st.ok()) return storage_error(s.path, "trim", st);
  s.trimmed_through.store(cut);
  out.trimmed_through = cut;
  // The space comes back when the deleted range is compacted away. Every family is flushed
  // first: the write-ahead log files the trimmed records kept alive (the documents family's
  // memtable holds data of each of them) become obsolete and are deleted.
  rocksdb::FlushOptions fo;
  fo.wait = true;
  s.db->Flush(fo, s.handles).PermitUncheckedError();
  rocksdb::Slice a(from), b(to);
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  s.db->CompactRange(co, s.oplog, &a, &b).PermitUncheckedError();
  return out;
}

namespace {

void trimmer_loop(store::impl* s) {
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(s->trim_mu);
      s->trim_cv.wait(lk, [s] { return s->trim_stop || s->trim_wanted; });
      if (s->trim_stop) return;
      s->trim_wanted = false;
    }
    scan_control control;
    control.cancelled = &s->trim_cancel;
    auto t = trim(*s, false, control);
    // The next trim is due after a quarter of the limit (or the configured cadence) more.
    if (t) s->trim_due_bytes.store(std::max(s->auto_trim_every.load(), t->limit_bytes / 4));
    if (!t && t.error().kind == failure_kind::cancelled) return;
    if (!t) std::fprintf(stderr, "omgdb: warning: store `%s`: op-log trim failed: %s\n", s->path.c_str(), t.error().message.c_str());
  }
}

}  // namespace

void note_committed(store::impl& s, std::uint64_t bytes) {
  const std::uint64_t every = s.auto_trim_every.load(std::memory_order_relaxed);
  if (every == 0) return;
  const std::uint64_t due = std::max(every, s.trim_due_bytes.load(std::memory_order_relaxed));
  if (s.oplog_since_trim.fetch_add(bytes) + bytes < due) return;
  s.oplog_since_trim.store(0);
  std::lock_guard<std::mutex> lk(s.trim_mu);
  if (s.trim_stop) return;
  if (!s.trim_thread.joinable()) s.trim_thread = std::thread(trimmer_loop, &s);
  s.trim_wanted = true;
  s.trim_cv.notify_one();
}

void stop_trimmer(store::impl& s) {
  {
    std::lock_guard<std::mutex> lk(s.trim_mu);
    s.trim_stop = true;
    s.trim_cancel.store(true);
    s.trim_cv.notify_one();
  }
  if (s.trim_thread.joinable()) s.trim_thread.join();
}

status verify_from_checkpoint(const store::impl& s, const rocksdb::ReadOptions& ro, const scan_control& control,
                              store::verify_report& report, const std::function<void(std::string)>& mismatch) {
  auto cp = read_checkpoint(s, ro);
  if (!cp) return std::move(cp).error();
  const checkpoint& c = **cp;
  report.verified_from = c.through + 1;
  backward_walk w(s, ro, control, mismatch);
  std::map<std::string, std::uint64_t> live;
  if (auto l = w.load_live(&live); !l) return l;
  if (auto x = w.walk(c.through); !x) return x;
  report.oplog_records = w.records;
  report.last_seq = w.newest != 0 ? w.newest : c.through;
  if (w.records != 0 && w.oldest_kept != c.through + 1) {
    mismatch("the op-log was trimmed through seq " + std::to_string(c.through) + " but its oldest record is seq " +
             std::to_string(w.oldest_kept) + " (records are missing)");
  }
  const auto at_trim = w.digests();
  for (const auto& [name, want] : c.collections) {
    auto st = w.state.find(name);
    if (st != w.state.end() && st->second.unknown) continue;  // dropped after the trim point
    auto got = at_trim.find(name);
    if (got == at_trim.end()) {
      mismatch("collection " + quoted_name(name) + " existed at the trim point (seq " + std::to_string(c.through) +
               ") but the kept op-log does not lead from it to the live data");
    } else if (!(got->second == want)) {
      mismatch("collection " + quoted_name(name) + ": the live data with the kept op-log walked back gives " +
               std::to_string(got->second.documents) + " documents at seq " + std::to_string(c.through) +
               " that do not match the checkpoint recorded there (" + std::to_string(want.documents) + " documents)");
    }
  }
  for (const auto& [name, got] : at_trim) {
    if (!c.collections.count(name)) {
      mismatch("collection " + quoted_name(name) + " is not in the checkpoint at seq " + std::to_string(c.through) +
               " and the kept op-log does not create it");
    }
  }
  auto catalog = s.list(ro);
  if (!catalog) return std::move(catalog).error();
  for (const auto& e : *catalog) {
    store::verify_collection out;
    out.name = e.name;
    out.documents = live[e.name];
    out.oplog_documents = out.documents;
    out.counter = e.documents;
    out.counter_matches = e.documents == out.documents;
    out.hash_matches = true;
    if (!out.counter_matches) {
      mismatch("collection " + quoted_name(e.name) + ": document counter is " + std::to_string(e.documents) + " but " +
               std::to_string(out.documents) + " documents are stored");
    }
    report.collections.push_back(std::move(out));
  }
  return {};
}

}  // namespace detail

using namespace detail;

status store::set_retention(const retention& r) {
  document d;
  d.push_back(field{"maxBytes", value(static_cast<std::int64_t>(r.max_bytes))});
  d.push_back(field{"maxAgeSeconds", value(static_cast<std::int64_t>(r.max_age_seconds))});
  auto bytes = to_bson(d);
  if (!bytes) return std::move(bytes).error();
  rocksdb::WriteOptions wo;
  wo.sync = true;
  auto st = impl_->db->Put(wo, impl_->meta, slice(k_meta_retention), *bytes);
  if (!st.ok()) return storage_error(impl_->path, "write", st);
  return {};
}

result<store::retention> store::retention_setting() const { return read_retention(*impl_); }

result<store::trim_result> store::trim_oplog(bool dry_run, const scan_control& control) {
  return trim(*impl_, dry_run, control);
}

std::uint64_t store::oplog_trimmed_through() const { return impl_->trimmed_through.load(); }

void store::auto_trim(std::uint64_t every_bytes) { impl_->auto_trim_every.store(every_bytes); }

}  // namespace omgdb::engine
