// omgdb vectors — keeping a field's cache current: one slot per cache file in memory, read by
// searches under a shared lock; brought up to date under the exclusive lock from the op-log
// records of `C.__vectors` (rows and HNSW graph changed in place), or rebuilt from
// `C.__vectors` when that is not possible; the files written after a rebuild, a graph build,
// or enough changes (vector_cache.hpp).
#include <algorithm>
#include <map>

#include "engine/index/keystring.hpp"
#include "engine/vector/vector_cache.hpp"

namespace omgdb::engine::vector::detail {

namespace fs = std::filesystem;

struct cache_slot {
  std::shared_mutex mu;
  std::shared_ptr<vector_cache> cache;  // guarded by mu
};

namespace {

std::mutex slots_mu;
std::map<std::string, std::shared_ptr<cache_slot>> slots;  // by the cache file's identity

std::shared_ptr<cache_slot> slot_of(const store::impl& s, const fs::path& file) {
  std::string identity;
  (void)s.db->GetDbIdentity(identity);  // a store re-created at the same path is another store
  std::lock_guard lock(slots_mu);
  auto& slot = slots[identity + "|" + fs::absolute(file).lexically_normal().string()];
  if (!slot) slot = std::make_shared<cache_slot>();
  return slot;
}

std::string cache_name(std::string_view collection, std::string_view field) {
  return "the vector cache file of `" + std::string(collection) + "`." + std::string(field);
}
std::string graph_name(std::string_view collection, std::string_view field) {
  return "the HNSW graph file of `" + std::string(collection) + "`." + std::string(field);
}

bool same_model(const vector_cache& c, const binding& b) {
  return c.bound.model == b.model && c.bound.model_sha256 == b.model_sha256 && c.bound.dim == b.dim &&
         c.bound.field == b.field;
}

// Current for a search as of op-log seq `seq` with binding `b`: the same model, and the
// binding's generation (or newer rows than the snapshot: a later vsync's).
bool usable(const vector_cache& c, const binding& b, std::uint64_t seq) {
  return same_model(c, b) && (c.generation == b.generation || c.seq >= seq);
}

result<std::uint64_t> seq_of(const store::impl& s, const read_view& view) {
  std::string bytes;
  auto st = s.db->Get(view.options(), s.meta, engine::detail::slice(engine::detail::k_meta_last_seq), &bytes);
  if (st.IsNotFound()) return std::uint64_t{0};
  if (!st.ok()) return engine::detail::storage_error(s.path, "read", st);
  auto n = engine::detail::get_u64(bytes);
  return n ? *n : std::uint64_t{0};
}

const value* get(const document& d, std::string_view name) {
  for (const auto& f : d) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}
std::string string_of(const document& d, std::string_view name) {
  const value* v = get(d, name);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

// The cache rebuilt from every vector of the field in `C.__vectors` as of `view`.
result<std::shared_ptr<vector_cache>> rebuild(const store::impl& s, const read_view& view, std::string_view collection,
                                              const binding& bound, std::uint64_t seq, const scan_control& control) {
  OMGDB_TRY(stored, read_field_vectors(s, view, collection, bound.field, true, control));
  std::vector<std::pair<std::string, stored_vector*>> order;
  for (auto& [k, v] : stored.rows) {
    if (v.model == bound.model && v.model_sha256 == bound.model_sha256 && v.data.size() == bound.dim) order.emplace_back(k, &v);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto built = std::make_shared<vector_cache>();
  built->generation = bound.generation;
  built->seq = seq;
  built->bound = bound;
  built->matrix.reserve(order.size() * bound.dim);
  for (auto& [k, v] : order) {
    built->row_of.emplace(k, static_cast<std::uint32_t>(built->ids.size()));
    built->matrix.insert(built->matrix.end(), v->data.begin(), v->data.end());
    built->ids.push_back(std::move(v->id));
    built->hashes.push_back(std::move(v->text_hash));
  }
  built->unsaved = built->rows() + 1;
  return built;
}

// Brings `c` from its seq up to `seq` with the op-log records of the field's vectors in
// between, in place (rows and graph). False when it cannot (the op-log does not reach back,
// the model changed, the collection was dropped) or should not (a change too large for the
// graph to absorb well): then the caller rebuilds.
result<bool> apply_delta(const store::impl& s, const read_view& view, std::string_view collection, vector_cache& c,
                         const binding& bound, std::uint64_t seq) {
  if (c.seq == 0 || c.seq > seq) return false;
  const std::string vc = vectors_collection(collection);
  // The newest state of each changed vector: its after image ("" when removed).
  std::map<std::string, std::pair<value, std::string>> changes;
  if (c.seq < seq) {
    rocksdb::ReadOptions ro = view.options();
    const std::string upper_key = engine::detail::oplog_key(seq + 1);
    rocksdb::Slice upper(upper_key);
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.oplog));
    it->Seek(engine::detail::oplog_key(c.seq + 1));
    if (!it->Valid() || engine::detail::get_u64(it->key().ToStringView()) != c.seq + 1) {
      if (!it->status().ok()) return engine::detail::storage_error(s.path, "read", it->status());
      return false;  // the op-log does not reach back
    }
    std::uint64_t read = 0;
    for (; it->Valid(); it->Next()) {
      if (++read > k_delta_scan_max) return false;
      const std::string_view bytes = it->value().ToStringView();
      value coll;
      if (!bson_get_field(bytes, "collection", coll) || !coll.is_string() || coll.as_string() != vc) continue;
      value op;
      if (bson_get_field(bytes, "op", op) && op.is_string() && op.as_string() == "drop_collection") return false;
      value id;
      if (!bson_get_field(bytes, "_id", id) || !id.is_document()) continue;
      const document& key = id.as_document();
      std::string after;
      if (!engine::detail::oplog_after(bytes, after)) return false;
      if (const value* bf = get(key, "binding"); bf != nullptr) {
        if (!bf->is_string() || bf->as_string() != bound.field) continue;
        if (after.empty()) return false;  // the binding was removed
        auto d = from_bson(after);
        if (!d) return false;
        const binding b = parse_binding(bound.field, *d);
        if (b.model != c.bound.model || b.model_sha256 != c.bound.model_sha256 || b.dim != c.bound.dim) return false;
        continue;
      }
      const value* field = get(key, "field");
      const value* src = get(key, "id");
      if (field == nullptr || src == nullptr || !field->is_string() || field->as_string() != bound.field) continue;
      changes[encode_key(*src)] = {*src, std::move(after)};
    }
    if (!it->status().ok()) return engine::detail::storage_error(s.path, "read", it->status());
  }
  const double live = static_cast<double>(std::max<std::size_t>(c.live(), 1));
  if (static_cast<double>(changes.size()) > k_delta_max_share * live && changes.size() > 1024) return false;
  std::size_t removals = 0;
  for (const auto& [k, change] : changes) removals += change.second.empty() ? 1 : 0;
  if (static_cast<double>(c.dead + removals) > k_dead_max_share * live && c.dead + removals > 1024) return false;
  std::vector<float> floats;
  for (auto& [k, change] : changes) {
    auto& [src, after] = change;
    bool keep = false;
    std::string hash;
    if (!after.empty()) {
      auto d = from_bson(after);
      if (!d) return false;
      const value* vec = get(*d, "vector");
      keep = string_of(*d, "model") == c.bound.model && string_of(*d, "modelSha256") == c.bound.model_sha256 &&
             vec != nullptr && vec->type() == kind::binary &&
             decode_floats(std::get<binary>(vec->raw()).bytes, c.bound.dim, floats);
      hash = string_of(*d, "textHash");
      keep = keep && !hash.empty();
    }
    auto at = c.row_of.find(k);
    if (!keep) {
      if (at == c.row_of.end()) continue;
      const std::uint32_t row = at->second;
      c.hashes[row].clear();
      c.row_of.erase(at);
      ++c.dead;
      if (c.hnsw) c.hnsw->remove(row);
      continue;
    }
    std::uint32_t row = 0;
    if (at != c.row_of.end()) {
      row = at->second;
      std::copy(floats.begin(), floats.end(), c.matrix.begin() + static_cast<std::ptrdiff_t>(std::size_t{row} * c.bound.dim));
      c.hashes[row] = std::move(hash);
    } else {
      row = static_cast<std::uint32_t>(c.ids.size());
      c.matrix.insert(c.matrix.end(), floats.begin(), floats.end());
      c.ids.push_back(std::move(src));
      c.hashes.push_back(std::move(hash));
      c.row_of.emplace(k, row);
    }
    if (c.hnsw) c.hnsw->add(row, c.matrix.data() + std::size_t{row} * c.bound.dim);
  }
  c.seq = seq;
  c.generation = bound.generation;
  c.bound.generation = bound.generation;
  if (!changes.empty()) {
    ++c.version;
    c.unsaved += changes.size();
    c.file_sum.reset();
  }
  return true;
}

// Writes the files when what is only in memory is worth it: after a rebuild or a graph build
// (unsaved past the rows), or once at least a thousandth of the rows changed.
void persist(const store::impl& s, std::string_view collection, vector_cache& c, bool graph_changed) {
  const std::uint64_t due = std::max<std::uint64_t>(1, c.live() / 1000);
  if (c.unsaved < due && !graph_changed) return;
  const fs::path f32 = cache_file(s.path, collection, c.bound.field);
  const fs::path hnsw = graph_file(s.path, collection, c.bound.field);
  if (c.unsaved > 0 || !c.file_sum) {
    auto sum = write_cache_file(f32, collection, c);
    if (!sum) return;
    c.file_sum = sum;
    c.unsaved = 0;
  }
  std::error_code ec;
  if (c.hnsw) {
    if (!write_graph_file(hnsw, collection, c, *c.file_sum)) fs::remove(hnsw, ec);
  } else {
    fs::remove(hnsw, ec);  // a graph of older rows is never paired with these
  }
}

// Loads the graph file that pairs with `c`'s rows (as read from the .f32 file) into `c`.
void load_graph(const store::impl& s, std::string_view collection, vector_cache& c, std::vector<std::string>* notes) {
  const fs::path file = graph_file(s.path, collection, c.bound.field);
  auto mark = take_damage_mark(s, file);
  if (mark) {
    if (notes != nullptr) {
      notes->push_back(graph_name(collection, c.bound.field) + " was damaged (verify found it damaged: " + *mark +
                       "), so it was not used: the graph is rebuilt when a search needs it");
    }
    return;
  }
  auto g = read_graph_file(file, c.file_sum, c.rows(), c.bound.dim, true);
  if (g.state == file_state::ok) {
    c.hnsw = std::move(g.graph);
  } else if (g.state == file_state::damaged && notes != nullptr) {
    notes->push_back(graph_name(collection, c.bound.field) + " was damaged (" + g.why +
                     "), so it was not used: the graph is rebuilt when a search needs it");
  }
}

// The slot's cache made current for (bound, seq), under the slot's exclusive lock.
status refresh(const store::impl& s, const read_view& view, std::string_view collection, const binding& bound,
               std::uint64_t seq, const scan_control& control, cache_slot& slot, std::vector<std::string>* notes) {
  const fs::path file = cache_file(s.path, collection, bound.field);
  std::string damage;  // why the file (or verify's mark) says the cache is damaged
  if (auto mark = take_damage_mark(s, file)) {
    damage = "verify found it damaged: " + *mark;
    slot.cache.reset();
  }
  std::shared_ptr<vector_cache> c = slot.cache;
  if (c && !same_model(*c, bound)) c.reset();
  if (c && usable(*c, bound, seq)) return {};
  if (!c && damage.empty()) {
    auto checked = read_cache_file(file, &bound, true);
    if (checked.state == file_state::ok) {
      c = std::move(checked.cache);
      load_graph(s, collection, *c, notes);
    } else if (checked.state == file_state::damaged) {
      damage = checked.why;
    }
  }
  if (c && !usable(*c, bound, seq)) {
    OMGDB_TRY(applied, apply_delta(s, view, collection, *c, bound, seq));
    if (!applied) c.reset();
  }
  if (!c) {
    auto built = rebuild(s, view, collection, bound, seq, control);
    if (!built) {
      if (damage.empty()) return std::move(built).error();
      failure f = std::move(built).error();
      f.message = cache_name(collection, bound.field) + " is damaged (" + damage + ") and rebuilding it from `" +
                  vectors_collection(collection) + "` failed: " + f.message;
      return f;
    }
    c = std::move(*built);
    if (!damage.empty() && notes != nullptr) {
      notes->push_back(cache_name(collection, bound.field) + " was damaged (" + damage +
                       "), so it was not used: it was rebuilt from `" + vectors_collection(collection) + "` for this search");
    }
  }
  if (slot.cache != c) ++c->version;  // another object: row numbers held by older leases mean nothing here
  persist(s, collection, *c, false);
  slot.cache = std::move(c);
  return {};
}

}  // namespace

result<cache_lease> load_cache(const store::impl& s, const read_view& view, std::string_view collection,
                               const binding& bound, const scan_control& control, std::vector<std::string>* notes) {
  OMGDB_TRY(seq, seq_of(s, view));
  const fs::path file = cache_file(s.path, collection, bound.field);
  auto slot = slot_of(s, file);
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (!has_damage_mark(s, file)) {  // verify's mark: rebuilt even when memory is still good
      cache_lease lease{slot, std::shared_lock(slot->mu), nullptr};
      if (slot->cache && usable(*slot->cache, bound, seq)) {
        lease.cache = slot->cache;
        return lease;
      }
    }
    std::unique_lock lock(slot->mu);
    OMGDB_CHECK(refresh(s, view, collection, bound, seq, control, *slot, notes));
  }
  // Others keep moving the cache past this snapshot: rank from a private copy as of it.
  OMGDB_TRY(built, rebuild(s, view, collection, bound, seq, control));
  return cache_lease{nullptr, {}, std::move(built)};
}

