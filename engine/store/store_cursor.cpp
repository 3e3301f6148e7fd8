// omgdb engine — persisted keyset cursors (docs/cursors.md).
//
// A cursor is one meta entry "cursor/<token>" → BSON {collection, filter, sort, projection,
// after_id?, after_sort_key?, created, used} (times in Unix milliseconds). A batch is a find()
// limited to the batch size that starts strictly after (after_sort_key, after_id); the page's
// last position is stored back. Nothing about the documents themselves is kept, so a cursor
// survives a restart and costs one small key. Cursor entries are written with sync = true
// outside the op-log: they are not data. Operations on one token are serialized by a striped
// lock, so two concurrent cursor_next calls never return the same batch.
#include <array>
#include <chrono>
#include <mutex>

#include <sys/random.h>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/datetime.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

constexpr std::size_t k_token_bytes = 16;  // 128 bits, 32 hex digits

struct cursor_state {
  std::string collection;
  document filter;
  document sort;
  document projection;
  std::optional<value> after_id;
  std::optional<document> after_sort_key;
  std::uint64_t batch_size = store::k_cursor_default_batch;  // the default for cursor_next
  std::int64_t created = 0;
  std::int64_t used = 0;
  std::string owner;  // "" when opened outside a session
};

std::mutex& token_lock(std::string_view token) {
  static std::array<std::mutex, 32> locks;
  return locks[std::hash<std::string_view>{}(token) % locks.size()];
}

std::int64_t clock_now(const std::optional<std::int64_t>& injected) {
  if (injected) return *injected;
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

result<std::string> new_token() {
  std::string bytes(k_token_bytes, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error("the system random number generator is unavailable");
    }
    got += static_cast<std::size_t>(n);
  }
  return hex(bytes);
}

status check_token(std::string_view token) {
  bool ok = token.size() == 2 * k_token_bytes;
  for (char c : token) ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (ok) return {};
  return make_error("`" + std::string(token.substr(0, 80)) + "` is not a cursor token: tokens are 32 "
                    "lowercase hex digits, exactly as cursor_open returned them");
}

status check_batch_size(std::uint64_t n) {
  if (n >= 1 && n <= store::k_cursor_max_batch) return {};
  return make_error("batch size " + std::to_string(n) + " is out of range: it must be 1 to " +
                    std::to_string(store::k_cursor_max_batch));
}

std::string cursor_key(std::string_view token) { return "cursor/" + std::string(token); }

document encode(const cursor_state& c) {
  document d{{"collection", c.collection}, {"filter", c.filter}, {"sort", c.sort},
             {"projection", c.projection}};
  if (c.after_id) d.push_back({"after_id", *c.after_id});
  if (c.after_sort_key) d.push_back({"after_sort_key", *c.after_sort_key});
  d.push_back({"batch_size", static_cast<std::int64_t>(c.batch_size)});
  d.push_back({"created", c.created});
  d.push_back({"used", c.used});
  if (!c.owner.empty()) d.push_back({"owner", c.owner});
  return d;
}

result<cursor_state> decode(std::string_view token, std::string_view bytes) {
  auto d = from_bson(bytes);
  auto bad = [&] { return make_error("cursor `" + std::string(token) + "` is damaged; close it and open a new one", failure_kind::corrupt); };
  if (!d) return bad();
  cursor_state c;
  const value* coll = find_field(*d, "collection");
  const value* created = find_field(*d, "created");
  const value* used = find_field(*d, "used");
  if (coll == nullptr || !coll->is_string() || created == nullptr || !created->is_int64() ||
      used == nullptr || !used->is_int64()) {
    return bad();
  }
  c.collection = coll->as_string();
  c.created = created->as_int64();
  c.used = used->as_int64();
  for (auto [name, out] : {std::pair{"filter", &c.filter}, std::pair{"sort", &c.sort},
                           std::pair{"projection", &c.projection}}) {
    const value* v = find_field(*d, name);
    if (v == nullptr || !v->is_document()) return bad();
    *out = v->as_document();
  }
  if (const value* v = find_field(*d, "batch_size"); v != nullptr && v->is_int64() && v->as_int64() > 0) {
    c.batch_size = static_cast<std::uint64_t>(v->as_int64());
  }
  if (const value* v = find_field(*d, "owner"); v != nullptr && v->is_string()) c.owner = v->as_string();
  if (const value* v = find_field(*d, "after_id")) c.after_id = *v;
  if (const value* v = find_field(*d, "after_sort_key")) {
    if (!v->is_document()) return bad();
    c.after_sort_key = v->as_document();
  }
  return c;
}

