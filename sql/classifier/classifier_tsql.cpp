// omgdb sql — T-SQL rules of the read-only classifier (SQL Server, Sybase; classifier_rules.hpp).
//
// SQL Server runs `SELECT 1 DELETE FROM t` as two statements: no `;` is needed between them.
// So a read is refused when a word that can only start a statement appears anywhere in it
// (outside strings, comments and [bracketed] or "quoted" names, which the lexer already took
// out), when SELECT, WITH or VALUES stand where the query cannot hold them, and when END or
// ELSE close something that is not a CASE. Every T-SQL reserved word that starts a statement
// can never be a bare column name, so refusing it costs no valid read; the few non-reserved
// statement words (GET, MOVE, SEND, RECEIVE, THROW, …) must be written [bracketed] as names.
// Locks are writes under the seed's rule: table hints UPDLOCK, XLOCK, HOLDLOCK, TABLOCK(X),
// PAGLOCK, ROWLOCK, SERIALIZABLE, REPEATABLEREAD, READCOMMITTEDLOCK (NOLOCK and READUNCOMMITTED
// read). OPENQUERY, OPENROWSET and OPENDATASOURCE reach other servers or the server's files.
#include <algorithm>
#include <array>

#include "sql/classifier/classifier_rules.hpp"

namespace omgdb::sql::detail {

namespace {

// Words that start a T-SQL statement and have no place inside a query.
constexpr std::array<std::string_view, 62> k_statement_words = {
    "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "ALTER", "DROP", "TRUNCATE", "GRANT", "REVOKE",
    "DENY", "BEGIN", "COMMIT", "ROLLBACK", "SAVE", "SET", "USE", "EXEC", "EXECUTE", "DECLARE",
    "OPEN", "FETCH", "CLOSE", "DEALLOCATE", "CHECKPOINT", "KILL", "SHUTDOWN", "DBCC", "WAITFOR",
    "BULK", "BACKUP", "RESTORE", "RECONFIGURE", "REVERT", "SETUSER", "READTEXT", "WRITETEXT",
    "UPDATETEXT", "ENABLE", "DISABLE", "SEND", "RECEIVE", "GET", "MOVE", "PRINT", "RAISERROR",
    "THROW", "IF", "WHILE", "GOTO", "RETURN", "BREAK", "CONTINUE", "TRY", "CATCH", "DUMP", "LOAD",
    "TRAN", "TRANSACTION", "LINENO", "ERRLVL", "CALL",
};

constexpr std::array<std::string_view, 10> k_lock_hints = {
    "UPDLOCK", "XLOCK", "HOLDLOCK", "TABLOCK", "TABLOCKX", "PAGLOCK", "ROWLOCK", "SERIALIZABLE",
    "REPEATABLEREAD", "READCOMMITTEDLOCK",
};

template <std::size_t N>
bool in(const std::array<std::string_view, N>& list, std::string_view w) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

bool is_dml(std::string_view w) { return w == "INSERT" || w == "UPDATE" || w == "DELETE" || w == "MERGE"; }

class tsql_scan {
 public:
  tsql_scan(const statement_view& st, std::size_t first) : st_(st), t_(st.tokens), first_(first) {}

  std::optional<finding> run(bool read) {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (punct(i, "{"))
        return refused(i, "an ODBC escape sequence { … } is rewritten by the driver before the server reads it "
                          "({call …} runs a procedure): write the statement without it");
    }
    std::size_t main = first_;
    if (word(first_) == "WITH") {
      auto m = after_ctes();
      if (!m) return refused(first_, "a WITH whose common table expressions this classifier cannot follow "
                                     "(expected WITH name [(columns)] AS (query) [, …] and then the statement)");
      main = *m;
    }
    const std::string main_word = word(main);
    if (main_word.empty()) return refused(main < t_.size() ? main : first_, "no statement follows the WITH clause");
    if (!read || is_dml(main_word)) return is_dml(main_word) ? scan_dml(main, main_word) : std::nullopt;
    if (main_word != "SELECT")
      return refused(main, main_word + " after WITH is not a query this classifier understands");
    if (auto f = scan_query(main)) return f;
    return scan_read_effects();
  }

