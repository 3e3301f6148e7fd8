// omgdb sql — statement leaders and the words that make a statement not read-only.
#include "sql/classifier/classifier_rules.hpp"

#include <algorithm>

#include "sql/classifier/classifier_functions.hpp"

namespace omgdb::sql::detail {

using config::sql_dialect;

namespace {

constexpr unsigned pg = 1, my = 2, lite = 4, all = 7, ms = 8;

unsigned bit(sql_dialect d) noexcept {
  switch (d) {
    case sql_dialect::postgres: return pg;
    case sql_dialect::mysql: return my;
    case sql_dialect::sqlite: return lite;
    case sql_dialect::mssql: return ms;
    case sql_dialect::ansi: return 0;  // never scanned itself: read as each of the others
  }
  return 0;
}

constexpr std::string_view k_data = "changes data";
constexpr std::string_view k_schema = "changes the schema";
constexpr std::string_view k_txn = "is transaction control, which a read-only call may not use";
constexpr std::string_view k_session = "changes session or server state";
constexpr std::string_view k_lock = "takes locks";
constexpr std::string_view k_exec = "runs stored code or other SQL";
constexpr std::string_view k_maint = "is a maintenance command that writes";
constexpr std::string_view k_file = "reads or writes files or other databases";
constexpr std::string_view k_privs = "changes privileges";
constexpr std::string_view k_admin = "is a server administration command";
constexpr std::string_view k_cursor = "uses a cursor, which is session state";

struct leader_entry {
  std::string_view word;
  unsigned dialects;
  std::string_view effect;  // empty: a read leader
};

// T-SQL (ms): SELECT and WITH read; VALUES, TABLE, SHOW and EXPLAIN are not T-SQL statements.
// Control of flow (IF, WHILE, GOTO, RETURN, TRY … CATCH) is not listed: it holds other
// statements, so it is refused as not understood.
constexpr leader_entry k_leaders[] = {
    {"SELECT", all | ms, {}}, {"WITH", all | ms, {}}, {"VALUES", all, {}}, {"EXPLAIN", all, {}},
    {"TABLE", pg | my, {}}, {"SHOW", pg | my, {}}, {"DESCRIBE", my, {}}, {"DESC", my, {}},
    {"INSERT", all | ms, k_data}, {"UPDATE", all | ms, k_data}, {"DELETE", all | ms, k_data},
    {"MERGE", pg | ms, k_data}, {"REPLACE", my | lite, k_data}, {"UPSERT", all, k_data},
    {"CREATE", all | ms, k_schema}, {"ALTER", all | ms, k_schema}, {"DROP", all | ms, k_schema},
    {"TRUNCATE", pg | my | ms, k_schema}, {"RENAME", my, k_schema}, {"COMMENT", pg, k_schema},
    {"SECURITY", pg, k_schema}, {"IMPORT", pg | my, k_schema},
    {"GRANT", pg | my | ms, k_privs}, {"REVOKE", pg | my | ms, k_privs}, {"REASSIGN", pg, k_privs},
    {"DENY", ms, k_privs}, {"REVERT", ms, k_privs}, {"SETUSER", ms, k_privs},
    {"BEGIN", all | ms, k_txn}, {"START", pg | my, k_txn}, {"COMMIT", all | ms, k_txn},
    {"END", pg | lite | ms, k_txn}, {"ROLLBACK", all | ms, k_txn}, {"ABORT", pg, k_txn},
    {"SAVEPOINT", all, k_txn}, {"SAVE", ms, k_txn}, {"RELEASE", all, k_txn}, {"XA", my, k_txn},
    {"SET", pg | my | ms, k_session}, {"RESET", pg | my, k_session}, {"DISCARD", pg, k_session},
    {"USE", my | ms, k_session}, {"LISTEN", pg, k_session}, {"UNLISTEN", pg, k_session},
    {"NOTIFY", pg, k_session}, {"ATTACH", lite, k_file}, {"DETACH", lite, k_file},
    {"LOCK", pg | my, k_lock}, {"UNLOCK", my, k_lock},
    {"CALL", pg | my, k_exec}, {"DO", pg | my, k_exec}, {"EXECUTE", pg | my | ms, k_exec},
    {"EXEC", all | ms, k_exec}, {"PREPARE", pg | my, k_exec}, {"DEALLOCATE", pg | my | ms, k_exec},
    {"HANDLER", my, k_exec}, {"SIGNAL", my, k_exec}, {"RESIGNAL", my, k_exec},
    {"PRINT", ms, k_exec}, {"RAISERROR", ms, k_exec}, {"THROW", ms, k_exec},
    {"DECLARE", pg | ms, k_cursor}, {"FETCH", pg | ms, k_cursor}, {"MOVE", pg | ms, k_cursor},
    {"CLOSE", pg | ms, k_cursor}, {"OPEN", ms, k_cursor},
    {"COPY", pg, k_file}, {"LOAD", pg | my | ms, k_file}, {"BULK", ms, k_file},
    {"READTEXT", ms, k_file}, {"WRITETEXT", ms, k_data}, {"UPDATETEXT", ms, k_data},
    {"BACKUP", ms, k_file}, {"RESTORE", ms, k_file}, {"DUMP", ms, k_file},
    {"SEND", ms, k_data}, {"RECEIVE", ms, k_data}, {"GET", ms, k_data},
    {"ENABLE", ms, k_schema}, {"DISABLE", ms, k_schema},
    {"VACUUM", pg | lite, k_maint}, {"ANALYZE", all, k_maint}, {"ANALYSE", pg, k_maint},
    {"REINDEX", pg | lite, k_maint}, {"CLUSTER", pg, k_maint}, {"REFRESH", pg, k_maint},
    {"CHECKPOINT", pg | ms, k_maint}, {"OPTIMIZE", my, k_maint}, {"REPAIR", my, k_maint},
    {"CHECK", my, k_maint}, {"CHECKSUM", my, k_maint}, {"CACHE", my, k_maint},
    {"DBCC", ms, k_maint}, {"WAITFOR", ms, k_exec}, {"RECONFIGURE", ms, k_admin},
    {"FLUSH", my, k_admin}, {"KILL", my | ms, k_admin}, {"PURGE", my, k_admin},
    {"INSTALL", my, k_admin}, {"UNINSTALL", my, k_admin}, {"SHUTDOWN", my | ms, k_admin},
    {"RESTART", my, k_admin}, {"STOP", my, k_admin}, {"CHANGE", my, k_admin},
    {"BINLOG", my, k_admin}, {"CLONE", my, k_admin},
};

// Words that are never part of a read-only statement. `call_ok`: the word followed by `(` is
// a harmless function of the same name (MySQL INSERT(str,…), REPLACE(…), TRUNCATE(x, d)).
// `maybe_name`: a plausible column or table name, so the reason suggests quoting it.
struct deny_word {
  std::string_view word;
  std::string_view effect;
  bool call_ok = false;
  bool maybe_name = false;
};

constexpr deny_word k_deny[] = {
    {"INSERT", k_data, true}, {"UPDATE", k_data}, {"DELETE", k_data},
    {"MERGE", k_data, false, true}, {"REPLACE", k_data, true}, {"UPSERT", k_data},
    {"RETURNING", k_data}, {"TRUNCATE", k_schema, true}, {"CREATE", k_schema},
    {"ALTER", k_schema}, {"DROP", k_schema}, {"RENAME", k_schema, false, true},
    {"IMPORT", k_schema, false, true}, {"GRANT", k_privs}, {"REVOKE", k_privs},
    {"CALL", k_exec, false, true}, {"EXEC", k_exec}, {"EXECUTE", k_exec}, {"DO", k_exec},
    {"PREPARE", k_exec}, {"DEALLOCATE", k_exec}, {"HANDLER", k_exec, false, true},
    {"COPY", k_file, false, true}, {"ATTACH", k_file}, {"DETACH", k_file},
    {"OUTFILE", k_file}, {"DUMPFILE", k_file},
    {"LISTEN", k_session, false, true}, {"UNLISTEN", k_session},
    {"NOTIFY", k_session, false, true}, {"DISCARD", k_session, false, true},
    {"SET", k_session}, {"BEGIN", k_txn}, {"COMMIT", k_txn}, {"ROLLBACK", k_txn},
    {"SAVEPOINT", k_txn}, {"LOCK", k_lock, false, true}, {"UNLOCK", k_lock},
    {"VACUUM", k_maint}, {"ANALYZE", k_maint}, {"ANALYSE", k_maint}, {"REINDEX", k_maint},
    {"CLUSTER", k_maint, false, true}, {"REFRESH", k_maint, false, true},
    {"CHECKPOINT", k_maint, false, true}, {"OPTIMIZE", k_maint, false, true},
    {"REPAIR", k_maint, false, true}, {"INSTALL", k_admin, false, true},
    {"UNINSTALL", k_admin}, {"FLUSH", k_admin, false, true}, {"KILL", k_admin, false, true},
    {"PURGE", k_admin, false, true}, {"SHUTDOWN", k_admin}, {"DECLARE", k_cursor},
    // SQLite runs some pragmas while preparing, so even EXPLAIN PRAGMA x = y changes state.
    {"PRAGMA", k_session},
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

bool is_dml(std::string_view w) noexcept {
  return w == "INSERT" || w == "UPDATE" || w == "DELETE" || w == "MERGE" || w == "REPLACE" ||
         w == "UPSERT";
}

class scanner {
 public:
  explicit scanner(const statement_view& st) : st_(st), t_(st.tokens), explain_(parse_explain_prefix(st)) {}

  std::optional<finding> run() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (auto f = at(i)) return f;
    }
    return std::nullopt;
  }

