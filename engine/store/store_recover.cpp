// omgdb engine — measuring a damaged write-ahead log, backing it up, and the refusal's text.
#include "engine/store/store_recover.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
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
  wal_damage d;
  d.rocksdb_status = status_text;
  d.kept_batch = kept->batch;
  d.kept_seq = kept->seq;
  d.kept_key_seq = kept->key_seq;
  d.readable_batch = readable ? readable->batch : kept->batch;
  d.readable_seq = readable ? readable->seq : kept->seq;
  d.readable_key_seq = readable ? readable->key_seq : kept->key_seq;
  return d;
}

std::string wal_damage_message(const std::string& shown, const wal_damage& d) {
  std::string lost = d.lost_batches() > 0
                         ? plural(d.lost_batches(), "acknowledged write", "acknowledged writes") + " (op-log batches " +
                               std::to_string(d.kept_batch + 1) + "–" + std::to_string(d.readable_batch) + ", " +
                               plural(d.lost_records(), "op-log record", "op-log records") + ")"
                         : plural(d.lost_keys(), "written key", "written keys");
  return "store `" + shown + "` cannot be opened: its write-ahead log is damaged before its end (" + d.rocksdb_status +
         "). Opening it would silently drop " + lost +
         " recorded after the damage, so omgdb refuses. To keep everything before the damage and drop the rest, "
         "stop every process using the store, copy the store directory as a backup, and run `omgdb recover " +
         shown + "` (it reports what it drops); or restore the store from a backup.";
}

result<std::string> back_up_wal(const std::string& dir) {
  std::error_code ec;
  fs::path target = fs::path(dir) / ("damaged-wal-" + utc_stamp());
  for (int n = 2; fs::exists(target, ec); ++n) target = fs::path(dir) / ("damaged-wal-" + utc_stamp() + "-" + std::to_string(n));
  if (!fs::create_directory(target, ec)) {
    return make_error("cannot create " + target.string() + " for a copy of the damaged log: " + ec.message());
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || !is_wal_file(entry.path())) continue;
    if (!fs::copy_file(entry.path(), target / entry.path().filename(), ec)) {
      return make_error("cannot copy " + entry.path().string() + " to " + target.string() + ": " + ec.message());
    }
  }
  if (ec) return make_error("cannot list " + dir + ": " + ec.message());
  return target.string();
}

}  // namespace omgdb::engine
