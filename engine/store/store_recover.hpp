// omgdb engine — a store whose write-ahead log is damaged before its end (docs/durability.md).
//
// A store is opened with RocksDB's kTolerateCorruptedTailRecords: a torn last record (the
// normal crash case) is dropped as before, but damage before the end of the log — which
// RocksDB's default point-in-time recovery skips silently, with every acknowledged write after
// it — makes the open fail with `wal_damage_message`. `recover_store` is the explicit way on:
// it keeps what precedes the damage, drops the rest, and says how much was dropped.
//
// How the loss is counted: two read-only opens of the store that write nothing. One replays the
// log as point-in-time recovery would (up to the damage), the other with
// kSkipAnyCorruptedRecords (every readable record, also after the damage). Every write the
// store acknowledges commits the op-log counters (`oplog_last_batch`, `oplog_last_seq`) in its
// own atomic batch, so the difference of the two opens' counters is the number of acknowledged
// writes (batches) and of op-log records that point-in-time recovery drops. RocksDB skips the
// rest of the 32 KiB log block holding the damage, so the raw log files are also searched for
// those counters' writes. RocksDB's own sequence numbers (one per key written) are compared
// too, for writes that keep no op-log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"

namespace omgdb::engine {

struct wal_damage {
  std::string rocksdb_status;  // what RocksDB said about the damage
  std::uint64_t kept_batch = 0, kept_seq = 0;          // newest op-log batch / record before it
  std::uint64_t readable_batch = 0, readable_seq = 0;  // newest readable ones after it
  std::uint64_t kept_key_seq = 0, readable_key_seq = 0;  // RocksDB sequence numbers
  std::uint64_t lost_batches() const { return readable_batch > kept_batch ? readable_batch - kept_batch : 0; }
  std::uint64_t lost_records() const { return readable_seq > kept_seq ? readable_seq - kept_seq : 0; }
  std::uint64_t lost_keys() const { return readable_key_seq > kept_key_seq ? readable_key_seq - kept_key_seq : 0; }
};

// The damage of the store in `dir` when point-in-time recovery would open it but dropping
// records; nullopt when even that cannot open it (the damage is elsewhere). Reads only.
std::optional<wal_damage> inspect_wal_damage(const std::string& dir, const std::string& status_text);

// What `d` loses: "101 acknowledged writes (op-log batches 100–200, 101 op-log records)".
std::string describe_loss(const wal_damage& d);

// The error of an open refused because of `d`: what is wrong and what a person can do.
std::string wal_damage_message(const std::string& shown, const wal_damage& d);

// Copies the write-ahead log files (NNNNNN.log) of `dir` into a new `dir/damaged-wal-<UTC>/`
// and returns that directory.
result<std::string> back_up_wal(const std::string& dir);

struct recovery_report {
  std::optional<wal_damage> damage;  // nullopt: the store opened cleanly, nothing was dropped
  std::string backup_dir;            // where the damaged log files were copied
};

// `omgdb recover PATH`: under the store's lock, measures the damage, backs up the log files,
// opens with point-in-time recovery (dropping what follows the damage), flushes the recovered
// state so the damaged log is no longer needed, and closes (store_open.cpp).
result<recovery_report> recover_store(const std::string& path);

}  // namespace omgdb::engine
