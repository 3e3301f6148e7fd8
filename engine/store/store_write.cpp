// omgdb engine — insert, insert_many, replace, remove, create_collection, drop_collection.
//
// Every call takes the store's writer mutex, validates everything first, then builds one
// write_txn (documents + counters + catalog + op-log) and commits it with sync = true. Any
// error before the commit leaves the database untouched.
#include <bson/bson.h>

#include <unordered_set>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_writer.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

failure duplicate_id(const value& id, std::string_view collection) {
  return make_error("duplicate _id " + to_json(id) + " in collection `" + std::string(collection) +
                    "`");
}

failure at_index(std::size_t i, failure f) {
  return make_error("document " + std::to_string(i) + ": " + f.message);
}

// Reads the stored bytes at `key` (latest state; the caller holds the writer mutex).
result<std::optional<std::string>> read_raw(const store::impl& s, const std::string& key) {
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.docs, key, &bytes);
  if (st.IsNotFound()) return std::optional<std::string>{};
  if (!st.ok()) return storage_error(s.path, "read", st);
  return std::optional<std::string>(std::move(bytes));
}

// The core of insert and insert_many: all documents or none.
result<std::vector<value>> insert_all(store::impl& s, std::string_view collection,
                                      std::vector<document>& docs, bool many,
                                      const scan_control& control) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  std::lock_guard lock(s.writer);
  auto found = s.lookup(rocksdb::ReadOptions(), collection);
  if (!found) return std::move(found).error();

  write_txn txn(s);
  catalog_entry entry;
  bool fresh = !found->has_value();
  if (fresh) {
    auto created = txn.create_collection(collection);
    if (!created) return std::move(created).error();
    entry = std::move(*created);
  } else {
    entry = std::move(**found);
  }

  auto fail = [&](std::size_t i, failure f) { return many ? at_index(i, std::move(f)) : f; };
  std::vector<value> ids;
  ids.reserve(docs.size());
  std::unordered_set<std::string> batch_keys;  // duplicates within this call
  rules_checker rules(s);
  std::optional<std::string> last_key;  // may_be_stored's, read at the first document
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i % k_poll_every == 0 && i != 0) {
      if (auto p = poll(control, i, docs.size()); !p) return std::move(p).error();
    }
    auto id = prepare_new_document(docs[i]);
    if (!id) return fail(i, std::move(id).error());
    std::string key = doc_key(entry.id, *id);
    if (!batch_keys.insert(key).second) return fail(i, duplicate_id(*id, collection));
    if (!fresh) {
      auto may = may_be_stored(s, entry.id, key, last_key);
      if (!may) return std::move(may).error();
      if (*may) {  // above the last stored key it is not stored
        auto existing = read_raw(s, key);
        if (!existing) return std::move(existing).error();
        if (existing->has_value()) return fail(i, duplicate_id(*id, collection));
      }
    }
    if (auto v = rules.check(entry, docs[i]); !v) return fail(i, std::move(v).error());  // validation
    auto bytes = encode_document(docs[i]);
    if (!bytes) return fail(i, std::move(bytes).error());
    if (auto x = txn.index(entry, nullptr, &docs[i]); !x) return fail(i, std::move(x).error());  // indexes
    txn.batch().Put(s.docs, key, *bytes);
    if (auto l = txn.log("insert", collection, &*id, {}, *bytes); !l) return std::move(l).error();
    ids.push_back(std::move(*id));
  }
  if (ids.empty() && !fresh) return ids;
  if (auto p = poll(control, docs.size(), docs.size()); !p) return std::move(p).error();
  txn.put_count(entry.id, entry.documents + ids.size());
  if (auto c = txn.commit(); !c) return std::move(c).error();
  return ids;
}

// The stored document at `key` decoded (to be sure it is sound before it enters the
// op-log) together with its bytes.
struct stored_doc {
  std::string bytes;
  document doc;
};

result<std::optional<stored_doc>> read_stored(const store::impl& s, std::string_view collection,
                                              const std::string& key) {
  auto raw = read_raw(s, key);
  if (!raw) return std::move(raw).error();
  if (!raw->has_value()) return std::optional<stored_doc>{};
  auto doc = from_bson(**raw);
  if (!doc) return corrupt_document(collection, key.substr(4), doc.error());
  return std::optional<stored_doc>(stored_doc{std::move(**raw), std::move(*doc)});
}

}  // namespace

result<value> store::insert(std::string_view collection, document doc) {
  std::vector<document> docs;
  docs.push_back(std::move(doc));
  auto ids = insert_all(*impl_, collection, docs, false, {});
  if (!ids) return std::move(ids).error();
  return std::move(ids->front());
}

