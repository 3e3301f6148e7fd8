// omgdb embeddings — the installed models of one data directory: manifests, lazy cached
// loading, the not-installed error.
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <boost/json.hpp>

#include "common/json.hpp"
#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace bj = boost::json;

status check_model_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return make_error("a model name must be 1 to 64 bytes long");
  if (name.front() == '.') return make_error("a model name must not start with '.'");
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '-';
    if (!ok) return make_error("model name `" + std::string(name) + "` may hold only letters, digits, '.', '_' and '-'");
  }
  return {};
}

std::string manifest_json(const model_info& info) {
  bj::object o{{"name", info.name}, {"format", info.format}, {"dim", info.dim}, {"sha256", info.sha256},
               {"source", info.source}};
  return bj::serialize(o) + "\n";
}

result<model_info> read_manifest(const std::filesystem::path& model_dir) {
  const auto file = model_dir / std::string(k_manifest_file);
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("model directory " + model_dir.string() + " has no readable model.json", failure_kind::corrupt);
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = json::parse_strict(text.str());
  const std::string bad = "model manifest " + file.string() + " is damaged";
  if (!parsed || !parsed->is_object()) return make_error(bad, failure_kind::corrupt);
  const auto& o = parsed->as_object();
  model_info info;
  try {
    info.name = std::string(o.at("name").as_string());
    info.format = std::string(o.at("format").as_string());
    info.dim = static_cast<std::uint32_t>(o.at("dim").to_number<std::uint64_t>());
    info.sha256 = std::string(o.at("sha256").as_string());
    info.source = std::string(o.at("source").as_string());
  } catch (const std::exception&) {
    return make_error(bad + ": it needs name, format, dim, sha256 and source", failure_kind::corrupt);
  }
  if (info.dim == 0 || info.dim > k_max_dim) return make_error(bad + ": dim out of range", failure_kind::corrupt);
  return info;
}

result<model_info> detect_model(const std::filesystem::path& path) {
  std::error_code ec;
  model_info info;
  info.source = path.string();
  if (std::filesystem::is_directory(path, ec)) {
    for (const char* f : {"model.safetensors", "tokenizer.json", "config.json"}) {
      if (!std::filesystem::is_regular_file(path / f, ec)) {
        return make_error("`" + path.string() + "` is a directory without " + f +
                          ": a Model2Vec model directory holds model.safetensors, tokenizer.json and config.json");
      }
    }
    info.format = "model2vec";
    auto rows = read_safetensors(path / "model.safetensors");
    if (!rows) return std::move(rows).error();
    info.dim = rows->dim;
    return info;
  }
  if (!std::filesystem::is_regular_file(path, ec)) return make_error("no model file or directory at `" + path.string() + "`", failure_kind::not_found);
  if (looks_like_json(path)) {
    OMGDB_TRY(dim, wink_dimension(path));
    info.format = "wink-json";
    info.dim = dim;
    return info;
  }
  info.format = "word-vectors";
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::size_t lines = 0;
  while (lines < 3 && std::getline(in, line)) {
    ++lines;
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    std::uint32_t n = 0;
    float f = 0;
    while (fields >> f) ++n;
    if (lines == 1 && n == 1) continue;  // "N D" header: a count and one number
    if (n == 0) return make_error("`" + path.string() + "` line " + std::to_string(lines) + " is not a word followed by numbers: not a word-vector text file");
    info.dim = n;
    break;
  }
  if (info.dim == 0 || info.dim > k_max_dim) return make_error("`" + path.string() + "` holds no word vectors (dimension 1 to 4096)");
  return info;
}

struct model_registry::impl {
  std::filesystem::path dir;
  std::string default_model;
  mutable std::mutex mu;
  mutable std::map<std::string, std::shared_ptr<const embedder>, std::less<>> loaded;
};

model_registry::model_registry(std::filesystem::path models_dir, std::string default_model)
    : impl_(std::make_unique<impl>()) {
  impl_->dir = std::move(models_dir);
  impl_->default_model = std::move(default_model);
}
model_registry::~model_registry() = default;

const std::filesystem::path& model_registry::directory() const noexcept { return impl_->dir; }
const std::string& model_registry::default_model() const noexcept { return impl_->default_model; }

result<std::vector<model_info>> model_registry::list() const {
  std::vector<model_info> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(impl_->dir, ec)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(impl_->dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    auto info = read_manifest(entry.path());
    if (info) out.push_back(std::move(*info));
  }
  std::sort(out.begin(), out.end(), [](const model_info& a, const model_info& b) { return a.name < b.name; });
  return out;
}

result<std::shared_ptr<const embedder>> model_registry::open(std::string_view name) const {
  OMGDB_CHECK(check_model_name(name));
  std::lock_guard lock(impl_->mu);
  if (auto it = impl_->loaded.find(name); it != impl_->loaded.end()) return it->second;
  const auto dir = impl_->dir / std::string(name);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return make_error("model `" + std::string(name) + "` is not installed (looked in " + impl_->dir.string() +
                          "): install it with `omgdb model add " + std::string(name) +
                          " PATH`; omgdb never downloads a model",
                      failure_kind::not_found);
  }
  OMGDB_TRY(info, read_manifest(dir));
  result<std::shared_ptr<const embedder>> model = make_error("");
  if (info.format == "word-vectors") {
    model = load_word_vectors(dir / std::string(k_word_vectors_file), info);
  } else if (info.format == "model2vec") {
    model = load_model2vec(dir, info);
  } else {
    return make_error("model `" + info.name + "` has the unknown format `" + info.format + "`", failure_kind::corrupt);
  }
  if (!model) return model;
  impl_->loaded.emplace(std::string(name), *model);
  return model;
}

}  // namespace omgdb::engine::embed