 private:
  std::string word(std::size_t i) const {
    if (i >= t_.size() || t_[i].kind != token_kind::word) return {};
    return name_of(st_.text, t_[i]);
  }
  bool is(std::size_t i, token_kind k) const { return i < t_.size() && t_[i].kind == k; }
  bool punct(std::size_t i, std::string_view p) const {
    return is(i, token_kind::other) && token_text(st_.text, t_[i]) == p;
  }
  bool after_dot(std::size_t i) const { return i > 0 && is(i - 1, token_kind::dot); }
  finding refused(std::size_t i, std::string reason) const {
    return finding{verdict::refused, std::move(reason), t_[i < t_.size() ? i : 0].offset};
  }
  finding second_statement(std::size_t i, std::string_view w) const {
    return refused(i, std::string(w) + " starts another statement: T-SQL runs statements that follow one another "
                                       "without `;`, and only one statement may run per call" +
                          (w == "GET" || w == "MOVE" || w == "SEND" || w == "RECEIVE" || w == "THROW" || w == "TRY" ||
                                   w == "CATCH" || w == "ENABLE" || w == "DISABLE"
                               ? " (a column of that name is written [" + std::string(token_text(st_.text, t_[i])) + "])"
                               : std::string()));
  }

  // The index after the matching `)` of the `(` at i, or nullopt.
  std::optional<std::size_t> skip_parens(std::size_t i) const {
    std::size_t depth = 0;
    for (; i < t_.size(); ++i) {
      if (is(i, token_kind::open_paren)) ++depth;
      else if (is(i, token_kind::close_paren) && --depth == 0) return i + 1;
    }
    return std::nullopt;
  }

  // WITH [XMLNAMESPACES (…) ,] name [(columns)] AS (query) [, …]: the index of the statement.
  std::optional<std::size_t> after_ctes() const {
    std::size_t i = first_ + 1;
    if (word(i) == "XMLNAMESPACES" && is(i + 1, token_kind::open_paren)) {
      auto n = skip_parens(i + 1);
      if (!n) return std::nullopt;
      i = *n;
      if (!punct(i, ",")) return i;
      ++i;
    }
    for (;;) {
      if (!is(i, token_kind::word) && !is(i, token_kind::quoted_ident)) return std::nullopt;
      ++i;
      if (is(i, token_kind::open_paren)) {
        auto n = skip_parens(i);
        if (!n) return std::nullopt;
        i = *n;
      }
      if (word(i) != "AS" || !is(i + 1, token_kind::open_paren)) return std::nullopt;
      auto n = skip_parens(i + 1);
      if (!n) return std::nullopt;
      i = *n;
      if (!punct(i, ",")) return i;
      ++i;
    }
  }

