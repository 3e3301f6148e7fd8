// omgdb common — the process log on stderr (stdout belongs to the protocol in stdio mode).
//
// One line per event: "2026-11-30T02:24:46.123Z omgdb[pid] level: message". The threshold
// comes from OMGDB_LOG_LEVEL (debug, info, warning, error; default info) or set_threshold.
#pragma once

#include <string_view>

namespace omgdb::log {

enum class level { debug = 0, info = 1, warning = 2, error = 3, off = 4 };

void set_threshold(level l) noexcept;
level threshold() noexcept;
bool enabled(level l) noexcept;

// Where lines go instead of the default text line on stderr (the daemon's JSON lines or the
// journal); nullptr restores the default. The sink must be thread-safe and not throw.
using sink_fn = void (*)(level l, std::string_view message) noexcept;
void set_sink(sink_fn sink) noexcept;

// Thread-safe; each line is written whole (lines never interleave), with one write(2) unless
// coalescing is on.
void write(level l, std::string_view message) noexcept;

// A whole formatted line (with its '\n') for stderr, from a sink (the daemon's JSON lines):
// coalesced like write()'s lines when coalescing is on, else written at once.
void write_line(level l, std::string_view line) noexcept;

// Coalescing, for a server under load: while at least one coalescing_scope is alive, debug and
// info lines are appended to a buffer that a background thread writes to stderr in one
// write(2) at most 10 ms after its first line (the writing thread itself writes it once it
// holds 64 KiB). A warning or an error leaves at once, after what is buffered, so the order of
// lines is kept. The buffer is flushed at exit(), when the last scope ends and by flush(),
// which a path ending the process with _Exit must call. A hard crash (SIGSEGV, abort) loses
// at most the last 10 ms of info lines.
void flush() noexcept;
class coalescing_scope {
 public:
  coalescing_scope() noexcept;
  ~coalescing_scope();
  coalescing_scope(const coalescing_scope&) = delete;
  coalescing_scope& operator=(const coalescing_scope&) = delete;
};

inline void debug(std::string_view m) noexcept { write(level::debug, m); }
inline void info(std::string_view m) noexcept { write(level::info, m); }
inline void warning(std::string_view m) noexcept { write(level::warning, m); }
inline void error(std::string_view m) noexcept { write(level::error, m); }

}  // namespace omgdb::log
