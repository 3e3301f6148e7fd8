// omgdb embeddings — the part of a Hugging Face tokenizer.json that static models need:
// lowercase normaliser, BERT / whitespace or Metaspace pre-tokeniser, WordPiece (greedy
// longest match) or Unigram (Viterbi over piece log-probabilities).
#include <limits>

#include <boost/json.hpp>

#include "common/json.hpp"
#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace bj = boost::json;

namespace {

constexpr std::string_view k_metaspace = "\xE2\x96\x81";  // U+2581 ▁

bool is_ascii_punct(unsigned char c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Length of the UTF-8 sequence starting with byte `c` (1 for a stray continuation byte).
std::size_t utf8_len(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

const bj::object* object_at(const bj::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace

result<tokenizer> tokenizer::parse(std::string_view text) {
  auto parsed = json::parse_strict(text);
  if (!parsed || !parsed->is_object()) return make_error("tokenizer.json is not a JSON object", failure_kind::corrupt);
  const auto& root = parsed->as_object();
  tokenizer t;
  // Normaliser: lowercase from BertNormalizer / Lowercase, inside a Sequence or not.
  std::function<void(const bj::object&)> normalizer = [&](const bj::object& n) {
    const auto* type = n.if_contains("type");
    if (type == nullptr || !type->is_string()) return;
    if (*type == "Lowercase") t.lowercase_ = true;
    if (*type == "BertNormalizer") {
      const auto* lc = n.if_contains("lowercase");
      t.lowercase_ = lc == nullptr || (lc->is_bool() && lc->as_bool());
    }
    if (*type == "Sequence") {
      if (const auto* list = n.if_contains("normalizers"); list && list->is_array()) {
        for (const auto& x : list->as_array()) if (x.is_object()) normalizer(x.as_object());
      }
    }
  };
  if (const auto* n = object_at(root, "normalizer")) normalizer(*n);
  std::function<void(const bj::object&)> pre = [&](const bj::object& p) {
    const auto* type = p.if_contains("type");
    if (type == nullptr || !type->is_string()) return;
    if (*type == "Metaspace") {
      t.metaspace_ = true;
      t.bert_split_ = false;
    }
    if (*type == "Sequence") {
      if (const auto* list = p.if_contains("pretokenizers"); list && list->is_array()) {
        for (const auto& x : list->as_array()) if (x.is_object()) pre(x.as_object());
      }
    }
  };
  if (const auto* p = object_at(root, "pre_tokenizer")) pre(*p);
  const auto* model = object_at(root, "model");
  if (model == nullptr) return make_error("tokenizer.json has no `model`", failure_kind::corrupt);
  const auto* type = model->if_contains("type");
  const auto* vocab = model->if_contains("vocab");
  if (type == nullptr || vocab == nullptr) return make_error("tokenizer.json's model has no type or vocab", failure_kind::corrupt);
  if (*type == "WordPiece") {
    if (!vocab->is_object()) return make_error("tokenizer.json: a WordPiece vocab is an object", failure_kind::corrupt);
    for (const auto& kv : vocab->as_object()) {
      if (!kv.value().is_int64() || kv.value().as_int64() < 0) return make_error("tokenizer.json: vocab ids are integers", failure_kind::corrupt);
      t.ids_.emplace(std::string(kv.key()), static_cast<std::uint32_t>(kv.value().as_int64()));
    }
    if (const auto* prefix = model->if_contains("continuing_subword_prefix"); prefix && prefix->is_string()) {
      t.prefix_ = std::string(prefix->as_string());
    }
    if (const auto* m = model->if_contains("max_input_chars_per_word"); m && m->is_int64() && m->as_int64() > 0) {
      t.max_word_chars_ = static_cast<std::size_t>(m->as_int64());
    }
    if (const auto* unk = model->if_contains("unk_token"); unk && unk->is_string()) {
      if (auto it = t.ids_.find(std::string(unk->as_string())); it != t.ids_.end()) t.unk_ = it->second;
    }
  } else if (*type == "Unigram") {
    t.unigram_ = true;
    if (!vocab->is_array()) return make_error("tokenizer.json: a Unigram vocab is an array of [piece, score]", failure_kind::corrupt);
    std::uint32_t id = 0;
    for (const auto& entry : vocab->as_array()) {
      if (!entry.is_array() || entry.as_array().size() != 2 || !entry.as_array()[0].is_string() ||
          !entry.as_array()[1].is_number()) {
        return make_error("tokenizer.json: Unigram vocab entry " + std::to_string(id) + " is not [piece, score]", failure_kind::corrupt);
      }
      std::string piece(entry.as_array()[0].as_string());
      t.max_piece_bytes_ = std::max(t.max_piece_bytes_, piece.size());
      t.ids_.emplace(std::move(piece), id);
      t.scores_.push_back(entry.as_array()[1].to_number<double>());
      ++id;
    }
    if (const auto* unk = model->if_contains("unk_id"); unk && unk->is_int64()) t.unk_ = unk->as_int64();
  } else {
    return make_error("tokenizer.json: model type `" + std::string(type->is_string() ? std::string_view(type->as_string()) : "?") +
                          "` (WordPiece and Unigram are read)",
                      failure_kind::corrupt);
  }
  if (t.ids_.empty()) return make_error("tokenizer.json has an empty vocabulary", failure_kind::corrupt);
  if (t.ids_.size() > k_max_rows) return make_error("tokenizer.json has more than 10,000,000 tokens", failure_kind::limit_exceeded);
  t.vocab_size_ = 0;
  for (const auto& [piece, id] : t.ids_) t.vocab_size_ = std::max<std::size_t>(t.vocab_size_, std::size_t{id} + 1);
  return t;
}

std::vector<std::string> tokenizer::pre_tokenize(std::string_view text) const {
  std::string norm(text);
  if (lowercase_) {
    for (char& ch : norm) if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  if (metaspace_) {
    for (char ch : norm) {
      if (is_space(static_cast<unsigned char>(ch))) {
        flush();
      } else {
        if (word.empty()) word = k_metaspace;
        word.push_back(ch);
      }
      if (words.size() >= k_max_tokens_per_text) break;
    }
    flush();
    return words;
  }
  for (char ch : norm) {
    const auto u = static_cast<unsigned char>(ch);
    if (is_space(u)) {
      flush();
    } else if (is_ascii_punct(u)) {
      flush();
      words.emplace_back(1, ch);
    } else {
      word.push_back(ch);
    }
    if (words.size() >= k_max_tokens_per_text) break;
  }
  flush();
  return words;
}

void tokenizer::wordpiece(const std::string& word, std::vector<std::uint32_t>& out) const {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < word.size(); i += utf8_len(static_cast<unsigned char>(word[i]))) ++chars;
  if (chars > max_word_chars_) return;  // unknown as a whole
  std::vector<std::uint32_t> pieces;
  std::size_t start = 0;
  std::string candidate;
  while (start < word.size()) {
    std::size_t end = word.size();
    bool found = false;
    while (end > start) {
      candidate = start > 0 ? prefix_ : std::string();
      candidate.append(word, start, end - start);
      if (auto it = ids_.find(candidate); it != ids_.end()) {
        pieces.push_back(it->second);
        found = true;
        break;
      }
      // step back one UTF-8 character
      --end;
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    }
    if (!found) return;  // the whole word is unknown
    start = end;
  }
  out.insert(out.end(), pieces.begin(), pieces.end());
}

void tokenizer::unigram(const std::string& word, std::vector<std::uint32_t>& out) const {
  const std::size_t n = word.size();
  constexpr double k_none = -std::numeric_limits<double>::infinity();
  double min_score = 0;
  for (double s : scores_) min_score = std::min(min_score, s);
  const double unk_score = min_score - 10.0;
  std::vector<double> best(n + 1, k_none);
  std::vector<std::size_t> from(n + 1, 0);
  std::vector<std::int64_t> piece(n + 1, -1);
  best[0] = 0;
  std::string candidate;
  for (std::size_t i = 0; i < n;) {
    const std::size_t step = std::min(utf8_len(static_cast<unsigned char>(word[i])), n - i);
    if (best[i] != k_none) {
      // the unknown single character
      if (best[i] + unk_score > best[i + step]) {
        best[i + step] = best[i] + unk_score;
        from[i + step] = i;
        piece[i + step] = -1;
      }
      for (std::size_t len = 1; len <= max_piece_bytes_ && i + len <= n; ++len) {
        if (i + len < n && (static_cast<unsigned char>(word[i + len]) & 0xC0) == 0x80) continue;
        candidate.assign(word, i, len);
        auto it = ids_.find(candidate);
        if (it == ids_.end()) continue;
        const double s = best[i] + scores_[it->second];
        if (s > best[i + len]) {
          best[i + len] = s;
          from[i + len] = i;
          piece[i + len] = it->second;
        }
      }
    }
    i += step;
  }
  std::vector<std::uint32_t> rev;
  for (std::size_t at = n; at > 0; at = from[at]) {
    if (piece[at] >= 0 && piece[at] != unk_) rev.push_back(static_cast<std::uint32_t>(piece[at]));
  }
  out.insert(out.end(), rev.rbegin(), rev.rend());
}

std::vector<std::uint32_t> tokenizer::encode(std::string_view text) const {
  std::vector<std::uint32_t> out;
  for (const auto& w : pre_tokenize(text)) {
    if (unigram_) {
      unigram(w, out);
    } else {
      wordpiece(w, out);
    }
    if (out.size() >= k_max_tokens_per_text) {
      out.resize(k_max_tokens_per_text);
      break;
    }
  }
  if (unk_ >= 0) std::erase(out, static_cast<std::uint32_t>(unk_));
  return out;
}

}  // namespace omgdb::engine::embed
