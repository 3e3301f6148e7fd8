// omgdb vectors — vsync (embed what is missing or stale, remove what is orphaned, in atomic
// batches through the write path) and vstale (what vsync would embed).
#include <set>

#include "engine/index/keystring.hpp"
#include "engine/vector/vector_detail.hpp"

namespace omgdb::engine::vector {

using namespace detail;
using engine::detail::session_doc;
using engine::detail::store_access;
using engine::detail::write_session;

namespace {

status check_field(std::string_view field) {
  if (field.empty() || field.front() == '.' || field.back() == '.' || field.find("..") != std::string_view::npos ||
      field.front() == '$') {
    return make_error("field `" + std::string(field) + "` is not a dotted field path");
  }
  if (field == "_id") return make_error("field `_id` holds no text to embed");
  return {};
}

status check_source(std::string_view collection) {
  if (is_vectors_collection(collection)) {
    return make_error("collection `" + std::string(collection) + "` is itself a vectors collection; name the collection whose text it embeds");
  }
  return {};
}

// The model a vsync without `model` uses for a field with no binding yet (seed 000 calls
// vsync(path, collection, field)): the configured default, else the only installed model.
// An error only when that is ambiguous: none configured and several (or no) models installed.
result<std::string> implied_model(std::string_view collection, std::string_view field,
                                  const embed::model_registry& models) {
  if (!models.default_model().empty()) return models.default_model();
  OMGDB_TRY(list, models.list());
  if (list.size() == 1) return list.front().name;
  std::string msg = "no model is bound to field `" + std::string(field) + "` of `" + std::string(collection) + "` and ";
  if (list.empty()) {
    return make_error(msg + "none is installed in " + models.directory().string() +
                          ": install one with `omgdb model add NAME PATH`",
                      failure_kind::not_found);
  }
  msg += "no default model is configured ([vectors] default_model), so which of the " + std::to_string(list.size()) +
         " installed models to use is ambiguous: run vsync with `model` set to one of";
  for (const auto& m : list) msg += " `" + m.name + "`";
  msg += ", or set [vectors] default_model";
  return make_error(msg);
}

struct work {
  value id;
  bool remove = false;  // an orphan or a document without text
};

}  // namespace

result<sync_result> sync(store& s, const embed::model_registry& models, const sync_request& request,
                         const scan_control& control) {
  OMGDB_CHECK(check_source(request.collection));
  OMGDB_CHECK(check_field(request.field));
  auto& impl = store_access::of(s);
  OMGDB_TRY(current, read_binding(s, request.collection, request.field));
  std::string model_name;
  if (request.model) {
    model_name = *request.model;
  } else if (current) {
    model_name = current->model;
  } else {
    OMGDB_TRY(implied, implied_model(request.collection, request.field, models));
    model_name = std::move(implied);
  }
  OMGDB_TRY(model, models.open(model_name));
  const auto& info = model->info();
  sync_result out;
  out.bound = binding{request.field, info.name, info.sha256, info.dim};
  out.rebound = !current || current->model != info.name || current->model_sha256 != info.sha256 || current->dim != info.dim;
  out.bound.generation = current ? current->generation : 0;

  // What to do, decided under one snapshot; each batch re-reads its documents under the
  // writer lock and embeds the text they hold then.
  std::vector<work> pending;
  {
    read_view view(impl);
    OMGDB_TRY(existing, read_field_vectors(impl, view, request.collection, request.field, false, control));
    std::set<std::string> seen;
    OMGDB_CHECK(scan_source(impl, view, request.collection, nullptr, control, [&](document&& d) {
      const value& id = d.front().val;
      std::string key = encode_key(id);
      auto it = existing.rows.find(key);
      auto text = text_at(d, request.field);
      if (!text) {
        ++out.no_text;
        if (it != existing.rows.end()) pending.push_back({id, true});
      } else if (it != existing.rows.end() && fresh(it->second, out.bound, text_hash(*text))) {
        ++out.unchanged;
      } else {
        pending.push_back({id, false});
      }
      seen.insert(std::move(key));
      return true;
    }));
    for (auto& [key, v] : existing.rows) {
      if (seen.count(key) == 0) pending.push_back({v.id, true});
    }
  }

  const std::string vc = vectors_collection(request.collection);
  const std::size_t batch = request.batch == 0 ? k_sync_batch : request.batch;
  std::vector<float> vec(info.dim);
  std::size_t next = 0;
  bool binding_written = !out.rebound;
  while (next < pending.size() || !binding_written) {
    if (control.cancelled != nullptr && control.cancelled->load(std::memory_order_relaxed)) {
      if (out.batches == 0) return make_error("cancelled", failure_kind::cancelled);
      return make_error("cancelled after " + std::to_string(out.batches) + " committed batches (" +
                            std::to_string(out.embedded) + " vectors embedded, " + std::to_string(out.removed) +
                            " removed); run vsync again to continue",
                        failure_kind::cancelled);
    }
    write_session w(impl, control);
    w.allow_vectors();
    OMGDB_TRY(vcol, w.collection(vc, true));
    OMGDB_TRY(src, w.collection(request.collection, false));
    {  // every batch bumps the generation: the cache's stamp (vector_cache.hpp)
      ++out.bound.generation;
      OMGDB_TRY(old, w.get(*vcol, binding_id(request.field)));
      if (old) {
        OMGDB_CHECK(w.overwrite(*vcol, *old, binding_document(out.bound), "replace"));
      } else {
        OMGDB_CHECK(w.insert(*vcol, binding_document(out.bound)));
      }
    }
    std::uint64_t embedded = 0, removed = 0;
    const std::size_t end = std::min(pending.size(), next + batch);
    for (std::size_t i = next; i < end; ++i) {
      const work& job = pending[i];
      OMGDB_TRY(old, w.get(*vcol, vector_id(request.field, job.id)));
      std::optional<session_doc> source;
      if (src != nullptr) {
        OMGDB_TRY(found, w.get(*src, job.id));
        source = std::move(found);
      }
      std::optional<std::string_view> text;
      if (source) text = text_at(source->doc, request.field);
      if (!text) {  // deleted, or no text (now)
        if (old) {
          OMGDB_CHECK(w.remove(*vcol, *old));
          ++removed;
        }
        continue;
      }
      model->embed(*text, vec);
      document next_doc = vector_document(request.field, job.id, out.bound, text_hash(*text), vec);
      if (old) {
        OMGDB_TRY(changed, w.overwrite(*vcol, *old, next_doc, "replace"));
        if (changed) ++embedded;
      } else {
        OMGDB_CHECK(w.insert(*vcol, std::move(next_doc)));
        ++embedded;
      }
    }
    OMGDB_CHECK(w.commit());
    binding_written = true;
    out.embedded += embedded;
    out.removed += removed;
    ++out.batches;
    next = end;
    if (control.progress) control.progress(next, pending.size());
  }
  return out;
}

result<stale_result> stale(const store& s, std::string_view collection, std::string_view field, std::size_t limit,
                           const scan_control& control) {
  OMGDB_CHECK(check_source(collection));
  OMGDB_CHECK(check_field(field));
  const auto& impl = store_access::of(const_cast<store&>(s));
  read_view view(impl);
  OMGDB_TRY(existing, read_field_vectors(impl, view, collection, field, false, control));
  stale_result out;
  out.bound = existing.bound;
  OMGDB_CHECK(scan_source(impl, view, collection, nullptr, control, [&](document&& d) {
    const value& id = d.front().val;
    auto text = text_at(d, field);
    if (!text) return true;
    auto it = existing.rows.find(encode_key(id));
    bool listed = false;
    if (it == existing.rows.end()) {
      ++out.missing;
      listed = true;
    } else if (!existing.bound || !fresh(it->second, *existing.bound, text_hash(*text))) {
      ++out.stale;
      listed = true;
    } else {
      ++out.fresh;
    }
    if (listed) {
      if (out.ids.size() < limit) {
        out.ids.push_back(id);
      } else {
        out.truncated = true;
      }
    }
    return true;
  }));
  return out;
}

}  // namespace omgdb::engine::vector
