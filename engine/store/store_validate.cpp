// omgdb engine — define_collection, validate and the write-path rules check
// (docs/validation.md). The spec is stored as given (meta "rules/" + u32 id) and compiled on
// use; compiled rules are cached per thread by the spec's bytes, so a cache entry can never
// be stale: new rules are new bytes.
#include <unordered_map>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/query/validation.hpp"

namespace omgdb::engine {

using namespace detail;

namespace detail {

std::string rules_key(std::uint32_t collection_id) {
  std::string k(k_meta_rules_prefix);
  put_u32(k, collection_id);
  return k;
}

namespace {

constexpr std::size_t k_rules_cache_size = 32;

// The compiled rules of a stored spec, from a small per-thread cache keyed by the bytes.
result<std::shared_ptr<const validation::rules>> compiled(const std::string& bytes) {
  thread_local std::unordered_map<std::string, std::shared_ptr<const validation::rules>> cache;
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  auto spec = from_bson(bytes);
  if (!spec) return make_error("stored validation rules do not decode: " + spec.error().message, spec.error().kind);
  auto r = validation::rules::compile(*spec);
  if (!r) return make_error("stored validation rules do not compile: " + r.error().message, r.error().kind);
  if (cache.size() >= k_rules_cache_size) cache.clear();
  auto shared = std::make_shared<const validation::rules>(std::move(*r));
  cache.emplace(bytes, shared);
  return shared;
}

// The stored spec bytes of collection `id`, or nullopt.
result<std::optional<std::string>> read_rules(const store::impl& s, const rocksdb::ReadOptions& ro,
                                              std::uint32_t id) {
  std::string bytes;
  auto st = s.db->Get(ro, s.meta, rules_key(id), &bytes);
  if (st.IsNotFound()) return std::optional<std::string>();
  if (!st.ok()) return storage_error(s.path, "read", st);
  return std::optional<std::string>(std::move(bytes));
}

std::string id_text(const document& doc) {
  const value* id = find_field(doc, "_id");
  return id != nullptr ? to_json(*id) : std::string("(none)");
}

}  // namespace

status check_rules(const store::impl& s, const catalog_entry& c, const document& doc) {
  auto bytes = read_rules(s, rocksdb::ReadOptions(), c.id);
  if (!bytes) return std::move(bytes).error();
  if (!bytes->has_value()) return {};
  auto r = compiled(**bytes);
  if (!r) return std::move(r).error();
  auto v = (*r)->first_violation(doc);
  if (!v) {
    return make_error("document _id " + id_text(doc) + " could not be checked against the validation rules of " +
                      quoted_name(c.name) + ": " + v.error().message, v.error().kind);
  }
  if (!v->has_value()) return {};
  return make_error("document _id " + id_text(doc) + " breaks the validation rules of " +
                    quoted_name(c.name) + ": " + (*v)->message);
}

}  // namespace detail

namespace {

// The unique indexes spec.unique asks for: a field name, or an array of them (compound).
result<std::vector<store::index_spec>> unique_specs(const document& spec) {
  const document* root = &spec;
  if (const value* js = find_field(spec, "$jsonSchema"); js != nullptr && js->is_document()) root = &js->as_document();
  std::vector<store::index_spec> out;
  const value* u = find_field(*root, "unique");
  if (u == nullptr || !u->is_array()) return out;
  for (const auto& e : u->as_array()) {
    store::index_spec one;
    one.unique = true;
    if (e.is_string()) one.fields.push_back({e.as_string(), false});
    if (e.is_array()) {
      for (const auto& p : e.as_array()) {
        if (p.is_string()) one.fields.push_back({p.as_string(), false});
      }
    }
    if (auto n = normalize_spec(one); !n) return make_error("spec.unique: " + n.error().message, n.error().kind);
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace

result<store::define_result> store::define_collection(std::string_view collection,
                                                      const document& spec) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto rules = validation::rules::compile(spec);
  if (!rules) return std::move(rules).error();
  auto bytes = to_bson(spec);
  if (!bytes) return std::move(bytes).error();
  auto& s = *impl_;
  write_session w(s);
  auto found = w.collection(collection, true);
  if (!found) return std::move(found).error();
  const catalog_entry& entry = **found;
  define_result out;
  out.created = w.created(entry);
  // spec.unique: unique indexes, built in this same atomic batch (existing ones are kept).
  bool new_indexes = false;
  if (auto u = unique_specs(spec); !u) {
    return std::move(u).error();
  } else if (!u->empty()) {
    auto next_id = read_next_index_id(s);
    if (!next_id) return std::move(next_id).error();
    for (auto& one : *u) {
      auto staged = stage_index(w, entry, out.created, std::move(one), false, *next_id, {});
      if (!staged) return make_error("spec.unique: " + staged.error().message, staged.error().kind);
      new_indexes = new_indexes || staged->created;
    }
  }
  auto old = read_rules(s, rocksdb::ReadOptions(), entry.id);
  if (!old) return std::move(old).error();
  const std::string before = old->value_or("");
  out.removed = spec.empty();
  if (out.removed) {
    if (before.empty() && !out.created) return out;  // nothing to remove
    if (auto d = w.batch().del(s.meta, rules_key(entry.id)); !d) return std::move(d).error();
  } else {
    if (before == *bytes) {  // the same rules: nothing to write but new indexes
      if (new_indexes) {
        if (auto c = w.commit(); !c) return std::move(c).error();
      }
      return out;
    }
    if (auto p = w.batch().put(s.meta, rules_key(entry.id), *bytes); !p) return std::move(p).error();
  }
  if (!before.empty() || !out.removed) {
    if (auto l = w.log("define_collection", collection, nullptr, before, out.removed ? "" : *bytes); !l) {
      return std::move(l).error();
    }
  }
  if (auto c = w.commit(); !c) return std::move(c).error();
  return out;
}

result<std::optional<document>> store::collection_rules(std::string_view collection) const {
  read_view view(*impl_);
  auto entry = view.collection(collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) return std::optional<document>();
  auto bytes = read_rules(*impl_, view.options(), (*entry)->id);
  if (!bytes) return std::move(bytes).error();
  if (!bytes->has_value()) return std::optional<document>();
  auto spec = from_bson(**bytes);
  if (!spec) return std::move(spec).error();
  return std::optional<document>(std::move(*spec));
}

result<store::validate_report> store::validate(std::string_view collection, std::size_t max_documents,
                                               const scan_control& control) const {
  read_view view(*impl_);
  auto entry = view.existing(collection);
  if (!entry) return std::move(entry).error();
  auto bytes = read_rules(*impl_, view.options(), entry->id);
  if (!bytes) return std::move(bytes).error();
  if (!bytes->has_value()) {
    return make_error("collection " + quoted_name(collection) +
                      " has no validation rules: define them with define_collection", failure_kind::not_found);
  }
  auto rules = compiled(**bytes);
  if (!rules) return std::move(rules).error();
  validate_report report;
  std::optional<failure> unchecked;  // a document the rules could not decide: the error
  collection_scan scan(*impl_, view.snapshot(), collection, *entry, control);
  auto st = scan.run(nullptr, [&](document&& doc) {
    ++report.checked;
    auto found = (*rules)->check(doc, k_validate_max_reasons);
    if (!found) {
      unchecked = make_error("document _id " + id_text(doc) + " could not be checked: " + found.error().message, found.error().kind);
      return false;
    }
    if (found->empty()) return true;
    ++report.violating;
    if (report.documents.size() < max_documents) {
      validate_report::entry e;
      if (const value* id = find_field(doc, "_id")) e.id = *id;
      for (auto& v : *found) e.reasons.push_back(std::move(v.message));
      report.documents.push_back(std::move(e));
    }
    return true;
  });
  if (!st) return std::move(st).error();
  if (unchecked) return std::move(*unchecked);
  return report;
}

}  // namespace omgdb::engine
