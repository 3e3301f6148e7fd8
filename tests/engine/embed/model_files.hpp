// Test helpers: model files written by the tests themselves in the formats omgdb reads —
// word-vector text, and a Model2Vec directory (model.safetensors, tokenizer.json,
// config.json) with F32 or F16 weights.
#pragma once

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace omgdb::engine::test {

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::uint16_t to_half(float f) {  // exact for the small values the tests use
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  const std::uint32_t mant = (b >> 13) & 0x3ffu;
  if ((b & 0x7fffffffu) == 0) return static_cast<std::uint16_t>(sign);
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exp) << 10) | mant);
}

// A safetensors file holding `rows` (each `dim` long) as tensor `name` of `dtype`.
inline std::string safetensors(const std::vector<std::vector<float>>& rows, const std::string& dtype = "F32",
                               const std::string& name = "embeddings") {
  const std::size_t dim = rows.empty() ? 0 : rows[0].size();
  std::string data;
  for (const auto& r : rows) {
    for (float f : r) {
      if (dtype == "F32") {
        const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
        for (int i = 0; i < 4; ++i) data.push_back(static_cast<char>((b >> (8 * i)) & 0xff));
      } else {
        const std::uint16_t h = to_half(f);
        data.push_back(static_cast<char>(h & 0xff));
        data.push_back(static_cast<char>(h >> 8));
      }
    }
  }
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"},\"" + name + "\":{\"dtype\":\"" + dtype +
                       "\",\"shape\":[" + std::to_string(rows.size()) + "," + std::to_string(dim) +
                       "],\"data_offsets\":[0," + std::to_string(data.size()) + "]}}";
  std::string out;
  std::uint64_t len = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + header + data;
}

// A WordPiece tokenizer.json over `vocab` (id = position), BERT normaliser and pre-tokeniser.
inline std::string wordpiece_tokenizer(const std::vector<std::string>& vocab) {
  std::string v;
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    if (i) v += ",";
    v += "\"" + vocab[i] + "\":" + std::to_string(i);
  }
  return R"({"version":"1.0","added_tokens":[],"normalizer":{"type":"BertNormalizer","clean_text":true,)"
         R"("handle_chinese_chars":true,"strip_accents":null,"lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},)"
         R"("model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",)"
         R"("max_input_chars_per_word":100,"vocab":{)" +
         v + "}}}";
}

// A Unigram tokenizer.json with a Metaspace pre-tokeniser over (piece, score) pairs.
inline std::string unigram_tokenizer(const std::vector<std::pair<std::string, double>>& vocab) {
  std::string v;
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    if (i) v += ",";
    v += "[\"" + vocab[i].first + "\"," + std::to_string(vocab[i].second) + "]";
  }
  return R"({"version":"1.0","normalizer":{"type":"Sequence","normalizers":[{"type":"Lowercase"}]},)"
         R"("pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":true},)"
         R"("model":{"type":"Unigram","unk_id":0,"vocab":[)" +
         v + "]}}";
}

inline void write_model2vec(const std::filesystem::path& dir, const std::vector<std::vector<float>>& rows,
                            const std::string& tokenizer_json, const std::string& dtype = "F32") {
  std::filesystem::create_directories(dir);
  write_file(dir / "model.safetensors", safetensors(rows, dtype));
  write_file(dir / "tokenizer.json", tokenizer_json);
  write_file(dir / "config.json", R"({"model_type":"model2vec","normalize":true,"hidden_dim":)" +
                                      std::to_string(rows.empty() ? 0 : rows[0].size()) + "}");
}

}  // namespace omgdb::engine::test