 private:
  std::string word(std::size_t i) const {
    if (i >= t_.size() || t_[i].kind != token_kind::word) return {};
    const auto w = token_text(st_.text, t_[i]);
    return w.size() > 32 ? std::string() : upper(w);
  }
  bool kind_at(std::size_t i, token_kind k) const { return i < t_.size() && t_[i].kind == k; }
  bool punct_at(std::size_t i, std::string_view p) const {
    return kind_at(i, token_kind::other) && token_text(st_.text, t_[i]) == p;
  }
  // Inside the write an EXPLAIN without ANALYZE explains (it plans it, executes nothing).
  bool in_explained_write(std::size_t i) const {
    return explain_ && explain_->explains_write && i >= explain_->statement;
  }
  // A data-modifying keyword standing as a name in a WITH statement: a CTE's name
  // (`WITH replace AS (…)`, `, delete (n) AS (…)`), a reference to one (`FROM replace`,
  // `JOIN update`, `replace.n`) or an alias (`AS delete`). A data-modifying CTE or the
  // statement after the CTEs always has its keyword right after `(` or `)`.
  bool names_a_relation(std::size_t i) const {
    if (st_.leader != "WITH") return false;
    const std::string prev = word(i - 1), next = word(i + 1);
    if (kind_at(i + 1, token_kind::dot) || next == "AS") return true;
    if (prev == "WITH" || prev == "RECURSIVE" || prev == "FROM" || prev == "JOIN" || prev == "AS") return true;
    return punct_at(i - 1, ",") && kind_at(i + 1, token_kind::open_paren);
  }
  finding make(std::size_t i, std::string reason, verdict v = verdict::write) const {
    return finding{v, std::move(reason), t_[i].offset};
  }

