// omgdb engine — write_session: one mutating call that reads its own writes.
//
// Reads merge the database (latest state; the caller holds the writer mutex, so nothing else
// changes it) with an in-memory overlay of this call's writes, key by key in docs-key order,
// which is `_id` order. Writes go to the overlay and to the session's one batch.
#include <bson/bson.h>

#include <chrono>

#include "engine/bson/bson_codec.hpp"
#include "engine/bson/bson_writer.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/query/expr.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine::detail {
namespace {

std::string join_name(const std::string& parent, std::string_view name) {
  return parent.empty() ? std::string(name) : parent + "." + std::string(name);
}

status check_names(const document& doc, const std::string& parent);

status check_value(const value& v, const std::string& where) {
  if (v.is_document()) return check_names(v.as_document(), where);
  if (v.is_array()) {
    const auto& items = v.as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (auto s = check_value(items[i], where + "." + std::to_string(i)); !s) return s;
    }
  }
  return {};
}

status check_names(const document& doc, const std::string& parent) {
  for (const auto& f : doc) {
    const std::string where = join_name(parent, f.name);
    if (!f.name.empty() && f.name.front() == '$') {
      return make_error("invalid field name `" + where + "`: field names must not start with '$'");
    }
    if (f.name.find('.') != std::string::npos) {
      return make_error("invalid field name `" + where + "`: field names must not contain '.'");
    }
    if (auto s = check_value(f.val, where); !s) return s;
  }
  return {};
}

value fresh_object_id() {
  bson_oid_t oid;
  bson_oid_init(&oid, nullptr);
  object_id out;
  std::copy(std::begin(oid.bytes), std::end(oid.bytes), out.bytes.begin());
  return value(out);
}

}  // namespace

namespace {

// check_names without building the paths its messages need: true when every name is fine.
bool names_ok(const value& v);

bool names_ok(const document& doc) {
  for (const auto& f : doc) {
    if (!f.name.empty() && f.name.front() == '$') return false;
    if (f.name.find('.') != std::string::npos) return false;
    if (!names_ok(f.val)) return false;
  }
  return true;
}

bool names_ok(const value& v) {
  if (v.is_document()) return names_ok(v.as_document());
  if (v.is_array()) {
    for (const auto& e : v.as_array()) {
      if (!names_ok(e)) return false;
    }
  }
  return true;
}

}  // namespace

status check_document_rules(const document& doc) {
  if (const value* id = find_field(doc, "_id")) {
    if (id->is_array()) return make_error("_id cannot be an array");
    if (std::holds_alternative<regex>(id->raw())) return make_error("_id cannot be a regular expression");
  }
  if (names_ok(doc)) return {};
  return check_names(doc, "");  // names the offending field
}

result<value> prepare_new_document(document& doc) {
  std::size_t ids = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (doc[i].name == "_id") {
      ++ids;
      at = i;
    }
  }
  if (ids > 1) return make_error("duplicate field `_id` in the document");
  if (ids == 0) {
    doc.insert(doc.begin(), field{"_id", fresh_object_id()});
  } else if (at != 0) {
    field id = std::move(doc[at]);
    doc.erase(doc.begin() + static_cast<std::ptrdiff_t>(at));
    doc.insert(doc.begin(), std::move(id));
  }
  if (auto s = check_document_rules(doc); !s) return std::move(s).error();
  return doc.front().val;
}

result<bool> rules_checker::has_rules(const catalog_entry& c) {
  auto [it, fresh] = has_rules_.try_emplace(c.id, true);
  if (fresh) {
    std::string bytes;
    auto st = s_.db->Get(rocksdb::ReadOptions(), s_.meta, rules_key(c.id), &bytes);
    if (st.IsNotFound()) {
      it->second = false;
    } else if (!st.ok()) {
      has_rules_.erase(it);
      return storage_error(s_.path, "read", st);
    }
  }
  return it->second;
}

status rules_checker::check(const catalog_entry& c, const document& doc) {
  auto has = has_rules(c);
  if (!has) return std::move(has).error();
  if (!*has) return {};
  return check_rules(s_, c, doc);
}

result<std::string> last_doc_key(const store::impl& s, std::uint32_t collection_id) {
  const std::string lower = docs_prefix(collection_id);
  const std::string upper = docs_prefix(collection_id + 1);
  rocksdb::ReadOptions ro;
  rocksdb::Slice lower_slice(lower), upper_slice(upper);
  ro.iterate_lower_bound = &lower_slice;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.docs));
  it->SeekToLast();
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return it->Valid() ? it->key().ToString() : std::string();
}

