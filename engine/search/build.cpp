// omgdb search — catching a generation up from the op-log, and building a new one.
//
// Build: under one RocksDB snapshot (at op-log seq S) every document of the collection goes
// into a temporary file `gen-N.sqlite.tmp`, committed every `writerMemoryBytes` of indexed
// text; then the file is caught up from the op-log (S, last], checked (FTS5 integrity-check,
// SQLite quick_check, rows and content hash at S against the snapshot), fsynced, renamed to
// `gen-N.sqlite`, the directory fsynced, and CURRENT flipped by writing CURRENT.tmp, fsync,
// rename, fsync of the directory. A crash anywhere before the last rename leaves CURRENT
// naming the previous generation; the leftovers are orphans, removed by the next build of
// that index or by the first define, drop, rebuild or search after the store opens
// (clean_orphans_once); verify only reports them.
#include <bson/bson.h>

#include <fstream>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "engine/search/index.hpp"
#include "engine/search/page_check.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;
using namespace detail;

namespace {

struct record_fields {
  std::string op, collection;
  bool has_id = false;
  value id;
  std::string after;
};

bool parse(std::string_view bytes, record_fields& out) {
  bson_iter_t it;
  if (bytes.size() < 5 || !bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) {
    return false;
  }
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if ((key == "op" || key == "collection") && BSON_ITER_HOLDS_UTF8(&it)) {
      std::uint32_t len = 0;
      const char* text = bson_iter_utf8(&it, &len);
      (key == "op" ? out.op : out.collection).assign(text, len);
    }
  }
  out.has_id = bson_get_field(bytes, "_id", out.id);
  return oplog_after(bytes, out.after);
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::int64_t now_millis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

status write_current(const fs::path& dir, std::uint64_t id) {
  const fs::path tmp = dir / "CURRENT.tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << id << "\n";
    out.flush();
    if (!out) return make_error("cannot write `" + tmp.string() + "`", failure_kind::io);
  }
  OMGDB_CHECK(sync_path(tmp));
  std::error_code ec;
  fs::rename(tmp, dir / "CURRENT", ec);
  if (ec) return make_error("cannot install `" + (dir / "CURRENT").string() + "`: " + ec.message(), failure_kind::io);
  return sync_path(dir);
}

}  // namespace

result<catch_up_report> manager::impl::catch_up(generation& g, const definition& d, std::optional<clock::time_point> deadline,
                                                std::uint64_t commit_every) {
  if (commit_every == 0) commit_every = catch_up_commit_every;
  catch_up_report rep;
  rep.from = rep.to = g.applied_seq();
  snapshot_guard snap(s.db);
  auto ro = snap.read_options();
  OMGDB_TRY(last, last_seq(s, ro));
  rep.last_seq = last;
  if (last <= rep.from) return rep;
  const std::string upper_key = oplog_key(last + 1);
  rocksdb::Slice upper(upper_key);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.oplog));
  it->Seek(oplog_key(rep.from + 1));
  if (!it->Valid() || get_u64(it->key().ToStringView()) != rep.from + 1) {
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
    rep.needs_rebuild = true;
    rep.complete = false;
    return rep;
  }
  OMGDB_CHECK(g.begin());
  std::uint64_t in_txn = 0;
  auto fail = [&](failure f) -> failure {
    g.rollback();
    return f;
  };
  for (; it->Valid(); it->Next()) {
    if (deadline && rep.records % 64 == 0 && rep.records > 0 && clock::now() >= *deadline) {
      rep.complete = false;
      break;
    }
    const auto seq = get_u64(it->key().ToStringView());
    if (!seq) return fail(make_error("op-log key " + hex(it->key().ToStringView()) + " is not a sequence number", failure_kind::corrupt));
    record_fields r;
    if (!parse(it->value().ToStringView(), r)) {
      return fail(make_error("op-log record seq " + std::to_string(*seq) + " is corrupt", failure_kind::corrupt));
    }
    ++rep.records;
    if (r.collection == d.collection) {
      if (r.op == "drop_collection") {
        if (auto st = g.clear(); !st) return fail(st.error());
      } else if (r.has_id && !r.after.empty()) {
        auto doc = from_bson(r.after);
        if (!doc) return fail(make_error("op-log record seq " + std::to_string(*seq) + ": " + doc.error().message, failure_kind::corrupt));
        if (auto up = g.upsert(encode_key(r.id), r.id, *doc, d); !up) return fail(up.error());
      } else if (r.has_id) {
        if (auto st = g.remove(encode_key(r.id)); !st) return fail(st.error());
      }
    }
    rep.to = *seq;
    if (++in_txn >= commit_every) {
      if (auto st = g.set_state("appliedSeq", static_cast<std::int64_t>(rep.to)); !st) return fail(st.error());
      OMGDB_CHECK(g.commit());
      if (s.fault) s.fault("search_catch_up");
      OMGDB_CHECK(g.begin());
      in_txn = 0;
    }
  }
  if (!it->status().ok()) return fail(storage_error(s.path, "read", it->status()));
  if (auto st = g.set_state("appliedSeq", static_cast<std::int64_t>(rep.to)); !st) return fail(st.error());
  OMGDB_CHECK(g.commit());
  if (rep.to < last) rep.complete = false;
  return rep;
}

