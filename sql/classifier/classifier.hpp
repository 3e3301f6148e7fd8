// omgdb sql — layer 1 of read-only enforcement: a dialect-aware text classifier.
//
// It tokenizes the text the way the dialect's server does (strings incl. dollar-quoted and
// E'…' / backslash-escaped, comments incl. nested /* */ on PostgreSQL, quoted identifiers),
// then decides. It is deliberately conservative: anything it cannot understand is `refused`,
// never guessed. It is one of three independent layers (see docs/sql-safety.md); the database's
// own read-only transaction and single-statement execution back it up.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "config/connection.hpp"

namespace omgdb::sql {

enum class verdict {
  read_only,  // exactly one statement; SELECT/WITH/VALUES/TABLE/SHOW/DESCRIBE/EXPLAIN (no ANALYZE)
              // or an allow-listed SQLite PRAGMA without a value, with no write, lock, session
              // change or known side-effect function anywhere
  write,      // exactly one statement that is understood but is not read-only
  refused,    // empty, more than one statement, unterminated string/comment, MySQL executable
              // comment or optimizer hint, NUL byte, invalid UTF-8, over max_sql_bytes, a text
              // that reads differently under another string-escaping mode, or otherwise not
              // understood — never runs at any access level
};

struct classification {
  verdict kind = verdict::refused;
  // For `write` and `refused`: a precise reason a person and an agent can act on, e.g.
  // "a data-modifying CTE (DELETE inside WITH) is not read-only" or
  // "more than one statement: only one statement may run per call". Empty for read_only.
  // Reasons found at a place in the text end with "(at line L, column C)" (1-based, bytes).
  std::string reason;
  // The statement's leading keyword, upper-cased ("SELECT", "INSERT", …); empty if none.
  std::string keyword;
};

// The longest text classified; longer text is refused. Tools cap SQL at 32 KiB; this bound
// only keeps the work (linear in the size) small for any caller.
inline constexpr std::size_t max_sql_bytes = 1024 * 1024;

// Classifies `sql` as the given dialect's server would read it. Never throws on any input
// (invalid UTF-8 and NUL bytes are refused); linear time. Thread-safe (no shared state).
//
// The decision also holds under unusual server settings: PostgreSQL with
// standard_conforming_strings = off, MySQL with NO_BACKSLASH_ESCAPES and/or ANSI_QUOTES. A text
// that is read-only by default but reads as something else there is refused.
[[nodiscard]] classification classify(std::string_view sql, config::sql_dialect dialect);

}  // namespace omgdb::sql