  // A query (SELECT …, after any CTEs at `main`): every statement start in it is refused.
  std::optional<finding> scan_query(std::size_t main) const {
    std::size_t case_depth = 0;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!is(i, token_kind::word) || i == first_ || i == main || after_dot(i)) continue;
      if (i < main) continue;  // the CTE bodies are scanned below as well: see the second loop
      if (auto f = query_word(i, case_depth)) return f;
    }
    // The CTE bodies (between WITH and the statement): the same rules.
    case_depth = 0;
    for (std::size_t i = first_ + 1; i < main; ++i) {
      if (!is(i, token_kind::word) || after_dot(i)) continue;
      const std::string w = word(i);
      if (w == "AS" || w == "XMLNAMESPACES") continue;
      if (auto f = query_word(i, case_depth)) return f;
    }
    return std::nullopt;
  }

  std::optional<finding> query_word(std::size_t i, std::size_t& case_depth) const {
    const std::string w = word(i);
    if (w.empty()) return std::nullopt;
    if (w == "CASE") {
      ++case_depth;
      return std::nullopt;
    }
    if (w == "END") {
      if (case_depth == 0) return second_statement(i, "END outside a CASE");
      --case_depth;
      return std::nullopt;
    }
    if (w == "ELSE") return case_depth ? std::nullopt : std::optional<finding>(second_statement(i, "ELSE outside a CASE"));
    if (w == "GO")
      return refused(i, "GO separates batches in client tools; the server reads it as a name or runs what follows "
                        "as a further statement: send one statement without GO (a name GO is written [GO])");
    if (w == "SELECT") {
      const std::string prev = word(i - 1);
      const bool ok = is(i - 1, token_kind::open_paren) || prev == "UNION" || prev == "EXCEPT" ||
                      prev == "INTERSECT" || (prev == "ALL" && word(i - 2) == "UNION");
      return ok ? std::nullopt : std::optional<finding>(second_statement(i, "SELECT here"));
    }
    if (w == "WITH") {
      const std::string next = word(i + 1);
      const bool ok = is(i + 1, token_kind::open_paren) || next == "TIES" || next == "ROLLUP" || next == "CUBE";
      return ok ? std::nullopt : std::optional<finding>(second_statement(i, "WITH here"));
    }
    if (w == "VALUES")
      return is(i - 1, token_kind::open_paren) ? std::nullopt : std::optional<finding>(second_statement(i, "VALUES here"));
    if (w == "USE" && (word(i + 1) == "HINT" || word(i + 1) == "PLAN")) return std::nullopt;  // OPTION (USE HINT …)
    if (w == "BULK" && is(i - 1, token_kind::open_paren)) return std::nullopt;  // OPENROWSET(BULK …): a write below
    if (w == "FETCH") {  // OFFSET n ROWS FETCH NEXT m ROWS ONLY
      const std::string prev = word(i - 1), next = word(i + 1);
      const bool paging = (prev == "ROWS" || prev == "ROW") && (next == "NEXT" || next == "FIRST") &&
                          (is(i + 2, token_kind::number) || is(i + 2, token_kind::parameter) ||
                           is(i + 2, token_kind::open_paren));
      return paging ? std::nullopt : std::optional<finding>(second_statement(i, "FETCH (a cursor)"));
    }
    if (in(k_statement_words, w)) return second_statement(i, w);
    return std::nullopt;
  }

  // INSERT/UPDATE/DELETE/MERGE: a write a person approves as written, but still one statement.
  std::optional<finding> scan_dml(std::size_t main, const std::string& dml) const {
    for (std::size_t i = main + 1; i < t_.size(); ++i) {
      if (!is(i, token_kind::word) || after_dot(i)) continue;
      const std::string w = word(i);
      if (w == "GO") return refused(i, "GO separates batches in client tools: send one statement without GO");
      if (is_dml(w)) {
        if (dml == "MERGE" && word(i - 1) == "THEN") continue;  // WHEN … THEN UPDATE / DELETE / INSERT
        return second_statement(i, w);
      }
      if ((w == "EXEC" || w == "EXECUTE") && dml == "INSERT") continue;  // INSERT … EXEC procedure
      if (w == "SET" && (dml == "UPDATE" || dml == "MERGE")) continue;
      if (w == "BULK" && is(i - 1, token_kind::open_paren)) continue;  // OPENROWSET(BULK …)
      if (w == "USE" && (word(i + 1) == "HINT" || word(i + 1) == "PLAN")) continue;
      if (in(k_statement_words, w)) return second_statement(i, w);
    }
    return std::nullopt;
  }

  // What a query may not do although it is one statement.
  std::optional<finding> scan_read_effects() const {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!is(i, token_kind::word) || after_dot(i)) continue;
      const std::string w = word(i);
      if (in(k_lock_hints, w))
        return finding{verdict::write, "the table hint " + w + " takes locks: a read-only statement may not take locks "
                                       "(NOLOCK and READUNCOMMITTED read without them)",
                       t_[i].offset};
      if (w == "OPENQUERY" || w == "OPENROWSET" || w == "OPENDATASOURCE")
        return finding{verdict::write, w + " runs a query on another server or reads the server's files: not read-only",
                       t_[i].offset};
      if (w == "XP_CMDSHELL" || w == "SP_EXECUTESQL")
        return finding{verdict::write, w + " runs a command or SQL text: not read-only", t_[i].offset};
    }
    return std::nullopt;
  }

  const statement_view& st_;
  std::span<const token> t_;
  std::size_t first_;
};

}  // namespace

std::optional<finding> check_tsql(const statement_view& st, std::size_t first, bool read) {
  return tsql_scan(st, first).run(read);
}

}  // namespace omgdb::sql::detail
