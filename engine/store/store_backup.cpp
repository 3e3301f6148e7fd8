// omgdb engine — backup and restore through RocksDB's checkpoint and BackupEngine.
//
// A backup never blocks writers and is consistent at one op-log seq: a RocksDB checkpoint
// (hard links of the table files plus the write-ahead log up to one write) is taken inside
// the store directory, opened as a store of its own to read the seq it holds (every omgdb
// write is one atomic WriteBatch, so any consistent RocksDB state is a whole number of
// calls), and handed to BackupEngine, which copies only the table files the backup
// directory does not have yet (incremental). The checkpoint is removed afterwards.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <chrono>
#include <limits>
#include <filesystem>
#include <fstream>

#include <rocksdb/utilities/backup_engine.h>
#include <rocksdb/utilities/checkpoint.h>

#include "common/json.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

namespace fs = std::filesystem;
using namespace detail;

constexpr std::string_view k_checkpoint_prefix = "backup-checkpoint.";

std::string quote(const std::string& p) { return "`" + p + "`"; }

failure io_error(const std::string& what, const rocksdb::IOStatus& s) {
  return make_error(what + ": " + s.ToString());
}

// Leftover checkpoints of backups that died midway (their pid is not alive).
void remove_stale_checkpoints(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(k_checkpoint_prefix, 0) != 0) continue;
    const long pid = std::atol(name.c_str() + k_checkpoint_prefix.size());
    if (pid > 0 && (pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0)) continue;
    fs::remove_all(e.path(), ec);
  }
}

struct backup_engine_ptr {
  rocksdb::BackupEngine* p = nullptr;
  ~backup_engine_ptr() { delete p; }
};

// The seq and path recorded with each backup (BackupInfo::app_metadata).
std::string metadata_of(std::uint64_t seq, const std::string& path) {
  return json::serialize(boost::json::object{{"seq", seq}, {"store", path}});
}

std::uint64_t seq_of_metadata(const std::string& text) {
  auto j = json::parse_strict(text);
  if (!j || !j->is_object()) return 0;
  const auto* seq = j->get_object().if_contains("seq");
  if (seq == nullptr) return 0;
  if (seq->is_uint64()) return seq->get_uint64();
  if (seq->is_int64() && seq->get_int64() >= 0) return static_cast<std::uint64_t>(seq->get_int64());
  return 0;
}

// Bytes of the regular files under `dir`.
std::uint64_t dir_bytes(const std::string& dir) {
  std::error_code ec;
  std::uint64_t total = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace

std::optional<long> store_lock_holder(const std::string& path) {
  const std::string file = (fs::path(path) / std::string(k_lock_file)).string();
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> out;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    const long pid = n > 0 ? std::atol(buf) : 0;
    out = pid > 0 ? pid : -1;
  } else {
    ::flock(fd, LOCK_UN);
  }
  ::close(fd);
  return out;
}

