// omgdb embeddings — installing and removing a model directory (`omgdb model add/remove`).
#include <fstream>
#include <random>

#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace fs = std::filesystem;

fs::path weights_file(const fs::path& source, const model_info& detected) {
  return detected.format == "model2vec" ? source / "model.safetensors" : source;
}

result<model_info> install_model(const fs::path& models_dir, std::string_view name, const fs::path& source,
                                 std::string sha256_hex) {
  OMGDB_CHECK(check_model_name(name));
  const fs::path final_dir = models_dir / std::string(name);
  std::error_code ec;
  if (fs::exists(final_dir, ec)) {
    return make_error("model `" + std::string(name) + "` is already installed; remove it first with `omgdb model remove " +
                          std::string(name) + "`",
                      failure_kind::conflict);
  }
  OMGDB_TRY(detected, detect_model(source));
  model_info info = detected;
  info.name = std::string(name);
  info.sha256 = std::move(sha256_hex);
  info.source = fs::absolute(source, ec).lexically_normal().string();
  fs::create_directories(models_dir, ec);
  if (ec) return make_error("cannot create the models directory " + models_dir.string() + ": " + ec.message(), failure_kind::io);
  std::random_device rd;
  const fs::path tmp = models_dir / (".install-" + std::string(name) + "-" + std::to_string(rd()));
  auto cleanup = [&] {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
  };
  fs::create_directory(tmp, ec);
  if (ec) return make_error("cannot create " + tmp.string() + ": " + ec.message(), failure_kind::io);
  if (info.format == "model2vec") {
    for (const char* f : {"model.safetensors", "tokenizer.json", "config.json"}) {
      fs::copy_file(source / f, tmp / f, ec);
      if (ec) {
        cleanup();
        return make_error("cannot copy " + (source / f).string() + ": " + ec.message(), failure_kind::io);
      }
    }
  } else {
    fs::copy_file(source, tmp / std::string(k_word_vectors_file), ec);
    if (ec) {
      cleanup();
      return make_error("cannot copy " + source.string() + ": " + ec.message(), failure_kind::io);
    }
  }
  {
    std::ofstream out(tmp / std::string(k_manifest_file), std::ios::binary | std::ios::trunc);
    out << manifest_json(info);
    if (!out.flush()) {
      cleanup();
      return make_error("cannot write the manifest in " + tmp.string(), failure_kind::io);
    }
  }
  // It must load before it is installed.
  auto loaded = info.format == "model2vec" ? load_model2vec(tmp, info) : load_word_vectors(tmp / std::string(k_word_vectors_file), info);
  if (!loaded) {
    cleanup();
    return make_error("`" + source.string() + "` does not load as a " + info.format + " model: " + loaded.error().message);
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) {
    cleanup();
    return make_error("cannot move the model into " + final_dir.string() + ": " + ec.message(), failure_kind::io);
  }
  return info;
}

status remove_model(const fs::path& models_dir, std::string_view name) {
  OMGDB_CHECK(check_model_name(name));
  const fs::path dir = models_dir / std::string(name);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return make_error("model `" + std::string(name) + "` is not installed (looked in " + models_dir.string() + ")",
                      failure_kind::not_found);
  }
  fs::remove_all(dir, ec);
  if (ec) return make_error("cannot remove " + dir.string() + ": " + ec.message(), failure_kind::io);
  return {};
}

}  // namespace omgdb::engine::embed