result<build_report> manager::impl::build(const definition& d, index_state& st, std::uint64_t writer_memory,
                                          const scan_control& control) {
  const auto started = clock::now();
  st.rebuild = "running";
  st.progress_done = st.progress_total = 0;
  auto failed = [&](failure f) -> failure {
    st.rebuild = "failed";
    st.last_error = f.message;
    return f;
  };
  const fs::path where = dir(d.collection, d.name);
  std::error_code ec;
  fs::create_directories(where, ec);
  if (ec) return failed(make_error("cannot create `" + where.string() + "`: " + ec.message(), failure_kind::io));
  std::uint64_t id = current(where) + 1;
  while (fs::exists(gen_file(where, id), ec)) ++id;
  const fs::path final_file = gen_file(where, id);
  const fs::path tmp = final_file.string() + ".tmp";
  fs::remove(tmp, ec);
  build_report rep;
  rep.generation = id;
  std::uint64_t expected_hash = 0, expected_rows = 0;
  {
    auto created = generation::create(tmp, d);
    if (!created) return failed(created.error());
    auto& g = **created;
    {
      snapshot_guard snap(s.db);
      auto ro = snap.read_options();
      auto seq = last_seq(s, ro);
      if (!seq) return failed(seq.error());
      rep.snapshot_seq = *seq;
      auto entry = s.lookup(ro, d.collection);
      if (!entry) return failed(entry.error());
      if (auto b = g.begin(); !b) return failed(b.error());
      std::uint64_t pending = 0;
      if (entry->has_value()) {
        st.progress_total = (*entry)->documents;
        const std::string prefix = docs_prefix((*entry)->id);
        const std::string upper_key = docs_prefix((*entry)->id + 1);
        rocksdb::Slice upper(upper_key);
        ro.iterate_upper_bound = &upper;
        std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.docs));
        for (it->Seek(prefix); it->Valid(); it->Next()) {
          if (expected_rows % k_poll_every == 0) {
            if (auto p = poll(control, expected_rows, st.progress_total); !p) return failed(p.error());
          }
          const std::string idkey = it->key().ToString().substr(4);
          auto doc = from_bson(it->value().ToStringView());
          if (!doc) return failed(corrupt_document(d.collection, idkey, doc.error()));
          value docid;
          if (!doc->empty() && doc->front().name == "_id") docid = doc->front().val;
          std::uint64_t row = 0;
          auto bytes = g.insert_new(idkey, docid, *doc, d, row);
          if (!bytes) return failed(bytes.error());
          expected_hash += row;
          ++expected_rows;
          pending += *bytes;
          st.progress_done = expected_rows;
          if (pending >= writer_memory) {
            if (auto c = g.commit(); !c) return failed(c.error());
            if (auto b = g.begin(); !b) return failed(b.error());
            ++rep.commits;
            pending = 0;
          }
        }
        if (!it->status().ok()) return failed(storage_error(s.path, "read", it->status()));
      }
      if (auto x = g.set_state("appliedSeq", static_cast<std::int64_t>(rep.snapshot_seq)); !x) return failed(x.error());
      if (auto x = g.set_state("snapshotSeq", static_cast<std::int64_t>(rep.snapshot_seq)); !x) return failed(x.error());
      if (auto x = g.set_state("snapshotRows", static_cast<std::int64_t>(expected_rows)); !x) return failed(x.error());
      if (auto x = g.set_state("snapshotHash", static_cast<std::int64_t>(expected_hash)); !x) return failed(x.error());
      if (auto x = g.set_state("createdMillis", now_millis()); !x) return failed(x.error());
      if (auto c = g.commit(); !c) return failed(c.error());
      ++rep.commits;
    }
    // The checks against the snapshot, before anything newer is applied.
    auto rows = g.rows();
    if (!rows) return failed(rows.error());
    auto hash = g.content_hash();
    if (!hash) return failed(hash.error());
    if (*rows != expected_rows || *hash != expected_hash) {
      return failed(make_error("the new search generation of " + quoted_name(d.name) + " holds " + std::to_string(*rows) +
                                   " rows (content hash " + hex64(*hash) + ") but the collection had " +
                                   std::to_string(expected_rows) + " documents (hash " + hex64(expected_hash) + ")",
                               failure_kind::corrupt));
    }
    if (auto o = g.optimize(); !o) return failed(o.error());
    if (auto f = g.finish_build(); !f) return failed(f.error());
    auto up = catch_up(g, d, std::nullopt);
    if (!up) return failed(up.error());
    if (up->needs_rebuild) return failed(make_error("the op-log does not reach back to the build's snapshot"));
    if (auto i = g.integrity(); !i) return failed(i.error());
    if (auto x = g.set_state("verifiedMillis", now_millis()); !x) return failed(x.error());
    rep.built_through = up->to;
    auto after = g.rows();
    rep.documents = after ? *after : 0;
  }
  if (auto x = sync_path(tmp); !x) return failed(x.error());
  if (s.fault) s.fault("search_before_rename");
  fs::rename(tmp, final_file, ec);
  if (ec) return failed(make_error("cannot install `" + final_file.string() + "`: " + ec.message(), failure_kind::io));
  if (auto x = sync_path(where); !x) return failed(x.error());
  if (s.fault) s.fault("search_before_flip");
  if (auto x = write_current(where, id); !x) return failed(x.error());
  // The previous generation is no longer served: remove it (and anything else left over).
  const std::uint64_t old = st.open_id;
  st.open.reset();
  st.open_id = 0;
  for (const auto& f : fs::directory_iterator(where, ec)) {
    const std::string n = f.path().filename().string();
    if (n != "CURRENT" && n != final_file.filename().string()) {
      forget_damage(f.path());
      fs::remove(f.path(), ec);
    }
  }
  (void)old;
  rep.file_bytes = fs::file_size(final_file, ec);
  rep.content_hash = hex64(expected_hash);
  rep.millis = std::chrono::duration<double, std::milli>(clock::now() - started).count();
  st.rebuild = "idle";
  st.last_error.clear();
  return rep;
}

}  // namespace omgdb::engine::search
