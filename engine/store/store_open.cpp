// omgdb engine — creating and opening stores: the lock file, column families, options.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "engine/store/process_defaults.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/store/store_recover.hpp"

namespace omgdb::engine {
namespace {

namespace fs = std::filesystem;
using namespace detail;

constexpr const char* k_cf_meta = "meta";
// One block cache for every store the process opens, so that its size stays bounded however
// many stores an agent touches (an upper bound, filled only by blocks actually read).
constexpr std::size_t k_block_cache_bytes = 64 << 20;
// 8 shards of 8 MiB. RocksDB's default for 64 MiB is 64 shards of 1 MiB, and a block larger
// than its shard is never kept: the filter block of an SST file of a million keys (1.25 MB) or
// its index block once compaction makes files of a few million keys was then read from the
// file again by every point read (docs/storage.md). Few threads read at once, so 8 mutexes
// are enough.
constexpr int k_block_cache_shard_bits = 3;
constexpr const char* k_cf_docs = "docs";
constexpr const char* k_cf_idx = "idx";
constexpr const char* k_cf_oplog = "oplog";

std::string quote(const std::string& path) { return "`" + path + "`"; }

const std::shared_ptr<rocksdb::Cache>& shared_block_cache() {
  static const std::shared_ptr<rocksdb::Cache> cache =
      rocksdb::NewLRUCache(k_block_cache_bytes, k_block_cache_shard_bits);
  return cache;
}

bool supports(rocksdb::CompressionType type) {
  auto all = rocksdb::GetSupportedCompressions();
  return std::find(all.begin(), all.end(), type) != all.end();
}

rocksdb::ColumnFamilyOptions family_options(const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions o;
  // Memtables grow only with writes; a large one means fewer flushes and less rewriting on
  // bulk loads. The store-wide cap (db_options) bounds all four families together. (Not one
  // budget for every store: RocksDB would then make the store being written flush its small
  // memtables while an idle store holds most of the budget.)
  o.write_buffer_size = 32 << 20;
  o.max_write_buffer_number = 2;
  o.level_compaction_dynamic_level_bytes = true;
  // LZ4 at every level: ZSTD at the bottom saved disk but was the largest single cost of a
  // full scan and of a point read that misses the block cache (docs/storage.md has the figures).
  if (supports(rocksdb::kLZ4Compression)) o.compression = rocksdb::kLZ4Compression;
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));  // whole-key: `_id` point gets
  t.cache_index_and_filter_blocks = true;
  t.pin_l0_filter_and_index_blocks_in_cache = true;
  t.block_cache = cache;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

rocksdb::DBOptions db_options() {
  rocksdb::DBOptions o;
  o.create_if_missing = false;
  o.create_missing_column_families = true;  // families added by later formats (fts, vec)
  o.keep_log_file_num = 3;
  o.max_log_file_size = 1 << 20;
  o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  o.max_background_jobs = 2;
  o.db_write_buffer_size = 64 << 20;  // all memtables of one store together
  // The write-ahead log is bounded: past this size the families holding its oldest data are
  // flushed, so the next open replays at most about this much (docs/limits.md).
  o.max_total_wal_size = 128 << 20;
  // The MANIFEST gains a record per flush and compaction; past this size it is rewritten as a
  // snapshot of the current files, so a store that trims and flushes often stays small.
  o.max_manifest_file_size = 256 << 10;
  // A torn last record (a crash mid-write) is dropped as before; damage before the end of the
  // log fails the open instead of silently dropping every write after it (store_recover.hpp).
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  return o;
}

// `pid cmdline` of the lock holder from the lock file's text ("<pid>\n<command line>\n").
std::string describe_holder(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  off_t off = 0;
  while (text.size() < 8192 && (n = ::pread(fd, buf, sizeof buf, off)) > 0) {
    text.append(buf, static_cast<std::size_t>(n));
    off += n;
  }
  auto nl = text.find('\n');
  std::string pid = text.substr(0, nl);
  std::string cmd = nl == std::string::npos ? "" : text.substr(nl + 1);
  if (auto e = cmd.find('\n'); e != std::string::npos) cmd.resize(e);
  bool pid_ok = !pid.empty() && std::all_of(pid.begin(), pid.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (!pid_ok) return "another process";
  // Show the program's base name and its arguments: "/usr/bin/omgdb mcp" → "omgdb mcp".
  auto space = cmd.find(' ');
  auto slash = cmd.rfind('/', space);
  if (slash != std::string::npos) cmd.erase(0, slash + 1);
  if (cmd.size() > 200) cmd = cmd.substr(0, 200) + "…";
  return cmd.empty() ? "process " + pid : "process " + pid + " (" + cmd + ")";
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd) {
    if (c == '\0' || c == '\n' || c == '\r') c = ' ';
  }
  return cmd;
}

// Takes the exclusive flock on `<dir>/omgdb.lock` and records our pid and command line in it.
// flock (not fcntl) locks belong to the open file description, so a second open from this
// same process conflicts too, and closing some other descriptor never drops the lock.
result<int> take_lock(const std::string& shown, const fs::path& dir) {
  auto file = (dir / k_lock_file).string();
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error("cannot open the lock file of store " + quote(shown) + ": " +
                      std::strerror(errno), failure_kind::io);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string holder = err == EWOULDBLOCK ? describe_holder(fd) : "";
    ::close(fd);
    if (err != EWOULDBLOCK) {
      return make_error("cannot lock store " + quote(shown) + ": " + std::strerror(err), failure_kind::io);
    }
    return make_error("store " + quote(shown) + " is in use by " + holder +
                      "; stop it or connect through it", failure_kind::busy);
  }
  std::string text = std::to_string(::getpid()) + "\n" + own_command_line() + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    // The lock itself is what protects the store; a holder description is a courtesy.
  }
  return fd;
}

