// omgdb sql — the read-only classifier: input checks, one statement, the leading keyword, and
// the same decision under every string-escaping mode a server might be configured with.
#include "sql/classifier/classifier.hpp"

#include <array>

#include "sql/classifier/classifier_functions.hpp"
#include "sql/classifier/classifier_rules.hpp"
#include "sql/classifier/sql_lexer.hpp"

namespace omgdb::sql {

using config::sql_dialect;
using namespace detail;

namespace {

// "at line 2, column 7" (1-based; columns count bytes) for an offset into the text.
std::string where(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return "at line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string_view display_name(sql_dialect d) noexcept {
  switch (d) {
    case sql_dialect::postgres: return "PostgreSQL";
    case sql_dialect::mysql: return "MariaDB/MySQL";
    case sql_dialect::sqlite: return "SQLite";
    case sql_dialect::mssql: return "T-SQL";
    case sql_dialect::ansi: return "ANSI SQL";
  }
  return "SQL";
}

std::string_view read_leaders(sql_dialect d) noexcept {
  switch (d) {
    case sql_dialect::postgres: return "SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN";
    case sql_dialect::mysql: return "SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE or EXPLAIN";
    case sql_dialect::sqlite: return "SELECT, WITH, VALUES, EXPLAIN or a read-only PRAGMA";
    case sql_dialect::mssql: return "SELECT or WITH (a procedure call, with or without EXEC, is not read-only)";
    case sql_dialect::ansi: return "SELECT or WITH";
  }
  return "SELECT";
}

classification refuse(std::string reason, std::string keyword = {}) {
  return {verdict::refused, std::move(reason), std::move(keyword)};
}

// The offset of the first byte that is not part of well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) { ++i; continue; }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return i;
    if (i + len > s.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

std::optional<finding> check_statement(const statement_view& st, leader_kind kind) {
  if (kind == leader_kind::pragma) return check_pragma(st);
  return scan_read_statement(st);
}

// Classifies the text as read under one lexing mode.
classification classify_in(std::string_view sql, sql_dialect d, lex_mode mode, bool* unterminated) {
  lex_result lexed = lex(sql, d, mode);
  if (lexed.error != lex_error_kind::none) {
    if (unterminated) *unterminated = lexed.error == lex_error_kind::unterminated;
    return refuse(lexed.message + " (" + where(sql, lexed.error_offset) + ")");
  }
  const auto& toks = lexed.tokens;
  std::size_t end = 0;
  while (end < toks.size() && toks[end].kind != token_kind::semicolon) ++end;
  if (end == 0) {
    if (toks.empty()) return refuse("the SQL text is empty: it holds no statement, only whitespace or comments");
    return refuse("the SQL text starts with ';': it holds no statement before it");
  }
  if (end + 1 < toks.size()) {
    return refuse("more than one statement: only one statement may run per call; text follows the ';' " +
                  where(sql, toks[end].offset) + " — send each statement in its own call");
  }
  std::size_t first = 0;
  while (first < end && toks[first].kind == token_kind::open_paren) ++first;
  if (first == end || toks[first].kind != token_kind::word) {
    return refuse("the statement does not start with a keyword (" + where(sql, toks[first < end ? first : 0].offset) +
                  "); read-only " + std::string(display_name(d)) + " starts with " + std::string(read_leaders(d)));
  }
  const std::string keyword = name_of(sql, toks[first]);
  const leader_info leader = classify_leader(keyword, d);
  if (first > 0 && keyword != "SELECT" && keyword != "WITH" && keyword != "VALUES" && keyword != "TABLE")
    return refuse("only a query may be wrapped in parentheses, not " + keyword, keyword);
  // T-SQL needs no `;` between statements: every statement start is looked for, and the
  // refusals of this pass win over a write verdict.
  if (d == sql_dialect::mssql && (leader.kind == leader_kind::read || leader.kind == leader_kind::write)) {
    const statement_view st{sql, std::span<const token>(toks.data(), end), keyword, d};
    if (auto f = check_tsql(st, first, leader.kind == leader_kind::read))
      return {f->kind, f->reason + " (" + where(sql, f->offset) + ")", keyword};
  }
  switch (leader.kind) {
    case leader_kind::unknown:
      return refuse(std::string(keyword.empty() ? "this word" : keyword) + " is not a " +
                        std::string(display_name(d)) + " statement the classifier understands; read-only " +
                        std::string(display_name(d)) + " starts with " + std::string(read_leaders(d)),
                    keyword);
    case leader_kind::write:
      return {verdict::write, leader.reason + ": it is not read-only", keyword};
    case leader_kind::read:
    case leader_kind::pragma: break;
  }
  const statement_view st{sql, std::span<const token>(toks.data(), end), keyword, d};
  if (auto f = check_statement(st, leader.kind))
    return {f->kind, f->reason + " (" + where(sql, f->offset) + ")", keyword};
  return {verdict::read_only, {}, keyword};
}

// Other ways a server may be configured to read string literals; the text must be read-only
// (or a plain syntax error: an unterminated literal) under each of them as well.
struct alt_mode {
  lex_mode mode;
  std::string_view name;
};

std::span<const alt_mode> alternatives(sql_dialect d) {
  static const std::array<alt_mode, 1> pg{{{{true, false}, "standard_conforming_strings = off"}}};
  static const std::array<alt_mode, 3> my{{
      {{false, true}, "sql_mode NO_BACKSLASH_ESCAPES"},
      {{true, false}, "sql_mode ANSI_QUOTES"},
      {{false, false}, "sql_mode ANSI_QUOTES,NO_BACKSLASH_ESCAPES"},
  }};
  switch (d) {
    case sql_dialect::postgres: return pg;
    case sql_dialect::mysql: return my;
    case sql_dialect::sqlite:
    case sql_dialect::mssql:  // QUOTED_IDENTIFIER OFF makes "…" a string: the same extent
    case sql_dialect::ansi: break;
  }
  return {};
}

// `ansi`: the text must be read-only as each dialect omgdb knows reads it; a refusal under
// any of them refuses it, a write under any makes it a write.
classification classify_ansi(std::string_view sql) {
  classification verdict_of_all{verdict::read_only, {}, {}};
  for (auto d : {sql_dialect::postgres, sql_dialect::mysql, sql_dialect::sqlite, sql_dialect::mssql}) {
    classification c = classify(sql, d);
    if (verdict_of_all.keyword.empty()) verdict_of_all.keyword = c.keyword;
    if (c.kind == verdict::read_only) continue;
    c.reason = "read as " + std::string(display_name(d)) + ": " + c.reason;
    if (c.kind == verdict::refused) return c;
    if (verdict_of_all.kind == verdict::read_only) verdict_of_all = c;
  }
  return verdict_of_all;
}

}  // namespace

namespace detail {

std::optional<finding> check_pragma(const statement_view& st) {
  const auto& t = st.tokens;
  std::size_t i = 1;
  if (t.size() > 3 && t[2].kind == token_kind::dot) i = 3;  // PRAGMA schema.name
  if (i >= t.size()) return finding{verdict::refused, "PRAGMA needs a name", t[0].offset};
  const std::string name = name_of(st.text, t[i]);
  if (name.empty() || !pragma_reads(name))
    return finding{verdict::write, "PRAGMA " + std::string(token_text(st.text, t[i])) +
                                       " is not on the read-only PRAGMA allow-list",
                   t[i].offset};
  const std::size_t rest = t.size() - i - 1;
  if (rest == 0) return std::nullopt;
  const bool one_argument = rest == 3 && t[i + 1].kind == token_kind::open_paren &&
                            t[i + 3].kind == token_kind::close_paren;
  if (one_argument && pragma_takes_argument(name)) return std::nullopt;
  return finding{verdict::write,
                 "PRAGMA " + std::string(token_text(st.text, t[i])) + " with a value sets it; only the form without a value (or a "
                 "table/index argument for reporting pragmas) is read-only",
                 t[i + 1].offset};
}

}  // namespace detail

classification classify(std::string_view sql, config::sql_dialect dialect) {
  if (sql.size() > max_sql_bytes)
    return refuse("the SQL text is " + std::to_string(sql.size()) + " bytes; the classifier reads at most " +
                  std::to_string(max_sql_bytes));
  if (const auto nul = sql.find('\0'); nul != std::string_view::npos)
    return refuse("the SQL text contains a NUL byte (" + where(sql, nul) + ")");
  if (const auto bad = invalid_utf8_at(sql); bad != std::string_view::npos)
    return refuse("the SQL text is not valid UTF-8 (" + where(sql, bad) + ")");
  if (dialect == sql_dialect::ansi) return classify_ansi(sql);
  classification primary = classify_in(sql, dialect, default_mode(dialect), nullptr);
  if (primary.kind != verdict::read_only) return primary;
  for (const alt_mode& alt : alternatives(dialect)) {
    bool unterminated = false;
    classification other = classify_in(sql, dialect, alt.mode, &unterminated);
    if (other.kind == verdict::read_only || unterminated) continue;
    return refuse("the text reads differently on a server with " + std::string(alt.name) +
                      ", and there it is not read-only: " + other.reason +
                      "; avoid backslashes before quotes",
                  primary.keyword);
  }
  return primary;
}

}  // namespace omgdb::sql