std::string minutes_text(std::int64_t millis) {
  const std::int64_t minutes = millis / 60000;
  return std::to_string(minutes) + (minutes == 1 ? " minute" : " minutes");
}

rocksdb::WriteOptions synced() {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return wo;
}

}  // namespace

namespace {

// Runs one batch of `c` and advances its position; exhausted when nothing matches after it.
result<store::cursor_batch> run_batch(const store& s, cursor_state& c, std::uint64_t batch_size,
                                      const store::cursor_request& request,
                                      const scan_control& control) {
  find_options o;
  o.filter = c.filter;
  o.sort = c.sort;
  o.projection = c.projection;
  o.limit = batch_size;
  o.max_bytes = request.max_bytes;
  o.after_id = c.after_id;
  o.after_sort_key = c.after_sort_key;
  auto page = s.find(c.collection, o, control);
  if (!page) return std::move(page).error();
  store::cursor_batch b;
  b.ndjson = std::move(page->ndjson);
  b.returned = page->returned;
  b.exhausted = !page->more;
  if (page->more) {
    c.after_id = page->last_id;
    c.after_sort_key = page->last_sort_key;
  }
  return b;
}

}  // namespace

result<store::cursor_batch> store::cursor_open(std::string_view collection,
                                               const cursor_request& request,
                                               const scan_control& control) {
  const std::uint64_t batch_size = request.batch_size.value_or(k_cursor_default_batch);
  if (auto b = check_batch_size(batch_size); !b) return std::move(b).error();
  const std::int64_t now = clock_now(request.now_millis);
  cursor_state c;
  c.collection = std::string(collection);
  c.filter = request.filter;
  c.sort = request.sort;
  c.projection = request.projection;
  c.batch_size = batch_size;
  c.created = now;
  c.used = now;
  c.owner = request.owner.substr(0, 128);
  {
    // The state as it will be stored, with room for a position (after_id, after_sort_key:
    // values of the documents, bounded by the document size, not by this).
    auto sized = to_bson(encode(c));
    if (!sized) return std::move(sized).error();
    if (sized->size() > k_cursor_max_state_bytes) {
      return make_error("the cursor's filter, sort and projection take " + std::to_string(sized->size()) +
                            " bytes; a cursor may store at most " + std::to_string(k_cursor_max_state_bytes) +
                            " (store::k_cursor_max_state_bytes): use a smaller filter (a range instead of a long "
                            "$in list), or page with find and afterId",
                        failure_kind::limit_exceeded);
    }
  }
  // Sweep cursors that expired (each under its own lock, re-read before removal, so a
  // cursor refreshed in between is kept), counting the live ones.
  std::vector<std::string> tokens;
  {
    std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->meta));
    for (it->Seek("cursor/"); it->Valid() && it->key().starts_with("cursor/"); it->Next()) {
      tokens.push_back(it->key().ToString().substr(7));
    }
  }
  std::size_t live = 0, owned = 0;
  for (const auto& token : tokens) {
    std::lock_guard lock(token_lock(token));
    std::string bytes;
    if (!impl_->db->Get(rocksdb::ReadOptions(), impl_->meta, cursor_key(token), &bytes).ok()) continue;
    auto old = decode(token, bytes);
    if (old && now - old->used <= k_cursor_idle_millis) {
      ++live;
      if (!c.owner.empty() && old->owner == c.owner) ++owned;
      continue;
    }
    auto st = impl_->db->Delete(synced(), impl_->meta, cursor_key(token));
    if (!st.ok()) return storage_error(impl_->path, "write", st);
  }
  const std::string relief = ": close cursors you no longer need with cursor_close (or read them to the end); "
                             "an unused cursor expires after " + minutes_text(k_cursor_idle_millis);
  if (live >= k_cursor_max_per_store) {
    return make_error("this store already has " + std::to_string(live) + " open cursors, the most one store keeps (" +
                          std::to_string(k_cursor_max_per_store) + ")" + relief,
                      failure_kind::limit_exceeded);
  }
  if (owned >= k_cursor_max_per_owner) {
    return make_error("this session already has " + std::to_string(owned) + " open cursors in this store, the most "
                          "one session may keep (" + std::to_string(k_cursor_max_per_owner) + ")" + relief,
                      failure_kind::limit_exceeded);
  }
  auto batch = run_batch(*this, c, batch_size, request, control);
  if (!batch) return batch;
  auto token = new_token();
  if (!token) return std::move(token).error();
  batch->token = *token;
  if (batch->exhausted) return batch;
  auto bytes = to_bson(encode(c));
  if (!bytes) return std::move(bytes).error();
  auto st = impl_->db->Put(synced(), impl_->meta, cursor_key(*token), *bytes);
  if (!st.ok()) return storage_error(impl_->path, "write", st);
  return batch;
}

