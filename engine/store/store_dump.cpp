// omgdb engine — the deterministic canonical export.
//
// Everything is read under one snapshot, so each header's count matches the documents that
// follow it. Collections come in name (byte) order, documents in keystring(_id) order, and
// documents keep their stored field order: the same data always dumps to the same bytes,
// whatever order it was inserted in and whatever collection ids it was given.
#include "common/json.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

// The header's `indexes` (name order, canonical Extended JSON: name, key, unique when set,
// partialFilterExpression when set) and `rules` (the spec as defined), each only when the
// collection has some: a header without them is the one older dumps wrote.
status append_definitions(const store::impl& s, const rocksdb::ReadOptions& ro, std::uint32_t id, std::string& line) {
  auto defs = read_index_defs_uncached(s, ro, id);
  if (!defs) return std::move(defs).error();
  if (!defs->empty()) {
    array list;
    for (const auto& d : *defs) {
      document one;
      one.push_back(field{"name", value(d.spec.name)});
      one.push_back(field{"key", value(spec_key_document(d.spec))});
      if (d.spec.unique) one.push_back(field{"unique", value(true)});
      if (d.spec.partial_filter) one.push_back(field{"partialFilterExpression", value(*d.spec.partial_filter)});
      list.push_back(value(std::move(one)));
    }
    line.append(",\"indexes\":");
    append_json(line, value(std::move(list)), ejson_mode::canonical);
  }
  std::string rules;
  auto st = s.db->Get(ro, s.meta, slice(rules_key(id)), &rules);
  if (st.IsNotFound()) return {};
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto spec = from_bson(rules);
  if (!spec) return make_error("corrupt validation rules of collection id " + std::to_string(id) + ": " + spec.error().message);
  line.append(",\"rules\":");
  append_json(line, *spec, ejson_mode::canonical);
  return {};
}

}  // namespace

status store::dump(const std::function<bool(std::string_view line)>& sink,
                   const scan_control& control) const {
  const auto& s = *impl_;
  read_view view(s);
  const auto ro = view.options();
  auto listed = view.catalog();
  if (!listed) return std::move(listed).error();
  std::uint64_t done = 0;
  std::string line;
  for (const auto& e : listed->collections) {
    line.assign("{\"collection\":");
    json::append_quoted(line, e.name);
    line.append(",\"count\":").append(std::to_string(e.documents));
    if (auto extra = append_definitions(s, ro, e.id, line); !extra) return extra;
    line.append("}");
    if (!sink(line)) return {};

    std::string upper = docs_prefix(e.id + 1);
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions scan = ro;
    scan.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(scan, s.docs));
    for (it->Seek(docs_prefix(e.id)); it->Valid(); it->Next()) {
      if (done % k_poll_every == 0) {
        if (auto p = poll(control, done, listed->documents); !p) return p;
      }
      ++done;
      auto doc = from_bson(it->value().ToStringView());
      if (!doc) return corrupt_document(e.name, it->key().ToStringView().substr(4), doc.error());
      line.clear();
      append_json(line, *doc, ejson_mode::canonical);
      if (!sink(line)) return {};
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  }
  if (control.progress) control.progress(done, listed->documents);
  return {};
}

}  // namespace omgdb::engine
