// omgdb search — search_index_status and verify's report of the generations. Neither builds,
// catches up nor removes anything.
#include "engine/bson/bson_codec.hpp"
#include "engine/search/index.hpp"
#include "engine/search/search_verify.hpp"
#include "engine/vector/vector_search.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;
using namespace detail;

namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

value opt_int(std::optional<std::int64_t> v) { return v ? value(*v) : value(); }

// The documents and the content hash of the collection as the definition indexes it.
result<std::pair<std::uint64_t, std::uint64_t>> expected_rows(const store::impl& s, const rocksdb::ReadOptions& base,
                                                              const definition& d) {
  OMGDB_TRY(entry, s.lookup(base, d.collection, false));
  std::uint64_t rows = 0, hash = 0;
  if (!entry) return std::make_pair(rows, hash);
  const std::string prefix = docs_prefix(entry->id);
  const std::string upper_key = docs_prefix(entry->id + 1);
  rocksdb::Slice upper(upper_key);
  rocksdb::ReadOptions ro = base;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.docs));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto doc = from_bson(it->value().ToStringView());
    if (!doc) return corrupt_document(d.collection, it->key().ToStringView().substr(4), doc.error());
    hash += generation::row_hash(it->key().ToString().substr(4), *doc, d);
    ++rows;
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return std::make_pair(rows, hash);
}

store::verify_cache check_one(manager::impl& m, const rocksdb::ReadOptions& ro, const definition& d, std::uint64_t last) {
  store::verify_cache c;
  c.kind = "search";
  c.collection = d.collection;
  c.name = d.name;
  auto exp = expected_rows(m.s, ro, d);
  if (exp) c.expected = exp->first;
  const fs::path where = m.dir(d.collection, d.name);
  const std::uint64_t cur = manager::impl::current(where);
  const std::string repair = "; rebuild_search_index rebuilds it (a search does too)";
  if (cur == 0) {
    c.state = "missing";
    c.detail = "no generation has been built" + repair;
    return c;
  }
  auto g = generation::open(manager::impl::gen_file(where, cur));
  if (!g) {
    c.state = g.error().kind == failure_kind::not_found ? "missing" : "corrupt";
    c.detail = g.error().message + repair;
    return c;
  }
  generation& gen = **g;
  c.built_through = gen.applied_seq();
  auto rows = gen.rows();
  if (rows) c.indexed = *rows;
  if (auto i = gen.integrity(); !i || !rows) {
    c.state = "corrupt";
    c.detail = (!rows ? rows.error().message : i.error().message) + repair;
    return c;
  }
  if (gen.definition_version() != d.version) {
    c.state = "definitionMismatch";
    c.detail = "built for definition version " + std::to_string(gen.definition_version()) + ", the index is at version " +
               std::to_string(d.version) + repair;
    return c;
  }
  if (c.built_through < last) {
    c.state = "behind";
    c.detail = std::to_string(last - c.built_through) + " op-log records behind; the next search catches it up";
    return c;
  }
  auto hash = gen.content_hash();
  if (c.built_through == last && exp && hash && (exp->first != c.indexed || exp->second != *hash)) {
    c.state = "corrupt";
    c.detail = "its rows differ from the documents (" + std::to_string(c.indexed) + " rows, " + std::to_string(exp->first) +
               " documents, or the indexed text differs)" + repair;
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
    out.push_back(check_one(mi, ro, *d, last ? *last : 0));
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
        gen_doc = document{{"id", i64(cur)},
                           {"file", gen.file().string()},
                           {"fileBytes", i64(ec ? 0 : bytes)},
                           {"definitionVersion", i64(gen.definition_version())},
                           {"builtThroughSeq", i64(applied)},
                           {"lastSeq", i64(last)},
                           {"lag", i64(last > applied ? last - applied : 0)},
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
