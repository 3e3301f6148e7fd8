// omgdb engine — plan_update: an update computed without writing documents.
//
// The plan is computed on a write session (its writer lock: it sees a state no write is
// halfway through) and persisted as one meta record, `plan/<token>`, that the session
// commits with sync = true. It
// holds the matched `_id`s with a fingerprint of each document's stored BSON, so apply can
// tell exactly which documents changed since. A plan is not data: it is written outside the
// op-log and is not part of dump().
#include <chrono>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/update/update.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

const value* field_of(const document& d, std::string_view name) { return find_field(d, name); }

std::string text_field(const document& d, std::string_view name) {
  const value* v = field_of(d, name);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

std::uint64_t u64_field(const document& d, std::string_view name) {
  const value* v = field_of(d, name);
  return v != nullptr && v->is_int64() ? static_cast<std::uint64_t>(v->as_int64()) : 0;
}

std::int64_t millis_field(const document& d, std::string_view name) {
  const value* v = field_of(d, name);
  return v != nullptr && std::holds_alternative<date_time>(v->raw()) ? std::get<date_time>(v->raw()).millis : 0;
}

value fp_value(std::uint64_t fp) { return value(static_cast<std::int64_t>(fp)); }

}  // namespace

result<std::string> encode_plan(const plan_record& p) {
  array matches;
  matches.reserve(p.matches.size());
  for (const auto& [id, fp] : p.matches) matches.push_back(document{{"_id", id}, {"fp", fp_value(fp)}});
  document d{{"collection", p.collection},          {"filter", p.filter},
             {"update", p.update},                  {"arrayFilters", p.array_filters},
             {"matches", std::move(matches)},       {"created", date_time{p.created_millis}}};
  if (p.applied) d.push_back(field{"applied", *p.applied});
  return to_bson(d);
}

result<std::optional<plan_record>> read_plan(const store::impl& s, std::string_view token) {
  std::string bytes;
  auto st = s.db->Get(rocksdb::ReadOptions(), s.meta, std::string(k_meta_plan_prefix) + std::string(token), &bytes);
  if (st.IsNotFound()) return std::optional<plan_record>{};
  if (!st.ok()) return storage_error(s.path, "read", st);
  auto d = from_bson(bytes);
  if (!d) return make_error("plan `" + std::string(token) + "` is corrupt: " + d.error().message, failure_kind::corrupt);
  plan_record p;
  p.collection = text_field(*d, "collection");
  if (const value* f = field_of(*d, "filter"); f != nullptr && f->is_document()) p.filter = f->as_document();
  if (const value* u = field_of(*d, "update"); u != nullptr && u->is_document()) p.update = u->as_document();
  if (const value* a = field_of(*d, "arrayFilters"); a != nullptr && a->is_array()) p.array_filters = a->as_array();
  if (const value* m = field_of(*d, "matches"); m != nullptr && m->is_array()) {
    for (const auto& item : m->as_array()) {
      if (!item.is_document()) return make_error("plan `" + std::string(token) + "` is corrupt: bad match entry", failure_kind::corrupt);
      const value* id = field_of(item.as_document(), "_id");
      if (id == nullptr) return make_error("plan `" + std::string(token) + "` is corrupt: match without _id", failure_kind::corrupt);
      p.matches.emplace_back(*id, u64_field(item.as_document(), "fp"));
    }
  }
  p.created_millis = millis_field(*d, "created");
  if (const value* a = field_of(*d, "applied"); a != nullptr && a->is_string()) p.applied = a->as_string();
  return std::optional<plan_record>(std::move(p));
}

