// omgdb engine — the English stop words of context-pack queries (docs/context-packs.md,
// "Ranking"). libstemmer has no stop lists; this one is ours, kept small on purpose: articles,
// pronouns, auxiliary and modal verbs, prepositions, conjunctions and the question words —
// the words a question is phrased with ("How do I install express?") rather than what it is
// about. Words that can carry meaning in technical text are left out of it: `not` and `no`
// (error messages), `cannot`, `use`, `get`, `set`, `let`, `new`, `all`, `up`, `off`, numbers.
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "engine/context/ranker.hpp"

namespace omgdb::engine::context {
namespace {

// Sorted (std::binary_search; checked below); lower case, as each_word gives
// words. "d", "ll", "m", "s", "t", "ve", "don", "isn": the pieces of contractions (I'd, it's,
// don't …), which split at the apostrophe.
constexpr std::string_view k_english[] = {
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being", "but", "by",
    "can", "could", "d", "did", "do", "does", "doing", "don", "during", "each", "for", "from",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "isn", "it", "its", "itself", "just", "ll", "m", "may", "me", "might",
    "must", "my", "myself", "of", "on", "onto", "or", "our", "ours", "please", "s", "shall", "she",
    "should", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "to", "too", "upon", "us", "ve", "very", "was", "we",
    "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why",
    "will", "with", "within", "would", "you", "your", "yours", "yourself", "yourselves",
};
static_assert(std::is_sorted(std::begin(k_english), std::end(k_english)));

bool word_byte(unsigned char c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Whether the whitespace-separated `token` has a word and only stop words.
bool only_stop_words(std::string_view token) {
  bool any = false;
  std::string word;
  for (std::size_t i = 0; i <= token.size(); ++i) {
    const auto c = i < token.size() ? static_cast<unsigned char>(token[i]) : ' ';
    if (word_byte(c)) {
      word += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
      continue;
    }
    if (word.empty()) continue;
    if (!is_stop_word(word)) return false;
    any = true;
    word.clear();
  }
  return any;
}

}  // namespace

bool is_stop_word(std::string_view lower_word) noexcept {
  return std::binary_search(std::begin(k_english), std::end(k_english), lower_word);
}

std::string without_stop_words(std::string_view query) {
  // The query syntax (docs/search.md): quotes, parentheses, fields, prefixes and upper-case
  // operators give words roles; such a query is the user's to phrase and is kept.
  if (query.find_first_of("\"():*") != std::string_view::npos) return std::string(query);
  std::string out;
  std::size_t i = 0;
  bool dropped = false;
  while (i < query.size()) {
    while (i < query.size() && (query[i] == ' ' || query[i] == '\t' || query[i] == '\n' || query[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < query.size() && query[i] != ' ' && query[i] != '\t' && query[i] != '\n' && query[i] != '\r') ++i;
    const std::string_view token = query.substr(start, i - start);
    if (token.empty()) break;
    if (token == "AND" || token == "OR" || token == "NOT") return std::string(query);
    if (only_stop_words(token)) {
      dropped = true;
      continue;
    }
    if (!out.empty()) out += ' ';
    out += token;
  }
  return dropped && !out.empty() ? out : std::string(query);
}

}  // namespace omgdb::engine::context
