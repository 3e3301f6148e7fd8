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
// reduced by the Snowball English stemmer.
std::unique_ptr<ranker> make_bm25();

// The terms of `text` as BM25 sees them (lower-cased, stemmed), in order.
std::vector<std::string> terms_of(std::string_view text);

}  // namespace omgdb::engine::context
