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

// Thread-safe; each call writes one whole line with a single write(2).
void write(level l, std::string_view message) noexcept;

inline void debug(std::string_view m) noexcept { write(level::debug, m); }
inline void info(std::string_view m) noexcept { write(level::info, m); }
inline void warning(std::string_view m) noexcept { write(level::warning, m); }
inline void error(std::string_view m) noexcept { write(level::error, m); }

}  // namespace omgdb::log
