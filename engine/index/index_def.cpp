// omgdb engine — index definitions: spec rules, default names, the meta record, and the keys
// a document contributes to an index (engine/index/index.hpp).
#include <algorithm>
#include <map>
#include <mutex>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/index/keystring.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine::detail {
namespace {

constexpr std::size_t k_max_fields = 32;

status check_path(std::string_view path) {
  if (path.empty()) return make_error("an index field path must not be empty");
  if (path.front() == '$') return make_error("index field `" + std::string(path) + "` must not start with '$'");
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    if ((dot == std::string_view::npos ? path.size() : dot) == start) {
      return make_error("index field `" + std::string(path) + "` has an empty component");
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return {};
}

// The partial-filter subset: per field an equality or $eq/$gt/$gte/$lt/$lte/$type/
// $exists: true, and $and of such filters.
status check_partial(const document& f, int depth) {
  if (depth > 8) return make_error("partialFilter is nested too deeply", failure_kind::limit_exceeded);
  for (const auto& fld : f) {
    if (fld.name == "$and") {
      if (!fld.val.is_array() || fld.val.as_array().empty()) {
        return make_error("partialFilter: `$and` needs a non-empty array of filters");
      }
      for (const auto& e : fld.val.as_array()) {
        if (!e.is_document()) return make_error("partialFilter: `$and` needs a non-empty array of filters");
        if (auto s = check_partial(e.as_document(), depth + 1); !s) return s;
      }
      continue;
    }
    if (!fld.name.empty() && fld.name.front() == '$') {
      return make_error("partialFilter: `" + fld.name + "` is not supported (only field conditions and $and)");
    }
    if (!fld.val.is_document() || fld.val.as_document().empty() ||
        fld.val.as_document().front().name.empty() || fld.val.as_document().front().name.front() != '$') {
      continue;  // equality
    }
    for (const auto& op : fld.val.as_document()) {
      static const char* allowed[] = {"$eq", "$gt", "$gte", "$lt", "$lte", "$type", "$exists"};
      if (std::find(std::begin(allowed), std::end(allowed), op.name) == std::end(allowed)) {
        return make_error("partialFilter: operator `" + op.name + "` at `" + fld.name +
                          "` is not supported (use $eq, $gt, $gte, $lt, $lte, $type, $exists: true)");
      }
      if (op.name == "$exists" && !(op.val.is_bool() && op.val.as_bool())) {
        return make_error("partialFilter: only `$exists: true` is supported (at `" + fld.name + "`)");
      }
    }
  }
  return {};
}

std::string direction_text(bool descending) { return descending ? "-1" : "1"; }

// The path prefix (e.g. "a" for "a.b") of the first array met on `path` in `doc`; "" when
// the path meets no array.
std::string first_array(const document& doc, std::string_view path) {
  const document* cur = &doc;
  std::string prefix;
  std::size_t start = 0;
  while (cur != nullptr) {
    const std::size_t dot = path.find('.', start);
    const std::string_view name = path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    prefix += (prefix.empty() ? "" : ".") + std::string(name);
    const value* v = find_field(*cur, name);
    if (v == nullptr) return "";
    if (v->is_array()) return prefix;
    if (dot == std::string_view::npos || !v->is_document()) return "";
    cur = &v->as_document();
    start = dot + 1;
  }
  return "";
}

}  // namespace

std::string index_def_prefix(std::uint32_t collection_id) {
  std::string k(k_meta_index_prefix);
  put_u32(k, collection_id);
  return k;
}

std::string index_def_key(std::uint32_t collection_id, std::string_view name) {
  return index_def_prefix(collection_id) + std::string(name);
}

std::string idx_prefix(std::uint32_t index_id) {
  std::string k;
  put_u32(k, index_id);
  return k;
}

status normalize_spec(store::index_spec& spec) {
  if (spec.fields.empty()) return make_error("an index needs at least one field");
  if (spec.fields.size() > k_max_fields) {
    return make_error("an index has at most " + std::to_string(k_max_fields) + " fields");
  }
  for (std::size_t i = 0; i < spec.fields.size(); ++i) {
    if (auto s = check_path(spec.fields[i].path); !s) return s;
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.fields[j].path == spec.fields[i].path) {
        return make_error("index field `" + spec.fields[i].path + "` appears twice");
      }
    }
  }
  if (spec.fields.size() == 1 && spec.fields[0].path == "_id" && !spec.partial_filter) {
    return make_error("`_id` is always indexed (the `_id_` index); index other fields");
  }
  if (spec.partial_filter) {
    if (auto s = check_partial(*spec.partial_filter, 0); !s) return s;
    auto f = filter::compile(*spec.partial_filter);
    if (!f) return make_error("partialFilter: " + f.error().message, f.error().kind);
  }
  if (spec.name.empty()) {
    for (const auto& f : spec.fields) {
      spec.name += (spec.name.empty() ? "" : "_") + f.path + "_" + direction_text(f.descending);
    }
  }
  if (spec.name.size() > 120 || spec.name.find('\0') != std::string::npos) {
    return make_error("index name must be 1-120 bytes without NUL");
  }
  if (spec.name == "_id_") return make_error("index name `_id_` is reserved for the `_id` index");
  return {};
}

