// omgdb engine — create_index, list_indexes, drop_index.
//
// A build reads every document of the collection at the latest state (its write session
// holds the writer lock, so nothing changes meanwhile) and puts the definition, the next-id
// counter and every entry into the session's ONE batch, committed with sync = true: a crash
// mid-build leaves no index and no definition, and a failed build (unique violation,
// parallel arrays, cancel, the write budget) writes nothing.
#include <map>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine {

using namespace detail;

namespace detail {

status drop_indexes_of(const store::impl& s, staged_batch& batch, std::uint32_t collection_id) {
  auto defs = read_index_defs(s, rocksdb::ReadOptions(), collection_id);
  if (!defs) return std::move(defs).error();
  for (const auto& d : *defs) {
    if (auto x = batch.del(s.meta, index_def_key(collection_id, d.spec.name)); !x) return x;
    if (auto x = batch.del_range(s.idx, idx_prefix(d.id), idx_prefix(d.id + 1)); !x) return x;
  }
  return {};
}

}  // namespace detail

namespace {

// Puts the entries of every document of `c` into the session's batch; unique keys are
// checked among the documents themselves (the index is new, so nothing else holds them).
status build_entries(write_session& w, const catalog_entry& c, index_def& def,
                     const scan_control& control, store::create_index_result& out) {
  const store::impl& s = w.target();
  std::map<std::string, std::string> unique;  // key -> docs-key suffix, unique indexes only
  const std::string lower = docs_prefix(c.id);
  const std::string upper = docs_prefix(c.id + 1);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper_slice(upper);
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.docs));
  std::uint64_t seen = 0;
  for (it->Seek(lower); it->Valid(); it->Next()) {
    if (seen % k_poll_every == 0) {
      if (auto p = poll(control, seen, c.documents); !p) return p;
    }
    ++seen;
    auto doc = from_bson(it->value().ToStringView());
    if (!doc) return corrupt_document(c.name, it->key().ToStringView().substr(4), doc.error());
    bool multikey = false;
    auto keys = index_keys(def, *doc, multikey);
    if (!keys) return std::move(keys).error();
    if (multikey) def.multikey = true;
    if (keys->empty()) continue;
    const std::string id_key(it->key().ToStringView().substr(4));
    for (const auto& k : *keys) {
      if (def.spec.unique) {
        auto [at, fresh] = unique.emplace(k, id_key);
        if (!fresh && at->second != id_key) return duplicate_key(def, c.name, *doc);
      }
      if (auto p = w.batch().put(s.idx, entry_key(def, k, id_key), id_key); !p) return p;
      ++out.keys;
    }
    ++out.documents_indexed;
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return poll(control, seen, seen);
}

}  // namespace

namespace detail {

result<std::uint32_t> read_next_index_id(const store::impl& s) {
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.meta, slice(k_meta_next_index), &bytes);
  if (st.IsNotFound()) return std::uint32_t{1};
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto v = get_u32(bytes);
  if (!v) return make_error("corrupt next_index_id in store `" + s.path + "`", failure_kind::corrupt);
  return *v;
}

