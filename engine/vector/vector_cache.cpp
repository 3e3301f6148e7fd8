// omgdb vectors — the cache's files: write beside the store's data (temporary file + rename)
// with a checksum over every byte, read back and check them (once per load); verify's view of
// them. Formats (docs/vectors.md):
//   .f32  "OMGDBVC3" | collection | field | model | modelSha256 | generation u64 | seq u64 |
//         dim u32 | rows u64 | rows × dim float32 | rows × (BSON {_id}, text hash; "" = dead
//         row) | checksum64 of all before
//   .hnsw "OMGDBVG1" | collection | field | generation u64 | seq u64 | .f32 checksum u64 |
//         dim u32 | rows u64 | length u64 | hnswlib's saveIndex bytes | checksum64 of all before
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

constexpr char k_magic[8] = {'O', 'M', 'G', 'D', 'B', 'V', 'C', '3'};
constexpr char k_graph_magic[8] = {'O', 'M', 'G', 'D', 'B', 'V', 'G', '1'};
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

}  // namespace

// Reads and checks `file`. With `bound`, a header for another binding is `stale` (the rest
// is not read); with `build`, the rows are decoded into `cache`, otherwise only hashed.
checked_file read_cache_file(const fs::path& file, const binding* bound, bool build) {
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
  file_header& h = out.h;
  if (!r.get_str(h.collection) || !r.get_str(h.field) || !r.get_str(h.model) || !r.get_str(h.sha) ||
      !r.get(h.generation) || !r.get(h.seq) || !r.get(h.dim) || !r.get(h.rows)) {
    return damaged("its header is cut short");
  }
  if (h.rows > k_max_file_rows || h.dim > 4096) return damaged("its header is out of range");
  // Each row takes its floats, two length words and a BSON {_id} of at least 5 bytes.
  const std::uint64_t least = h.rows * (std::uint64_t{h.dim} * 4 + 13);
  if (size < r.at() + 8 || size - r.at() - 8 < least) return damaged("it is shorter than its header says");
  if (bound != nullptr &&
      (h.model != bound->model || h.sha != bound->model_sha256 || h.dim != bound->dim || h.field != bound->field)) {
    out.state = file_state::stale;
    return out;
  }
  if (build) {
    auto c = std::make_shared<vector_cache>();
    c->generation = h.generation;
    c->seq = h.seq;
    if (bound != nullptr) c->bound = *bound;
    c->bound.generation = h.generation;
    c->matrix.resize(h.rows * h.dim);
    if (!r.get_bytes(c->matrix.data(), c->matrix.size() * sizeof(float))) return damaged("its rows are cut short");
    c->ids.reserve(h.rows);
    c->hashes.reserve(h.rows);
    for (std::uint64_t i = 0; i < h.rows; ++i) {
      std::string id_bson, hash;
      if (!r.get_str(id_bson) || !r.get_str(hash, 64)) return damaged("its _ids are cut short");
      auto d = from_bson(id_bson);
      if (!d || d->size() != 1) return damaged("row " + std::to_string(i) + " has an unreadable _id");
      if (hash.empty()) {
        ++c->dead;
      } else if (!c->row_of.emplace(encode_key(d->front().val), static_cast<std::uint32_t>(i)).second) {
        return damaged("an _id appears twice");
      }
      c->ids.push_back(std::move(d->front().val));
      c->hashes.push_back(std::move(hash));
    }
    out.cache = std::move(c);
  }
  if (r.at() > size - 8 || !r.skip(size - 8 - r.at())) return damaged("its rows run past the checksum");
  const std::uint64_t computed = r.digest();
  std::uint64_t stored = 0;
  if (!in.read(reinterpret_cast<char*>(&stored), sizeof stored)) return damaged("its checksum is missing");
  if (stored != computed) return damaged("its checksum does not match its bytes");
  h.sum = stored;
  if (out.cache) out.cache->file_sum = stored;
  out.state = file_state::ok;
  return out;
}

