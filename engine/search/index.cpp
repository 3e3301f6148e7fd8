// omgdb search — the manager: per-store state, files, orphan cleanup (at the first write:
// define, drop, rebuild or a search, never verify or status), definitions (define and drop
// through the one write path).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "engine/search/index.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;
using namespace detail;

namespace {

std::mutex g_mu;
std::map<const store::impl*, std::shared_ptr<manager>> g_managers;

std::string encode_part(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 15]);
    }
  }
  return out;
}

std::string session_of(const store::impl& s) {
  std::string id;
  return s.db->GetDbSessionId(id).ok() ? id : std::string();
}

}  // namespace

status sync_path(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open `" + p.string() + "` to sync it", failure_kind::io);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return make_error("cannot sync `" + p.string() + "`", failure_kind::io);
  return {};
}

result<std::uint64_t> last_seq(const store::impl& s, const rocksdb::ReadOptions& ro) {
  std::string bytes;
  auto st = s.db->Get(ro, s.meta, slice(k_meta_last_seq), &bytes);
  if (st.IsNotFound()) return std::uint64_t{0};
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto n = get_u64(bytes);
  if (!n) return make_error("store `" + s.path + "` has a corrupt `oplog_last_seq`", failure_kind::corrupt);
  return *n;
}

manager::impl::impl(store::impl& st) : s(st), root(fs::path(st.path) / "search") {
  session = session_of(st);
}

manager::manager(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
manager::~manager() = default;

std::shared_ptr<manager> manager::of(store& s) {
  auto m = of(store_access::of(s));
  std::lock_guard lock(g_mu);
  m->impl_->owner = &s;
  return m;
}

std::shared_ptr<manager> manager::of(const store::impl& s) {
  std::lock_guard lock(g_mu);
  auto& m = g_managers[&s];
  const fs::path root = fs::path(s.path) / "search";
  // A store reopened at the same address is another open database: its session id differs.
  if (!m || m->impl_->root != root || m->impl_->session != session_of(s)) {
    // Leftover files are removed by the first write (clean_orphans_once), never here: verify
    // and search_index_status reach the manager too, and they remove nothing.
    m = std::make_shared<manager>(std::make_unique<impl>(const_cast<store::impl&>(s)));
  }
  return m;
}

fs::path manager::impl::dir(std::string_view collection, std::string_view name) const {
  return root / (encode_part(collection) + "." + std::string(name));
}

fs::path manager::impl::gen_file(const fs::path& dir, std::uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen-%06llu.sqlite", static_cast<unsigned long long>(id));
  return dir / buf;
}

std::uint64_t manager::impl::current(const fs::path& dir) {
  std::ifstream in(dir / "CURRENT");
  std::uint64_t id = 0;
  if (!(in >> id)) return 0;
  return id;
}

std::shared_ptr<index_state> manager::impl::state(const definition& d) {
  std::lock_guard lock(mu);
  auto& st = states[meta_key(d.collection, d.name)];
  if (!st) st = std::make_shared<index_state>();
  return st;
}

namespace {

// (collection, name) of an index directory's name (dir() inverted); nullopt when it is not one.
std::optional<std::pair<std::string, std::string>> parse_dir_name(std::string_view n) {
  const auto dot = n.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == n.size()) return std::nullopt;
  std::string collection;
  for (std::size_t i = 0; i < dot; ++i) {
    if (n[i] != '%') {
      collection.push_back(n[i]);
      continue;
    }
    if (i + 2 >= dot) return std::nullopt;
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    const int hi = hex(n[i + 1]), lo = hex(n[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    collection.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return std::make_pair(std::move(collection), std::string(n.substr(dot + 1)));
}

}  // namespace

void manager::impl::clean_orphans_once() {
  {
    std::lock_guard lock(mu);
    if (orphans_cleaned) return;
    orphans_cleaned = true;
  }
  clean_orphans();
}

void manager::impl::clean_orphans() {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory(ec)) dirs.push_back(entry.path());
  }
  for (const auto& where : dirs) {
    auto key = parse_dir_name(where.filename().string());
    if (!key || dir(key->first, key->second) != where) {
      fs::remove_all(where, ec);  // not a directory omgdb names
      continue;
    }
    // Under the index's own lock, as every build and drop holds it: a build running now (it
    // holds the lock) is skipped, and it removes its own leftovers when it installs.
    definition d;
    d.collection = key->first;
    d.name = key->second;
    auto st = state(d);
    std::unique_lock lock(st->mu, std::try_to_lock);
    if (!lock.owns_lock()) continue;
    auto defined = read_definition(d.collection, d.name);
    if (!defined) continue;  // unreadable: leave the files alone
    if (!defined->has_value()) {
      st->open.reset();
      st->open_id = 0;
      fs::remove_all(where, ec);
      continue;
    }
    const std::uint64_t cur = current(where);
    const std::string keep = gen_file(where, cur).filename().string();
    for (const auto& f : fs::directory_iterator(where, ec)) {
      const std::string n = f.path().filename().string();
      if (n == "CURRENT" || (cur != 0 && (n == keep || n == keep + "-journal"))) continue;
      fs::remove(f.path(), ec);
    }
  }
}

result<std::optional<definition>> manager::impl::read_definition(std::string_view collection, std::string_view name) const {
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.meta, meta_key(collection, name), &bytes);
  if (st.IsNotFound()) return std::optional<definition>();
  if (!st.ok()) return storage_error(s.path, "read", st);
  OMGDB_TRY(d, decode_definition(bytes));
  return std::optional<definition>(std::move(d));
}

