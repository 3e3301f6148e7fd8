// omgdb engine — apply a plan exactly once; roll a change back at most once.
//
// Both run on one write session (the writer lock), check everything first and then build
// the session's batch (documents, op-log records carrying the change id, meta records),
// committed with sync = true; a refused call writes nothing at all, so the store stays
// byte-for-byte as it was.
#include <bson/bson.h>

#include <chrono>
#include <map>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/query/filter.hpp"
#include "engine/index/keystring.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/update/update.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

std::int64_t now_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const value* member(const document& d, std::string_view name) { return find_field(d, name); }

std::uint64_t u64_of(const document& d, std::string_view name) {
  const value* v = member(d, name);
  return v != nullptr && v->is_int64() ? static_cast<std::uint64_t>(v->as_int64()) : 0;
}

value u64_value(std::uint64_t n) { return value(static_cast<std::int64_t>(n)); }

// The embedded document `name` of BSON `bytes`, as its own bytes; empty when absent.
std::string_view raw_member(std::string_view bytes, const char* name) {
  bson_t doc;
  bson_iter_t it;
  if (!bson_init_static(&doc, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) ||
      !bson_iter_init_find(&it, &doc, name) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return {};
  }
  std::uint32_t len = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&it, &len, &data);
  return {reinterpret_cast<const char*>(data), len};
}

std::string conflict_text(const std::vector<std::pair<std::string, std::vector<value>>>& groups) {
  std::string out;
  for (const auto& [label, ids] : groups) {
    if (ids.empty()) continue;
    if (!out.empty()) out += "; ";
    out += label + ": _id " + id_list(ids);
  }
  return out;
}

}  // namespace

result<std::string> encode_change(const change_record& c) {
  array docs;
  docs.reserve(c.docs.size());
  for (const auto& e : c.docs) {
    docs.push_back(document{{"_id", e.id}, {"before", u64_value(e.before)}, {"after", u64_value(e.after)}});
  }
  document d{{"token", c.token},         {"collection", c.collection}, {"batch", u64_value(c.batch)},
             {"firstSeq", u64_value(c.first_seq)}, {"lastSeq", u64_value(c.last_seq)},
             {"created", date_time{c.created_millis}}, {"docs", std::move(docs)}};
  if (c.rolled_back_millis) {
    d.push_back(field{"rolledBack", document{{"batch", u64_value(c.rolled_back_batch)},
                                             {"at", date_time{*c.rolled_back_millis}}}});
  }
  return to_bson(d);
}

result<std::optional<change_record>> read_change(const store::impl& s, std::string_view id) {
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.meta, std::string(k_meta_change_prefix) + std::string(id), &bytes);
  if (st.IsNotFound()) return std::optional<change_record>{};
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto d = from_bson(bytes);
  if (!d) return make_error("change `" + std::string(id) + "` is corrupt: " + d.error().message, failure_kind::corrupt);
  change_record c;
  if (const value* v = member(*d, "token"); v != nullptr && v->is_string()) c.token = v->as_string();
  if (const value* v = member(*d, "collection"); v != nullptr && v->is_string()) c.collection = v->as_string();
  c.batch = u64_of(*d, "batch");
  c.first_seq = u64_of(*d, "firstSeq");
  c.last_seq = u64_of(*d, "lastSeq");
  if (const value* v = member(*d, "created"); v != nullptr && std::holds_alternative<date_time>(v->raw())) {
    c.created_millis = std::get<date_time>(v->raw()).millis;
  }
  if (const value* v = member(*d, "docs"); v != nullptr && v->is_array()) {
    for (const auto& item : v->as_array()) {
      const value* doc_id = item.is_document() ? member(item.as_document(), "_id") : nullptr;
      if (doc_id == nullptr) return make_error("change `" + std::string(id) + "` is corrupt: entry without _id", failure_kind::corrupt);
      c.docs.push_back({*doc_id, u64_of(item.as_document(), "before"), u64_of(item.as_document(), "after")});
    }
  }
  if (const value* v = member(*d, "rolledBack"); v != nullptr && v->is_document()) {
    c.rolled_back_batch = u64_of(v->as_document(), "batch");
    const value* at = member(v->as_document(), "at");
    c.rolled_back_millis = at != nullptr && std::holds_alternative<date_time>(at->raw())
                               ? std::get<date_time>(at->raw()).millis
                               : 0;
  }
  return std::optional<change_record>(std::move(c));
}

}  // namespace detail

using namespace detail;