bool ensure_graph(const store::impl& s, std::string_view collection, cache_lease& lease, std::vector<std::string>* notes) {
  if (lease->hnsw) return true;
  const auto held = lease.cache;
  const std::uint64_t version = held->version;
  if (!lease.slot) {  // a private cache: its own graph, never written
    auto& c = const_cast<vector_cache&>(*held);
    c.hnsw = std::make_unique<hnsw_index>(std::span<const float>(c.matrix), c.bound.dim);
    for (std::uint32_t r = 0; r < c.rows(); ++r) {
      if (c.hashes[r].empty()) c.hnsw->remove(r);
    }
    return true;
  }
  auto slot = lease.slot;
  lease.lock.unlock();
  {
    std::unique_lock lock(slot->mu);
    if (slot->cache == held && held->version == version && !held->hnsw) {
      vector_cache& c = *slot->cache;
      c.hnsw = std::make_unique<hnsw_index>(std::span<const float>(c.matrix), c.bound.dim);
      for (std::uint32_t r = 0; r < c.rows(); ++r) {
        if (c.hashes[r].empty()) c.hnsw->remove(r);
      }
      persist(s, collection, c, true);
    }
  }
  (void)notes;
  lease.lock.lock();
  return slot->cache == held && held->version == version && held->hnsw != nullptr;
}

void forget_loaded_caches() {
  std::lock_guard lock(slots_mu);
  slots.clear();
}

}  // namespace omgdb::engine::vector::detail