result<store::create_index_result> stage_index(write_session& w, const catalog_entry& entry,
                                               bool fresh, store::index_spec spec, bool named,
                                               std::uint32_t& next_id, const scan_control& control) {
  const store::impl& s = w.target();
  store::create_index_result out;
  out.name = spec.name;
  if (!fresh) {
    auto defs = read_index_defs(s, rocksdb::ReadOptions(), entry.id);
    if (!defs) return std::move(defs).error();
    for (const auto& d : *defs) {
      const bool same = same_definition(d.spec, spec);
      if (d.spec.name == spec.name) {
        if (same) return out;  // idempotent
        return make_error("index name " + quoted_name(spec.name) + " of " + quoted_name(entry.name) +
                          " is already used by a different definition (key " + to_json(spec_key_document(d.spec)) +
                          (d.spec.unique ? ", unique" : "") + "); drop it first or choose another name", failure_kind::conflict);
      }
      if (same) {
        if (!named) {
          out.name = d.spec.name;
          return out;
        }
        return make_error("the same index already exists in " + quoted_name(entry.name) + " as " +
                          quoted_name(d.spec.name) + "; an index definition has one name", failure_kind::conflict);
      }
    }
  }
  if (next_id >= 0xfffffffeU) return make_error("store `" + s.path + "` has run out of index ids");
  index_def def;
  def.spec = std::move(spec);
  def.id = next_id;
  if (def.spec.partial_filter) {
    auto f = filter::compile(*def.spec.partial_filter);
    if (!f) return make_error("partialFilter: " + f.error().message, f.error().kind);
    def.partial = std::make_shared<const filter>(std::move(*f));
  }
  if (!fresh) {
    if (auto b = build_entries(w, entry, def, control, out); !b) return std::move(b).error();
  }
  auto bytes = encode_index_def(def);
  if (!bytes) return std::move(bytes).error();
  if (auto p = w.batch().put(s.meta, index_def_key(entry.id, def.spec.name), *bytes); !p) return std::move(p).error();
  ++next_id;
  std::string next;
  put_u32(next, next_id);
  if (auto p = w.batch().put(s.meta, k_meta_next_index, next); !p) return std::move(p).error();
  out.created = true;
  return out;
}

}  // namespace detail

result<store::create_index_result> store::create_index(std::string_view collection, index_spec spec,
                                                       const scan_control& control) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  const bool named = !spec.name.empty();
  if (auto v = normalize_spec(spec); !v) return std::move(v).error();
  write_session w(*impl_, control);
  auto entry = w.collection(collection, true);
  if (!entry) return std::move(entry).error();
  const bool fresh = w.created(**entry);
  auto next_id = read_next_index_id(*impl_);
  if (!next_id) return std::move(next_id).error();
  auto out = stage_index(w, **entry, fresh, std::move(spec), named, *next_id, control);
  if (!out) return std::move(out).error();
  if (!out->created) return out;
  out->collection_created = fresh;
  if (auto c = w.commit(); !c) return std::move(c).error();
  return out;
}

result<std::vector<store::index_info>> store::list_indexes(std::string_view collection) const {
  read_view view(*impl_);
  auto entry = view.existing(collection);
  if (!entry) return std::move(entry).error();
  std::vector<index_info> out;
  auto defs = read_index_defs(*impl_, view.options(), entry->id);
  if (!defs) return std::move(defs).error();
  for (auto& d : *defs) out.push_back(index_info{std::move(d.spec), d.multikey});
  return out;
}

status store::drop_index(std::string_view collection, std::string_view name) {
  write_session w(*impl_);
  auto found = w.existing(collection);
  if (!found) return std::move(found).error();
  const catalog_entry& c = **found;
  auto defs = read_index_defs(*impl_, rocksdb::ReadOptions(), c.id);
  if (!defs) return std::move(defs).error();
  std::vector<std::string> names;
  for (const auto& d : *defs) {
    if (d.spec.name != name) {
      names.push_back(d.spec.name);
      continue;
    }
    if (auto x = w.batch().del(impl_->meta, index_def_key(c.id, name)); !x) return x;
    if (auto x = w.batch().del_range(impl_->idx, idx_prefix(d.id), idx_prefix(d.id + 1)); !x) return x;
    return w.commit();
  }
  if (name == "_id_") return make_error("the `_id_` index cannot be dropped");
  std::string message = "no index " + quoted_name(name) + " in " + quoted_name(collection);
  if (auto hint = closest_name(name, names); !hint.empty()) message += "; did you mean " + quoted_name(hint) + "?";
  if (names.empty()) message += " (it has no secondary indexes)";
  return make_error(std::move(message), failure_kind::not_found);
}

}  // namespace omgdb::engine
