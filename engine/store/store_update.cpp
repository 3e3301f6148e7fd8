// omgdb engine — update_one, update_many, delete_many, find_one_and_update.
//
// Each call compiles its filter and update and runs on one write_session (the writer lock,
// documents in `_id` order, bounds and the write budget checked as it goes), committed once.
// Any error before the commit leaves the database untouched.
#include "engine/value/ejson.hpp"
#include "engine/query/filter.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/update/update.hpp"
#include "engine/update/update_raw.hpp"

namespace omgdb::engine {
namespace detail {
namespace {

failure scanned_too_many(const write_bounds& b) {
  return make_error("more than " + b.scanned_name + " (" + std::to_string(*b.max_scanned) +
                    ") documents would be scanned; nothing was written", failure_kind::limit_exceeded);
}

status check_mutations(const write_session& w, const write_bounds& b, std::string_view verb) {
  if (b.max_mutations && w.mutations() - b.mutations_base > *b.max_mutations) {
    return make_error("more than " + b.mutations_name + " (" + std::to_string(*b.max_mutations) +
                      ") documents would be " + std::string(verb) + "; nothing was written", failure_kind::limit_exceeded);
  }
  return {};
}

// The `_id` a filter pins by equality, when a point lookup is exact for it.
const value* point_of(const filter& f) {
  const value* id = f.id_equality();
  if (id == nullptr || id->is_array() || std::holds_alternative<regex>(id->raw())) return nullptr;
  return id;
}

failure in_document(const session_doc& d, const failure& f) {
  const value* id = find_field(d.doc, "_id");
  return make_error(f.message + " (document with _id " + (id != nullptr ? to_json(*id) : "?") + ")", f.kind);
}

}  // namespace

result<store::update_result> run_update(write_session& w, std::string_view collection,
                                        const store::update_request& request, bool many,
                                        const write_bounds& bounds,
                                        store::find_and_update_result* images) {
  auto match = filter::compile(request.filter);
  if (!match) return make_error("filter: " + match.error().message, match.error().kind);
  auto spec = update_spec::compile(request.update, request.array_filters);
  if (!spec) return std::move(spec).error();
  if (many && request.upsert_document) return make_error("update_many does not upsert");
  auto c = w.collection(collection, false);
  if (!c) return std::move(c).error();

  store::update_result out;
  const bool positional = spec->uses_positional();
  if (*c != nullptr) {
    // The byte path (update_raw.hpp) when nothing needs the decoded documents: no
    // validation rules, no indexes, no images to return. It declines, document by document,
    // whatever it cannot do exactly as the decoding path does.
    std::optional<raw_updater> raw;
    if (images == nullptr) raw = raw_updater::make(*spec);
    if (raw) {
      auto bare = w.bare(**c);
      if (!bare) return std::move(bare).error();
      if (!*bare) raw.reset();
    }
    std::uint64_t scanned = 0;
    // One document from the match on, decoded.
    auto decoded = [&](session_doc& d) -> result<bool> {
      filter::match_details details;
      if (!(positional ? match->matches(d.doc, details) : match->matches(d.doc))) return true;
      ++out.matched;
      update_apply_options options;
      options.positional = positional ? &details : nullptr;
      options.now_millis = w.now_millis();
      auto next = spec->apply(d.doc, options);
      if (!next) return in_document(d, next.error());
      if (next->changed) {
        auto written = w.overwrite(**c, d, next->doc, "update");
        if (!written) return in_document(d, written.error());
        ++out.modified;  // not a no-op (update_outcome::changed), even if the bytes came out the same
        if (auto m = check_mutations(w, bounds, "modified"); !m) return std::move(m).error();
      }
      if (images != nullptr && !images->before) {
        images->before = d.doc;
        images->after = next->changed ? std::move(next->doc) : d.doc;
      }
      return many;
    };
    // What the scan does when it decodes (it does not while the byte path runs).
    auto decode = [&](session_doc& d) -> status {
      auto doc = from_bson(d.bytes);
      if (!doc) return corrupt_document((*c)->name, std::string_view(d.key).substr(4), doc.error());
      d.doc = std::move(*doc);
      return {};
    };
    raw_updater::prepared prepared;
    std::string next_bytes;
    const bool everything = match->matches_everything();
    auto st = w.scan(**c, point_of(*match), [&](session_doc& d) -> result<bool> {
      const bool sound = raw && raw->prepare(d.bytes, prepared);
      if (raw && !sound) {  // decoded as the scan would have, corruption reported alike
        if (auto s = decode(d); !s) return std::move(s).error();
      }
      if (bounds.max_scanned && scanned >= *bounds.max_scanned) return scanned_too_many(bounds);
      ++scanned;
      if (!sound) return decoded(d);
      const std::optional<bool> hit = everything ? std::optional<bool>(true) : match->matches_bson(d.bytes);
      if (hit && !*hit) return true;
      if (hit) {
        update_apply_options options;
        options.now_millis = w.now_millis();
        const auto done = raw->finish(prepared, options, next_bytes);
        if (done != raw_updater::outcome::decode) {
          ++out.matched;
          if (done == raw_updater::outcome::changed) {
            auto written = w.overwrite_bytes(**c, d, std::move(next_bytes), "update");
            if (!written) return std::move(written).error();
            ++out.modified;  // as above
            if (auto m = check_mutations(w, bounds, "modified"); !m) return std::move(m).error();
          }
          return many;
        }
      }
      if (auto s = decode(d); !s) return std::move(s).error();
      return decoded(d);
    }, &request.filter, !raw);
    if (!st) return std::move(st).error();
  }
  if (out.matched == 0 && request.upsert_document) {
    update_apply_options options;
    options.inserting = true;
    options.now_millis = w.now_millis();
    auto seeded = spec->apply(*request.upsert_document, options);
    if (!seeded) return make_error("upsertDocument: " + seeded.error().message, seeded.error().kind);
    auto target = w.collection(collection, true);
    if (!target) return std::move(target).error();
    auto id = w.insert(**target, std::move(seeded->doc));
    if (!id) return make_error("upsertDocument: " + id.error().message, id.error().kind);
    out.upserted_id = std::move(*id);
    if (auto m = check_mutations(w, bounds, "modified"); !m) return std::move(m).error();
  }
  return out;
}

result<std::uint64_t> run_delete_many(write_session& w, std::string_view collection,
                                      const document& filter_spec, const write_bounds& bounds) {
  auto match = filter::compile(filter_spec);
  if (!match) return make_error("filter: " + match.error().message, match.error().kind);
  auto c = w.collection(collection, false);
  if (!c) return std::move(c).error();
  if (*c == nullptr) return std::uint64_t{0};
  std::uint64_t scanned = 0;
  std::uint64_t deleted = 0;
  auto st = w.scan(**c, point_of(*match), [&](session_doc& d) -> result<bool> {
    if (bounds.max_scanned && scanned >= *bounds.max_scanned) return scanned_too_many(bounds);
    ++scanned;
    if (!match->matches(d.doc)) return true;
    if (auto r = w.remove(**c, d); !r) return std::move(r).error();
    ++deleted;
    if (auto m = check_mutations(w, bounds, "deleted"); !m) return std::move(m).error();
    return true;
  }, &filter_spec);
  if (!st) return std::move(st).error();
  return deleted;
}

}  // namespace detail

using namespace detail;

namespace {

write_bounds bounds_of(const store::update_request& r) {
  write_bounds b;
  b.max_scanned = r.max_scanned_documents;
  b.max_mutations = r.max_mutations;
  return b;
}

}  // namespace

result<store::update_result> store::update_one(std::string_view collection,
                                               const update_request& request,
                                               const scan_control& control) {
  write_session w(*impl_, control);
  auto r = run_update(w, collection, request, false, bounds_of(request));
  if (!r) return r;
  if (auto c = w.commit(); !c) return std::move(c).error();
  return r;
}

result<store::update_result> store::update_many(std::string_view collection,
                                                const update_request& request,
                                                const scan_control& control) {
  write_session w(*impl_, control);
  w.no_read_back();  // one step, no upsert: nothing reads the session afterwards
  auto r = run_update(w, collection, request, true, bounds_of(request));
  if (!r) return r;
  if (auto c = w.commit(); !c) return std::move(c).error();
  return r;
}

result<std::uint64_t> store::delete_many(std::string_view collection, const delete_request& request,
                                         const scan_control& control) {
  write_session w(*impl_, control);
  w.no_read_back();  // one step: nothing reads the session afterwards
  write_bounds b;
  b.max_scanned = request.max_scanned_documents;
  b.max_mutations = request.max_mutations;
  auto r = run_delete_many(w, collection, request.filter, b);
  if (!r) return r;
  if (auto c = w.commit(); !c) return std::move(c).error();
  return r;
}

result<store::find_and_update_result> store::find_one_and_update(std::string_view collection,
                                                                 const update_request& request,
                                                                 const scan_control& control) {
  if (request.upsert_document) return make_error("find_one_and_update does not upsert");
  write_session w(*impl_, control);
  find_and_update_result images;
  auto r = run_update(w, collection, request, false, bounds_of(request), &images);
  if (!r) return std::move(r).error();
  if (auto c = w.commit(); !c) return std::move(c).error();
  return images;
}

}  // namespace omgdb::engine
