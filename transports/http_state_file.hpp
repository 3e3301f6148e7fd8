// omgdb transports — HTTP session records kept in the daemon's state directory, so that a
// restarted daemon still accepts the session ids its clients hold (some clients never
// re-initialize after a 404).
//
// File: <state_dir>/http-sessions.json, mode 0600 in a 0700 directory, replaced atomically
// (write to a temporary file, then rename). A record holds no secret beyond the session id,
// which alone grants nothing: every request still needs the bearer token.
// Every field is bounded (see `record_limits`); a record that breaks a bound is dropped at
// load, so a damaged or planted file cannot grow the daemon. The file is written by a
// `state_writer` thread, off the event loop, and snapshots that pile up meanwhile coalesce.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/result.hpp"
#include "mcp/session_state.hpp"

namespace omgdb::transports::http {

struct session_record {
  std::string id;
  std::int64_t created_ms = 0;    // milliseconds since the Unix epoch
  std::int64_t last_used_ms = 0;
  mcp::session_state state;       // protocol version, initialized, log level
  std::uint64_t next_event = 0;   // SSE ids continue above this after a restart
  std::string token_name;         // the token that created the session ("" without auth)
  std::string scope;              // the session's ceiling ("" in records of older versions)
};

// The bounds of a loaded file and its records.
struct record_limits {
  std::size_t max_file_bytes = 64u << 20;  // a larger file is damaged
  std::size_t max_records = 100000;        // the most --max-sessions allows
  std::size_t max_token_name = 256;        // bytes
};

// $XDG_STATE_HOME/omgdb, else $HOME/.local/state/omgdb, else "" (no persistence).
std::string default_state_dir();

// The records of `dir`; a missing file is an empty list. A damaged file is an error (the
// caller logs it and starts with no records rather than refuse to serve).
result<std::vector<session_record>> load_records(const std::string& dir, const record_limits& limits = {});

// Creates `dir` (0700) when missing and replaces the file.
status save_records(const std::string& dir, const std::vector<session_record>& records);

// save_records on a thread of its own. `submit` hands over a snapshot and returns at once;
// while a snapshot is being written, later ones replace each other and only the newest is
// written next. Failures are logged. `flush` returns once the newest snapshot submitted before
// it is on disk (or failed); the destructor flushes.
class state_writer {
 public:
  explicit state_writer(std::string dir);
  ~state_writer();
  state_writer(const state_writer&) = delete;
  state_writer& operator=(const state_writer&) = delete;

  void submit(std::vector<session_record> records);
  void flush();
  std::size_t files_written() const;  // save_records calls made so far

 private:
  void run();

  std::string dir_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<std::vector<session_record>> pending_;
  bool writing_ = false;
  bool stop_ = false;
  std::size_t written_ = 0;
  std::thread thread_;
};

}  // namespace omgdb::transports::http
