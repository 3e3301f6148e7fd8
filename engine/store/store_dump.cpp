// omgdb engine — the deterministic canonical export.
//
// Everything is read under one snapshot, so each header's count matches the documents that
// follow it. Collections come in name (byte) order, documents in keystring(_id) order, and
// documents keep their stored field order: the same data always dumps to the same bytes,
// whatever order it was inserted in and whatever collection ids it was given.
#include "common/json.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

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
    line.append(",\"count\":").append(std::to_string(e.documents)).append("}");
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
