// omgdb search — search_index_status and verify's report of the generations. Neither builds,
// catches up nor removes anything.
#include <bson/bson.h>

#include "engine/bson/bson_codec.hpp"
#include "engine/search/index.hpp"
#include "engine/search/page_check.hpp"
#include "engine/search/search_verify.hpp"
#include "engine/vector/vector_search.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;
using namespace detail;

namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// How far a generation built through `applied` is behind: the op-log records in (applied,
// last] that its catch-up would apply, i.e. those of its own collection (a document's write or
// the collection's drop). Other collections' records (another collection's writes, vsync's
// `C.__vectors`) never make an index stale. At most k_lag_scan_records are read.
struct lag_count {
  std::uint64_t records = 0;  // of the index's collection
  bool exact = true;          // false: the scan stopped at k_lag_scan_records (records is a floor)
};

bool changes_collection(std::string_view bytes, std::string_view collection) {
  bson_iter_t it;
  if (bytes.size() < 5 || !bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) {
    return true;  // unreadable: counted (catch-up reports it)
  }
  bool same = false, has_id = false, drop = false;
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if ((key == "collection" || key == "op") && BSON_ITER_HOLDS_UTF8(&it)) {
      std::uint32_t len = 0;
      const char* text = bson_iter_utf8(&it, &len);
      const std::string_view v(text, len);
      if (key == "collection") {
        same = v == collection;
        if (!same) return false;
      } else {
        drop = v == "drop_collection";
      }
    } else if (key == "_id") {
      has_id = true;
    }
  }
  return same && (has_id || drop);
}

result<lag_count> collection_lag(const store::impl& s, rocksdb::ReadOptions ro, std::string_view collection,
                                 std::uint64_t applied, std::uint64_t last) {
  lag_count out;
  if (last <= applied) return out;
  const std::string upper_key = oplog_key(last + 1);
  rocksdb::Slice upper(upper_key);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.oplog));
  std::uint64_t read = 0;
  for (it->Seek(oplog_key(applied + 1)); it->Valid(); it->Next()) {
    if (++read > k_lag_scan_records) {
      out.exact = false;
      break;
    }
    if (changes_collection(it->value().ToStringView(), collection)) ++out.records;
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return out;
}

std::string lag_words(const lag_count& lag) {
  return (lag.exact ? "" : "at least ") + std::to_string(lag.records) + " op-log records of its collection behind" +
         (lag.exact ? "" : " (the count stopped after " + std::to_string(k_lag_scan_records) + " op-log records)");
}

value opt_int(std::optional<std::int64_t> v) { return v ? value(*v) : value(); }

// The number of documents of the collection (what a search index would hold).
result<std::uint64_t> document_count(const store::impl& s, const rocksdb::ReadOptions& ro, const definition& d) {
  OMGDB_TRY(entry, s.lookup(ro, d.collection));
  return entry ? entry->documents : std::uint64_t{0};
}

// The collection's documents in key order as the definition indexes them (verify's side of
// the row check), read under `ro`.
class document_rows {
 public:
  document_rows(const store::impl& s, const rocksdb::ReadOptions& ro, const definition& d) : s_(s), d_(d), ro_(ro) {}
  status start() {
    OMGDB_TRY(entry, s_.lookup(ro_, d_.collection, false));
    if (!entry) return {};
    upper_key_ = docs_prefix(entry->id + 1);
    upper_ = rocksdb::Slice(upper_key_);
    ro_.iterate_upper_bound = &upper_;
    it_.reset(s_.db->NewIterator(ro_, s_.docs));
    it_->Seek(docs_prefix(entry->id));
    return {};
  }
  result<std::optional<generation::expected_row>> next() {
    if (!it_ || !it_->Valid()) {
      if (it_ && !it_->status().ok()) return storage_error(s_.path, "read", it_->status());
      return std::optional<generation::expected_row>();
    }
    generation::expected_row row;
    row.idkey = it_->key().ToString().substr(4);
    auto doc = from_bson(it_->value().ToStringView());
    if (!doc) return corrupt_document(d_.collection, row.idkey, doc.error());
    row.hash = generation::row_hash(row.idkey, *doc, d_);
    if (!doc->empty()) row.id = doc->front().val;
    it_->Next();
    return std::optional<generation::expected_row>(std::move(row));
  }