result<store::backup_result> store::backup(const std::string& dir, std::uint32_t keep) const {
  const auto& s = *impl_;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create backup directory " + quote(dir) + ": " + ec.message());
  remove_stale_checkpoints(fs::path(s.path));
  const fs::path cp = fs::path(s.path) / (std::string(k_checkpoint_prefix) + std::to_string(::getpid()) + "-" +
                                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  struct cleanup {
    fs::path p;
    ~cleanup() {
      std::error_code e;
      fs::remove_all(p, e);
      fs::remove_all(p.string() + ".tmp", e);
    }
  } remove_cp{cp};
  {
    rocksdb::Checkpoint* raw = nullptr;
    auto st = rocksdb::Checkpoint::Create(s.db, &raw);
    if (!st.ok()) return storage_error(s.path, "checkpoint", st);
    std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
    // log_size_for_flush: the write-ahead log is carried along rather than flushing memtables
    // (no flush stalls the writer); opening the checkpoint replays it.
    st = checkpoint->CreateCheckpoint(cp.string(), std::numeric_limits<std::uint64_t>::max());
    if (!st.ok()) return storage_error(s.path, "checkpoint", st);
  }
  auto copy = store::open(cp.string());
  if (!copy) return make_error("cannot open the checkpoint of store " + quote(s.path) + ": " + copy.error().message);
  const std::uint64_t seq = store_access::of(**copy).last_seq;

  backup_engine_ptr engine;
  rocksdb::BackupEngineOptions bo(dir);
  bo.share_table_files = true;
  bo.share_files_with_checksum = true;
  bo.sync = true;
  if (auto io = rocksdb::BackupEngine::Open(bo, rocksdb::Env::Default(), &engine.p); !io.ok()) {
    return io_error("cannot open backup directory " + quote(dir), io);
  }
  const std::uint64_t before_total = dir_bytes(dir);
  rocksdb::CreateBackupOptions co;
  co.flush_before_backup = true;  // the checkpoint's replayed log becomes table files
  rocksdb::BackupID id = 0;
  auto io = engine.p->CreateNewBackupWithMetadata(co, store_access::of(**copy).db, metadata_of(seq, s.path), &id);
  if (!io.ok()) return io_error("backup of store " + quote(s.path) + " into " + quote(dir) + " failed", io);
  backup_result out;
  out.backup_id = id;
  out.seq = seq;
  const std::uint64_t after_total = dir_bytes(dir);
  out.new_bytes = after_total > before_total ? after_total - before_total : 0;
  if (keep > 0) {
    if (auto p = engine.p->PurgeOldBackups(keep); !p.ok()) return io_error("cannot purge old backups in " + quote(dir), p);
  }
  std::vector<rocksdb::BackupInfo> after;
  engine.p->GetBackupInfo(&after);
  out.kept = static_cast<std::uint32_t>(after.size());
  for (const auto& b : after) {
    if (b.backup_id == id) out.bytes = b.size;
  }
  return out;
}

result<store::restore_result> store::restore(const std::string& dir, const std::string& path, bool force,
                                             std::optional<std::uint32_t> id) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return make_error("no backup directory " + quote(dir));
  rocksdb::BackupEngineReadOnly* raw = nullptr;
  rocksdb::BackupEngineOptions bo(dir);
  if (auto io = rocksdb::BackupEngineReadOnly::Open(bo, rocksdb::Env::Default(), &raw); !io.ok()) {
    return io_error(quote(dir) + " is not a backup directory", io);
  }
  std::unique_ptr<rocksdb::BackupEngineReadOnly> engine(raw);
  std::vector<rocksdb::BackupInfo> infos;
  engine->GetBackupInfo(&infos);
  if (infos.empty()) return make_error("backup directory " + quote(dir) + " holds no backup");
  const rocksdb::BackupInfo* chosen = &infos.back();
  if (id) {
    chosen = nullptr;
    for (const auto& b : infos) {
      if (b.backup_id == *id) chosen = &b;
    }
    if (chosen == nullptr) {
      return make_error("no backup " + std::to_string(*id) + " in " + quote(dir) + " (newest: " +
                        std::to_string(infos.back().backup_id) + ")");
    }
  }
  restore_result out;
  out.backup_id = chosen->backup_id;
  out.seq = seq_of_metadata(chosen->app_metadata);
  if (fs::exists(fs::symlink_status(path, ec))) {
    if (!force) {
      return make_error(quote(path) + " already exists: restore makes a new store; pass --force to move the "
                        "existing one aside (to " + path + ".replaced-<time>) and restore in its place");
    }
    if (auto holder = store_lock_holder(path)) {
      return make_error("store " + quote(path) + " is in use by process " + std::to_string(*holder) +
                        "; stop it before restoring over it");
    }
    out.moved_aside = path + ".replaced-" +
                      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
    fs::rename(path, out.moved_aside, ec);
    if (ec) return make_error("cannot move " + quote(path) + " aside: " + ec.message());
  }
  // Restored into a sibling directory first, then renamed: a failed restore leaves no half store.
  const std::string tmp = path + ".restoring";
  fs::remove_all(tmp, ec);
  auto io = engine->RestoreDBFromBackup(rocksdb::RestoreOptions(), chosen->backup_id, tmp, tmp);
  if (!io.ok()) {
    fs::remove_all(tmp, ec);
    return io_error("restore of backup " + std::to_string(chosen->backup_id) + " from " + quote(dir) + " failed", io);
  }
  fs::rename(tmp, path, ec);
  if (ec) return make_error("cannot move the restored store into " + quote(path) + ": " + ec.message());
  // It must open as a store and be at the seq the backup recorded.
  auto opened = store::open(path);
  if (!opened) return make_error("the restored store " + quote(path) + " does not open: " + opened.error().message);
  out.seq = store_access::of(**opened).last_seq;
  return out;
}

}  // namespace omgdb::engine
