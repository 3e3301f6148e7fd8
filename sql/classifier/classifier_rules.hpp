// omgdb sql — the classifier's rule tables (statement leaders, words that write, lock or change
// the session, side-effect functions, the SQLite PRAGMA allow-list) and the scan that applies
// them to one statement's tokens. Internal to sql/; the public contract is sql/classifier/classifier.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/connection.hpp"
#include "sql/classifier/classifier.hpp"
#include "sql/classifier/sql_lexer.hpp"

namespace omgdb::sql::detail {

// What the leading keyword of a statement is.
enum class leader_kind {
  read,     // SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE/DESC, EXPLAIN: scanned further
  pragma,   // SQLite PRAGMA: checked against the allow-list
  write,    // an understood statement that is not read-only
  unknown,  // not a statement this dialect's classifier understands
};

struct leader_info {
  leader_kind kind = leader_kind::unknown;
  std::string reason;  // for write: "INSERT changes data"
};

leader_info classify_leader(std::string_view upper_keyword, config::sql_dialect d);

// One reason a statement is not read-only, found somewhere in its tokens.
struct finding {
  verdict kind = verdict::write;
  std::string reason;  // without the position suffix
  std::size_t offset = 0;
};

// The tokens of one statement (no trailing `;`), the text they point into, and the statement's
// upper-cased leading keyword.
struct statement_view {
  std::string_view text;
  std::span<const token> tokens;
  std::string_view leader;
  config::sql_dialect dialect;
};

// The first write, lock, session change or side-effect call in a read-leader statement.
std::optional<finding> scan_read_statement(const statement_view& st);

// T-SQL (classifier_tsql.cpp): statements need no `;` between them, so this finds every place a
// second statement could start (a statement keyword where the statement cannot hold it, `GO`),
// ODBC escapes `{…}` (drivers rewrite them, `{call …}` runs a procedure) — verdict refused —
// and, for a read (`read` = the leader reads), table hints that lock (UPDLOCK, XLOCK, HOLDLOCK,
// TABLOCK, …) and rowset functions that reach other servers or files — verdict write.
// `first` is the index of the leading keyword. A write leader's own grammar is scanned only
// for INSERT/UPDATE/DELETE/MERGE (other writes hold statements of their own, e.g. a procedure
// body, and go to a person as a whole).
std::optional<finding> check_tsql(const statement_view& st, std::size_t first, bool read);

// Checks an SQLite `PRAGMA …` statement against the read-only allow-list.
std::optional<finding> check_pragma(const statement_view& st);

// The options of an EXPLAIN that executes nothing (PostgreSQL and MariaDB/MySQL; no ANALYZE,
// or only `ANALYZE false/off/0` in PostgreSQL's option list), found by explain_prefix
// (classifier_explain.cpp).
struct explain_prefix {
  std::size_t statement = 0;               // the token index of the explained statement
  std::vector<std::size_t> analyze_off;    // token indexes of ANALYZE options turned off
  bool explains_write = false;             // the explained statement is INSERT/UPDATE/DELETE/…
};
// nullopt when `st` is not an EXPLAIN, explains with ANALYZE (which runs the statement), is
// SQLite's (whose EXPLAIN of a write keeps needing the write level), or has a prefix it does
// not understand; the statement is then scanned as any other.
std::optional<explain_prefix> parse_explain_prefix(const statement_view& st);

inline std::string_view token_text(std::string_view text, const token& t) {
  return text.substr(t.offset, t.size);
}

// The name a word or quoted identifier stands for (quotes removed, doubled quotes undone),
// upper-cased, or empty for other tokens.
std::string name_of(std::string_view text, const token& t);

}  // namespace omgdb::sql::detail