void release_lock(int fd) {
  if (fd < 0) return;
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

// Opens the RocksDB database in `dir` with every family it has plus ours, filling `s`.
// `recovering` (omgdb recover) replays the log only up to its first damaged record.
status open_database(store::impl& s, const fs::path& dir, bool recovering = false) {
  std::vector<std::string> names;
  rocksdb::DBOptions dbo = db_options();
  if (recovering) dbo.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  auto ls = rocksdb::DB::ListColumnFamilies(dbo, dir.string(), &names);
  if (!ls.ok()) {
    return make_error(quote(s.path) + " is not an omgdb store (" + ls.ToString() + ")");
  }
  if (std::find(names.begin(), names.end(), k_cf_meta) == names.end()) {
    return make_error(quote(s.path) + " is not an omgdb store (no catalog)");
  }
  for (const char* ours : {k_cf_docs, k_cf_idx, k_cf_oplog}) {
    if (std::find(names.begin(), names.end(), ours) == names.end()) names.emplace_back(ours);
  }
  const auto& cache = shared_block_cache();
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& n : names) families.emplace_back(n, family_options(cache));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  auto st = rocksdb::DB::Open(dbo, dir.string(), families, &handles, &db);
  if (st.IsCorruption() && !recovering) {
    // Damage that point-in-time recovery would step over is in the write-ahead log.
    if (auto damage = inspect_wal_damage(dir.string(), st.ToString())) return make_error(wal_damage_message(s.path, *damage));
  }
  if (!st.ok()) return storage_error(s.path, "open", st);
  s.db = db;
  s.handles = handles;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == k_cf_meta) s.meta = handles[i];
    if (names[i] == k_cf_docs) s.docs = handles[i];
    if (names[i] == k_cf_idx) s.idx = handles[i];
    if (names[i] == k_cf_oplog) s.oplog = handles[i];
  }
  return {};
}

// Checks the format version and loads the op-log counters.
status load_meta(store::impl& s) {
  rocksdb::ReadOptions ro;
  std::string v;
  auto st = s.db->Get(ro, s.meta, slice(k_meta_format_version), &v);
  if (st.IsNotFound()) return make_error(quote(s.path) + " is not an omgdb store (no format version)");
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto version = get_u32(v);
  if (!version) return make_error(quote(s.path) + " is not an omgdb store (bad format version)");
  if (*version > k_format_version) {
    return make_error("store " + quote(s.path) + " has format version " + std::to_string(*version) +
                      ", newer than this omgdb reads (" + std::to_string(k_format_version) +
                      "); upgrade omgdb");
  }
  for (auto [key, target] : {std::pair{k_meta_last_seq, &s.last_seq},
                             std::pair{k_meta_last_batch, &s.last_batch}}) {
    st = s.db->Get(ro, s.meta, slice(key), &v);
    if (st.IsNotFound()) continue;
    if (!st.ok()) return storage_error(s.path, "read", st);
    auto n = get_u64(v);
    if (!n) return make_error("store " + quote(s.path) + " has a corrupt `" + std::string(key) + "`", failure_kind::corrupt);
    *target = *n;
  }
  return {};
}

}  // namespace

store::impl::~impl() {
  stop_trimmer(*this);
  if (db != nullptr) {
    // A clean close leaves nothing for the next open to replay: the memtables go to table
    // files (RocksDB does not flush them at close while the write-ahead log holds them).
    rocksdb::FlushOptions fo;
    fo.wait = true;
    db->Flush(fo, handles).PermitUncheckedError();
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    handles.clear();
    db->Close().PermitUncheckedError();
    delete db;
    db = nullptr;
  }
  release_lock(lock_fd);
}