  std::optional<finding> at(std::size_t i) {
    const token& t = t_[i];
    if (t.kind == token_kind::assign && st_.dialect == sql_dialect::mysql)
      return make(i, "assigning a user variable with := changes session state");
    if (t.kind != token_kind::word && t.kind != token_kind::quoted_ident) return std::nullopt;
    if (auto f = call(i)) return f;
    if (t.kind != token_kind::word) return std::nullopt;
    if (i > 0 && t_[i - 1].kind == token_kind::dot) {
      const std::string w = word(i);  // Oracle-style seq.nextval (MariaDB sql_mode=ORACLE)
      if (w == "NEXTVAL" || w == "SETVAL")
        return make(i, "." + w + " advances or sets a sequence, which a rollback does not undo");
      return std::nullopt;
    }
    const std::string w = word(i);
    if (w.empty()) return std::nullopt;
    return keyword(i, w);
  }

  // A function call: a name followed by `(` (schema qualification is just earlier tokens).
  std::optional<finding> call(std::size_t i) {
    const std::string name = name_of(st_.text, t_[i]);
    if (st_.dialect == sql_dialect::sqlite && name.rfind("PRAGMA_", 0) == 0 &&
        !pragma_reads(name.substr(7)))
      return make(i, "the table-valued function " + std::string(token_text(st_.text, t_[i])) +
                         " runs a PRAGMA that is not on the read-only PRAGMA allow-list");
    if (!kind_at(i + 1, token_kind::open_paren)) return std::nullopt;
    const auto raw = token_text(st_.text, t_[i]);
    if (t_[i].kind == token_kind::quoted_ident && (raw[0] == 'U' || raw[0] == 'u'))
      return make(i, "a U&\"…\" identifier used as a function name can hide any name behind "
                     "Unicode escapes; write the function name plainly",
                  verdict::refused);
    if (auto effect = side_effect_of(name))
      return make(i, std::string(token_text(st_.text, t_[i])) + "() " + std::string(*effect) +
                         ": a read-only statement may not call it");
    if (name == "LAST_INSERT_ID" && !kind_at(i + 2, token_kind::close_paren))
      return make(i, "LAST_INSERT_ID(expr) sets the session's last insert id");
    return std::nullopt;
  }