namespace {

// Writes `bytes` plus their checksum to `file` (a temporary name of its own, then a rename).
std::optional<std::uint64_t> write_with_checksum(const fs::path& file, std::string& bytes) {
  const std::uint64_t sum = checksum64::of(bytes.data(), bytes.size());
  put<std::uint64_t>(bytes, sum);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  // A name of its own per write: two searches rebuilding at once must not interleave bytes.
  static std::atomic<std::uint64_t> writes{0};
  const fs::path tmp = file.string() + ".tmp" + std::to_string(writes.fetch_add(1));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush()) {
      fs::remove(tmp, ec);
      return std::nullopt;  // the cache is optional: the next search rebuilds it
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return std::nullopt;
  }
  return sum;
}

}  // namespace

std::optional<std::uint64_t> write_cache_file(const fs::path& file, std::string_view collection, const vector_cache& c) {
  std::string out(k_magic, 8);
  put_str(out, collection);
  put_str(out, c.bound.field);
  put_str(out, c.bound.model);
  put_str(out, c.bound.model_sha256);
  put<std::uint64_t>(out, c.generation);
  put<std::uint64_t>(out, c.seq);
  put<std::uint32_t>(out, c.bound.dim);
  put<std::uint64_t>(out, c.rows());
  out.append(reinterpret_cast<const char*>(c.matrix.data()), c.matrix.size() * sizeof(float));
  for (std::size_t i = 0; i < c.rows(); ++i) {
    auto bytes = to_bson(document{{"_id", c.ids[i]}});
    if (!bytes) return std::nullopt;
    put_str(out, *bytes);
    put_str(out, c.hashes[i]);
  }
  return write_with_checksum(file, out);
}

bool write_graph_file(const fs::path& file, std::string_view collection, const vector_cache& c, std::uint64_t rows_sum) {
  if (!c.hnsw) return false;
  const std::string graph = c.hnsw->save();
  std::string out(k_graph_magic, 8);
  out.reserve(graph.size() + 256);
  put_str(out, collection);
  put_str(out, c.bound.field);
  put<std::uint64_t>(out, c.generation);
  put<std::uint64_t>(out, c.seq);
  put<std::uint64_t>(out, rows_sum);
  put<std::uint32_t>(out, c.bound.dim);
  put<std::uint64_t>(out, c.rows());
  put<std::uint64_t>(out, graph.size());
  out.append(graph);
  return write_with_checksum(file, out).has_value();
}

checked_graph read_graph_file(const fs::path& file, const std::optional<std::uint64_t>& rows_sum, std::size_t rows,
                              std::uint32_t dim, bool build) {
  checked_graph out;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return out;
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  auto damaged = [&](std::string why) {
    out.state = file_state::damaged;
    out.why = std::move(why);
    out.graph.reset();
    return std::move(out);
  };
  hashing_reader r(in);
  char magic[8];
  if (!r.get_bytes(magic, 8) || std::memcmp(magic, k_graph_magic, k_family) != 0) return damaged("not a vector graph file");
  if (std::memcmp(magic, k_graph_magic, 8) != 0) {
    out.state = file_state::old_format;
    return out;
  }
  file_header& h = out.h;
  std::uint64_t length = 0;
  if (!r.get_str(h.collection) || !r.get_str(h.field) || !r.get(h.generation) || !r.get(h.seq) || !r.get(h.sum) ||
      !r.get(h.dim) || !r.get(h.rows) || !r.get(length)) {
    return damaged("its header is cut short");
  }
  if (size < r.at() + 8 || size - r.at() - 8 != length) return damaged("its length is not what its header says");
  if (rows_sum && (h.sum != *rows_sum || h.rows != rows || h.dim != dim)) {
    out.state = file_state::stale;
    return out;
  }
  std::unique_ptr<char[]> bytes;  // not zero-filled: every byte is read into it
  if (build) {
    bytes.reset(new char[static_cast<std::size_t>(length)]);
    if (!r.get_bytes(bytes.get(), static_cast<std::size_t>(length))) return damaged("its graph is cut short");
  } else if (!r.skip(length)) {
    return damaged("its graph is cut short");
  }
  std::uint64_t stored = 0;
  const std::uint64_t computed = r.digest();
  if (!in.read(reinterpret_cast<char*>(&stored), sizeof stored)) return damaged("its checksum is missing");
  if (stored != computed) return damaged("its checksum does not match its bytes");
  if (build) {
    std::string why;
    out.graph = hnsw_index::load(std::string_view(bytes.get(), static_cast<std::size_t>(length)), dim,
                                 hnsw_index::params{}, rows, why);
    if (!out.graph) return damaged(why);
  }
  out.state = file_state::ok;
  return out;
}

