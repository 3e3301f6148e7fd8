// omgdb engine — verify: replay the op-log from empty and compare with the live data.
//
// Everything is read under one snapshot. The replay keeps, per collection, keystring(_id) →
// (hash of the document's stored BSON, seq of the record that wrote it): memory grows with
// the number of documents (roughly 100 bytes each plus the key), never with their size, and
// no document is decoded except to name an `_id` in a mismatch. Live documents are then
// walked in key order and matched entry by entry, so every mismatch names its `_id`.
#include <bson/bson.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/keystring.hpp"
#include "engine/index/index.hpp"
#include "engine/search/search_verify.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

struct replay_doc {
  std::uint64_t hash = 0;
  std::uint64_t seq = 0;
};
using replay_docs = std::unordered_map<std::string, replay_doc>;

// The fields of one op-log record verify needs; `after` points into the record's bytes.
struct record_view {
  std::string op;
  std::string collection;
  std::string_view after;
  std::string patched;  // the after image rebuilt from `afterPatch` (oplog_after)
  bool has_id = false;
  value id;
};

bool parse_record(std::string_view bytes, record_view& out) {
  bson_t rec;
  bson_iter_t it;
  // The whole record must decode as the engine reads stored BSON (from_bson), not only the
  // fields read here: the rollback reads its `before` image, the search catch-up the rest.
  if (!bson_init_static(&rec, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) ||
      !from_bson(bytes).ok() || !bson_iter_init(&it, &rec)) {
    return false;
  }
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if ((key == "op" || key == "collection") && BSON_ITER_HOLDS_UTF8(&it)) {
      std::uint32_t len = 0;
      const char* text = bson_iter_utf8(&it, &len);
      (key == "op" ? out.op : out.collection).assign(text, len);
    } else if (key == "after" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      std::uint32_t len = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      out.after = std::string_view(reinterpret_cast<const char*>(data), len);
    } else if (key == "afterPatch") {
      if (!oplog_after(bytes, out.patched) || out.patched.empty()) return false;
      out.after = out.patched;
    }
  }
  out.has_id = bson_get_field(bytes, "_id", out.id);
  return !out.op.empty();
}

class verifier {
 public:
  verifier(const store::impl& s, const scan_control& control, store::verify_report& report)
      : s_(s), control_(control), report_(report) {}

  status run() {
    snapshot_guard snap(s_.db);
    auto ro = snap.read_options();
    std::string trim_checkpoint;
    if (s_.db->Get(ro, s_.meta, slice(k_meta_trim), &trim_checkpoint).ok()) {
      // A trimmed op-log: the replay starts from the checkpoint at the trim point.
      if (auto r = verify_from_checkpoint(s_, ro, control_, report_, [this](std::string t) { mismatch(std::move(t)); });
          !r) {
        return r;
      }
      if (auto m = read_meta_last_seq(ro); !m) return m;
    } else {
      if (auto r = replay(ro); !r) return r;
      if (auto m = read_meta_last_seq(ro); !m) return m;
      auto catalog = s_.list(ro);
      if (!catalog) return std::move(catalog).error();
      std::map<std::string, const catalog_entry*> cataloged;
      for (const auto& e : *catalog) cataloged.emplace(e.name, &e);
      std::set<std::string> names;
      for (const auto& [name, e] : cataloged) names.insert(name);
      for (const auto& [name, docs] : replayed_) names.insert(name);
      for (const auto& name : names) {
        auto c = cataloged.find(name);
        if (auto st = compare(ro, name, c == cataloged.end() ? nullptr : c->second); !st) return st;
      }
    }
    if (report_.meta_last_seq != report_.last_seq) {
      mismatch("meta records the newest op-log seq as " + std::to_string(report_.meta_last_seq) +
               " but the newest record is seq " + std::to_string(report_.last_seq));
    }
    // Index entries against the documents (index_verify.cpp), under the same snapshot.
    if (auto x = verify_indexes(s_, ro, control_, [this](std::string text) { mismatch(std::move(text)); }); !x) {
      return x;
    }
    // Derived caches (engine/search): reported as caches, never a data mismatch.
    search::verify_caches(s_, ro, report_.caches);
    report_.ok = report_.mismatches.empty() && report_.more_mismatches == 0;
    return {};
  }

 private:
  void mismatch(std::string text) {
    if (report_.mismatches.size() < store::verify_report::k_max_mismatches) {
      report_.mismatches.push_back(std::move(text));
    } else {
      ++report_.more_mismatches;
    }
  }