document spec_key_document(const store::index_spec& spec) {
  document key;
  for (const auto& f : spec.fields) key.push_back(field{f.path, value(std::int32_t{f.descending ? -1 : 1})});
  return key;
}

bool same_definition(const store::index_spec& a, const store::index_spec& b) {
  if (a.unique != b.unique || a.fields.size() != b.fields.size()) return false;
  for (std::size_t i = 0; i < a.fields.size(); ++i) {
    if (a.fields[i].path != b.fields[i].path || a.fields[i].descending != b.fields[i].descending) return false;
  }
  if (a.partial_filter.has_value() != b.partial_filter.has_value()) return false;
  return !a.partial_filter || compare(*a.partial_filter, *b.partial_filter) == 0;
}

result<std::string> encode_index_def(const index_def& d) {
  document rec{{"name", value(d.spec.name)},
               {"id", value(static_cast<std::int64_t>(d.id))},
               {"key", value(spec_key_document(d.spec))},
               {"unique", value(d.spec.unique)},
               {"multikey", value(d.multikey)}};
  if (d.spec.partial_filter) rec.push_back(field{"partialFilter", value(*d.spec.partial_filter)});
  return to_bson(rec);
}

result<index_def> decode_index_def(std::string_view bytes) {
  auto rec = from_bson(bytes);
  if (!rec) return std::move(rec).error();
  index_def d;
  const value* name = find_field(*rec, "name");
  const value* id = find_field(*rec, "id");
  const value* key = find_field(*rec, "key");
  if (name == nullptr || !name->is_string() || id == nullptr || !id->is_int64() || key == nullptr ||
      !key->is_document()) {
    return make_error("corrupt index definition", failure_kind::corrupt);
  }
  d.spec.name = name->as_string();
  d.id = static_cast<std::uint32_t>(id->as_int64());
  for (const auto& f : key->as_document()) {
    d.spec.fields.push_back({f.name, f.val.is_number() && f.val.number_as_double() < 0});
  }
  if (const value* u = find_field(*rec, "unique"); u != nullptr && u->is_bool()) d.spec.unique = u->as_bool();
  if (const value* m = find_field(*rec, "multikey"); m != nullptr && m->is_bool()) d.multikey = m->as_bool();
  if (const value* p = find_field(*rec, "partialFilter"); p != nullptr && p->is_document()) {
    d.spec.partial_filter = p->as_document();
    auto f = filter::compile(p->as_document());
    if (!f) return make_error("corrupt index definition: " + f.error().message, failure_kind::corrupt);
    d.partial = std::make_shared<const filter>(std::move(*f));
  }
  return d;
}

namespace {

constexpr std::size_t k_memo_entries = 256;  // collections remembered; then forgotten at once

}  // namespace

