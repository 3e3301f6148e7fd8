// omgdb engine — insert, insert_many, replace, remove, create_collection, drop_collection.
//
// Every call is one write_session (write_session.hpp): it validates everything first, builds
// the session's one batch (documents + counters + catalog + op-log) and commits it with
// sync = true. Any error before the commit leaves the database untouched.
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

failure at_index(std::size_t i, failure f) {
  return make_error("document " + std::to_string(i) + ": " + f.message, f.kind);
}

// The core of insert and insert_many: all documents or none.
result<std::vector<value>> insert_all(store::impl& s, std::string_view collection,
                                      std::vector<document>& docs, bool many,
                                      const scan_control& control) {
  write_session w(s, control);
  w.no_read_back();  // one step: only duplicate `_id`s are looked up among its own writes
  auto entry = w.collection(collection, true);
  if (!entry) return std::move(entry).error();
  std::vector<value> ids;
  ids.reserve(docs.size());
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i % k_poll_every == 0 && i != 0) {
      if (auto p = poll(control, i, docs.size()); !p) return std::move(p).error();
    }
    auto id = w.insert(**entry, std::move(docs[i]));
    if (!id) return many ? at_index(i, std::move(id).error()) : std::move(id).error();
    ids.push_back(std::move(*id));
  }
  if (auto p = poll(control, docs.size(), docs.size()); !p) return std::move(p).error();
  if (auto c = w.commit(); !c) return std::move(c).error();
  return ids;
}

}  // namespace

namespace detail {

result<bool> replace_document(write_session& w, const catalog_entry& c, const session_doc& old,
                              const document& doc) {
  // The stored `_id` stays (with its stored type); the replacement may repeat an equal one.
  const value* kept = find_field(old.doc, "_id");
  if (kept == nullptr) return corrupt_document(c.name, std::string_view(old.key).substr(4), make_error("no _id"));
  document next;
  next.reserve(doc.size() + 1);
  next.push_back(field{"_id", *kept});
  for (const auto& f : doc) {
    if (f.name == "_id") {
      if (!equal(f.val, *kept)) return make_error("_id is immutable");
      continue;
    }
    next.push_back(f);
  }
  return w.overwrite(c, old, next, "replace");
}

}  // namespace detail

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
  write_session w(*impl_);
  auto found = w.collection(collection, false);
  if (!found) return std::move(found).error();
  if (*found == nullptr) return replace_outcome{};
  auto old = w.get(**found, id);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return replace_outcome{};
  auto written = replace_document(w, **found, **old, doc);
  if (!written) return std::move(written).error();
  if (!*written) return replace_outcome{1, 0};  // unchanged: nothing to write
  if (auto c = w.commit(); !c) return std::move(c).error();
  return replace_outcome{1, 1};
}

result<std::uint64_t> store::remove(std::string_view collection, const value& id) {
  write_session w(*impl_);
  auto found = w.collection(collection, false);
  if (!found) return std::move(found).error();
  if (*found == nullptr) return std::uint64_t{0};
  auto old = w.get(**found, id);
  if (!old) return std::move(old).error();
  if (!old->has_value()) return std::uint64_t{0};
  if (auto r = w.remove(**found, **old); !r) return std::move(r).error();
  if (auto c = w.commit(); !c) return std::move(c).error();
  return std::uint64_t{1};
}

result<bool> store::create_collection(std::string_view collection) {
  write_session w(*impl_);
  auto c = w.collection(collection, true);
  if (!c) return std::move(c).error();
  if (!w.created(**c)) return false;
  if (auto cm = w.commit(); !cm) return std::move(cm).error();
  return true;
}

result<std::uint64_t> store::drop_collection(std::string_view collection) {
  write_session w(*impl_);
  w.allow_vectors();  // dropping `C.__vectors` (derived data vsync rebuilds) is the one write allowed on it
  auto found = w.existing(collection);
  if (!found) return std::move(found).error();
  const std::uint64_t documents = (**found).documents;
  if (auto d = w.drop(**found); !d) return std::move(d).error();
  if (auto c = w.commit(); !c) return std::move(c).error();
  return documents;
}

}  // namespace omgdb::engine
