// omgdb vectors — the float32 cache file: build from `C.__vectors`, write beside the store's
// data (temporary file + rename) with a checksum over every byte, read back and check it
// (once per load), keep the current one in memory. Format 2 (docs/vectors.md):
//   "OMGDBVC2" | collection | field | model | modelSha256 | generation u64 | dim u32 |
//   rows u64 | rows × dim float32 | rows × (BSON {_id}, text hash) | checksum64 of all before
// Strings are a u32 length and the bytes; integers and floats are the host's (little-endian).
#include "engine/vector/vector_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "common/checksum64.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"

namespace omgdb::engine::vector::detail {

namespace fs = std::filesystem;

namespace {

constexpr char k_magic[8] = {'O', 'M', 'G', 'D', 'B', 'V', 'C', '2'};
constexpr std::size_t k_family = 7;  // "OMGDBVC": a cache file of any format version
constexpr std::uint64_t k_max_file_rows = 100'000'000;
constexpr std::size_t k_chunk = 1 << 20;  // bytes hashed per read when only checking

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

// Reads a cache file front to back, hashing every byte it hands out.
class hashing_reader {
 public:
  explicit hashing_reader(std::istream& in) : in_(in) {}
  bool get_bytes(void* out, std::size_t n) {
    if (!in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n))) return false;
    sum_.update(out, n);
    at_ += n;
    return true;
  }
  template <class T>
  bool get(T& v) {
    return get_bytes(&v, sizeof v);
  }
  bool get_str(std::string& s, std::size_t max = 1 << 20) {
    std::uint32_t n = 0;
    if (!get(n) || n > max) return false;
    s.resize(n);
    return get_bytes(s.data(), n);
  }
  // Hashes the next `n` bytes without keeping them.
  bool skip(std::uint64_t n) {
    std::string buf(static_cast<std::size_t>(std::min<std::uint64_t>(n, k_chunk)), '\0');
    while (n > 0) {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, buf.size()));
      if (!get_bytes(buf.data(), take)) return false;
      n -= take;
    }
    return true;
  }
  std::uint64_t at() const noexcept { return at_; }
  std::uint64_t digest() const noexcept { return sum_.digest(); }

 private:
  std::istream& in_;
  checksum64 sum_;
  std::uint64_t at_ = 0;
};

struct header {
  std::string collection, field, model, sha;
  std::uint64_t generation = 0;
  std::uint32_t dim = 0;
  std::uint64_t rows = 0;
};

enum class file_state { ok, missing, old_format, stale, damaged };

struct checked_file {
  file_state state = file_state::missing;
  header h;
  std::string why;                       // damaged: what failed
  std::shared_ptr<vector_cache> cache;   // ok and asked to build
};

// Reads and checks `file`. With `bound`, a header for another binding is `stale` (the rest
// is not read); with `build`, the rows are decoded into `cache`, otherwise only hashed.
checked_file check_file(const fs::path& file, const binding* bound, bool build) {
  checked_file out;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return out;
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  auto damaged = [&](std::string why) {
    out.state = file_state::damaged;
    out.why = std::move(why);
    out.cache.reset();
    return std::move(out);
  };
  hashing_reader r(in);
  char magic[8];
  if (!r.get_bytes(magic, 8) || std::memcmp(magic, k_magic, k_family) != 0) return damaged("not a vector cache file");
  if (std::memcmp(magic, k_magic, 8) != 0) {
    out.state = file_state::old_format;
    return out;
  }
  header& h = out.h;
  if (!r.get_str(h.collection) || !r.get_str(h.field) || !r.get_str(h.model) || !r.get_str(h.sha) ||
      !r.get(h.generation) || !r.get(h.dim) || !r.get(h.rows)) {
    return damaged("its header is cut short");
  }
  if (h.rows > k_max_file_rows || h.dim > 4096) return damaged("its header is out of range");
  // Each row takes its floats, two length words and a BSON {_id} of at least 5 bytes.
  const std::uint64_t least = h.rows * (std::uint64_t{h.dim} * 4 + 13);
  if (size < r.at() + 8 || size - r.at() - 8 < least) return damaged("it is shorter than its header says");
  if (bound != nullptr && (h.model != bound->model || h.sha != bound->model_sha256 ||
                           h.generation != bound->generation || h.dim != bound->dim || h.field != bound->field)) {
    out.state = file_state::stale;
    return out;
  }
  if (build) {
    auto c = std::make_shared<vector_cache>();
    c->generation = h.generation;
    if (bound != nullptr) c->bound = *bound;
    c->matrix.resize(h.rows * h.dim);
    if (!r.get_bytes(c->matrix.data(), c->matrix.size() * sizeof(float))) return damaged("its rows are cut short");
    c->ids.reserve(h.rows);
    c->hashes.reserve(h.rows);
    for (std::uint64_t i = 0; i < h.rows; ++i) {
      std::string id_bson, hash;
      if (!r.get_str(id_bson) || !r.get_str(hash, 64)) return damaged("its _ids are cut short");
      auto d = from_bson(id_bson);
      if (!d || d->size() != 1) return damaged("row " + std::to_string(i) + " has an unreadable _id");
      c->row_of.emplace(encode_key(d->front().val), static_cast<std::uint32_t>(i));
      c->ids.push_back(std::move(d->front().val));
      c->hashes.push_back(std::move(hash));
    }
    if (c->row_of.size() != c->ids.size()) return damaged("an _id appears twice");
    out.cache = std::move(c);
  }
  if (r.at() > size - 8 || !r.skip(size - 8 - r.at())) return damaged("its rows run past the checksum");
  const std::uint64_t computed = r.digest();
  std::uint64_t stored = 0;
  if (!in.read(reinterpret_cast<char*>(&stored), sizeof stored)) return damaged("its checksum is missing");
  if (stored != computed) return damaged("its checksum does not match its bytes");
  out.state = file_state::ok;
  return out;
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
  put<std::uint64_t>(out, checksum64::of(out.data(), out.size()));
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  // A name of its own per write: two searches rebuilding at once must not interleave bytes.
  static std::atomic<std::uint64_t> writes{0};
  const fs::path tmp = file.string() + ".tmp" + std::to_string(writes.fetch_add(1));
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
std::map<std::string, std::shared_ptr<const vector_cache>> memo;  // by memo_key
std::map<std::string, std::string> damaged_marks;                 // memo_key -> what verify found

// The database's identity too: a store re-created at the same path is another store.
std::string memo_key(const store::impl& s, const fs::path& file) {
  std::string identity;
  (void)s.db->GetDbIdentity(identity);
  return identity + "|" + fs::absolute(file).lexically_normal().string();
}

std::string cache_name(std::string_view collection, std::string_view field) {
  return "the vector cache file of `" + std::string(collection) + "`." + std::string(field);
}

}  // namespace