namespace {

std::mutex marks_mu;
std::map<std::string, std::string> damaged_marks;  // mark_key -> what verify found

// The database's identity too: a store re-created at the same path is another store.
std::string mark_key(const store::impl& s, const fs::path& file) {
  std::string identity;
  (void)s.db->GetDbIdentity(identity);
  return identity + "|" + fs::absolute(file).lexically_normal().string();
}

}  // namespace

void mark_damaged(const store::impl& s, const fs::path& file, std::string why) {
  std::lock_guard lock(marks_mu);
  damaged_marks[mark_key(s, file)] = std::move(why);
}

std::optional<std::string> take_damage_mark(const store::impl& s, const fs::path& file) {
  std::lock_guard lock(marks_mu);
  auto m = damaged_marks.find(mark_key(s, file));
  if (m == damaged_marks.end()) return std::nullopt;
  std::string why = std::move(m->second);
  damaged_marks.erase(m);
  return why;
}

bool has_damage_mark(const store::impl& s, const fs::path& file) {
  std::lock_guard lock(marks_mu);
  return !damaged_marks.empty() && damaged_marks.count(mark_key(s, file)) != 0;
}

std::optional<std::string> check_cache_file(const fs::path& file, bool decode) {
  auto checked = read_cache_file(file, nullptr, decode);
  if (checked.state == file_state::ok) return std::nullopt;
  if (checked.state == file_state::missing) return std::string("missing");
  if (checked.state == file_state::old_format) return std::string("older format");
  return checked.why;
}

fs::path cache_file(const std::string& store_path, std::string_view collection, std::string_view field) {
  return fs::path(store_path) / "caches" / "vectors" / (hex_of(collection) + "." + hex_of(field) + ".f32");
}

fs::path graph_file(const std::string& store_path, std::string_view collection, std::string_view field) {
  return fs::path(store_path) / "caches" / "vectors" / (hex_of(collection) + "." + hex_of(field) + ".hnsw");
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
    if (e.path().extension() == ".f32" || e.path().extension() == ".hnsw") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    // The whole file is read and its checksum compared: verify is the full check.
    detail::checked_file checked;
    const bool graph = f.extension() == ".hnsw";
    if (graph) {
      auto g = detail::read_graph_file(f, std::nullopt, 0, 0, false);
      checked.state = g.state;
      checked.h = g.h;
      checked.why = g.why;
    } else {
      checked = detail::read_cache_file(f, nullptr, false);
    }
    if (checked.state == detail::file_state::missing) continue;  // removed meanwhile
    document entry{{"name", value(f.filename().string())},
                   {"kind", value(graph ? "vectors-graph" : "vectors")},
                   {"rebuildable", value(true)}};
    if (checked.state == detail::file_state::old_format) {
      entry.push_back({"current", value(false)});
      entry.push_back({"damaged", value(false)});
      entry.push_back({"note", value("written by an older omgdb in an older format; the next vsearch rebuilds it")});
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
      detail::mark_damaged(s, f, checked.why);
      entry.push_back({"current", value(false)});
      entry.push_back({"damaged", value(true)});
      entry.push_back({"note", value("damaged (" + checked.why + "): it is not used; the next vsearch rebuilds it from the vectors")});
      out.push_back(std::move(entry));
      continue;
    }
    auto b = detail::read_binding(s, view, h.collection, h.field);
    const bool current = b && *b && (*b)->generation == h.generation &&
                         (graph || ((*b)->model == h.model && (*b)->model_sha256 == h.sha));
    entry.push_back({"rows", value(static_cast<std::int64_t>(h.rows))});
    entry.push_back({"current", value(current)});
    entry.push_back({"damaged", value(false)});
    if (!current) {
      entry.push_back({"note", value("older than the vectors; the next vsearch brings it up to date (from the op-log, or "
                                     "by a rebuild)")});
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace omgdb::engine::vector