namespace {

struct staged_write {
  std::string key;
  value id;
  std::string before;
  std::string after;
};

status put_meta(write_session& w, std::string key, const result<std::string>& bytes) {
  if (!bytes) return bytes.error();
  return w.batch().put(w.target().meta, key, *bytes);
}

// Stages the document writes of an apply or rollback: index entries, documents, op-log
// records (carrying the change id set by mark_change).
status stage_writes(write_session& w, const catalog_entry& c, const std::vector<staged_write>& writes,
                    std::string_view refused) {
  for (const auto& sw : writes) {
    if (auto x = w.index_bytes(c, sw.before, sw.after); !x) {
      return make_error(x.error().message + "; " + std::string(refused), x.error().kind);  // indexes
    }
    if (auto p = w.batch().put(w.target().docs, sw.key, sw.after); !p) return p;
    if (auto l = w.log("update", c.name, &sw.id, sw.before, sw.after); !l) return l;
  }
  return {};
}

}  // namespace

result<store::apply_result> store::apply(std::string_view token, const scan_control& control) {
  auto& s = *impl_;
  write_session w(s, control);
  auto plan = read_plan(s, token);
  if (!plan) return std::move(plan).error();
  if (!plan->has_value()) {
    return make_error("unknown plan token `" + std::string(token) + "`: plan_update returns the token to apply", failure_kind::not_found);
  }
  plan_record& p = **plan;
  if (p.applied) {
    return make_error("plan `" + std::string(token) + "` was already applied as change `" + *p.applied +
                      "`; a plan applies exactly once", failure_kind::conflict);
  }
  auto found = w.collection(p.collection, false);
  if (!found) return std::move(found).error();
  if (*found == nullptr) {
    return make_error("collection " + quoted_name(p.collection) + " of plan `" + std::string(token) +
                      "` no longer exists; nothing was applied", failure_kind::not_found);
  }
  auto match = filter::compile(p.filter);
  if (!match) return make_error("filter: " + match.error().message, match.error().kind);
  auto spec = update_spec::compile(p.update, p.array_filters);
  if (!spec) return std::move(spec).error();
  const bool positional = spec->uses_positional();

  std::map<std::string, std::size_t> planned;  // keystring(_id) -> index in p.matches
  for (std::size_t i = 0; i < p.matches.size(); ++i) planned.emplace(encode_key(p.matches[i].first), i);
  std::vector<bool> seen(p.matches.size(), false);
  std::vector<value> changed, deleted, fresh;
  std::vector<staged_write> writes;
  const std::int64_t now = now_millis();
  auto st = plan_scan(s, **found, control, [&](plan_doc& d) -> result<bool> {
    filter::match_details details;
    const bool matches = positional ? match->matches(d.doc, details) : match->matches(d.doc);
    const value* id = find_field(d.doc, "_id");
    if (id == nullptr) return corrupt_document(p.collection, std::string_view(d.key).substr(4), make_error("no _id"));
    auto at = planned.find(d.key.substr(4));
    if (at == planned.end()) {
      if (matches) fresh.push_back(*id);
      return true;
    }
    seen[at->second] = true;
    if (content_hash(d.bytes) != p.matches[at->second].second || !matches) {
      changed.push_back(*id);
      return true;
    }
    update_apply_options options;
    options.positional = positional ? &details : nullptr;
    options.now_millis = now;
    auto next = spec->apply(d.doc, options);
    if (!next) return make_error(next.error().message + " (document with _id " + to_json(*id) + ")", next.error().kind);
    if (!next->changed) return true;
    if (auto r = check_document_rules(next->doc); !r) return std::move(r).error();
    if (auto v = w.validate(**found, next->doc); !v) {
      return make_error(v.error().message + "; nothing was applied", v.error().kind);  // validation
    }
    auto bytes = to_bson(next->doc);
    if (!bytes) return make_error(bytes.error().message + " (document with _id " + to_json(*id) + ")", bytes.error().kind);
    if (*bytes != d.bytes) writes.push_back({std::move(d.key), *id, std::move(d.bytes), std::move(*bytes)});
    return true;
  });
  if (!st) return std::move(st).error();
  for (std::size_t i = 0; i < p.matches.size(); ++i) {
    if (!seen[i]) deleted.push_back(p.matches[i].first);
  }
  if (!changed.empty() || !deleted.empty() || !fresh.empty()) {
    return make_error("plan `" + std::string(token) + "` is stale, nothing was applied: " +
                      conflict_text({{"changed since the plan", changed},
                                     {"deleted since the plan", deleted},
                                     {"newly matching the filter", fresh}}) +
                      ". Call plan_update again and review the new sample", failure_kind::conflict);
  }

  apply_result out{random_hex128(), p.matches.size(), writes.size()};
  w.mark_change(out.change_id, false);
  change_record change{std::string(token), p.collection, w.batch_id(), 0, 0, now, {}, std::nullopt, 0};
  if (auto sw = stage_writes(w, **found, writes, "nothing was applied"); !sw) return std::move(sw).error();
  for (const auto& sw : writes) change.docs.push_back({sw.id, content_hash(sw.before), content_hash(sw.after)});
  change.first_seq = w.first_seq();
  change.last_seq = w.last_seq();
  p.applied = out.change_id;
  if (auto m = put_meta(w, std::string(k_meta_plan_prefix) + std::string(token), encode_plan(p)); !m) {
    return std::move(m).error();
  }
  if (auto m = put_meta(w, std::string(k_meta_change_prefix) + out.change_id, encode_change(change)); !m) {
    return make_error("the change record is too large to store: " + m.error().message, failure_kind::limit_exceeded);
  }
  if (auto c = w.commit(); !c) return std::move(c).error();
  return out;
}

