// omgdb embeddings — word-vector text files (GloVe, word2vec / fastText `.vec`): every word's
// row kept in one float32 matrix; a text is the average of its known words' rows, normalised.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

bool normalize(std::span<float> v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  if (sum <= 0 || !std::isfinite(sum)) {
    std::fill(v.begin(), v.end(), 0.0f);
    return false;
  }
  const float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : v) x *= inv;
  return true;
}

std::vector<std::string> simple_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '\'') word.pop_back();
    if (!word.empty() && out.size() < k_max_tokens_per_text) out.push_back(word);
    word.clear();
  };
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if ((u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u >= 0x80) {
      word.push_back(ch);
    } else if (u >= 'A' && u <= 'Z') {
      word.push_back(static_cast<char>(u - 'A' + 'a'));
    } else if (u == '\'' && !word.empty()) {
      word.push_back(ch);
    } else {
      flush();
      if (out.size() >= k_max_tokens_per_text) break;
    }
  }
  flush();
  return out;
}

namespace {

class word_vector_model final : public embedder {
 public:
  word_vector_model(model_info info, std::unordered_map<std::string, std::uint32_t> words, std::vector<float> rows)
      : info_(std::move(info)), words_(std::move(words)), rows_(std::move(rows)) {}
  const model_info& info() const noexcept override { return info_; }
  bool embed(std::string_view text, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    if (out.size() != info_.dim) return false;
    std::size_t known = 0;
    for (const auto& w : simple_words(text)) {
      auto it = words_.find(w);
      if (it == words_.end()) continue;
      const float* row = rows_.data() + static_cast<std::size_t>(it->second) * info_.dim;
      for (std::uint32_t i = 0; i < info_.dim; ++i) out[i] += row[i];
      ++known;
    }
    return known > 0 && normalize(out);
  }

 private:
  model_info info_;
  std::unordered_map<std::string, std::uint32_t> words_;
  std::vector<float> rows_;
};

// Parses one float at `p`, advancing it past the number and the blanks before it.
bool next_float(const char*& p, const char* end, float& out) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  if (p == end) return false;
  auto [q, ec] = std::from_chars(p, end, out);
  if (ec != std::errc() || !std::isfinite(out)) return false;
  p = q;
  return true;
}

}  // namespace

result<std::shared_ptr<const embedder>> load_word_vectors(const std::filesystem::path& file, model_info info) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read word vectors " + file.string(), failure_kind::io);
  const std::uint32_t dim = info.dim;
  std::unordered_map<std::string, std::uint32_t> words;
  std::vector<float> rows;
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string at = file.string() + " line " + std::to_string(number);
    if (line.size() > k_max_line_bytes) return make_error(at + " is longer than 1 MiB", failure_kind::corrupt);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto space = line.find_first_of(" \t");
    if (space == std::string::npos || space == 0) {
      return make_error(at + " is not a word followed by " + std::to_string(dim) + " numbers", failure_kind::corrupt);
    }
    const char* p = line.data() + space;
    const char* end = line.data() + line.size();
    if (number == 1) {  // a word2vec / fastText header "N D"
      std::uint64_t n = 0, d = 0;
      if (std::sscanf(line.c_str(), "%lu %lu", &n, &d) == 2 && line.find_first_of(" \t", space + 1) == std::string::npos) {
        if (d != dim) return make_error(at + ": the header says dimension " + std::to_string(d) + ", the manifest " + std::to_string(dim), failure_kind::corrupt);
        continue;
      }
    }
    const std::size_t base = rows.size();
    rows.resize(base + dim);
    for (std::uint32_t i = 0; i < dim; ++i) {
      if (!next_float(p, end, rows[base + i])) {
        return make_error(at + " has fewer than " + std::to_string(dim) + " numbers after its word", failure_kind::corrupt);
      }
    }
    float extra = 0;
    if (next_float(p, end, extra)) return make_error(at + " has more than " + std::to_string(dim) + " numbers", failure_kind::corrupt);
    std::string word = line.substr(0, space);
    for (char& ch : word) {
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    }
    // The first row of a word wins (files list frequent spellings first).
    if (!words.emplace(std::move(word), static_cast<std::uint32_t>(base / dim)).second) {
      rows.resize(base);
    }
    if (words.size() > k_max_rows) return make_error(file.string() + " holds more than 10,000,000 words", failure_kind::limit_exceeded);
  }
  if (words.empty()) return make_error(file.string() + " holds no word vectors", failure_kind::corrupt);
  rows.shrink_to_fit();
  return std::shared_ptr<const embedder>(std::make_shared<word_vector_model>(std::move(info), std::move(words), std::move(rows)));
}

}  // namespace omgdb::engine::embed
