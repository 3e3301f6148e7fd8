// omgdb embeddings — installing and removing a model directory (`omgdb model add/remove`).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>

#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace fs = std::filesystem;

fs::path weights_file(const fs::path& source, const model_info& detected) {
  return detected.format == "model2vec" ? source / "model.safetensors" : source;
}

namespace {

// Copies the first `max_words` word lines of a word-vector text file (a `N D` header line
// rewritten with the new count); lines longer than k_max_line_bytes are refused.
status copy_word_lines(const fs::path& source, const fs::path& target, std::uint64_t max_words) {
  std::ifstream in(source, std::ios::binary);
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!in) return make_error("cannot read " + source.string(), failure_kind::io);
  if (!out) return make_error("cannot write " + target.string(), failure_kind::io);
  std::string line;
  std::uint64_t words = 0, number = 0;
  while (words < max_words && std::getline(in, line)) {
    ++number;
    if (line.size() > k_max_line_bytes) {
      return make_error(source.string() + " line " + std::to_string(number) + " is longer than 1 MiB", failure_kind::corrupt);
    }
    unsigned long long n = 0, d = 0;
    char extra = 0;
    if (number == 1 && std::sscanf(line.c_str(), "%llu %llu %c", &n, &d, &extra) == 2) {
      out << std::min<std::uint64_t>(n, max_words) << ' ' << d << '\n';
      continue;
    }
    out << line << '\n';
    if (!line.empty() && line != "\r") ++words;
  }
  if (!out.flush()) return make_error("cannot write " + target.string(), failure_kind::io);
  return {};
}

// The weights of `info` into `tmp`, in the installed layout.
status copy_weights(const fs::path& source, const fs::path& tmp, model_info& info, const install_options& o) {
  std::error_code ec;
  if (info.format == "model2vec") {
    for (const char* f : {"model.safetensors", "tokenizer.json", "config.json"}) {
      fs::copy_file(source / f, tmp / f, ec);
      if (ec) return make_error("cannot copy " + (source / f).string() + ": " + ec.message(), failure_kind::io);
    }
    return {};
  }
  const fs::path vectors = tmp / std::string(k_word_vectors_file);
  if (info.format == "wink-json") {
    OMGDB_TRY(done, convert_wink(source, vectors, o.max_words));
    info.format = "word-vectors";
    info.dim = done.dim;
    return {};
  }
  if (o.max_words > 0) return copy_word_lines(source, vectors, o.max_words);
  fs::copy_file(source, vectors, ec);
  if (ec) return make_error("cannot copy " + source.string() + ": " + ec.message(), failure_kind::io);
  return {};
}

}  // namespace

result<model_info> install_model(const fs::path& models_dir, std::string_view name, const fs::path& source,
                                 const install_options& o) {
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
  info.source = fs::absolute(source, ec).lexically_normal().string();
  fs::create_directories(models_dir, ec);
  if (ec) return make_error("cannot create the models directory " + models_dir.string() + ": " + ec.message(), failure_kind::io);
  std::random_device rd;
  const fs::path tmp = models_dir / (".install-" + std::string(name) + "-" + std::to_string(rd()));
  auto fail = [&](failure f) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return f;
  };
  fs::create_directory(tmp, ec);
  if (ec) return make_error("cannot create " + tmp.string() + ": " + ec.message(), failure_kind::io);
  if (auto copied = copy_weights(source, tmp, info, o); !copied) return fail(std::move(copied).error());
  const fs::path weights = tmp / (info.format == "model2vec" ? "model.safetensors" : std::string(k_word_vectors_file));
  if (o.sha256) {
    auto sha = o.sha256(weights);
    if (!sha) return fail(std::move(sha).error());
    info.sha256 = std::move(*sha);
  }
  {
    std::ofstream out(tmp / std::string(k_manifest_file), std::ios::binary | std::ios::trunc);
    out << manifest_json(info);
    if (!out.flush()) return fail(make_error("cannot write the manifest in " + tmp.string(), failure_kind::io));
  }
  // It must load before it is installed.
  auto loaded = info.format == "model2vec" ? load_model2vec(tmp, info) : load_word_vectors(weights, info);
  if (!loaded) {
    return fail(make_error("`" + source.string() + "` does not load as a " + info.format + " model: " +
                           loaded.error().message, loaded.error().kind));
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) return fail(make_error("cannot move the model into " + final_dir.string() + ": " + ec.message(), failure_kind::io));
  return info;
}

result<model_info> install_model(const fs::path& models_dir, std::string_view name, const fs::path& source,
                                 std::string sha256_hex) {
  install_options o;
  o.sha256 = [sha = std::move(sha256_hex)](const fs::path&) -> result<std::string> { return sha; };
  return install_model(models_dir, name, source, o);
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
