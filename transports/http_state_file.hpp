// omgdb transports — HTTP session records kept in the daemon's state directory, so that a
// restarted daemon still accepts the session ids its clients hold (some clients never
// re-initialize after a 404).
//
// File: <state_dir>/http-sessions.json, mode 0600 in a 0700 directory, replaced atomically
// (write to a temporary file, then rename). A record holds no secret beyond the session id,
// which alone grants nothing: every request still needs the bearer token.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace omgdb::transports::http {

struct session_record {
  std::string id;
  std::int64_t created_ms = 0;    // milliseconds since the Unix epoch
  std::int64_t last_used_ms = 0;
  std::string version;            // negotiated protocol version ("" before initialize)
  bool initialized = false;       // notifications/initialized was received
  std::string log_level;          // last logging/setLevel ("" = default)
  std::uint64_t next_event = 0;   // SSE ids continue above this after a restart
  std::string token_name;         // the token that created the session ("" without auth)
  std::string scope;              // the session's ceiling ("" in records of older versions)
};

// $XDG_STATE_HOME/omgdb, else $HOME/.local/state/omgdb, else "" (no persistence).
std::string default_state_dir();

// The records of `dir`; a missing file is an empty list. A damaged file is an error (the
// caller logs it and starts with no records rather than refuse to serve).
result<std::vector<session_record>> load_records(const std::string& dir);

// Creates `dir` (0700) when missing and replaces the file.
status save_records(const std::string& dir, const std::vector<session_record>& records);

}  // namespace omgdb::transports::http
