// omgdb search — the query parser (query.hpp): a recursive descent over a token list.
#include "engine/search/query.hpp"

#include <algorithm>

namespace omgdb::engine::search {
namespace {

enum class tok { word, phrase, lparen, rparen, and_, or_, not_, field, end };

struct token {
  tok kind;
  std::string text;  // word (without `*`), phrase body, field path
  bool prefix = false;
  std::size_t pos = 0;
};

// A NUL (JSON "\u0000") separates words like a space: FTS5 reads its expression as a C string,
// so a NUL inside a quoted term would end the expression there ("unterminated string").
bool space_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }
bool word_char(char c) { return !space_char(c) && c != '(' && c != ')' && c != '"'; }
bool searchable(std::string_view w) {
  return std::any_of(w.begin(), w.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
  });
}

std::string at(std::size_t pos) { return " at position " + std::to_string(pos); }

failure syntax(std::string what) {
  return make_error("query syntax: " + std::move(what) + " (docs/search.md, Query syntax)");
}

class lexer {
 public:
  lexer(const std::string& q, const std::vector<std::string>& fields) : q_(q), fields_(fields) {}

  result<std::vector<token>> run() {
    std::vector<token> out;
    std::size_t i = 0;
    while (i < q_.size()) {
      const char c = q_[i];
      if (space_char(c)) {
        ++i;
      } else if (c == '(' && q_.find_first_not_of(" \t\r\n", i + 1) != std::string::npos &&
                 q_[q_.find_first_not_of(" \t\r\n", i + 1)] == ')') {
        i = q_.find(')', i) + 1;  // `()` as in `open()`: punctuation
      } else if (c == '(' || c == ')') {
        out.push_back({c == '(' ? tok::lparen : tok::rparen, std::string(1, c), false, i});
        ++i;
      } else if (c == '"') {
        const std::size_t close = q_.find('"', i + 1);
        if (close == std::string::npos) return syntax("the phrase opened" + at(i) + " is never closed (expected `\"`)");
        std::string body = q_.substr(i + 1, close - i - 1);
        std::replace(body.begin(), body.end(), '\0', ' ');
        if (!searchable(body)) return syntax("the phrase" + at(i) + " has no letter or digit");
        out.push_back({tok::phrase, std::move(body), false, i});
        i = close + 1;
      } else {
        std::size_t j = i;
        while (j < q_.size() && word_char(q_[j])) ++j;
        OMGDB_CHECK(word(q_.substr(i, j - i), i, out));
        i = j;
      }
    }
    out.push_back({tok::end, "", false, q_.size()});
    return out;
  }

 private:
  status word(std::string w, std::size_t pos, std::vector<token>& out) {
    const std::size_t colon = w.find(':');
    if (colon != std::string::npos && colon > 0 && colon + 1 <= w.size()) {
      const std::string name = w.substr(0, colon);
      const bool followed = colon + 1 < w.size() || (pos + w.size() < q_.size() && (q_[pos + w.size()] == '(' || q_[pos + w.size()] == '"'));
      if (followed) {
        // Not a field of the index ("Note:see", "std::move"): the colon is punctuation.
        if (std::find(fields_.begin(), fields_.end(), name) != fields_.end()) {
          out.push_back({tok::field, name, false, pos});
          w = w.substr(colon + 1);
          pos += colon + 1;
          if (w.empty()) return {};
        }
      }
    }
    if (w == "AND" || w == "OR" || w == "NOT") {
      out.push_back({w == "AND" ? tok::and_ : w == "OR" ? tok::or_ : tok::not_, w, false, pos});
      return {};
    }
    bool prefix = false;
    if (!w.empty() && w.back() == '*') {
      prefix = true;
      w.pop_back();
    }
    if (const auto star = w.find('*'); star != std::string::npos) {
      return syntax("`*`" + at(pos + star) + " marks a prefix and goes at the end of a term (`connect*`)");
    }
    if (!searchable(w)) {
      if (prefix) return syntax("`*`" + at(pos + w.size()) + " follows no letter or digit (expected a prefix such as `connect*`)");
      return {};  // punctuation: skipped
    }
    out.push_back({tok::word, std::move(w), prefix, pos});
    return {};
  }

  const std::string& q_;
  const std::vector<std::string>& fields_;
};

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

class parser {
 public:
  parser(std::vector<token> t, const std::vector<std::string>& fields, parsed_query& out)
      : t_(std::move(t)), fields_(fields), out_(out) {}

  result<std::string> run() {
    if (t_.size() == 1) return syntax("the query has no term (expected words, \"a phrase\", prefix* or field:term)");
    OMGDB_TRY(e, or_expr());
    const token& k = t_[i_];
    if (k.kind == tok::rparen) return syntax("unexpected `)`" + at(k.pos) + " (no `(` is open)");
    if (k.kind != tok::end) return syntax("unexpected `" + k.text + "`" + at(k.pos));
    return e;
  }