result<bool> may_be_stored(const store::impl& s, std::uint32_t collection_id, const std::string& key,
                           std::optional<std::string>& last) {
  if (!last) {
    auto k = last_doc_key(s, collection_id);
    if (!k) return std::move(k).error();
    last = std::move(*k);
  }
  return !last->empty() && key <= *last;
}

result<bool> write_session::holds(const catalog_entry& c, const std::string& key) {
  if (auto it = overlay_.find(key); it != overlay_.end()) return it->second.has_value();
  auto may = may_be_stored(s_, c.id, key, last_keys_[c.id]);
  if (!may) return std::move(may).error();
  if (!*may) return false;
  auto raw = read(key);
  if (!raw) return std::move(raw).error();
  return raw->has_value();
}

result<std::optional<std::string>> write_session::read(const std::string& key) {
  if (auto it = overlay_.find(key); it != overlay_.end()) return it->second;
  std::string bytes;
  auto st = s_.db->Get(rocksdb::ReadOptions(), s_.docs, key, &bytes);
  if (st.IsNotFound()) return std::optional<std::string>{};
  if (!st.ok()) return storage_error(s_.path, "read", st);
  return std::optional<std::string>(std::move(bytes));
}

status write_session::scan(const catalog_entry& c, const value* point,
                           const std::function<result<bool>(session_doc&)>& visit, const document* filter,
                           bool decode) {
  std::uint64_t seen = 0;
  auto handle = [&](std::string key, std::string bytes) -> result<bool> {
    if (seen % k_poll_every == 0) {
      if (auto p = poll(control_, seen, c.documents); !p) return std::move(p).error();
    } else if (cancelled(control_)) {
      return make_error("cancelled", failure_kind::cancelled);  // every document: a filter's regexes may take a while on one
    }
    ++seen;
    session_doc sd{std::move(key), std::move(bytes), {}};
    if (decode) {
      auto doc = from_bson(sd.bytes);
      if (!doc) return corrupt_document(c.name, std::string_view(sd.key).substr(4), doc.error());
      sd.doc = std::move(*doc);
    }
    return guard_match([&] { return visit(sd); });  // a filter's run-time error stops the scan
  };
  if (point != nullptr) {
    std::string key = doc_key(c.id, *point);
    auto raw = read(key);
    if (!raw) return std::move(raw).error();
    if (!raw->has_value()) return {};
    auto go = handle(std::move(key), std::move(**raw));
    if (!go) return std::move(go).error();
    return {};
  }
  const std::string lower = docs_prefix(c.id);
  const std::string upper = docs_prefix(c.id + 1);
  if (auto ov = overlay_.lower_bound(lower); filter != nullptr && (ov == overlay_.end() || ov->first >= upper)) {
    auto ids = planned_ids(s_, rocksdb::ReadOptions(), c, *filter, control_);
    if (!ids) return std::move(ids).error();
    if (ids->has_value()) {
      for (const auto& id_key : **ids) {
        std::string key = lower + id_key;
        auto raw = read(key);
        if (!raw) return std::move(raw).error();
        if (!raw->has_value()) continue;
        auto go = handle(std::move(key), std::move(**raw));
        if (!go) return std::move(go).error();
        if (!*go) break;
      }
      return {};
    }
  }
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper_slice(upper);
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(s_.db->NewIterator(ro, s_.docs));
  auto ov = overlay_.lower_bound(lower);
  it->Seek(lower);
  while (true) {
    const bool db_ok = it->Valid();
    const bool ov_ok = ov != overlay_.end() && ov->first < upper;
    if (!db_ok && !ov_ok) break;
    std::string key;
    std::optional<std::string> bytes;
    if (ov_ok && (!db_ok || std::string_view(ov->first) <= it->key().ToStringView())) {
      key = ov->first;
      bytes = ov->second;
      if (db_ok && std::string_view(ov->first) == it->key().ToStringView()) it->Next();
      ++ov;  // advanced before visiting: the visit may add entries to the overlay
    } else {
      key = it->key().ToString();
      bytes = it->value().ToString();
      it->Next();
    }
    if (!bytes) continue;  // deleted by this call
    auto go = handle(std::move(key), std::move(*bytes));
    if (!go) return std::move(go).error();
    if (!*go) break;
  }
  if (!it->status().ok()) return storage_error(s_.path, "read", it->status());
  return {};
}