std::optional<std::string> check_cache_file(const fs::path& file, bool decode) {
  auto checked = check_file(file, nullptr, decode);
  if (checked.state == file_state::ok) return std::nullopt;
  if (checked.state == file_state::missing) return std::string("missing");
  if (checked.state == file_state::old_format) return std::string("older format");
  return checked.why;
}

void write_cache_file(const fs::path& file, std::string_view collection, const vector_cache& c) {
  write_file(file, collection, c);
}

fs::path cache_file(const std::string& store_path, std::string_view collection, std::string_view field) {
  return fs::path(store_path) / "caches" / "vectors" / (hex_of(collection) + "." + hex_of(field) + ".f32");
}

void forget_loaded_caches() {
  std::lock_guard lock(memo_mu);
  memo.clear();
}

result<std::shared_ptr<const vector_cache>> load_cache(const store::impl& s, const read_view& view,
                                                       std::string_view collection, const binding& bound,
                                                       const scan_control& control, std::string* note) {
  const fs::path file = cache_file(s.path, collection, bound.field);
  const std::string key = memo_key(s, file);
  std::string damage;  // why the file (or verify's mark) says the cache is damaged
  {
    std::lock_guard lock(memo_mu);
    if (auto m = damaged_marks.find(key); m != damaged_marks.end()) {
      damage = "verify found it damaged: " + m->second;
      damaged_marks.erase(m);
      memo.erase(key);
    } else if (auto it = memo.find(key); it != memo.end()) {
      const auto& c = *it->second;
      if (c.generation == bound.generation && c.bound.model == bound.model && c.bound.model_sha256 == bound.model_sha256) {
        return it->second;
      }
    }
  }
  std::shared_ptr<vector_cache> built;
  if (damage.empty()) {
    auto checked = check_file(file, &bound, true);
    if (checked.state == file_state::ok) {
      built = std::move(checked.cache);
    } else if (checked.state == file_state::damaged) {
      damage = checked.why;
    }
  }
  if (!built) {
    auto stored = read_field_vectors(s, view, collection, bound.field, true, control);
    if (!stored) {
      if (damage.empty()) return std::move(stored).error();
      failure f = std::move(stored).error();
      f.message = cache_name(collection, bound.field) + " is damaged (" + damage + ") and rebuilding it from `" +
                  vectors_collection(collection) + "` failed: " + f.message;
      return f;
    }
    std::vector<std::pair<std::string, stored_vector*>> order;
    for (auto& [k, v] : stored->rows) {
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
    if (!damage.empty() && note != nullptr) {
      *note = cache_name(collection, bound.field) + " was damaged (" + damage + "), so it was not used: it was rebuilt from `" +
              vectors_collection(collection) + "` for this search";
    }
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
    // The whole file is read and its checksum compared: verify is the full check.
    auto checked = detail::check_file(f, nullptr, false);
    if (checked.state == detail::file_state::missing) continue;  // removed meanwhile
    document entry{{"name", value(f.filename().string())}, {"kind", value("vectors")}, {"rebuildable", value(true)}};
    if (checked.state == detail::file_state::old_format) {
      entry.push_back({"current", value(false)});
      entry.push_back({"damaged", value(false)});
      entry.push_back({"note", value("written by an older omgdb without a checksum; the next vsearch rebuilds it")});
      out.push_back(std::move(entry));
      continue;
    }
    const auto& h = checked.h;
    if (!h.collection.empty() || !h.field.empty()) {
      entry.push_back({"collection", value(h.collection)});
      entry.push_back({"field", value(h.field)});
    }
    if (checked.state != detail::file_state::ok) {
      // Marked in memory only (verify writes nothing): the next vsearch of it rebuilds the file.
      {
        std::lock_guard lock(detail::memo_mu);
        detail::damaged_marks[detail::memo_key(s, f)] = checked.why;
      }
      entry.push_back({"current", value(false)});
      entry.push_back({"damaged", value(true)});
      entry.push_back({"note", value("damaged (" + checked.why + "): it is not used; the next vsearch rebuilds it from the vectors")});
      out.push_back(std::move(entry));
      continue;
    }
    auto b = detail::read_binding(s, view, h.collection, h.field);
    const bool current = b && *b && (*b)->generation == h.generation && (*b)->model == h.model &&
                         (*b)->model_sha256 == h.sha;
    entry.push_back({"rows", value(static_cast<std::int64_t>(h.rows))});
    entry.push_back({"current", value(current)});
    entry.push_back({"damaged", value(false)});
    if (!current) entry.push_back({"note", value("older than the vectors; the next vsearch rebuilds it")});
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace omgdb::engine::vector