 private:
  bool starts_unary(tok k) const { return k == tok::word || k == tok::phrase || k == tok::lparen || k == tok::field; }

  result<std::string> or_expr() {
    OMGDB_TRY(first, and_expr());
    std::vector<std::string> parts{std::move(first)};
    while (true) {
      const token& k = t_[i_];
      if (k.kind == tok::or_) {
        ++i_;
        if (!starts_unary(t_[i_].kind)) return expected_term("OR", k.pos);
      } else if (!starts_unary(k.kind)) {
        break;
      }
      OMGDB_TRY(next, and_expr());
      parts.push_back(std::move(next));
    }
    if (parts.size() == 1) return std::move(parts[0]);
    std::string out = "(";
    for (std::size_t p = 0; p < parts.size(); ++p) out += (p ? " OR " : "") + parts[p];
    return out + ")";
  }

  result<std::string> and_expr() {
    OMGDB_TRY(left, unary());
    while (t_[i_].kind == tok::and_ || t_[i_].kind == tok::not_) {
      const token& op = t_[i_++];
      if (!starts_unary(t_[i_].kind)) return expected_term(op.text, op.pos);
      OMGDB_TRY(right, unary());
      left = "(" + left + (op.kind == tok::and_ ? " AND " : " NOT ") + right + ")";
    }
    return left;
  }

  result<std::string> unary() {
    const token& k = t_[i_];
    if (k.kind == tok::field) {
      ++i_;
      const auto col = std::find(fields_.begin(), fields_.end(), k.text) - fields_.begin();
      const token& next = t_[i_];
      if (next.kind != tok::word && next.kind != tok::phrase && next.kind != tok::lparen) {
        return syntax("expected a term, \"phrase\" or `(` after `" + k.text + ":`" + at(next.pos));
      }
      OMGDB_TRY(inner, unary());
      return "{f" + std::to_string(col) + "} : (" + inner + ")";
    }
    if (k.kind == tok::lparen) {
      ++i_;
      if (t_[i_].kind == tok::rparen) return syntax("empty parentheses" + at(k.pos));
      if (!starts_unary(t_[i_].kind)) return expected_term("(", k.pos);
      // The parser recurses once per open `(`: a bound keeps a query of 4096 `(` from
      // exhausting the stack (found by fuzz/search_query.cpp).
      if (++depth_ > k_max_query_depth) {
        return syntax("parentheses nest deeper than " + std::to_string(k_max_query_depth) + " levels" + at(k.pos));
      }
      OMGDB_TRY(inner, or_expr());
      --depth_;
      if (t_[i_].kind != tok::rparen) return syntax("the `(`" + at(k.pos) + " is never closed (expected `)`" + at(t_[i_].pos) + ")");
      ++i_;
      return inner;
    }
    if (k.kind == tok::word || k.kind == tok::phrase) {
      ++i_;
      if (++terms_ > k_max_query_terms) {
        return syntax("more than " + std::to_string(k_max_query_terms) + " terms" + at(k.pos));
      }
      out_.terms.push_back(k.kind == tok::phrase ? "\"" + k.text + "\"" : k.text + (k.prefix ? "*" : ""));
      out_.plain += (out_.plain.empty() ? "" : " ") + k.text;
      return quoted(k.text) + (k.prefix ? " *" : "");
    }
    if (k.kind == tok::not_) {
      return syntax("`NOT`" + at(k.pos) + " needs a term before it (`a NOT b` finds a without b)");
    }
    if (k.kind == tok::and_ || k.kind == tok::or_) {
      return syntax("`" + k.text + "`" + at(k.pos) + " needs a term before it");
    }
    if (k.kind == tok::rparen) return syntax("unexpected `)`" + at(k.pos) + " (expected a term)");
    return syntax("expected a term" + at(k.pos));
  }

  failure expected_term(const std::string& after, std::size_t pos) {
    const token& k = t_[i_];
    const std::string got = k.kind == tok::end ? "the end of the query" : "`" + k.text + "`";
    return syntax("expected a term after `" + after + "`" + at(pos) + ", got " + got + at(k.pos));
  }

  std::vector<token> t_;
  const std::vector<std::string>& fields_;
  parsed_query& out_;
  std::size_t i_ = 0;
  std::size_t terms_ = 0;
  std::size_t depth_ = 0;  // `(` open around the current position
};

}  // namespace

result<parsed_query> parse_query(const std::string& query, const std::vector<std::string>& fields) {
  if (query.size() > k_max_query_bytes) {
    return syntax("the query is " + std::to_string(query.size()) + " bytes; at most " + std::to_string(k_max_query_bytes));
  }
  OMGDB_TRY(tokens, lexer(query, fields).run());
  parsed_query out;
  OMGDB_TRY(match, parser(std::move(tokens), fields, out).run());
  out.match = std::move(match);
  return out;
}

}  // namespace omgdb::engine::search