result<std::vector<definition>> manager::impl::definitions(std::string_view collection) const {
  std::vector<definition> out;
  std::string prefix = meta_key(collection, "");
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.meta));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    OMGDB_TRY(d, decode_definition(it->value().ToStringView()));
    out.push_back(std::move(d));
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return out;
}

failure manager::impl::unknown_index(std::string_view collection, std::string_view name) const {
  std::string msg = "no search index " + quoted_name(name) + " on collection " + quoted_name(collection);
  auto defs = definitions(collection);
  if (defs && !defs->empty()) {
    std::vector<std::string> names;
    for (const auto& d : *defs) names.push_back(d.name);
    const std::string near = closest_name(name, names);
    if (!near.empty()) msg += "; did you mean " + quoted_name(near) + "?";
    msg += " (its indexes:";
    for (const auto& n : names) msg += " " + quoted_name(n);
    msg += ")";
  } else {
    msg += " (it has none; define_search_index creates one)";
  }
  return make_error(msg, failure_kind::not_found);
}

result<define_result> manager::define(const document& spec, const scan_control& control) {
  OMGDB_TRY(d, parse_definition(spec));
  impl_->clean_orphans_once();
  define_result out;
  {
    write_session w(impl_->s, control);
    OMGDB_TRY(c, w.collection(d.collection, true));
    (void)c;
    OMGDB_TRY(old, impl_->read_definition(d.collection, d.name));
    out.created = !old.has_value();
    if (old && same_shape(*old, d)) {
      out.def = *old;
      out.changed = false;
    } else {
      const std::string before = old ? encode(*old) : std::string();
      d.version = old ? old->version + 1 : 1;
      d.seq = w.last_seq() + 1;  // the record logged next
      const std::string bytes = encode(d);
      OMGDB_CHECK(w.batch().put(impl_->s.meta, meta_key(d.collection, d.name), bytes));
      OMGDB_CHECK(w.log("define_search_index", d.collection, nullptr, before, bytes));
      OMGDB_CHECK(w.commit());
      out.def = d;
      out.changed = true;
    }
  }
  auto st = impl_->state(out.def);
  std::lock_guard lock(st->mu);
  auto g = impl_->current_generation(out.def, *st);
  if (g && *g != nullptr && (*g)->definition_version() == out.def.version) {
    out.built = true;
    return out;
  }
  auto built = impl_->build(out.def, *st, k_default_writer_memory, control);
  out.built = static_cast<bool>(built);
  if (!built) out.build_error = built.error().message;
  return out;
}

status manager::drop(std::string_view collection, std::string_view name) {
  impl_->clean_orphans_once();
  {
    write_session w(impl_->s);
    OMGDB_TRY(old, impl_->read_definition(collection, name));
    if (!old) return impl_->unknown_index(collection, name);
    OMGDB_CHECK(w.batch().del(impl_->s.meta, meta_key(collection, name)));
    OMGDB_CHECK(w.log("drop_search_index", collection, nullptr, encode(*old), {}));
    OMGDB_CHECK(w.commit());
  }
  definition key;
  key.collection = std::string(collection);
  key.name = std::string(name);
  auto st = impl_->state(key);
  std::lock_guard lock(st->mu);
  st->open.reset();
  st->open_id = 0;
  std::error_code ec;
  fs::remove_all(impl_->dir(collection, name), ec);  // a crash here leaves an orphan, removed at the next open
  return {};
}

result<build_report> manager::rebuild(std::string_view collection, std::string_view name, std::uint64_t writer_memory,
                                      const scan_control& control) {
  OMGDB_TRY(d, impl_->read_definition(collection, name));
  if (!d) return impl_->unknown_index(collection, name);
  impl_->clean_orphans_once();
  auto st = impl_->state(*d);
  std::lock_guard lock(st->mu);
  return impl_->build(*d, *st, writer_memory, control);
}

result<generation*> manager::impl::current_generation(const definition& d, index_state& st) {
  const fs::path where = dir(d.collection, d.name);
  const std::uint64_t cur = current(where);
  if (cur == 0) {
    st.open.reset();
    st.open_id = 0;
    return static_cast<generation*>(nullptr);
  }
  const fs::path file = gen_file(where, cur);
  std::error_code ec;
  // Reused only while nothing else changed the file (one stat): otherwise it is opened, and
  // so checked, again (page_check.hpp; a damaged file is refused and the search rebuilds).
  if (st.open && st.open_id == cur && st.open->file() == file && fs::exists(file, ec) &&
      st.open->unchanged_on_disk()) {
    return st.open.get();
  }
  st.open.reset();
  OMGDB_TRY(g, generation::open(file));
  st.open = std::move(g);
  st.open_id = cur;
  return st.open.get();
}

}  // namespace omgdb::engine::search
