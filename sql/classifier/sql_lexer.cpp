// omgdb sql — the dialect-aware tokenizer. See sql_lexer.hpp for the contract.
#include "sql/classifier/sql_lexer.hpp"

namespace omgdb::sql::detail {

using config::sql_dialect;

namespace {

constexpr std::size_t npos = std::string_view::npos;
constexpr std::size_t max_dollar_tag = 64;

bool is_space(unsigned char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class lexer {
 public:
  lexer(std::string_view s, sql_dialect d, lex_mode m) : s_(s), d_(d), m_(m) {}

  lex_result run() {
    while (pos_ < s_.size() && out_.error == lex_error_kind::none) step();
    return std::move(out_);
  }

 private:
  unsigned char at(std::size_t i) const noexcept {
    return i < s_.size() ? static_cast<unsigned char>(s_[i]) : 0;
  }
  bool has(std::size_t i) const noexcept { return i < s_.size(); }

  void emit(token_kind k, std::size_t begin, std::size_t end) {
    out_.tokens.push_back(token{k, begin, end - begin});
    pos_ = end;
  }
  void fail(lex_error_kind k, std::size_t where, std::string message) {
    out_.error = k;
    out_.error_offset = where;
    out_.message = std::move(message);
    pos_ = s_.size();
  }

  void step() {
    const unsigned char c = at(pos_);
    if (is_space(c)) { ++pos_; return; }
    if (c == '-' && at(pos_ + 1) == '-' && line_comment_dash()) return skip_line();
    if (c == '#' && d_ == sql_dialect::mysql) return skip_line();
    if ((c == '#' || c == '$') && d_ == sql_dialect::mssql) return tsql_word();  // #temp, ##g, $action, $12.5
    if (c == '@' && d_ == sql_dialect::mssql) return tsql_variable();       // @v, @@ROWCOUNT
    if (c == '/' && at(pos_ + 1) == '*') return block_comment();
    switch (c) {
      case ';': return emit(token_kind::semicolon, pos_, pos_ + 1);
      case '(': return emit(token_kind::open_paren, pos_, pos_ + 1);
      case ')': return emit(token_kind::close_paren, pos_, pos_ + 1);
      case '\'': return quoted(pos_, pos_, '\'', token_kind::string, plain_backslash());
      case '"': return double_quote();
      case '`':  // not a quote in PostgreSQL or T-SQL: reading it as one would hide code
        if (d_ == sql_dialect::postgres || d_ == sql_dialect::mssql) break;
        return quoted(pos_, pos_, '`', token_kind::quoted_ident, false);
      case '[':
        if (d_ == sql_dialect::mssql) return bracket_ident(true);
        if (d_ != sql_dialect::sqlite) break;
        return bracket_ident(false);
      case '$': return dollar();
      case ':':
        if (at(pos_ + 1) == '=' && d_ != sql_dialect::sqlite)
          return emit(token_kind::assign, pos_, pos_ + 2);
        if (d_ == sql_dialect::sqlite) return sqlite_variable();
        break;
      case '@':
      case '#':
        if (d_ == sql_dialect::sqlite) return sqlite_variable();
        break;
      case '?':
        if (d_ == sql_dialect::sqlite) return digits_after(pos_, token_kind::parameter);
        break;
      default: break;
    }
    if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) return number();
    if (c == '.') return emit(token_kind::dot, pos_, pos_ + 1);
    if (is_ident_start(c) || (c == '$' && d_ == sql_dialect::mysql)) return word();
    emit(token_kind::other, pos_, pos_ + 1);
  }

  // Backslash escapes in a plain '…' string under the current mode.
  bool plain_backslash() const noexcept {
    return d_ != sql_dialect::sqlite && m_.backslash_escapes;
  }

  // "--" starts a comment everywhere except MySQL, where a space or control character (or
  // the end of the text) must follow: `1--1` is 1 minus -1 there.
  bool line_comment_dash() const noexcept {
    if (d_ != sql_dialect::mysql) return true;
    if (!has(pos_ + 2)) return true;
    const unsigned char n = at(pos_ + 2);
    return n <= 0x20 || n == 0x7f;
  }

  // Line comments end at \n, and also at \r (PostgreSQL ends them there; ending early on the
  // other dialects only makes the lexer see more code, never less).
  void skip_line() {
    while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
  }

  void block_comment() {
    const std::size_t start = pos_;
    if (d_ == sql_dialect::mysql) {
      const unsigned char n = at(pos_ + 2);
      if (n == '!' || n == '+' || (n == 'M' && at(pos_ + 3) == '!')) {
        return fail(lex_error_kind::executable_comment, start,
                    n == '+' ? "a MySQL optimizer hint comment /*+ … */ is not accepted"
                             : "a MySQL/MariaDB executable comment /*! … */ is not accepted: "
                               "the server runs the text inside it");
      }
    }
    if (d_ != sql_dialect::postgres && d_ != sql_dialect::mssql) {  // MySQL and SQLite: no nesting
      const std::size_t end = s_.find("*/", pos_ + 2);
      if (end == npos) return fail(lex_error_kind::unterminated, start, "a /* comment is never closed with */");
      pos_ = end + 2;
      return;
    }
    std::size_t depth = 1;  // PostgreSQL and T-SQL block comments nest
    std::size_t i = pos_ + 2;
    while (i < s_.size()) {
      if (s_[i] == '/' && at(i + 1) == '*') { ++depth; i += 2; continue; }
      if (s_[i] == '*' && at(i + 1) == '/') {
        i += 2;
        if (--depth == 0) { pos_ = i; return; }
        continue;
      }
      ++i;
    }
    fail(lex_error_kind::unterminated, start, "a /* comment is never closed with */ (comments nest in this dialect)");
  }

  // A literal from `begin` (which may include a prefix such as E or X) whose quote is at `q`.
  void quoted(std::size_t begin, std::size_t q, char quote, token_kind kind, bool backslash) {
    std::size_t i = q + 1;
    while (i < s_.size()) {
      const char c = s_[i];
      if (backslash && c == '\\') { i += 2; continue; }
      if (c == quote) {
        if (at(i + 1) == static_cast<unsigned char>(quote)) { i += 2; continue; }
        // PostgreSQL: 'a'<newline>'b' is one literal, and the continuation of an E'…' string
        // keeps its backslash escapes, so it must be read here, not as a new plain string.
        if (backslash && d_ == sql_dialect::postgres && quote == '\'') {
          if (const std::size_t next = pg_continuation(i + 1); next != npos) { i = next + 1; continue; }
        }
        return emit(kind, begin, i + 1);
      }
      ++i;
    }
    const char* what = kind == token_kind::string ? "a string literal" : "a quoted identifier";
    fail(lex_error_kind::unterminated, begin,
         std::string(what) + " starting with " + quote + " is never closed");
  }

  // After a closing quote: whitespace and `--` comments that include a newline, then a quote
  // (scan.l's whitespace_with_newline) — the offset of that quote, or npos.
  std::size_t pg_continuation(std::size_t i) const {
    bool newline = false;
    while (i < s_.size()) {
      const unsigned char c = at(i);
      if (c == '\n' || c == '\r') { newline = true; ++i; continue; }
      if (is_space(c)) { ++i; continue; }
      if (c == '-' && at(i + 1) == '-') {
        while (i < s_.size() && s_[i] != '\n' && s_[i] != '\r') ++i;
        continue;
      }
      return newline && c == '\'' ? i : npos;
    }
    return npos;
  }

  void double_quote() {
    if (d_ == sql_dialect::mysql && m_.double_quote_is_string)
      return quoted(pos_, pos_, '"', token_kind::string, m_.backslash_escapes);
    quoted(pos_, pos_, '"', token_kind::quoted_ident, false);
  }

  // [name]; in T-SQL `]]` inside stands for one `]` (SQLite has no such escape: there the
  // first `]` ends the name).
  void bracket_ident(bool doubled_escape) {
    std::size_t i = pos_ + 1;
    for (;;) {
      const std::size_t end = s_.find(']', i);
      if (end == npos) return fail(lex_error_kind::unterminated, pos_, "a [quoted identifier] is never closed with ]");
      if (doubled_escape && at(end + 1) == ']') { i = end + 2; continue; }
      return emit(token_kind::quoted_ident, pos_, end + 1);
    }
  }

  // T-SQL names that start with # (temporary tables) or $ ($action, $PARTITION, money $1.5).
  void tsql_word() {
    std::size_t i = pos_;
    while (has(i) && (at(i) == '#' || at(i) == '$')) ++i;
    while (has(i) && (is_ident_char(at(i)) || at(i) == '#' || at(i) == '@')) ++i;
    emit(token_kind::word, pos_, i);
  }

  // T-SQL variables and system functions: @name, @@name (letters, digits, _, @, #, $).
  void tsql_variable() {
    std::size_t i = pos_ + 1;
    while (has(i) && (is_ident_char(at(i)) || at(i) == '@' || at(i) == '#')) ++i;
    if (i == pos_ + 1) return emit(token_kind::other, pos_, i);
    emit(token_kind::parameter, pos_, i);
  }

  void digits_after(std::size_t begin, token_kind kind) {
    std::size_t i = begin + 1;
    while (is_digit(at(i))) ++i;
    emit(kind, begin, i);
  }

  void dollar() {
    if (d_ == sql_dialect::sqlite) return sqlite_variable();
    if (d_ == sql_dialect::mysql) return word();
    if (is_digit(at(pos_ + 1))) return digits_after(pos_, token_kind::parameter);
    // PostgreSQL dollar quote: $$…$$ or $tag$…$tag$ (the tag does not start with a digit).
    std::size_t j = pos_ + 1;
    if (is_ident_start(at(j))) {
      while (has(j) && (is_ident_start(at(j)) || is_digit(at(j)))) ++j;
    }
    if (at(j) != '$' || !has(j)) return emit(token_kind::other, pos_, pos_ + 1);
    const std::size_t tag_len = j + 1 - pos_;
    if (tag_len > max_dollar_tag)
      return fail(lex_error_kind::illegal, pos_, "a dollar-quote tag is longer than 64 bytes");
    const std::string_view tag = s_.substr(pos_, tag_len);
    const std::size_t end = s_.find(tag, j + 1);
    if (end == npos)
      return fail(lex_error_kind::unterminated, pos_,
                  "a dollar-quoted string opened with " + std::string(tag) + " is never closed");
    emit(token_kind::string, pos_, end + tag_len);
  }

  // SQLite variables :name, @name, #name, $name, with TCL-style `::` and `(…)` suffixes,
  // read exactly as sqlite3GetToken does: `$a(';x)` is one token there, so it is one here.
  void sqlite_variable() {
    std::size_t i = pos_ + 1;
    std::size_t n = 0;
    while (has(i)) {
      const unsigned char c = at(i);
      if (is_ident_char(c)) { ++n; ++i; continue; }
      if (c == '(' && n > 0) {
        ++i;
        while (has(i) && !is_space(at(i)) && at(i) != ')') ++i;
        if (at(i) != ')' || !has(i))
          return fail(lex_error_kind::illegal, pos_, "an SQLite parameter with an unclosed ( suffix");
        ++i;
        break;
      }
      if (c == ':' && at(i + 1) == ':') { i += 2; continue; }
      break;
    }
    if (n == 0) return fail(lex_error_kind::illegal, pos_, "a parameter marker without a name");
    emit(token_kind::parameter, pos_, i);
  }

  void number() {
    std::size_t i = pos_;
    const unsigned char x = at(i + 1);
    if (at(i) == '0' && (x == 'x' || x == 'X' || x == 'b' || x == 'B' || x == 'o' || x == 'O')) {
      std::size_t j = i + 2;
      while (has(j) && (is_digit(at(j)) || at(j) == '_' || (ascii_upper(static_cast<char>(at(j))) >= 'A' &&
                                                            ascii_upper(static_cast<char>(at(j))) <= 'F')))
        ++j;
      if (j > i + 2) return emit(token_kind::number, pos_, j);
    }
    while (is_digit(at(i)) || (at(i) == '_' && is_digit(at(i + 1)))) ++i;
    if (at(i) == '.' && has(i)) {
      ++i;
      while (is_digit(at(i)) || (at(i) == '_' && is_digit(at(i + 1)))) ++i;
    }
    if ((at(i) == 'e' || at(i) == 'E') && has(i)) {
      std::size_t j = i + 1;
      if (at(j) == '+' || at(j) == '-') ++j;
      if (is_digit(at(j))) {
        while (is_digit(at(j))) ++j;
        i = j;
      }
    }
    emit(token_kind::number, pos_, i);
  }

  void word() {
    std::size_t i = pos_;
    while (has(i) && is_ident_char(at(i))) ++i;
    const std::size_t len = i - pos_;
    if (len == 1 && string_prefix(ascii_upper(s_[pos_]), i)) return;
    emit(token_kind::word, pos_, i);
  }

  // One-letter prefixes that turn the next quote into a literal with its own rules.
  bool string_prefix(char p, std::size_t next) {
    const unsigned char q = at(next);
    if (d_ == sql_dialect::postgres) {
      if (q == '\'' && p == 'E') return quoted(pos_, next, '\'', token_kind::string, true), true;
      if (q == '\'' && (p == 'B' || p == 'X')) return quoted(pos_, next, '\'', token_kind::string, false), true;
      if (q == '\'' && p == 'N') return quoted(pos_, next, '\'', token_kind::string, plain_backslash()), true;
      if (p == 'U' && q == '&' && at(next + 1) == '\'')
        return quoted(pos_, next + 1, '\'', token_kind::string, false), true;
      if (p == 'U' && q == '&' && at(next + 1) == '"')
        return quoted(pos_, next + 1, '"', token_kind::quoted_ident, false), true;
      return false;
    }
    // T-SQL: N'…' is a Unicode string read like any '…' (doubled quotes, no backslash escapes).
    if (d_ == sql_dialect::mssql) {
      if (q == '\'' && p == 'N') return quoted(pos_, next, '\'', token_kind::string, false), true;
      return false;
    }
    // MySQL: X'…', B'…' and N'…' are read like any '…' string. Its lexer is contextual — after
    // `.` or `@`, or after digits, `b'…'` is an identifier followed by an ordinary string — so
    // reading backslash escapes is the only safe choice: a real hex or bit literal holding a
    // backslash is a syntax error anyway. SQLite: X'…' blobs have no escapes, like its strings.
    return false;
  }

  std::string_view s_;
  sql_dialect d_;
  lex_mode m_;
  std::size_t pos_ = 0;
  lex_result out_;
};

}  // namespace

lex_mode default_mode(sql_dialect d) noexcept {
  switch (d) {
    case sql_dialect::postgres: return {false, false};  // standard_conforming_strings = on
    case sql_dialect::mysql: return {true, true};       // backslash escapes, ANSI_QUOTES off
    case sql_dialect::sqlite: return {false, false};
    case sql_dialect::mssql: return {false, false};  // '…' and N'…' without escapes; "…" an identifier
    case sql_dialect::ansi: return {false, false};
  }
  return {};
}

lex_result lex(std::string_view sql, sql_dialect dialect, lex_mode mode) {
  return lexer(sql, dialect, mode).run();
}

bool word_equals(std::string_view word, std::string_view upper_keyword) noexcept {
  if (word.size() != upper_keyword.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (ascii_upper(word[i]) != upper_keyword[i]) return false;
  return true;
}

}  // namespace omgdb::sql::detail