 private:
  const store::impl& s_;
  const definition& d_;
  rocksdb::ReadOptions ro_;
  std::string upper_key_;
  rocksdb::Slice upper_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// The full check of one generation (docs/search.md "verify"). A damaged generation is marked
// (in memory: page_check.hpp) and its open handle dropped, so no search answers from it again;
// nothing is written or removed.
store::verify_cache check_one(manager::impl& m, index_state& st, const rocksdb::ReadOptions& ro, const definition& d,
                              std::uint64_t last) {
  store::verify_cache c;
  c.kind = "search";
  c.collection = d.collection;
  c.name = d.name;
  if (auto n = document_count(m.s, ro, d)) c.expected = *n;
  const fs::path where = m.dir(d.collection, d.name);
  const std::uint64_t cur = manager::impl::current(where);
  const std::string repair = "; rebuild_search_index rebuilds it (a search does too)";
  if (cur == 0) {
    c.state = "missing";
    c.detail = "no generation has been built" + repair;
    return c;
  }
  const fs::path file = manager::impl::gen_file(where, cur);
  auto damaged = [&](const std::string& why, bool mark = true) {
    if (mark) mark_damaged(file, why);
    if (st.open_id == cur) {
      st.open.reset();
      st.open_id = 0;
    }
    c.state = "corrupt";
    c.detail = why.find("rebuild") == std::string::npos ? why + repair : why;
    return c;
  };
  bool old_format = false;
  auto g = generation::open(file, &old_format);
  if (!g) {
    if (old_format) {
      c.state = "outdated";
      c.detail = g.error().message;
      return c;
    }
    if (g.error().kind == failure_kind::not_found) {
      c.state = "missing";
      c.detail = g.error().message + repair;
      return c;
    }
    return damaged(g.error().message, g.error().kind == failure_kind::corrupt);
  }
  generation& gen = **g;
  c.built_through = gen.applied_seq();
  auto rows = gen.rows();
  if (rows) c.indexed = *rows;
  if (auto i = gen.integrity(); !i || !rows) return damaged(!rows ? rows.error().message : i.error().message);
  const bool definition_matches = gen.definition_version() == d.version;
  lag_count lag;
  if (c.built_through < last) {
    auto counted = collection_lag(m.s, ro, d.collection, c.built_through, last);
    if (!counted) return damaged(counted.error().message, false);
    lag = *counted;
  }
  const bool current = c.built_through >= last || (lag.exact && lag.records == 0);
  // Rows against the documents when the generation is exactly as of this snapshot (built
  // through it, or behind only by other collections' records); otherwise (behind, ahead,
  // another definition) the row map against its own full-text rows only.
  document_rows docs(m.s, ro, d);
  generation::document_source source = [&docs] { return docs.next(); };
  const bool against_documents = definition_matches && c.built_through <= last && current;
  if (against_documents) {
    if (auto started = docs.start(); !started) return damaged(started.error().message);
  }
  auto checked = gen.check_rows(against_documents ? &source : nullptr);
  if (!checked) {
    if (checked.error().kind == failure_kind::cancelled || checked.error().kind == failure_kind::limit_exceeded) {
      c.state = "unchecked";
      c.detail = checked.error().message;
      return c;
    }
    return damaged(checked.error().message);
  }
  if (!checked->ok) {
    return damaged("its rows differ from " + std::string(against_documents ? "the documents" : "its full-text table") + ": " +
                   checked->why);
  }
  if (!definition_matches) {
    c.state = "definitionMismatch";
    c.detail = "built for definition version " + std::to_string(gen.definition_version()) + ", the index is at version " +
               std::to_string(d.version) + repair;
    return c;
  }
  if (c.built_through < m.s.trimmed_through.load()) {
    c.state = "behind";
    c.detail = "built through op-log seq " + std::to_string(c.built_through) + ", before the trimmed part of the op-log "
               "(the store's retention): the next search rebuilds it from the documents instead of catching up";
    return c;
  }
  if (!current) {
    c.state = "behind";
    c.detail = lag_words(lag) + "; the next search catches it up";
    return c;
  }
  c.state = "fresh";
  return c;
}

}  // namespace

void verify_caches(const store::impl& s, const rocksdb::ReadOptions& ro, std::vector<store::verify_cache>& out) {
  auto m = manager::of(s);
  auto& mi = m->internals();
  auto last = last_seq(s, ro);
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.meta));
  for (it->Seek(slice(k_meta_prefix)); it->Valid() && it->key().starts_with(slice(k_meta_prefix)); it->Next()) {
    auto d = decode_definition(it->value().ToStringView());
    if (!d) {
      store::verify_cache c;
      c.kind = "search";
      c.state = "corrupt";
      c.detail = d.error().message;
      out.push_back(std::move(c));
      continue;
    }
    auto st = mi.state(*d);
    std::lock_guard lock(st->mu);
    out.push_back(check_one(mi, *st, ro, *d, last ? *last : 0));
  }
}