result<std::vector<value>> store::insert_many(std::string_view collection,
                                              std::vector<document> docs,
                                              const scan_control& control) {
  if (docs.empty()) {
    if (auto n = check_collection_name(collection); !n) return std::move(n).error();
    return std::vector<value>{};
  }
  return insert_all(*impl_, collection, docs, true, control);
}

result<replace_outcome> store::replace(std::string_view collection, const value& id,
                                       document doc) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto& s = *impl_;
  std::lock_guard lock(s.writer);
  auto found = s.lookup(rocksdb::ReadOptions(), collection);
  if (!found) return std::move(found).error();
  if (!found->has_value()) return replace_outcome{};
  const catalog_entry& entry = **found;
  std::string key = doc_key(entry.id, id);
  auto old = read_stored(s, collection, key);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return replace_outcome{};

  // The stored `_id` stays (with its stored type); the replacement may repeat an equal one.
  const value* kept = find_field((*old)->doc, "_id");
  if (kept == nullptr) return corrupt_document(collection, key.substr(4), make_error("no _id"));
  document next;
  next.reserve(doc.size() + 1);
  next.push_back(field{"_id", *kept});
  for (auto& f : doc) {
    if (f.name == "_id") {
      if (!equal(f.val, *kept)) return make_error("_id is immutable");
      continue;
    }
    next.push_back(std::move(f));
  }
  if (auto c = check_document_rules(next); !c) return std::move(c).error();
  auto bytes = encode_document(next);
  if (!bytes) return std::move(bytes).error();
  if (*bytes == (*old)->bytes) return replace_outcome{1, 0};  // unchanged: nothing to write
  if (auto v = check_rules(s, entry, next); !v) return std::move(v).error();  // validation

  write_txn txn(s);
  if (auto x = txn.index(entry, &(*old)->doc, &next); !x) return std::move(x).error();  // indexes
  txn.batch().Put(s.docs, key, *bytes);
  if (auto l = txn.log("replace", collection, kept, (*old)->bytes, *bytes); !l) {
    return std::move(l).error();
  }
  if (auto c = txn.commit(); !c) return std::move(c).error();
  return replace_outcome{1, 1};
}

result<std::uint64_t> store::remove(std::string_view collection, const value& id) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto& s = *impl_;
  std::lock_guard lock(s.writer);
  auto found = s.lookup(rocksdb::ReadOptions(), collection);
  if (!found) return std::move(found).error();
  if (!found->has_value()) return std::uint64_t{0};
  const catalog_entry& entry = **found;
  std::string key = doc_key(entry.id, id);
  auto old = read_stored(s, collection, key);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return std::uint64_t{0};
  const value* stored_id = find_field((*old)->doc, "_id");

  write_txn txn(s);
  if (auto x = txn.index(entry, &(*old)->doc, nullptr); !x) return std::move(x).error();  // indexes
  txn.batch().Delete(s.docs, key);
  txn.put_count(entry.id, entry.documents > 0 ? entry.documents - 1 : 0);
  if (auto l = txn.log("delete", collection, stored_id != nullptr ? stored_id : &id,
                       (*old)->bytes);
      !l) {
    return std::move(l).error();
  }
  if (auto c = txn.commit(); !c) return std::move(c).error();
  return std::uint64_t{1};
}

result<bool> store::create_collection(std::string_view collection) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto& s = *impl_;
  std::lock_guard lock(s.writer);
  auto found = s.lookup(rocksdb::ReadOptions(), collection);
  if (!found) return std::move(found).error();
  if (found->has_value()) return false;
  write_txn txn(s);
  if (auto c = txn.create_collection(collection); !c) return std::move(c).error();
  if (auto c = txn.commit(); !c) return std::move(c).error();
  return true;
}

result<std::uint64_t> store::drop_collection(std::string_view collection) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto& s = *impl_;
  std::lock_guard lock(s.writer);
  auto found = s.lookup(rocksdb::ReadOptions(), collection);
  if (!found) return std::move(found).error();
  if (!found->has_value()) return s.unknown_collection(collection);
  const catalog_entry& entry = **found;

  write_txn txn(s);
  // Collection ids are never reused, so the range [id, id + 1) holds exactly its documents.
  txn.batch().DeleteRange(s.docs, docs_prefix(entry.id), docs_prefix(entry.id + 1));
  txn.batch().Delete(s.meta, catalog_key(collection));
  txn.batch().Delete(s.meta, count_key(entry.id));
  txn.batch().Delete(s.meta, rules_key(entry.id));  // validation rules
  if (auto x = drop_indexes_of(s, txn.batch(), entry.id); !x) return std::move(x).error();
  // One record for the whole drop (not one per document), holding the count.
  if (auto l = txn.log("drop_collection", collection, nullptr, {}, {}, entry.documents); !l) {
    return std::move(l).error();
  }
  if (auto c = txn.commit(); !c) return std::move(c).error();
  return entry.documents;
}

}  // namespace omgdb::engine
