// omgdb engine — measuring a damaged write-ahead log, backing it up, and the refusal's text.
#include "engine/store/store_recover.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

namespace fs = std::filesystem;
using namespace detail;

struct counters {
  std::uint64_t batch = 0, seq = 0, key_seq = 0;
};

// Opens `dir` read-only (nothing is written: the log is replayed into memory only) with
// `mode`, and reads the op-log counters the replayed state holds.
std::optional<counters> replayed_counters(const std::string& dir, rocksdb::WALRecoveryMode mode) {
  rocksdb::DBOptions o;
  o.wal_recovery_mode = mode;
  o.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  o.max_open_files = 64;
  std::vector<std::string> names;
  if (!rocksdb::DB::ListColumnFamilies(o, dir, &names).ok()) return std::nullopt;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(o, dir, families, &handles, &db).ok()) return std::nullopt;
  counters out;
  out.key_seq = db->GetLatestSequenceNumber();
  auto meta = std::find(names.begin(), names.end(), "meta");
  if (meta != names.end()) {
    auto* h = handles[static_cast<std::size_t>(meta - names.begin())];
    for (auto [key, target] : {std::pair{k_meta_last_batch, &out.batch}, std::pair{k_meta_last_seq, &out.seq}}) {
      std::string v;
      if (db->Get(rocksdb::ReadOptions(), h, slice(key), &v).ok()) *target = get_u64(v).value_or(0);
    }
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  db->Close().PermitUncheckedError();
  delete db;
  return out;
}

bool is_wal_file(const fs::path& p) {
  std::string name = p.filename().string();
  if (name.size() <= 4 || name.substr(name.size() - 4) != ".log") return false;
  return std::all_of(name.begin(), name.end() - 4, [](char c) { return c >= '0' && c <= '9'; });
}

// The newest op-log counters written anywhere in the raw log files of `dir`, above `floor`.
// RocksDB cannot replay the records that share a 32 KiB log block with the damage (its reader
// drops the rest of such a block), so the log is also searched byte by byte for the counter
// writes every acknowledged batch holds: the meta key, as a WriteBatch encodes it (its length
// byte, the key, the value's length byte 8), then the big-endian value. A value further above
// `floor` than the log has room for batches is not a counter (a document holding those bytes).
void scan_raw_counters(const std::string& dir, const counters& floor, counters& out) {
  std::error_code ec;
  std::uint64_t wal_bytes = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && is_wal_file(e.path())) {
      files.push_back(e.path());
      wal_bytes += e.file_size(ec);
    }
  }
  const std::uint64_t room = wal_bytes / 32 + 1;  // a batch takes far more than 32 bytes of log
  struct pattern {
    std::string bytes;
    std::uint64_t base, *target;
  };
  const std::string batch_key(k_meta_last_batch), seq_key(k_meta_last_seq);
  pattern patterns[] = {
      {std::string(1, static_cast<char>(batch_key.size())) + batch_key + '\x08', floor.batch, &out.batch},
      {std::string(1, static_cast<char>(seq_key.size())) + seq_key + '\x08', floor.seq, &out.seq},
  };
  constexpr std::size_t chunk = 1 << 20, overlap = 64;
  std::string buf;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    buf.clear();
    while (in) {
      std::size_t keep = buf.size() > overlap ? overlap : buf.size();
      buf.erase(0, buf.size() - keep);
      std::size_t old = buf.size();
      buf.resize(old + chunk);
      in.read(buf.data() + old, static_cast<std::streamsize>(chunk));
      buf.resize(old + static_cast<std::size_t>(in.gcount()));
      for (auto& p : patterns) {
        for (auto at = buf.find(p.bytes); at != std::string::npos; at = buf.find(p.bytes, at + 1)) {
          if (at + p.bytes.size() + 8 > buf.size()) break;
          auto v = get_u64(std::string_view(buf).substr(at + p.bytes.size(), 8));
          if (v && *v > *p.target && *v > p.base && *v - p.base <= room) *p.target = *v;
        }
      }
    }
  }
}

std::string utc_stamp() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::optional<wal_damage> inspect_wal_damage(const std::string& dir, const std::string& status_text) {
  auto kept = replayed_counters(dir, rocksdb::WALRecoveryMode::kPointInTimeRecovery);
  if (!kept) return std::nullopt;
  auto readable = replayed_counters(dir, rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords);
  if (!readable) readable = kept;
  scan_raw_counters(dir, *kept, *readable);
  wal_damage d;
  d.rocksdb_status = status_text;
  d.kept_batch = kept->batch;
  d.kept_seq = kept->seq;
  d.kept_key_seq = kept->key_seq;
  d.readable_batch = readable->batch;
  d.readable_seq = readable->seq;
  d.readable_key_seq = readable->key_seq;
  return d;
}

std::string describe_loss(const wal_damage& d) {
  if (d.lost_batches() > 0) {
    return plural(d.lost_batches(), "acknowledged write", "acknowledged writes") + " (op-log batches " +
           std::to_string(d.kept_batch + 1) + "–" + std::to_string(d.readable_batch) + ", " +
           plural(d.lost_records(), "op-log record", "op-log records") + ")";
  }
  if (d.lost_keys() > 0) return "at least " + plural(d.lost_keys(), "written key", "written keys");
  return "an unknown number of writes (nothing after the damage could be read)";
}

std::string wal_damage_message(const std::string& shown, const wal_damage& d) {
  return "store `" + shown + "` cannot be opened: its write-ahead log is damaged before its end (" + d.rocksdb_status +
         "). Opening it would silently drop " + describe_loss(d) +
         " recorded after the damage, so omgdb refuses. To keep everything before the damage and drop the rest, "
         "stop every process using the store, copy the store directory as a backup, and run `omgdb recover " +
         shown + "` (it reports what it drops); or restore the store from a backup.";
}

result<std::string> back_up_wal(const std::string& dir) {
  std::error_code ec;
  fs::path target = fs::path(dir) / ("damaged-wal-" + utc_stamp());
  for (int n = 2; fs::exists(target, ec); ++n) target = fs::path(dir) / ("damaged-wal-" + utc_stamp() + "-" + std::to_string(n));
  if (!fs::create_directory(target, ec)) {
    return make_error("cannot create " + target.string() + " for a copy of the damaged log: " + ec.message(), failure_kind::io);
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || !is_wal_file(entry.path())) continue;
    if (!fs::copy_file(entry.path(), target / entry.path().filename(), ec)) {
      return make_error("cannot copy " + entry.path().string() + " to " + target.string() + ": " + ec.message(), failure_kind::io);
    }
  }
  if (ec) return make_error("cannot list " + dir + ": " + ec.message(), failure_kind::io);
  return target.string();
}

}  // namespace omgdb::engine