  std::optional<finding> keyword(std::size_t i, const std::string& w) {
    if (w == "FOR") {
      std::string a = word(i + 1), b = word(i + 2), c = word(i + 3);
      if (a == "UPDATE" || a == "SHARE") return lock(i, "FOR " + a);
      if (a == "NO" && b == "KEY" && c == "UPDATE") return lock(i, "FOR NO KEY UPDATE");
      if (a == "KEY" && b == "SHARE") return lock(i, "FOR KEY SHARE");
      return std::nullopt;
    }
    if (w == "LOCK" && word(i + 1) == "IN" && word(i + 2) == "SHARE") return lock(i, "LOCK IN SHARE MODE");
    if (w == "INTO") {
      const std::string next = word(i + 1);
      if (next == "OUTFILE" || next == "DUMPFILE")
        return make(i, "INTO " + next + " writes a file on the database server: not read-only");
      if (in_explained_write(i)) return std::nullopt;  // INSERT INTO, MERGE INTO
      return make(i, "INTO (SELECT … INTO) creates a table or assigns variables: not read-only");
    }
    if (w == "NEXT" && word(i + 1) == "VALUE" && word(i + 2) == "FOR")
      return make(i, "NEXT VALUE FOR advances a sequence, which a rollback does not undo");
    if (w == "START" && word(i + 1) == "TRANSACTION") return make(i, "START TRANSACTION " + std::string(k_txn));
    if (w == "LOAD" && (word(i + 1) == "DATA" || word(i + 1) == "XML"))
      return make(i, "LOAD " + word(i + 1) + " reads files into a table: not read-only");
    if ((w == "ANALYZE" || w == "ANALYSE") && explain_ &&
        std::find(explain_->analyze_off.begin(), explain_->analyze_off.end(), i) != explain_->analyze_off.end())
      return std::nullopt;  // EXPLAIN (ANALYZE false …)
    if ((w == "ANALYZE" || w == "ANALYSE") &&
        (st_.leader == "EXPLAIN" || st_.leader == "DESCRIBE" || st_.leader == "DESC"))
      return make(i, "EXPLAIN " + w + " executes the statement it explains: not read-only");
    // The explained write's own keywords; side-effect calls, locks and files stay refused.
    if (in_explained_write(i) && (is_dml(w) || w == "SET" || w == "RETURNING" ||
                                  (w == "DO" && (word(i + 1) == "UPDATE" || word(i + 1) == "NOTHING"))))
      return std::nullopt;
    if (is_dml(w) && names_a_relation(i)) return std::nullopt;
    if (w == "SEARCH" || w == "CYCLE") cte_options_ = true;
    if (w == "SET" && i > 0 && (word(i - 1) == "CHARACTER" || word(i - 1) == "CHAR")) return std::nullopt;
    // WITH RECURSIVE … SEARCH … SET col / CYCLE … SET col USING path (PostgreSQL 14+) only names
    // a column; an UPDATE's SET is refused through UPDATE itself.
    if (w == "SET" && cte_options_ && st_.leader == "WITH") return std::nullopt;
    if (st_.leader == "SHOW" && i <= 2) return std::nullopt;  // SHOW CREATE TABLE, SHOW FULL …
    for (const auto& d : k_deny) {
      if (d.word != w) continue;
      if (d.call_ok && kind_at(i + 1, token_kind::open_paren)) return std::nullopt;
      if (is_dml(w) && st_.leader == "WITH")
        return make(i, "a data-modifying CTE (" + w + " inside WITH) is not read-only");
      std::string reason = w + " " + std::string(d.effect) + ": it may not appear in a read-only statement";
      if (d.maybe_name)
        reason += " (if " + std::string(token_text(st_.text, t_[i])) + " is a column or table name, quote it)";
      return make(i, std::move(reason));
    }
    return std::nullopt;
  }

