// omgdb sql — the dialect-aware tokenizer behind the read-only classifier (sql/classifier/classifier.hpp).
//
// It splits SQL text the way the dialect's server does: strings (doubled quotes, PostgreSQL
// E'…' and dollar quotes, MySQL backslash escapes, T-SQL N'…'), comments (nested /* */ on
// PostgreSQL and T-SQL, MySQL `#` and `-- `), quoted identifiers (PostgreSQL "…", MySQL `…`,
// SQLite "…", `…`, […], T-SQL "…" and […] with `]]`), numbers and parameters (T-SQL @v and
// @@f; #temp names are words). `ansi` is never lexed: the classifier reads its text as each
// of the other dialects. Comments and whitespace produce no tokens; strings and quoted
// identifiers are single tokens whose content is never read as SQL.
//
// Safety rule: where the lexer is unsure, it must see *more* code than the server (a false
// refusal), never less (a string or comment where the server sees code). Work is linear in
// the input size; the lexer never throws on malformed input, it reports an error instead.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "config/connection.hpp"

namespace omgdb::sql::detail {

enum class token_kind {
  word,          // an unquoted identifier or keyword: letters, digits, _, $, bytes >= 0x80
  quoted_ident,  // "…" (PostgreSQL, SQLite, T-SQL, MySQL ANSI_QUOTES), `…`, […] (SQLite, T-SQL)
  string,        // any string literal, including prefixed (E'', X'', N'', U&'') and $$…$$
  number,        // 12, 1.5e3, .5, 0x1F
  parameter,     // $1 (PostgreSQL); ?NNN, :name, @name, $name (SQLite); @name, @@name (T-SQL)
  semicolon,     // ;
  open_paren,    // (
  close_paren,   // )
  dot,           // .
  assign,        // := (MySQL user-variable assignment; named argument on PostgreSQL)
  other,         // any other single operator or punctuation byte
};

struct token {
  token_kind kind = token_kind::other;
  std::size_t offset = 0;  // into the classified text
  std::size_t size = 0;
};

// How the server is configured to read string literals. The classifier lexes the text under
// every mode a server might run in, so a text cannot mean one thing to omgdb and another to a
// server with an unusual setting.
struct lex_mode {
  // PostgreSQL: standard_conforming_strings = off (backslash escapes in plain '…').
  // MySQL: NO_BACKSLASH_ESCAPES absent (backslash escapes in '…' and "…"; the default).
  bool backslash_escapes = false;
  // MySQL: "…" is a string (the default, ANSI_QUOTES off); false → a quoted identifier.
  bool double_quote_is_string = false;
};

// The default mode for a dialect (what omgdb's adapters configure the session to use).
lex_mode default_mode(config::sql_dialect d) noexcept;

enum class lex_error_kind {
  none,
  unterminated,        // a string, quoted identifier or comment that never ends
  executable_comment,  // MySQL/MariaDB /*! … */, /*M! … */ or /*+ … */ optimizer hint
  illegal,             // a token the server cannot read (e.g. an SQLite `$x(` without `)`)
};

struct lex_result {
  std::vector<token> tokens;
  lex_error_kind error = lex_error_kind::none;
  std::string message;       // a sentence naming the problem; empty without an error
  std::size_t error_offset = 0;
};

lex_result lex(std::string_view sql, config::sql_dialect dialect, lex_mode mode);

// Character classes shared with the classifier.
inline bool is_ascii_alpha(unsigned char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool is_digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_ident_start(unsigned char c) noexcept {
  return is_ascii_alpha(c) || c == '_' || c >= 0x80;
}
inline bool is_ident_char(unsigned char c) noexcept {
  return is_ident_start(c) || is_digit(c) || c == '$';
}
inline char ascii_upper(char c) noexcept {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

// Case-insensitive ASCII comparison of a word against an upper-case keyword.
bool word_equals(std::string_view word, std::string_view upper_keyword) noexcept;

}  // namespace omgdb::sql::detail
