// omgdb sql — the per-connection history of SQL tool calls (`omgdb history`).
//
// One JSON line per call in `history/NAME.jsonl` under the state directory (0600):
// {"time":"2026-11-30T05:20:01.123Z","connection","tool","session","durationMs","outcome",
//  "digest"?,"keyword"?,"detail"?}. `digest` is the first 16 hex digits of the SHA-256 of the
// statement: enough to tell statements apart, never the text, and never returned rows.
// A file over 1 MiB is renamed to NAME.jsonl.1 (one older generation kept). Thread-safe.
#pragma once

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace omgdb::sql {

struct history_entry {
  std::string connection;
  std::string tool;
  std::string session;
  double duration_ms = 0;
  // "ok", "error", "refused", "rejected", "expired", "cancelled", "client-gone",
  // "connection-switched", "no-approver", "applied", "stale", "busy"
  std::string outcome;
  std::string digest;   // statement_digest(sql), "" when the call had no statement
  std::string keyword;  // the statement's leading keyword, when classified
  std::string detail;   // short reason (an error message's first 200 bytes); never row data
};

// First 16 hex digits of SHA-256(sql).
std::string statement_digest(std::string_view sql);
// UTC now as "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string utc_now_text();

class history_log {
 public:
  explicit history_log(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // Appends one entry (time added here). Failures are logged, never fatal to the call.
  void append(const history_entry& e);

  // The newest `limit` entries of one connection (or of all, merged by time when
  // `connection` is empty), oldest first.
  std::vector<boost::json::object> read(std::string_view connection, std::size_t limit) const;

 private:
  std::filesystem::path dir_;
  std::mutex mu_;
};

inline constexpr std::size_t max_history_file_bytes = 1 << 20;

}  // namespace omgdb::sql