result<store::rollback_result> store::rollback(std::string_view change_id, const scan_control& control) {
  auto& s = *impl_;
  write_session w(s, control);
  auto found_change = read_change(s, change_id);
  if (!found_change) return std::move(found_change).error();
  if (!found_change->has_value()) {
    return make_error("unknown change id `" + std::string(change_id) + "`: apply returns the change id to roll back", failure_kind::not_found);
  }
  change_record& c = **found_change;
  if (c.rolled_back_millis) {
    return make_error("change `" + std::string(change_id) +
                      "` was already rolled back; a change is rolled back at most once", failure_kind::conflict);
  }
  // No trim runs while the change's records are read (lock order: writer, then trim).
  std::lock_guard<std::mutex> no_trim(s.trim_lock);
  if (c.last_seq >= c.first_seq && c.first_seq <= s.trimmed_through.load()) {
    return trimmed_error(s, c.first_seq, "change `" + std::string(change_id) +
                                             "` is older than the op-log keeps, so it cannot be rolled back; "
                                             "nothing was rolled back");
  }
  auto found = w.collection(c.collection, false);
  if (!found) return std::move(found).error();
  if (*found == nullptr) {
    return make_error("collection " + quoted_name(c.collection) + " of change `" + std::string(change_id) +
                      "` no longer exists; nothing was rolled back", failure_kind::not_found);
  }
  const std::uint32_t coll_id = (**found).id;

  // The before images, from the change's own op-log records.
  std::map<std::string, std::string> before;  // keystring(_id) -> stored BSON
  {
    std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(rocksdb::ReadOptions(), s.oplog));
    for (it->Seek(oplog_key(c.first_seq)); it->Valid() && c.last_seq >= c.first_seq; it->Next()) {
      auto seq = get_u64(it->key().ToStringView());
      if (!seq || *seq > c.last_seq) break;
      const std::string_view rec = it->value().ToStringView();
      value id;
      if (!bson_get_field(rec, "_id", id)) {
        return make_error("corrupt op-log record " + std::to_string(*seq) + ": it has no _id; nothing was rolled back (run verify)",
                          failure_kind::corrupt);
      }
      before[encode_key(id)] = std::string(raw_member(rec, "before"));
    }
    if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  }
  std::vector<value> changed, deleted;
  std::vector<staged_write> writes;
  std::uint64_t checked = 0;
  for (const auto& e : c.docs) {
    if (checked++ % k_poll_every == 0) {
      if (auto pl = poll(control, checked, c.docs.size()); !pl) return std::move(pl).error();
    }
    std::string key = doc_key(coll_id, e.id);
    std::string current;
    auto got = s.db->Get(rocksdb::ReadOptions(), s.docs, key, &current);
    if (got.IsNotFound()) {
      deleted.push_back(e.id);
      continue;
    }
    if (!got.ok()) return storage_error(s.path, "read", got);
    if (content_hash(current) != e.after) {
      changed.push_back(e.id);
      continue;
    }
    auto image = before.find(key.substr(4));
    if (image == before.end() || image->second.empty() || content_hash(image->second) != e.before) {
      // Written in the change's own batch, so missing or different means damaged on disk.
      return make_error("the op-log lacks the before image of _id " + to_json(e.id) + " for change `" +
                            std::string(change_id) + "` (missing or corrupt); nothing was rolled back (run verify)",
                        failure_kind::corrupt);
    }
    auto restored = from_bson(image->second);
    if (!restored) return corrupt_document(c.collection, std::string_view(key).substr(4), restored.error());
    if (auto v = w.validate(**found, *restored); !v) {
      return make_error(v.error().message + "; nothing was rolled back", v.error().kind);  // validation
    }
    writes.push_back({std::move(key), e.id, std::move(current), image->second});
  }
  if (!changed.empty() || !deleted.empty()) {
    return make_error("change `" + std::string(change_id) + "` cannot be rolled back, nothing was written: " +
                      conflict_text({{"changed after the apply", changed}, {"deleted after the apply", deleted}}), failure_kind::conflict);
  }

  w.mark_change(std::string(change_id), true);
  if (auto sw = stage_writes(w, **found, writes, "nothing was rolled back"); !sw) return std::move(sw).error();
  c.rolled_back_millis = now_millis();
  c.rolled_back_batch = w.batch_id();
  if (auto m = put_meta(w, std::string(k_meta_change_prefix) + std::string(change_id), encode_change(c)); !m) {
    return std::move(m).error();
  }
  if (auto commit = w.commit(); !commit) return std::move(commit).error();
  return rollback_result{std::string(change_id), writes.size()};
}

}  // namespace omgdb::engine
