// omgdb engine — how context packs rank their chunks: a small interface, and BM25 over the
// candidate chunks themselves (docs/context-packs.md, "Ranking"). A search index covering the
// field can stand behind the same interface later.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace omgdb::engine::context {

class ranker {
 public:
  virtual ~ranker() = default;
  // One score per chunk (0: no query term occurs in it). `chunks[i]` is the text scored.
  virtual std::vector<double> score(const std::vector<std::string_view>& chunks, std::string_view query) const = 0;
  virtual std::string_view name() const noexcept = 0;
};

// Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5))) over the chunks
// given, terms being lower-cased runs of letters and digits (bytes >= 0x80 count as letters)
// reduced by the Snowball English stemmer. The query's English stop words are not terms
// (is_stop_word), unless it has only stop words.
std::unique_ptr<ranker> make_bm25();

// Whether a lower-cased word is one of the English words a query is phrased with rather than
// what it is about ("how", "do", "i", "the", …: stop_words.cpp has the list and its rules).
bool is_stop_word(std::string_view lower_word) noexcept;

// A plain search query without its English stop words: whitespace-separated words whose
// letters and digits are only stop words are dropped ("How do I install express?" →
// "install express?"). Returned unchanged when it uses the query syntax (a quote,
// parenthesis, colon, `*`, or AND / OR / NOT) or has nothing but stop words.
std::string without_stop_words(std::string_view query);

// The terms of `text` as BM25 sees them (lower-cased, stemmed), in order.
std::vector<std::string> terms_of(std::string_view text);

}  // namespace omgdb::engine::context