store::store(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
store::~store() = default;

const std::string& store::path() const noexcept { return impl_->path; }

status store::create(const std::string& path) {
  std::error_code ec;
  fs::path dir(path);
  auto st = fs::symlink_status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(fs::status(dir, ec)) || !fs::is_empty(dir, ec) || ec) {
      return make_error(quote(path) + " already exists", failure_kind::conflict);
    }
  } else {
    fs::path parent = dir.parent_path();
    if (parent.empty()) parent = ".";
    if (!fs::is_directory(parent, ec)) {
      return make_error("cannot create store " + quote(path) + ": directory " +
                        quote(parent.string()) + " does not exist", failure_kind::not_found);
    }
    if (::mkdir(path.c_str(), 0755) != 0) {
      return make_error("cannot create store " + quote(path) + ": " + std::strerror(errno), failure_kind::io);
    }
  }

  auto s = std::make_unique<impl>();
  s->path = path;
  auto fd = take_lock(path, dir);
  if (!fd) return std::move(fd).error();
  s->lock_fd = *fd;

  rocksdb::DBOptions dbo = db_options();
  dbo.create_if_missing = true;
  dbo.error_if_exists = true;
  auto cache = rocksdb::NewLRUCache(1 << 20);
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, family_options(cache));
  for (const char* n : {k_cf_meta, k_cf_docs, k_cf_idx, k_cf_oplog}) {
    families.emplace_back(n, family_options(cache));
  }
  auto rs = rocksdb::DB::Open(dbo, dir.string(), families, &s->handles, &s->db);
  if (!rs.ok()) return storage_error(path, "create", rs);
  s->meta = s->handles[1];

  std::string version;
  put_u32(version, k_format_version);
  std::string next_id;
  put_u32(next_id, 1);
  rocksdb::WriteBatch batch;
  batch.Put(s->meta, slice(k_meta_format_version), version);
  batch.Put(s->meta, slice(k_meta_next_collection), next_id);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rs = s->db->Write(wo, &batch);
  if (!rs.ok()) return storage_error(path, "write", rs);
  return {};  // `s` closes the database and releases the lock
}

namespace {

// What store::open checks before it takes the lock: `path` exists and holds database files.
status check_store_dir(const std::string& path) {
  std::error_code ec;
  fs::path dir(path);
  auto st = fs::status(dir, ec);
  if (!fs::exists(st)) {
    return make_error("no store at " + quote(path) + ": create one with `omgdb create " + path +
                      "`", failure_kind::not_found);
  }
  if (!fs::is_directory(st)) return make_error(quote(path) + " is not an omgdb store (not a directory)");
  // Refuse plain directories before touching them (no lock file, no RocksDB files).
  if (!fs::exists(dir / "CURRENT", ec)) {
    return make_error(quote(path) + " is not an omgdb store (no database files)");
  }
  return {};
}

}  // namespace

result<std::shared_ptr<store>> store::open(const std::string& path) {
  if (auto c = check_store_dir(path); !c) return std::move(c).error();
  auto s = std::make_unique<impl>();
  s->path = path;
  auto fd = take_lock(path, fs::path(path));
  if (!fd) return std::move(fd).error();
  s->lock_fd = *fd;
  if (auto o = open_database(*s, fs::path(path)); !o) return std::move(o).error();
  if (auto m = load_meta(*s); !m) return std::move(m).error();
  if (auto t = load_trim_state(*s); !t) return std::move(t).error();
  s->max_write_bytes.store(default_write_budget());
  return std::shared_ptr<store>(new store(std::move(s)));
}

result<recovery_report> recover_store(const std::string& path) {
  if (auto c = check_store_dir(path); !c) return std::move(c).error();
  store::impl s;
  s.path = path;
  auto fd = take_lock(path, fs::path(path));
  if (!fd) return std::move(fd).error();
  s.lock_fd = *fd;
  recovery_report out;
  if (open_database(s, fs::path(path))) {
    if (auto m = load_meta(s); !m) return std::move(m).error();
    return out;  // opens as it is: nothing to drop
  }
  out.damage = inspect_wal_damage(path, "");
  if (!out.damage) {
    // Not the log: say what RocksDB says about the store.
    if (auto o = open_database(s, fs::path(path)); !o) return std::move(o).error();
  }
  auto backup = back_up_wal(path);
  if (!backup) return std::move(backup).error();
  out.backup_dir = *backup;
  if (auto o = open_database(s, fs::path(path), true); !o) return std::move(o).error();
  if (auto m = load_meta(s); !m) return std::move(m).error();
  // The recovered state goes into table files, so the damaged log is no longer replayed.
  rocksdb::FlushOptions fo;
  fo.wait = true;
  if (auto st = s.db->Flush(fo, s.handles); !st.ok()) return storage_error(path, "flush", st);
  return out;
}

}  // namespace omgdb::engine
