// omgdb embeddings — the contract between the model loaders (issue 18, engine/embed/) and
// their users: vsync/vsearch/vstale (engine/vector/), the search index's semantic half
// (engine/search/) and context packs (engine/context/).
//
// A model is installed by a person (`omgdb model add NAME PATH`) into the models directory
// (<data dir>/models/<NAME>/); nothing in omgdb downloads one. An embedder turns text into a
// unit-length float32 vector of `dim` components; the same text and model always give the
// same vector.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace omgdb::engine::embed {

// What `omgdb model list` shows and what a vector records as its provenance.
struct model_info {
  std::string name;     // the installed name (`omgdb model add NAME …`)
  std::string format;   // "model2vec", "word-vectors", …
  std::uint32_t dim = 0;
  std::string sha256;   // of the model's weights as installed
  std::string source;   // where the person said it came from (the PATH given to `model add`)
};

class embedder {
 public:
  virtual ~embedder() = default;
  virtual const model_info& info() const noexcept = 0;
  // Writes info().dim components, L2-normalised; a text with no known token gives the zero
  // vector (and `false`), never an error.
  virtual bool embed(std::string_view text, std::span<float> out) const = 0;
  std::vector<float> embed(std::string_view text) const {
    std::vector<float> v(info().dim);
    embed(text, v);
    return v;
  }
};

// The installed models of one data directory. Loading is lazy and cached; a model that is
// not installed is a `not_found` failure naming it and the `omgdb model add` command.
class model_registry {
 public:
  // `default_model`: the model a field is embedded with when its vsync names none and no
  // model is bound to it yet (`[vectors] default_model`); empty: none configured.
  explicit model_registry(std::filesystem::path models_dir, std::string default_model = {});
  ~model_registry();
  const std::filesystem::path& directory() const noexcept;
  const std::string& default_model() const noexcept;
  result<std::vector<model_info>> list() const;
  result<std::shared_ptr<const embedder>> open(std::string_view name) const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace omgdb::engine::embed
