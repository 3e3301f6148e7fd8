// omgdb engine — key helpers, the collection catalog in `meta`, collection-name rules and
// did-you-mean hints.
#include <algorithm>
#include <cctype>

#include "common/edit_distance.hpp"
#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace detail {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::optional<std::uint32_t> get_u32(std::string_view bytes) {
  if (bytes.size() != 4) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<std::uint8_t>(c);
  return v;
}

std::optional<std::uint64_t> get_u64(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<std::uint8_t>(c);
  return v;
}

std::string catalog_key(std::string_view collection) {
  std::string k(k_meta_catalog_prefix);
  k.append(collection);
  return k;
}

std::string count_key(std::uint32_t collection_id) {
  std::string k(k_meta_count_prefix);
  put_u32(k, collection_id);
  return k;
}

std::string docs_prefix(std::uint32_t collection_id) {
  std::string k;
  put_u32(k, collection_id);
  return k;
}

std::string doc_key(std::uint32_t collection_id, const value& id) {
  std::string k = docs_prefix(collection_id);
  append_key(k, id);
  return k;
}

std::string oplog_key(std::uint64_t seq) {
  std::string k;
  put_u64(k, seq);
  return k;
}

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<std::uint8_t>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0xf]);
  }
  return out;
}

std::string quoted_name(std::string_view name) { return "`" + std::string(name) + "`"; }

failure corrupt_document(std::string_view collection, std::string_view key, const failure& why) {
  return make_error("corrupt document in collection " + quoted_name(collection) + " (key " +
                    hex(key) + "): " + why.message, failure_kind::corrupt);
}

failure storage_error(const std::string& path, std::string_view what, const rocksdb::Status& s) {
  const failure_kind kind = s.IsCorruption()                                  ? failure_kind::corrupt
                            : s.IsBusy() || s.IsTryAgain() || s.IsTimedOut() ? failure_kind::busy
                                                                              : failure_kind::io;
  return make_error("cannot " + std::string(what) + " store `" + path + "`: " + s.ToString(), kind);
}

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is malformed (overlong forms,
// surrogates and code points above U+10FFFF included).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  std::uint32_t cp;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  static constexpr std::uint32_t min_for[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

status check_collection_name(std::string_view name) {
  auto bad = [&](std::string_view rule) {
    return make_error("invalid collection name " + quoted_name(name) + ": " + std::string(rule));
  };
  if (name.empty()) return make_error("invalid collection name: it must not be empty");
  if (name.size() > 120) return bad("it must be at most 120 bytes");
  for (std::size_t i = 0; i < name.size();) {
    std::size_t n = utf8_sequence(name, i);
    if (n == 0) return make_error("invalid collection name: it must be valid UTF-8");
    i += n;
  }
  if (name.find('\0') != std::string_view::npos) return bad("it must not contain a NUL byte");
  if (name.find('$') != std::string_view::npos) return bad("it must not contain '$'");
  if (name.starts_with("system.")) return bad("names starting with `system.` are reserved");
  if (name.front() == '.') return bad("it must not start with '.'");
  if (name.back() == '.') return bad("it must not end with '.'");
  return {};
}

status poll(const scan_control& control, std::uint64_t done, std::uint64_t total) {
  if (control.cancelled != nullptr && control.cancelled->load(std::memory_order_relaxed)) {
    return make_error("cancelled", failure_kind::cancelled);
  }
  if (control.progress) control.progress(done, total);
  return {};
}

}  // namespace detail

using namespace detail;

result<std::uint64_t> store::impl::read_count(const rocksdb::ReadOptions& ro,
                                              std::uint32_t id) const {
  std::string v;
  auto st = db->Get(ro, meta, count_key(id), &v);
  if (st.IsNotFound()) return std::uint64_t{0};
  if (!st.ok()) return storage_error(path, "read", st);
  auto n = get_u64(v);
  if (!n) return make_error("store `" + path + "` has a corrupt document counter", failure_kind::corrupt);
  return *n;
}

result<std::uint32_t> store::impl::read_next_collection_id(const rocksdb::ReadOptions& ro) const {
  std::string v;
  auto st = db->Get(ro, meta, slice(k_meta_next_collection), &v);
  if (st.IsNotFound()) return std::uint32_t{1};
  if (!st.ok()) return storage_error(path, "read", st);
  auto n = get_u32(v);
  if (!n) return make_error("store `" + path + "` has a corrupt collection id counter", failure_kind::corrupt);
  return *n;
}

namespace {

result<std::uint32_t> decode_catalog(const std::string& path, std::string_view name,
                                     std::string_view bytes) {
  auto bad = [&] {
    return make_error("store `" + path + "` has a corrupt catalog entry for collection " +
                      quoted_name(name), failure_kind::corrupt);
  };
  auto doc = from_bson(bytes);
  if (!doc) return bad();
  const value* id = find_field(*doc, "id");
  if (id == nullptr || !id->is_int64()) return bad();
  auto n = id->as_int64();
  if (n <= 0 || n >= std::int64_t{0xffffffff}) return bad();
  return static_cast<std::uint32_t>(n);
}

}  // namespace

namespace {

constexpr std::size_t k_catalog_memo_entries = 1024;  // names remembered; then forgotten at once

}  // namespace

