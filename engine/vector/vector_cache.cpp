// omgdb vectors — the float32 cache file: build from `C.__vectors`, write beside the store's
// data (temporary file + rename), read back, keep the current one in memory.
#include "engine/vector/vector_cache.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::vector::detail {

namespace fs = std::filesystem;

namespace {

constexpr char k_magic[8] = {'O', 'M', 'G', 'D', 'B', 'V', 'C', '1'};
constexpr std::uint64_t k_max_file_rows = 100'000'000;

std::string hex_of(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 0xf]);
  }
  return out;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_str(std::string& out, std::string_view s) {
  put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

class reader {
 public:
  explicit reader(std::string_view b) : b_(b) {}
  template <class T>
  bool get(T& v) {
    if (b_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool get_str(std::string& s, std::size_t max = 1 << 20) {
    std::uint32_t n = 0;
    if (!get(n) || n > max || b_.size() - at_ < n) return false;
    s.assign(b_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool get_bytes(void* out, std::size_t n) {
    if (b_.size() - at_ < n) return false;
    std::memcpy(out, b_.data() + at_, n);
    at_ += n;
    return true;
  }

 private:
  std::string_view b_;
  std::size_t at_ = 0;
};

struct header {
  std::string collection, field, model, sha;
  std::uint64_t generation = 0;
  std::uint32_t dim = 0;
  std::uint64_t rows = 0;
};

bool read_header(reader& r, header& h) {
  char magic[8];
  return r.get_bytes(magic, 8) && std::memcmp(magic, k_magic, 8) == 0 && r.get_str(h.collection) &&
         r.get_str(h.field) && r.get_str(h.model) && r.get_str(h.sha) && r.get(h.generation) && r.get(h.dim) &&
         r.get(h.rows) && h.rows <= k_max_file_rows && h.dim <= 4096;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const auto size = static_cast<std::size_t>(in.tellg());
  std::string bytes(size, '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return {};
  return bytes;
}

std::shared_ptr<vector_cache> parse_file(std::string_view bytes, const binding& bound) {
  reader r(bytes);
  header h;
  if (!read_header(r, h) || h.model != bound.model || h.sha != bound.model_sha256 || h.generation != bound.generation ||
      h.dim != bound.dim || h.field != bound.field) {
    return nullptr;
  }
  auto c = std::make_shared<vector_cache>();
  c->generation = h.generation;
  c->bound = bound;
  c->matrix.resize(h.rows * h.dim);
  if (!r.get_bytes(c->matrix.data(), c->matrix.size() * sizeof(float))) return nullptr;
  c->ids.reserve(h.rows);
  c->hashes.reserve(h.rows);
  for (std::uint64_t i = 0; i < h.rows; ++i) {
    std::string id_bson, hash;
    if (!r.get_str(id_bson) || !r.get_str(hash, 64)) return nullptr;
    auto d = from_bson(id_bson);
    if (!d || d->size() != 1) return nullptr;
    c->row_of.emplace(encode_key(d->front().val), static_cast<std::uint32_t>(i));
    c->ids.push_back(std::move(d->front().val));
    c->hashes.push_back(std::move(hash));
  }
  return c;
}

void write_file(const fs::path& file, std::string_view collection, const vector_cache& c) {
  std::string out(k_magic, 8);
  put_str(out, collection);
  put_str(out, c.bound.field);
  put_str(out, c.bound.model);
  put_str(out, c.bound.model_sha256);
  put<std::uint64_t>(out, c.generation);
  put<std::uint32_t>(out, c.bound.dim);
  put<std::uint64_t>(out, c.rows());
  out.append(reinterpret_cast<const char*>(c.matrix.data()), c.matrix.size() * sizeof(float));
  for (std::size_t i = 0; i < c.rows(); ++i) {
    auto bytes = to_bson(document{{"_id", c.ids[i]}});
    if (!bytes) return;
    put_str(out, *bytes);
    put_str(out, c.hashes[i]);
  }
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f.flush()) {
      fs::remove(tmp, ec);
      return;  // the cache is optional: the next search rebuilds it
    }
  }
  fs::rename(tmp, file, ec);
}

std::mutex memo_mu;
std::map<std::string, std::shared_ptr<const vector_cache>> memo;  // by cache file path

}  // namespace

fs::path cache_file(const std::string& store_path, std::string_view collection, std::string_view field) {
  return fs::path(store_path) / "caches" / "vectors" / (hex_of(collection) + "." + hex_of(field) + ".f32");
}

result<std::shared_ptr<const vector_cache>> load_cache(const store::impl& s, const read_view& view,
                                                       std::string_view collection, const binding& bound,
                                                       const scan_control& control) {
  const fs::path file = cache_file(s.path, collection, bound.field);
  const std::string key = fs::absolute(file).lexically_normal().string();
  {
    std::lock_guard lock(memo_mu);
    if (auto it = memo.find(key); it != memo.end()) {
      const auto& c = *it->second;
      if (c.generation == bound.generation && c.bound.model == bound.model && c.bound.model_sha256 == bound.model_sha256) {
        return it->second;
      }
    }
  }
  std::shared_ptr<vector_cache> built = parse_file(read_all(file), bound);
  if (!built) {
    OMGDB_TRY(stored, read_field_vectors(s, view, collection, bound.field, true, control));
    std::vector<std::pair<std::string, stored_vector*>> order;
    for (auto& [k, v] : stored.rows) {
      if (v.model == bound.model && v.model_sha256 == bound.model_sha256 && v.data.size() == bound.dim) {
        order.emplace_back(k, &v);
      }
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    built = std::make_shared<vector_cache>();
    built->generation = bound.generation;
    built->bound = bound;
    built->matrix.reserve(order.size() * bound.dim);
    for (auto& [k, v] : order) {
      built->row_of.emplace(k, static_cast<std::uint32_t>(built->ids.size()));
      built->matrix.insert(built->matrix.end(), v->data.begin(), v->data.end());
      built->ids.push_back(std::move(v->id));
      built->hashes.push_back(std::move(v->text_hash));
    }
    write_file(file, collection, *built);
  }
  std::lock_guard lock(memo_mu);
  memo[key] = built;
  return std::shared_ptr<const vector_cache>(built);
}

}  // namespace omgdb::engine::vector::detail

namespace omgdb::engine::vector {

namespace fs = std::filesystem;

std::vector<document> cache_status(const store& st) {
  std::vector<document> out;
  const auto& s = engine::detail::store_access::of(const_cast<store&>(st));
  const fs::path dir = fs::path(s.path) / "caches" / "vectors";
  detail::read_view view(s);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".f32") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    // Only the header is needed: the first 64 KiB hold it.
    std::ifstream in(f, std::ios::binary);
    std::string head(1 << 16, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    detail::reader r(head);
    detail::header h;
    document entry{{"name", value(f.filename().string())}, {"kind", value("vectors")}, {"rebuildable", value(true)}};
    if (!detail::read_header(r, h)) {
      entry.push_back({"current", value(false)});
      entry.push_back({"note", value("damaged or unreadable; the next vsearch rebuilds it")});
      out.push_back(std::move(entry));
      continue;
    }
    auto b = detail::read_binding(s, view, h.collection, h.field);
    const bool current = b && *b && (*b)->generation == h.generation && (*b)->model == h.model &&
                         (*b)->model_sha256 == h.sha;
    entry.push_back({"collection", value(h.collection)});
    entry.push_back({"field", value(h.field)});
    entry.push_back({"rows", value(static_cast<std::int64_t>(h.rows))});
    entry.push_back({"current", value(current)});
    if (!current) entry.push_back({"note", value("older than the vectors; the next vsearch rebuilds it")});
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace omgdb::engine::vector