  finding lock(std::size_t i, std::string what) const {
    return make(i, what + " locks rows: a read-only statement may not take locks");
  }

  const statement_view& st_;
  std::span<const token> t_;
  std::optional<explain_prefix> explain_;
  bool cte_options_ = false;
};

}  // namespace

std::string name_of(std::string_view text, const token& t) {
  const auto raw = token_text(text, t);
  if (t.kind == token_kind::word) return raw.size() > 64 ? std::string() : upper(raw);
  if (t.kind != token_kind::quoted_ident || raw.size() < 2 || raw.size() > 130) return {};
  std::size_t open = raw[0] == 'U' || raw[0] == 'u' ? 2 : 0;  // U&"…"
  if (raw.size() < open + 2) return {};
  const char q = raw[open] == '[' ? ']' : raw[open];
  std::string out;
  for (std::size_t i = open + 1; i + 1 < raw.size(); ++i) {
    if (raw[i] == q && raw[i + 1] == q && q != ']') ++i;
    out.push_back(ascii_upper(raw[i]));
  }
  return out;
}

leader_info classify_leader(std::string_view upper_keyword, sql_dialect d) {
  if (upper_keyword == "PRAGMA") {
    return d == sql_dialect::sqlite ? leader_info{leader_kind::pragma, {}} : leader_info{};
  }
  for (const auto& e : k_leaders) {
    if (e.word != upper_keyword) continue;
    if ((e.dialects & bit(d)) == 0) return {};
    if (e.effect.empty()) return {leader_kind::read, {}};
    return {leader_kind::write, std::string(upper_keyword) + " " + std::string(e.effect)};
  }
  return {};
}

std::optional<finding> scan_read_statement(const statement_view& st) { return scanner(st).run(); }

}  // namespace omgdb::sql::detail