result<store::cursor_batch> store::cursor_next(std::string_view token, const cursor_request& request,
                                               const scan_control& control) {
  if (auto t = check_token(token); !t) return std::move(t).error();
  if (request.batch_size) {
    if (auto b = check_batch_size(*request.batch_size); !b) return std::move(b).error();
  }
  const std::int64_t now = clock_now(request.now_millis);
  std::lock_guard lock(token_lock(token));
  const std::string key = cursor_key(token);
  std::string bytes;
  auto got = impl_->db->Get(rocksdb::ReadOptions(), impl_->meta, key, &bytes);
  if (got.IsNotFound()) {
    return make_error("no cursor `" + std::string(token) + "` in this store: it was closed, ran out of "
                      "documents, expired, or never existed; open a new one with cursor_open", failure_kind::not_found);
  }
  if (!got.ok()) return storage_error(impl_->path, "read", got);
  auto c = decode(token, bytes);
  if (!c) return std::move(c).error();
  if (now - c->used > k_cursor_idle_millis) {
    auto st = impl_->db->Delete(synced(), impl_->meta, key);
    if (!st.ok()) return storage_error(impl_->path, "write", st);
    return make_error("cursor `" + std::string(token) + "` expired: it was last used at " +
                      format_iso8601(c->used) + " and cursors expire after " +
                      minutes_text(k_cursor_idle_millis) + " without a call; open a new one with cursor_open", failure_kind::not_found);
  }
  auto batch = run_batch(*this, *c, request.batch_size.value_or(c->batch_size), request, control);
  if (!batch) return batch;
  batch->token = std::string(token);
  rocksdb::Status st;
  if (batch->exhausted) {
    st = impl_->db->Delete(synced(), impl_->meta, key);
  } else {
    c->used = now;
    auto next = to_bson(encode(*c));
    if (!next) return std::move(next).error();
    st = impl_->db->Put(synced(), impl_->meta, key, *next);
  }
  if (!st.ok()) return storage_error(impl_->path, "write", st);
  return batch;
}

status store::cursor_close(std::string_view token, std::optional<std::int64_t> now_millis) {
  if (auto t = check_token(token); !t) return t;
  const std::int64_t now = clock_now(now_millis);
  std::lock_guard lock(token_lock(token));
  const std::string key = cursor_key(token);
  std::string bytes;
  auto got = impl_->db->Get(rocksdb::ReadOptions(), impl_->meta, key, &bytes);
  if (got.IsNotFound()) {
    return make_error("no cursor `" + std::string(token) + "` in this store: it was already closed, ran "
                      "out of documents, expired, or never existed", failure_kind::not_found);
  }
  if (!got.ok()) return storage_error(impl_->path, "read", got);
  auto st = impl_->db->Delete(synced(), impl_->meta, key);
  if (!st.ok()) return storage_error(impl_->path, "write", st);
  auto c = decode(token, bytes);
  if (c && now - c->used > k_cursor_idle_millis) {
    return make_error("cursor `" + std::string(token) + "` had already expired (last used at " +
                      format_iso8601(c->used) + ", expiry after " + minutes_text(k_cursor_idle_millis) +
                      " idle); it is removed now", failure_kind::not_found);
  }
  return {};
}

}  // namespace omgdb::engine
