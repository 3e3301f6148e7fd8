// omgdb sql — EXPLAIN without ANALYZE: PostgreSQL and MariaDB/MySQL only plan the explained
// statement, so EXPLAIN of a write executes nothing and is read-only (the second seed lists
// "EXPLAIN without ANALYZE" as read-only). Anything that would run the statement — ANALYZE in
// either syntax, with no value or any value but false/off/0 — or any prefix this parser does
// not know leaves the statement to the ordinary scan, which refuses the write.
#include "sql/classifier/classifier_rules.hpp"

namespace omgdb::sql::detail {

using config::sql_dialect;

namespace {

struct reader {
  const statement_view& st;

  bool is(std::size_t i, token_kind k) const { return i < st.tokens.size() && st.tokens[i].kind == k; }
  std::string word(std::size_t i) const { return is(i, token_kind::word) ? name_of(st.text, st.tokens[i]) : std::string(); }
  bool punct(std::size_t i, char c) const {
    return is(i, token_kind::other) && token_text(st.text, st.tokens[i]) == std::string_view(&c, 1);
  }
};

bool is_analyze(const std::string& w) { return w == "ANALYZE" || w == "ANALYSE"; }

// PostgreSQL: `( option [value] [, …] )` starting at `i` (the `(`); the index after `)`, or
// nullopt when an option runs the statement or the list is not understood.
std::optional<std::size_t> pg_options(const reader& r, std::size_t i, explain_prefix& out) {
  ++i;
  while (true) {
    const std::string name = r.word(i);
    if (name.empty()) return std::nullopt;
    const std::size_t at = i++;
    std::string val;
    if (r.is(i, token_kind::word) || r.is(i, token_kind::number)) {
      val = r.is(i, token_kind::word) ? r.word(i) : std::string(token_text(r.st.text, r.st.tokens[i]));
      ++i;
    } else if (!r.punct(i, ',') && !r.is(i, token_kind::close_paren)) {
      return std::nullopt;  // a string or anything else as a value: not understood
    }
    if (is_analyze(name)) {
      if (val != "FALSE" && val != "OFF" && val != "0") return std::nullopt;  // ANALYZE runs it
      out.analyze_off.push_back(at);
    }
    if (r.is(i, token_kind::close_paren)) return i + 1;
    if (!r.punct(i, ',')) return std::nullopt;
    ++i;
  }
}

bool dml_for(const std::string& w, sql_dialect d) {
  if (w == "INSERT" || w == "UPDATE" || w == "DELETE") return true;
  if (w == "MERGE") return d == sql_dialect::postgres;
  if (w == "REPLACE") return d == sql_dialect::mysql;
  return false;
}

}  // namespace

std::optional<explain_prefix> parse_explain_prefix(const statement_view& st) {
  if (st.leader != "EXPLAIN" || st.dialect == sql_dialect::sqlite) return std::nullopt;
  const reader r{st};
  explain_prefix out;
  std::size_t i = 1;
  if (st.dialect == sql_dialect::postgres) {
    if (r.is(i, token_kind::open_paren)) {
      auto next = pg_options(r, i, out);
      if (!next) return std::nullopt;
      i = *next;
    } else {
      if (is_analyze(r.word(i))) return std::nullopt;
      if (r.word(i) == "VERBOSE") ++i;
    }
  } else {
    // MariaDB/MySQL: EXPLAIN [EXTENDED | PARTITIONS | FORMAT = name] statement.
    const std::string w = r.word(i);
    if (is_analyze(w)) return std::nullopt;
    if (w == "EXTENDED" || w == "PARTITIONS") {
      ++i;
    } else if (w == "FORMAT" && r.punct(i + 1, '=') && !r.word(i + 2).empty()) {
      i += 3;
    }
  }
  out.statement = i;
  out.explains_write = dml_for(r.word(i), st.dialect);
  return out;
}

}  // namespace omgdb::sql::detail
