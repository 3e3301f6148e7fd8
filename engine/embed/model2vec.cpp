// omgdb embeddings — Model2Vec static models: tokenize (tokenizer.json), look the token ids'
// rows up in the safetensors matrix, mean-pool, normalise (config.json `normalize`, default
// true; the vector is always unit length for cosine search).
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "common/json.hpp"
#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace {

class model2vec_model final : public embedder {
 public:
  model2vec_model(model_info info, tokenizer tok, tensor_rows rows)
      : info_(std::move(info)), tok_(std::move(tok)), rows_(std::move(rows)) {}
  const model_info& info() const noexcept override { return info_; }
  bool embed(std::string_view text, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    if (out.size() != info_.dim) return false;
    std::size_t used = 0;
    for (std::uint32_t id : tok_.encode(text)) {
      if (id >= rows_.rows) continue;
      const float* row = rows_.data.data() + static_cast<std::size_t>(id) * rows_.dim;
      for (std::uint32_t i = 0; i < rows_.dim; ++i) out[i] += row[i];
      ++used;
    }
    if (used == 0) return false;
    for (float& x : out) x /= static_cast<float>(used);
    return normalize(out);
  }

 private:
  model_info info_;
  tokenizer tok_;
  tensor_rows rows_;
};

result<std::string> read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read " + file.string(), failure_kind::io);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

result<std::shared_ptr<const embedder>> load_model2vec(const std::filesystem::path& dir, model_info info) {
  OMGDB_TRY(config_text, read_text(dir / "config.json"));
  auto config = json::parse_strict(config_text);
  if (!config || !config->is_object()) return make_error((dir / "config.json").string() + " is not a JSON object", failure_kind::corrupt);
  OMGDB_TRY(tok_text, read_text(dir / "tokenizer.json"));
  auto tok = tokenizer::parse(tok_text);
  if (!tok) return make_error((dir / "tokenizer.json").string() + ": " + tok.error().message, failure_kind::corrupt);
  OMGDB_TRY(rows, read_safetensors(dir / "model.safetensors"));
  if (info.dim != rows.dim) {
    return make_error("model `" + info.name + "`: the manifest says dimension " + std::to_string(info.dim) +
                          ", model.safetensors holds " + std::to_string(rows.dim),
                      failure_kind::corrupt);
  }
  if (rows.rows < tok->vocab_size()) {
    return make_error("model `" + info.name + "`: tokenizer.json has " + std::to_string(tok->vocab_size()) +
                          " tokens but model.safetensors only " + std::to_string(rows.rows) + " rows",
                      failure_kind::corrupt);
  }
  return std::shared_ptr<const embedder>(std::make_shared<model2vec_model>(std::move(info), std::move(*tok), std::move(rows)));
}

}  // namespace omgdb::engine::embed