// The definitions last read under a snapshot, per collection id, in the open store
// (store::impl::defs_memo): a read under a snapshot of the same sequence number sees the same
// state, so the decoded definitions can be reused (every query plans from them). Any write
// moves the sequence number on, so a changed definition (create, drop, multikey) is never
// served from there.
result<std::vector<index_def>> read_index_defs(const store::impl& s, const rocksdb::ReadOptions& ro,
                                               std::uint32_t collection_id) {
  const bool memo = ro.snapshot != nullptr;
  const std::uint64_t seq = memo ? ro.snapshot->GetSequenceNumber() : 0;
  if (memo) {
    std::lock_guard lock(s.defs_memo_mu);
    auto it = s.defs_memo.find(collection_id);
    if (it != s.defs_memo.end() && it->second.seq == seq) return *it->second.defs;
  }
  auto out = read_index_defs_uncached(s, ro, collection_id);
  if (out && memo) {
    auto shared = std::make_shared<const std::vector<index_def>>(*out);
    std::lock_guard lock(s.defs_memo_mu);
    if (s.defs_memo.size() >= k_memo_entries) s.defs_memo.clear();
    s.defs_memo[collection_id] = defs_memo_entry{seq, std::move(shared)};
  }
  return out;
}

result<std::vector<index_def>> read_index_defs_uncached(const store::impl& s, const rocksdb::ReadOptions& ro,
                                                        std::uint32_t collection_id) {
  std::vector<index_def> out;
  const std::string prefix = index_def_prefix(collection_id);
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.meta));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    auto d = decode_index_def(it->value().ToStringView());
    if (!d) return make_error("index `" + it->key().ToString().substr(prefix.size()) + "`: " + d.error().message, d.error().kind);
    out.push_back(std::move(*d));
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return out;
}

result<std::vector<std::string>> index_keys(const index_def& def, const document& doc, bool& multikey) {
  std::vector<std::string> keys;
  try {
    if (def.partial && !def.partial->matches(doc)) return keys;
  } catch (const std::exception&) {
    return keys;  // a partial filter that cannot be evaluated indexes nothing
  }
  std::vector<std::vector<std::string>> parts(def.spec.fields.size());
  std::string array_path;  // the one array path a compound index may expand
  const value null_value;
  for (std::size_t i = 0; i < def.spec.fields.size(); ++i) {
    const auto& f = def.spec.fields[i];
    std::vector<const value*> vals;
    bool missing = false;
    values_at_path(doc, f.path, vals, missing);
    if (vals.empty()) missing = true;
    const std::string arr = first_array(doc, f.path);
    if (!arr.empty()) {
      multikey = true;
      if (!array_path.empty() && array_path != arr) {
        const value* id = find_field(doc, "_id");
        return make_error("document _id " + (id ? to_json(*id) : std::string("?")) + " cannot be indexed by `" +
                          def.spec.name + "`: it holds arrays at both `" + array_path + "` and `" + arr +
                          "`, and a compound index takes at most one array (parallel arrays)");
      }
      array_path = arr;
    }
    for (const value* v : vals) {
      std::string k;
      append_key(k, *v, f.descending);
      parts[i].push_back(std::move(k));
    }
    if (missing) {
      std::string k;
      append_key(k, null_value, f.descending);
      parts[i].push_back(std::move(k));
    }
    std::sort(parts[i].begin(), parts[i].end());
    parts[i].erase(std::unique(parts[i].begin(), parts[i].end()), parts[i].end());
  }
  keys.push_back(idx_prefix(def.id));
  for (const auto& p : parts) {
    std::vector<std::string> next;
    next.reserve(keys.size() * p.size());
    for (const auto& k : keys) {
      for (const auto& c : p) next.push_back(k + c);
    }
    keys = std::move(next);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::string entry_key(const index_def& def, const std::string& key, const std::string& id_key) {
  return def.spec.unique ? key : key + id_key;
}

failure duplicate_key(const index_def& def, std::string_view collection, const document& doc) {
  document shown;
  for (const auto& f : def.spec.fields) {
    std::vector<const value*> vals;
    bool missing = false;
    values_at_path(doc, f.path, vals, missing);
    if (vals.size() == 1 && !missing) {
      shown.push_back(field{f.path, *vals[0]});
    } else if (vals.empty()) {
      shown.push_back(field{f.path, value()});
    } else {
      array a;
      for (const value* v : vals) a.push_back(*v);
      shown.push_back(field{f.path, value(std::move(a))});
    }
  }
  const value* id = find_field(doc, "_id");
  return make_error("duplicate key " + to_json(shown) + " in unique index " + quoted_name(def.spec.name) +
                    " of " + quoted_name(collection) + " (document _id " + (id ? to_json(*id) : std::string("?")) + ")", failure_kind::conflict);
}

}  // namespace omgdb::engine::detail