  status replay(const rocksdb::ReadOptions& ro) {
    std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(ro, s_.oplog));
    std::uint64_t expected = 1;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (report_.oplog_records % k_poll_every == 0) {
        if (auto p = poll(control_, report_.oplog_records, 0); !p) return p;
      }
      ++report_.oplog_records;
      auto seq = get_u64(it->key().ToStringView());
      if (!seq) {
        mismatch("op-log key " + hex(it->key().ToStringView()) + " is not a sequence number");
        continue;
      }
      if (*seq != expected) {
        mismatch("op-log seq " + std::to_string(*seq) + " follows seq " + std::to_string(expected - 1) +
                 " (records are missing)");
      }
      expected = *seq + 1;
      report_.last_seq = *seq;
      apply_record(*seq, it->value().ToStringView());
    }
    if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
    return {};
  }

  void apply_record(std::uint64_t seq, std::string_view bytes) {
    const std::string at = " (op-log seq " + std::to_string(seq) + ")";
    record_view rec;
    if (!parse_record(bytes, rec)) return mismatch("op-log record" + at + " is corrupt");
    if (rec.op == "create_collection") {
      replayed_.try_emplace(rec.collection);
      return;
    }
    if (rec.op == "drop_collection") {
      replayed_.erase(rec.collection);
      return;
    }
    const std::string where = "collection " + quoted_name(rec.collection);
    auto c = replayed_.find(rec.collection);
    if (c == replayed_.end()) {
      mismatch(where + ": written before it was created" + at);
      c = replayed_.try_emplace(rec.collection).first;
    }
    // Catalog-only operations (validation rules, later indexes) leave the documents alone.
    if (rec.op == "define_collection" || rec.op == "create_index" || rec.op == "drop_index" ||
        rec.op == "define_search_index" || rec.op == "drop_search_index") {
      return;
    }
    if (!rec.has_id) return mismatch(where + ": op-log record without `_id`" + at);
    const std::string key = encode_key(rec.id);
    const std::string name = where + ", _id " + to_json(rec.id);
    if (rec.op == "delete") {
      if (c->second.erase(key) == 0) mismatch(name + ": deleted but never written" + at);
      return;
    }
    if (rec.op != "insert" && rec.op != "replace" && rec.op != "update") {
      return mismatch(where + ": unknown op-log operation `" + rec.op + "`" + at);
    }
    if (rec.after.empty()) return mismatch(name + ": `" + rec.op + "` without an after image" + at);
    auto [pos, fresh] = c->second.insert_or_assign(key, replay_doc{content_hash(rec.after), seq});
    if (rec.op == "insert" && !fresh) mismatch(name + ": inserted twice" + at);
    if (rec.op != "insert" && fresh) mismatch(name + ": " + rec.op + " of a document never written" + at);
  }

  status read_meta_last_seq(const rocksdb::ReadOptions& ro) {
    std::string bytes;
    auto st = s_.db->Get(ro, s_.meta, slice(k_meta_last_seq), &bytes);
    if (st.IsNotFound()) return {};
    if (!st.ok()) return storage_error(s_.path, "read", st);
    auto n = get_u64(bytes);
    if (!n) return make_error("store `" + s_.path + "` has a corrupt `" + std::string(k_meta_last_seq) + "`", failure_kind::corrupt);
    report_.meta_last_seq = *n;
    return {};
  }

  // The `_id` of a document as JSON for messages, or its key in hex when it does not decode.
  static std::string id_text(std::string_view doc_bytes, std::string_view key) {
    value id;
    if (bson_get_field(doc_bytes, "_id", id)) return to_json(id);
    return "? (key " + hex(key) + ")";
  }

  std::string replayed_id(const rocksdb::ReadOptions& ro, const std::string& key, std::uint64_t seq) const {
    std::string bytes;
    value id;
    if (s_.db->Get(ro, s_.oplog, oplog_key(seq), &bytes).ok() && bson_get_field(bytes, "_id", id)) {
      return to_json(id);
    }
    return "? (key " + hex(key) + ")";
  }

  status compare(const rocksdb::ReadOptions& ro, const std::string& name, const catalog_entry* entry) {
    store::verify_collection out;
    out.name = name;
    const std::string where = "collection " + quoted_name(name);
    auto rep = replayed_.find(name);
    replay_docs empty;
    replay_docs& expected = rep == replayed_.end() ? empty : rep->second;
    out.oplog_documents = expected.size();
    bool docs_match = true;
    if (rep == replayed_.end()) {
      mismatch(where + " is cataloged but the op-log does not create it");
      docs_match = false;
    }
    if (entry == nullptr) {
      mismatch(where + " exists in the op-log replay but is not cataloged");
      docs_match = false;
    } else {
      out.counter = entry->documents;
      std::string upper = docs_prefix(entry->id + 1);
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions scan = ro;
      scan.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(scan, s_.docs));
      for (it->Seek(docs_prefix(entry->id)); it->Valid(); it->Next()) {
        if (out.documents % k_poll_every == 0) {
          if (auto p = poll(control_, out.documents, entry->documents); !p) return p;
        }
        ++out.documents;
        const std::string key = it->key().ToString().substr(4);
        const std::string_view bytes = it->value().ToStringView();
        auto want = expected.find(key);
        if (want == expected.end()) {
          mismatch(where + ", _id " + id_text(bytes, key) + ": in the live data but not in the op-log");
          docs_match = false;
          continue;
        }
        if (want->second.hash != content_hash(bytes)) {
          mismatch(where + ", _id " + id_text(bytes, key) + ": live document differs from its op-log image (seq " +
                   std::to_string(want->second.seq) + ")");
          docs_match = false;
        }
        expected.erase(want);  // what remains is missing from the live data
      }
      if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
      out.counter_matches = entry->documents == out.documents;
      if (!out.counter_matches) {
        mismatch(where + ": document counter is " + std::to_string(entry->documents) + " but " +
                 std::to_string(out.documents) + " documents are stored");
      }
    }
    std::vector<std::pair<std::uint64_t, std::string>> missing;
    for (const auto& [key, doc] : expected) missing.emplace_back(doc.seq, key);
    std::sort(missing.begin(), missing.end());
    for (const auto& [seq, key] : missing) {
      if (entry == nullptr) break;  // already reported as a whole collection
      mismatch(where + ", _id " + replayed_id(ro, key, seq) + ": in the op-log (seq " + std::to_string(seq) +
               ") but missing from the live data");
      docs_match = false;
    }
    out.hash_matches = docs_match;
    report_.collections.push_back(std::move(out));
    return {};
  }

  const store::impl& s_;
  const scan_control& control_;
  store::verify_report& report_;
  std::map<std::string, replay_docs> replayed_;
};

}  // namespace

result<store::verify_report> store::verify(const scan_control& control) const {
  verify_report report;
  verifier v(*impl_, control, report);
  if (auto st = v.run(); !st) return std::move(st).error();
  return report;
}

}  // namespace omgdb::engine
