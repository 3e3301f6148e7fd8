// omgdb engine — BM25 over a context pack's candidate chunks.
#include <libstemmer.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "engine/context/ranker.hpp"

namespace omgdb::engine::context {
namespace {

constexpr double k_k1 = 1.2;
constexpr double k_b = 0.75;
constexpr std::size_t k_max_term_bytes = 64;  // longer runs are cut (bounded stemming work)

struct stemmer {
  sb_stemmer* s = sb_stemmer_new("english", "UTF_8");
  ~stemmer() {
    if (s) sb_stemmer_delete(s);
  }
  std::string stem(const std::string& w) {
    if (s == nullptr) return w;
    const sb_symbol* out = sb_stemmer_stem(s, reinterpret_cast<const sb_symbol*>(w.data()), static_cast<int>(w.size()));
    if (out == nullptr) return w;
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(sb_stemmer_length(s)));
  }
};

bool word_byte(unsigned char c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Visits the lower-cased words of `text` (unstemmed).
template <class Emit>
void each_word(std::string_view text, Emit&& emit) {
  std::string word;
  auto flush = [&] {
    if (!word.empty()) emit(word);
    word.clear();
  };
  for (unsigned char c : text) {
    if (!word_byte(c)) {
      flush();
      continue;
    }
    if (word.size() >= k_max_term_bytes) continue;
    word += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
  }
  flush();
}

template <class Emit>
void each_term(std::string_view text, stemmer& st, Emit&& emit) {
  each_word(text, [&](const std::string& w) { emit(st.stem(w)); });
}

// A stem keeps the first bytes of its word (Snowball English changes endings), so a word whose
// first three bytes begin no query stem's cannot match one and is not stemmed.
struct heads {
  std::vector<std::string> list;  // first (up to) three bytes of each query stem, lower case
  bool match(std::string_view raw) const {
    for (const auto& h : list) {
      if (raw.size() < h.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < h.size() && same; ++i) {
        const auto c = static_cast<unsigned char>(raw[i]);
        same = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) == h[i];
      }
      if (same) return true;
    }
    return false;
  }
};

// Visits the raw words of `text` (runs of word bytes, at most k_max_term_bytes kept).
template <class Emit>
void each_raw_word(std::string_view text, Emit&& emit) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    while (i < n && !word_byte(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < n && word_byte(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) emit(text.substr(start, std::min(i - start, k_max_term_bytes)));
  }
}

std::string lower(std::string_view raw) {
  std::string w(raw);
  for (char& c : w) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return w;
}

class bm25 final : public ranker {
 public:
  std::string_view name() const noexcept override { return "bm25"; }

  std::vector<double> score(const std::vector<std::string_view>& chunks, std::string_view query) const override {
    thread_local stemmer st;
    std::map<std::string, std::size_t> qterms;  // term → index
    // The query's words that carry content; all of them when none does.
    std::vector<std::string> words;
    each_word(query, [&](const std::string& w) { words.push_back(w); });
    if (!std::all_of(words.begin(), words.end(), [](const std::string& w) { return is_stop_word(w); })) {
      std::erase_if(words, [](const std::string& w) { return is_stop_word(w); });
    }
    for (const std::string& w : words) qterms.emplace(st.stem(w), qterms.size());
    heads hs;
    for (const auto& [t, i] : qterms) {
      std::string h = t.substr(0, 3);
      if (std::find(hs.list.begin(), hs.list.end(), h) == hs.list.end()) hs.list.push_back(std::move(h));
    }
    std::vector<double> out(chunks.size(), 0.0);
    if (qterms.empty() || chunks.empty()) return out;
    // One pass: per chunk, its length and the frequencies of the query terms.
    std::vector<std::uint32_t> lengths(chunks.size());
    std::vector<std::vector<std::uint32_t>> tf(chunks.size(), std::vector<std::uint32_t>(qterms.size(), 0));
    std::vector<std::uint64_t> df(qterms.size(), 0);
    double total = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      std::uint32_t n = 0;
      each_raw_word(chunks[i], [&](std::string_view w) {
        ++n;
        if (!hs.match(w)) return;
        if (auto it = qterms.find(st.stem(lower(w))); it != qterms.end()) ++tf[i][it->second];
      });
      lengths[i] = n;
      total += n;
      for (std::size_t q = 0; q < qterms.size(); ++q) df[q] += tf[i][q] > 0 ? 1 : 0;
    }
    const double N = static_cast<double>(chunks.size());
    const double avg = total > 0 ? total / N : 1.0;
    std::vector<double> idf(qterms.size());
    for (std::size_t q = 0; q < qterms.size(); ++q) {
      idf[q] = std::log(1.0 + (N - static_cast<double>(df[q]) + 0.5) / (static_cast<double>(df[q]) + 0.5));
    }
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      double s = 0;
      const double norm = k_k1 * (1.0 - k_b + k_b * lengths[i] / avg);
      for (std::size_t q = 0; q < qterms.size(); ++q) {
        const double f = tf[i][q];
        if (f > 0) s += idf[q] * f * (k_k1 + 1.0) / (f + norm);
      }
      out[i] = s;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<ranker> make_bm25() { return std::make_unique<bm25>(); }

std::vector<std::string> terms_of(std::string_view text) {
  thread_local stemmer st;
  std::vector<std::string> out;
  each_term(text, st, [&](std::string t) { out.push_back(std::move(t)); });
  return out;
}

}  // namespace omgdb::engine::context
