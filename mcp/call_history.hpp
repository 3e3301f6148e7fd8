// omgdb mcp — a bounded in-memory record of finished tool calls, for the web console's History
// page (docs/console.md).
//
// One record per finished tools/call: when it finished, the session, the tool, the store
// (`path` argument) or SQL connection (`connection` argument) it named, its duration, its
// outcome (a call that committed is "ok" even when its client hung up meanwhile: the note
// says so) and, for a failure, the first `max_error_bytes` of the error text. Never the
// arguments' other values, never a result's content (no rows, no documents). At most
// `capacity` records are kept; the oldest go first. Thread-safe: `record` is called on the
// worker threads (server_options::on_call), the readers on the HTTP event loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>

#include "mcp/server.hpp"

namespace omgdb::mcp {

struct call_record {
  std::uint64_t seq = 0;       // 1, 2, … in the order the calls finished
  std::int64_t time_ms = 0;    // when it finished, milliseconds since the Unix epoch
  std::string session;         // the dispatcher's id (mcp::session::id())
  std::string label;           // mcp::session::name(): "stdio · codex", "a1b2c3d4 · claude-code"
  std::string tool;
  std::string store;           // the `path` argument when it is a string, else ""
  std::string connection;      // the `connection` argument when it is a string, else ""
  double duration_ms = 0;
  std::string outcome;         // "ok", "error" or "cancelled" (stopped by its flag)
  std::string note;            // a call that finished although its flag was set: "client gone", …
  std::string error;           // outcome "error": the error text, cut at max_error_bytes
};

struct history_filter {
  std::string store;       // "": any
  std::string connection;  // "": any
  std::string session;     // "": any
};

class call_history {
 public:
  static constexpr std::size_t max_error_bytes = 300;
  explicit call_history(std::size_t capacity = 2000);

  void record(const call_event& e);
  void record(call_record r);  // seq and time set here when 0

  // The newest `limit` records that match, newest first.
  std::vector<call_record> recent(const history_filter& f, std::size_t limit) const;
  // The newest record of one session, if any.
  std::optional<call_record> last_of(std::string_view session) const;
  // Distinct non-empty stores named by the kept records, most recent first.
  std::vector<std::string> stores() const;
  std::size_t size() const;
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::deque<call_record> records_;  // oldest first
  std::uint64_t next_seq_ = 1;
};

// {"seq","time","session","label","tool","store"?,"connection"?,"durationMs","outcome","note"?,"error"?}
boost::json::object to_json(const call_record& r);
boost::json::array to_json(const std::vector<call_record>& rs);

}  // namespace omgdb::mcp