result<std::optional<session_doc>> write_session::get(const catalog_entry& c, const value& id) {
  std::string key = doc_key(c.id, id);
  auto raw = read(key);
  if (!raw) return std::move(raw).error();
  if (!raw->has_value()) return std::optional<session_doc>{};
  auto doc = from_bson(**raw);
  if (!doc) return corrupt_document(c.name, std::string_view(key).substr(4), doc.error());
  return std::optional<session_doc>(session_doc{std::move(key), std::move(**raw), std::move(*doc)});
}

status write_session::remember(std::string key, std::optional<std::string> bytes) {
  const std::size_t size = key.size() + (bytes ? bytes->size() : 0);
  const std::size_t before = overlay_.size();
  auto it = overlay_.try_emplace(overlay_.end(), std::move(key));  // keys mostly ascend: hinted
  if (overlay_.size() == before) batch_.release(it->first.size() + (it->second ? it->second->size() : 0));
  it->second = std::move(bytes);
  return batch_.hold(size);
}

result<value> write_session::insert(catalog_entry& c, document doc) {
  auto id = prepare_new_document(doc);
  if (!id) return std::move(id).error();
  std::string key = doc_key(c.id, *id);
  auto existing = holds(c, key);
  if (!existing) return std::move(existing).error();
  if (*existing) {
    return make_error("duplicate _id " + to_json(*id) + " in collection `" + c.name + "`", failure_kind::conflict);
  }
  if (auto v = rules_.check(c, doc); !v) return std::move(v).error();  // validation
  auto bytes = encode_document(doc);
  if (!bytes) return std::move(bytes).error();
  if (auto x = index(c, nullptr, &doc); !x) return std::move(x).error();  // indexes
  if (auto p = batch_.put(s_.docs, key, *bytes); !p) return std::move(p).error();
  if (auto l = log("insert", c.name, &*id, {}, *bytes); !l) return std::move(l).error();
  // Without read-back only the key is kept: enough to find a duplicate `_id` later.
  if (!read_back_) bytes->clear();
  if (auto r = remember(std::move(key), std::move(*bytes)); !r) return std::move(r).error();
  ++c.documents;
  ++mutations_;
  return id;
}

result<bool> write_session::overwrite(const catalog_entry& c, const session_doc& old,
                                      const document& next, std::string_view op) {
  if (auto r = check_document_rules(next); !r) return std::move(r).error();
  auto bytes = encode_document(next);
  if (!bytes) return std::move(bytes).error();
  if (*bytes == old.bytes) return false;
  if (auto v = rules_.check(c, next); !v) return std::move(v).error();  // validation
  if (auto x = index(c, &old.doc, &next); !x) return std::move(x).error();  // indexes
  return overwrite_bytes(c, old, std::move(*bytes), op, find_field(old.doc, "_id"));
}

result<bool> write_session::overwrite_bytes(const catalog_entry& c, const session_doc& old, std::string bytes,
                                            std::string_view op, const value* id) {
  if (bytes == old.bytes) return false;
  if (auto p = batch_.put(s_.docs, old.key, bytes); !p) return std::move(p).error();
  value stored_id;  // as find_field(old.doc, "_id") would give it: the op-log record copies it
  if (id == nullptr && bson_get_field(old.bytes, "_id", stored_id)) id = &stored_id;
  if (auto l = log(op, c.name, id, old.bytes, bytes); !l) return std::move(l).error();
  if (read_back_) {
    if (auto r = remember(old.key, std::move(bytes)); !r) return std::move(r).error();
  }
  ++mutations_;
  return true;
}

result<bool> write_session::bare(const catalog_entry& c) {
  auto rules = rules_.has_rules(c);
  if (!rules) return std::move(rules).error();
  if (*rules) return false;
  auto defs = read_index_defs(s_, rocksdb::ReadOptions(), c.id);
  if (!defs) return std::move(defs).error();
  return defs->empty();
}

status write_session::remove(catalog_entry& c, const session_doc& old) {
  if (auto x = index(c, &old.doc, nullptr); !x) return x;  // indexes
  if (auto d = batch_.del(s_.docs, old.key); !d) return d;
  if (auto l = log("delete", c.name, find_field(old.doc, "_id"), old.bytes, {}); !l) return l;
  if (read_back_) {
    if (auto r = remember(old.key, std::nullopt); !r) return r;
  }
  if (c.documents > 0) --c.documents;
  ++mutations_;
  return {};
}

}  // namespace omgdb::engine::detail