result<std::optional<catalog_entry>> store::impl::lookup(const rocksdb::ReadOptions& ro, std::string_view name,
                                                         bool with_count) const {
  // Under a snapshot, a previous answer at the same sequence number is this one (see
  // catalog_memo); without one (writers: the latest state) always read.
  const bool memo = ro.snapshot != nullptr;
  const std::uint64_t seq = memo ? ro.snapshot->GetSequenceNumber() : 0;
  if (memo) {
    std::lock_guard lock(catalog_memo_mu);
    if (auto it = catalog_memo.find(name); it != catalog_memo.end() && it->second.seq == seq) {
      const catalog_memo_entry& e = it->second;
      if (!e.exists) return std::optional<catalog_entry>{};
      if (e.counted || !with_count) {
        return std::optional<catalog_entry>(catalog_entry{std::string(name), e.id, with_count ? e.documents : 0});
      }
    }
  }
  std::string v;
  auto st = db->Get(ro, meta, catalog_key(name), &v);
  if (!st.ok() && !st.IsNotFound()) return storage_error(path, "read", st);
  catalog_memo_entry e;
  e.seq = seq;
  if (st.ok()) {
    auto id = decode_catalog(path, name, v);
    if (!id) return std::move(id).error();
    e.exists = true;
    e.id = *id;
    if (with_count) {
      auto count = read_count(ro, *id);
      if (!count) return std::move(count).error();
      e.counted = true;
      e.documents = *count;
    }
  }
  if (memo) {
    std::lock_guard lock(catalog_memo_mu);
    if (catalog_memo.size() >= k_catalog_memo_entries) catalog_memo.clear();
    catalog_memo.insert_or_assign(std::string(name), e);
  }
  if (!e.exists) return std::optional<catalog_entry>{};
  return std::optional<catalog_entry>(catalog_entry{std::string(name), e.id, e.documents});
}

result<std::vector<catalog_entry>> store::impl::list(const rocksdb::ReadOptions& ro) const {
  std::vector<catalog_entry> out;
  std::string upper(k_meta_catalog_prefix);
  upper.back() = static_cast<char>(upper.back() + 1);  // "catalog0": just past every "catalog/…"
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions scan = ro;
  scan.iterate_upper_bound = &upper_slice;
  {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(scan, meta));
    for (it->Seek(slice(k_meta_catalog_prefix)); it->Valid(); it->Next()) {
      std::string name = it->key().ToString().substr(k_meta_catalog_prefix.size());
      auto id = decode_catalog(path, name, std::string_view(it->value().data(), it->value().size()));
      if (!id) return std::move(id).error();
      out.push_back(catalog_entry{std::move(name), *id, 0});
    }
    if (!it->status().ok()) return storage_error(path, "read", it->status());
  }
  for (auto& e : out) {
    auto count = read_count(ro, e.id);
    if (!count) return std::move(count).error();
    e.documents = *count;
  }
  return out;  // key order is byte order of the names
}

failure store::impl::unknown_collection(std::string_view name) const {
  std::string message = "collection " + quoted_name(name) + " does not exist";
  auto all = list(rocksdb::ReadOptions());
  if (all) {
    std::vector<std::string> names;
    for (const auto& e : *all) names.push_back(e.name);
    auto hint = closest_name(name, names);
    if (!hint.empty()) message += "; did you mean " + quoted_name(hint) + "?";
  }
  return make_error(std::move(message), failure_kind::not_found);
}

result<std::optional<catalog_entry>> read_view::collection(std::string_view name, bool with_count) const {
  if (auto n = check_collection_name(name); !n) return std::move(n).error();
  return s_.lookup(snap_.read_options(), name, with_count);
}

result<catalog_entry> read_view::existing(std::string_view name, bool with_count) const {
  auto found = collection(name, with_count);
  if (!found) return std::move(found).error();
  if (!found->has_value()) return s_.unknown_collection(name);
  return std::move(**found);
}

result<read_view::listing> read_view::catalog() const {
  auto all = s_.list(snap_.read_options());
  if (!all) return std::move(all).error();
  listing out{std::move(*all), 0};
  for (const auto& e : out.collections) out.documents += e.documents;
  return out;
}

result<std::vector<collection_info>> store::collections() const {
  snapshot_guard snap(impl_->db);
  auto all = impl_->list(snap.read_options());
  if (!all) return std::move(all).error();
  std::vector<collection_info> out;
  for (auto& e : *all) out.push_back(collection_info{std::move(e.name), e.documents});
  return out;
}

bool store::has_collection(std::string_view collection) const {
  auto e = impl_->lookup(rocksdb::ReadOptions(), collection);
  return e && e->has_value();
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string folded = lower(name);
  for (const auto& c : candidates) {
    if (lower(c) == folded) return c;  // a case-insensitive match beats any edit distance
  }
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    // Lengths differing by more than 2 can never be within distance 2; skip the work.
    std::size_t gap = c.size() > name.size() ? c.size() - name.size() : name.size() - c.size();
    if (gap > 2) continue;
    std::size_t d = edit_distance(name, c);
    // Also require the distance to be below the longer length, so "ab" never suggests "xy".
    if (d < best_distance && d < std::max(c.size(), name.size())) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace omgdb::engine