status plan_scan(const store::impl& s, const catalog_entry& c, const scan_control& control,
                 const std::function<result<bool>(plan_doc&)>& visit) {
  const std::string upper = docs_prefix(c.id + 1);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(ro, s.docs));
  std::uint64_t seen = 0;
  for (it->Seek(docs_prefix(c.id)); it->Valid(); it->Next()) {
    if (seen % k_poll_every == 0) {
      if (auto p = poll(control, seen, c.documents); !p) return p;
    } else if (cancelled(control)) {
      return make_error("cancelled", failure_kind::cancelled);
    }
    ++seen;
    plan_doc d{it->key().ToString(), it->value().ToString(), {}};
    auto doc = from_bson(d.bytes);
    if (!doc) return corrupt_document(c.name, std::string_view(d.key).substr(4), doc.error());
    d.doc = std::move(*doc);
    auto go = guard_match([&] { return visit(d); });  // a filter's run-time error stops the scan
    if (!go) return std::move(go).error();
    if (!*go) break;
  }
  if (!it->status().ok()) return storage_error(s.path, "read", it->status());
  return {};
}

std::string id_list(const std::vector<value>& ids, std::size_t max_named) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < max_named; ++i) {
    if (i > 0) out += ", ";
    out += to_json(ids[i]);
  }
  if (ids.size() > max_named) out += " and " + std::to_string(ids.size() - max_named) + " more";
  return out;
}

}  // namespace detail

using namespace detail;

result<store::plan_result> store::plan_update(std::string_view collection, const plan_request& request,
                                              const scan_control& control) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto match = filter::compile(request.filter);
  if (!match) return make_error("filter: " + match.error().message, match.error().kind);
  auto spec = update_spec::compile(request.update, request.array_filters);
  if (!spec) return std::move(spec).error();
  const bool positional = spec->uses_positional();

  auto& s = *impl_;
  write_session w(s, control);  // the plan sees a state no write is halfway through
  auto found = w.existing(collection);
  if (!found) return std::move(found).error();

  plan_record plan{std::string(collection), request.filter, request.update, request.array_filters, {}, 0, {}};
  plan.created_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  plan_result out;
  auto st = plan_scan(s, **found, control, [&](plan_doc& d) -> result<bool> {
    filter::match_details details;
    if (!(positional ? match->matches(d.doc, details) : match->matches(d.doc))) return true;
    const value* id = find_field(d.doc, "_id");
    if (id == nullptr) return corrupt_document(collection, std::string_view(d.key).substr(4), make_error("no _id"));
    if (++out.matched > plan_result::k_max_matches) {
      return make_error("more than " + std::to_string(plan_result::k_max_matches) +
                        " documents match; a plan holds at most that many. Narrow the filter", failure_kind::limit_exceeded);
    }
    update_apply_options options;
    options.positional = positional ? &details : nullptr;
    options.now_millis = plan.created_millis;
    auto next = spec->apply(d.doc, options);
    if (!next) return make_error(next.error().message + " (document with _id " + to_json(*id) + ")", next.error().kind);
    if (next->changed) {
      if (auto r = check_document_rules(next->doc); !r) {
        return make_error(r.error().message + " (document with _id " + to_json(*id) + ")", r.error().kind);
      }
      if (auto v = w.validate(**found, next->doc); !v) return std::move(v).error();  // validation
      ++out.would_modify;
    }
    plan.matches.emplace_back(*id, content_hash(d.bytes));
    if (out.sample.size() < plan_result::k_sample_size) {
      out.sample.push_back(plan_sample{d.doc, next->changed ? std::move(next->doc) : d.doc});
    }
    return true;
  });
  if (!st) return std::move(st).error();

  auto bytes = encode_plan(plan);
  if (!bytes) return make_error("the plan is too large to store (" + bytes.error().message + "); narrow the filter", failure_kind::limit_exceeded);
  out.token = random_hex128();
  // Not op-logged: the session commits it without advancing the sequence.
  if (auto p = w.batch().put(s.meta, std::string(k_meta_plan_prefix) + out.token, *bytes); !p) {
    return std::move(p).error();
  }
  if (auto c = w.commit(); !c) return std::move(c).error();
  return out;
}

}  // namespace omgdb::engine