result<std::vector<definition>> manager::definitions(std::string_view collection) const {
  return impl_->definitions(collection);
}

result<std::vector<document>> manager::index_status(std::string_view collection, std::optional<std::string_view> name) {
  std::vector<definition> defs;
  if (name) {
    OMGDB_TRY(d, impl_->read_definition(collection, *name));
    if (!d) return impl_->unknown_index(collection, *name);
    defs.push_back(std::move(*d));
  } else {
    OMGDB_TRY(all, impl_->definitions(collection));
    defs = std::move(all);
  }
  std::vector<document> out;
  rocksdb::ReadOptions ro;
  OMGDB_TRY(last, last_seq(impl_->s, ro));
  OMGDB_TRY(entry, impl_->s.lookup(ro, collection));
  const std::uint64_t documents = entry ? entry->documents : 0;
  for (const auto& d : defs) {
    // The semantic part's vectors (engine/vector): counts and the bound model's sha256, read
    // before the index's lock is taken (it scans the collection).
    value vectors;  // null: no semantic part
    value model_sha256;
    if (d.semantic && impl_->owner && d.semantic->fields.size() == 1) {
      auto v = vector::stale(*impl_->owner, d.collection, d.semantic->fields.front(), 0);
      if (v) {
        vectors = document{{"present", i64(v->fresh + v->stale)}, {"fresh", i64(v->fresh)},
                           {"stale", i64(v->stale)}, {"missing", i64(v->missing)}};
        if (v->bound) model_sha256 = v->bound->model_sha256;
      } else {
        vectors = document{{"error", v.error().message}};
      }
    }
    auto st = impl_->state(d);
    std::lock_guard lock(st->mu);
    const fs::path where = impl_->dir(d.collection, d.name);
    const std::uint64_t cur = impl::current(where);
    value gen_doc;  // null: no generation
    value indexed;
    document prov{{"definitionSeq", i64(d.seq)}, {"stemmer", d.language}};
    std::string gen_error;
    if (cur != 0) {
      auto g = impl_->current_generation(d, *st);
      if (!g) {
        gen_error = g.error().message;
      } else if (*g != nullptr) {
        generation& gen = **g;
        std::error_code ec;
        const auto bytes = fs::file_size(gen.file(), ec);
        const std::uint64_t applied = gen.applied_seq();
        lag_count lag;
        if (auto counted = collection_lag(impl_->s, ro, d.collection, applied, last)) {
          lag = *counted;
        } else {
          gen_error = counted.error().message;
        }
        gen_doc = document{{"id", i64(cur)},
                           {"file", gen.file().string()},
                           {"fileBytes", i64(ec ? 0 : bytes)},
                           {"definitionVersion", i64(gen.definition_version())},
                           {"builtThroughSeq", i64(applied)},
                           {"lastSeq", i64(last)},
                           {"lag", i64(lag.records)},
                           {"lagExact", lag.exact},
                           {"behindTrimmedOplog", applied < impl_->s.trimmed_through.load()},
                           {"createdMillis", opt_int(gen.state_int("createdMillis"))}};
        prov.push_back({"buildFromSeq", opt_int(gen.state_int("snapshotSeq"))});
        prov.push_back({"builtThroughSeq", i64(applied)});
        if (auto r = gen.rows()) indexed = i64(*r);
        prov.push_back({"lastVerifiedMillis", opt_int(gen.state_int("verifiedMillis"))});
      }
    }
    prov.push_back({"model", d.semantic ? value(document{{"name", d.semantic->model}, {"sha256", model_sha256}}) : value()});
    document rebuild{{"state", st->rebuild},
                     {"progress", document{{"done", i64(st->progress_done)}, {"total", i64(st->progress_total)}}},
                     {"lastError", st->last_error.empty() ? (gen_error.empty() ? value() : value(gen_error)) : value(st->last_error)}};
    out.push_back(document{{"name", d.name},
                           {"version", i64(d.version)},
                           {"definition", to_document(d)},
                           {"generation", std::move(gen_doc)},
                           {"provenance", std::move(prov)},
                           {"counts", document{{"documents", i64(documents)},
                                               {"indexed", std::move(indexed)},
                                               {"vectors", std::move(vectors)}}},
                           {"rebuild", std::move(rebuild)}});
  }
  return out;
}

}  // namespace omgdb::engine::search
